//! Generates the C header from `src/ffi.rs` and sets the shared object's
//! soname.
//!
//! The header is written to `$OUT_DIR/crio_pin.h`; `make header` copies it to
//! the committed `include/crio_pin.h`, and `tests/header.rs` fails when the
//! two differ. Writing only into OUT_DIR keeps builds from editing the
//! source tree.

use std::env;
use std::path::PathBuf;

fn main() {
    let crate_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap());
    let out = PathBuf::from(env::var("OUT_DIR").unwrap()).join("crio_pin.h");

    let mut config =
        cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("cbindgen.toml is readable and valid");
    let version = |part: &str| env::var(format!("CARGO_PKG_VERSION_{part}")).unwrap();
    config.after_includes = Some(format!(
        "\n#define CRIO_PIN_VERSION_MAJOR {}\n#define CRIO_PIN_VERSION_MINOR {}\n#define CRIO_PIN_VERSION_PATCH {}\n",
        version("MAJOR"),
        version("MINOR"),
        version("PATCH"),
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
    // parentheses.
    let header = String::from_utf8(header)
        .expect("cbindgen writes UTF-8")
        .replace("#endif // __cplusplus", "#endif /* __cplusplus */")
        .replace("#endif  // __cplusplus", "#endif /* __cplusplus */")
        .replace("}  // extern \"C\"", "}  /* extern \"C\" */")
        .replace("#define CRIO_PIN_MATCH_FAILED -2\n", "#define CRIO_PIN_MATCH_FAILED ((ptrdiff_t)-2)\n")
        .replace("#define CRIO_PIN_EACH_FAILED ~0\n", "#define CRIO_PIN_EACH_FAILED ((size_t)-1)\n");
    std::fs::write(&out, header).expect("write the header into OUT_DIR");

    // Consumers link against libcrio_pin.so.0: the ABI's major version.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcrio_pin.so.0");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
}
