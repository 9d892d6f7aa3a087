//! Sets the soname of the cdylib cargo builds (the instrumented TSan build,
//! tools/tsan.sh; the installed libcrio_pin.so is linked by `make build`).
//! The C header is not generated here: `tests/header.rs` generates it from
//! `src/ffi.rs` with cbindgen (a dev-dependency), so building the crate
//! compiles only what matching needs.

fn main() {
    // Consumers link against libcrio_pin.so.0: the ABI's major version.
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcrio_pin.so.0");
    println!("cargo:rerun-if-changed=build.rs");
}
