//! The committed header must be what cbindgen generates from src/ffi.rs.
//!
//! `make header` (CRIO_PIN_BLESS=1) rewrites include/crio_pin.h from the
//! fresh generation instead of failing. cbindgen is a dev-dependency: only
//! this test runs it, so building the library does not compile it.

use std::path::{Path, PathBuf};

/// The header cbindgen makes from src/ffi.rs and cbindgen.toml, made fit
/// for C89 and for C readers.
fn generated() -> String {
    let crate_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut config =
        cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml is readable and valid");
    config.after_includes = Some(format!(
        "\n#define CRIO_PIN_VERSION_MAJOR {}\n#define CRIO_PIN_VERSION_MINOR {}\n#define CRIO_PIN_VERSION_PATCH {}\n",
        env!("CARGO_PKG_VERSION_MAJOR"),
        env!("CARGO_PKG_VERSION_MINOR"),
        env!("CARGO_PKG_VERSION_PATCH"),
    ));
    let mut header = Vec::new();
    cbindgen::Builder::new()
        // Only the FFI module is the C API; the safe core stays out of it.
        .with_src(crate_dir.join("src/ffi.rs"))
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header from src/ffi.rs")
        .write(&mut header);
    // cbindgen writes its C++ guards with `//` comments, which C89 rejects
    // after #endif (the header must compile as C89: ctest checks it), and
    // negative or all-ones constants bare; C wants them typed and in
    // parentheses. Rustdoc's "# Safety" heading reads as prose in C.
    String::from_utf8(header)
        .expect("cbindgen writes UTF-8")
        .replace("#endif // __cplusplus", "#endif /* __cplusplus */")
        .replace("#endif  // __cplusplus", "#endif /* __cplusplus */")
        .replace("}  // extern \"C\"", "}  /* extern \"C\" */")
        .replace("#define CRIO_PIN_MATCH_FAILED -2\n", "#define CRIO_PIN_MATCH_FAILED ((ptrdiff_t)-2)\n")
        .replace("#define CRIO_PIN_EACH_FAILED ~0\n", "#define CRIO_PIN_EACH_FAILED ((size_t)-1)\n")
        .replace(" # Safety\n ", " Safety: ")
}

#[test]
fn committed_header_matches_generation() {
    let committed_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/crio_pin.h");
    let generated = generated();
    if std::env::var_os("CRIO_PIN_BLESS").is_some() {
        std::fs::write(&committed_path, &generated).expect("write include/crio_pin.h");
        return;
    }
    let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
    assert!(
        committed == generated,
        "include/crio_pin.h differs from what cbindgen generates from src/ffi.rs; \
         run `make header` and commit the result"
    );
}

#[test]
fn header_declares_the_version_of_the_crate() {
    let generated = generated();
    let version = env!("CARGO_PKG_VERSION");
    let mut parts = version.split('.');
    for name in ["MAJOR", "MINOR", "PATCH"] {
        let want = format!("#define CRIO_PIN_VERSION_{name} {}", parts.next().unwrap());
        assert!(generated.contains(&want), "header lacks {want:?}");
    }
}

#[test]
fn header_has_no_rustdoc_headings() {
    let generated = generated();
    let heading = generated.lines().find(|l| l.trim_start().starts_with("# ") || l.trim_start().starts_with("* #"));
    assert_eq!(heading, None, "a rustdoc heading in the C header");
}
