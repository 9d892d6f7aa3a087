//! Sets the soname of the cdylib cargo builds on Linux (the instrumented
//! TSan build, tools/tsan.sh; the installed libcrio_pin.so is linked by
//! `make build`). Other targets (the WebAssembly module of `make wasm`,
//! macOS) have no soname, and their linkers refuse the flag.
//! The C header is not generated here: `tests/header.rs` generates it from
//! `src/ffi.rs` with cbindgen (a dev-dependency), so building the crate
//! compiles only what matching needs.

fn main() {
    // The target's, not the host's: build scripts run on the host.
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        // Consumers link against libcrio_pin.so.0: the ABI's major version.
        println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libcrio_pin.so.0");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
