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

    let mut config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml"))
        .expect("cbindgen.toml is readable and valid");
    let version = |part: &str| env::var(format!("CARGO_PKG_VERSION_{part}")).unwrap();
    config.after_includes = Some(format!(
        "\n#define CRIO_PIN_VERSION_MAJOR {}\n#define CRIO_PIN_VERSION_MINOR {}\n#define CRIO_PIN_VERSION_PATCH {}\n",
        version("MAJOR"),
        version("MINOR"),
        version("PATCH"),
    ));
    cbindgen::Builder::new()
        // Only the FFI module is the C API; the safe core stays out of it.
        .with_src(crate_dir.join("src/ffi.rs"))
        .with_config(config)
        .generate()
        .expect("cbindgen generates the header from src/ffi.rs")
        .write_to_file(&out);

    // Consumers link against libcrio_pin.so.0: the ABI's major version.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcrio_pin.so.0");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=cbindgen.toml");
}
