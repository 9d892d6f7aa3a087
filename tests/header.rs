//! The committed header must be what build.rs generates from src/ffi.rs.
//!
//! `make header` (CRIO_PIN_BLESS=1) rewrites include/crio_pin.h from the
//! fresh generation instead of failing.

use std::path::Path;

const GENERATED: &str = include_str!(concat!(env!("OUT_DIR"), "/crio_pin.h"));

#[test]
fn committed_header_matches_generation() {
    let committed_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("include/crio_pin.h");
    if std::env::var_os("CRIO_PIN_BLESS").is_some() {
        std::fs::write(&committed_path, GENERATED).expect("write include/crio_pin.h");
        return;
    }
    let committed = std::fs::read_to_string(&committed_path).unwrap_or_default();
    assert!(
        committed == GENERATED,
        "include/crio_pin.h differs from what cbindgen generates from src/ffi.rs; \
         run `make header` and commit the result"
    );
}

#[test]
fn header_declares_the_version_of_the_crate() {
    let version = env!("CARGO_PKG_VERSION");
    let mut parts = version.split('.');
    for name in ["MAJOR", "MINOR", "PATCH"] {
        let want = format!("#define CRIO_PIN_VERSION_{name} {}", parts.next().unwrap());
        assert!(GENERATED.contains(&want), "header lacks {want:?}");
    }
}
