#!/bin/sh
# The Rust tests of the FFI layer (src/ffi.rs) under Miri: undefined
# behaviour, leaks and pointer misuse in the C entry points.
set -eu
cd "$(dirname "$0")/.."
. tools/nightly.sh
nightly_ready miri rust-src || exit 0
MIRIFLAGS="${MIRIFLAGS:--Zmiri-strict-provenance}" \
    cargo +nightly miri test -q --lib ffi:: --target-dir target/miri
