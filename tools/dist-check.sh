#!/bin/sh
# Checks a release tarball the way a distribution's build service uses it:
# unpacked anywhere, with an empty CARGO_HOME and no network, `make`,
# `make install` and the tests of TARGET (test-offline: the Rust and C
# tests; test-offline-c: the C tests) must succeed.
# usage: dist-check.sh build/dist/crio-pin-VERSION.tar.gz TARGET
set -eu
tarball=$(readlink -f "$1")
tests=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/crio-pin-dist.XXXXXX")
trap 'rm -rf "$work"' EXIT
(cd "$(dirname "$tarball")" && sha256sum -c --quiet "$(basename "$tarball").sha256")
tar -xzf "$tarball" -C "$work"
src=$(echo "$work"/crio-pin-*)
export CARGO_HOME="$work/cargo-home" CARGO_NET_OFFLINE=true
unset CARGO_TARGET_DIR
mkdir -p "$CARGO_HOME"
cd "$src"
step() { echo "== dist-check: $*"; start=$(date +%s); "$@"; echo "   ($(( $(date +%s) - start )) s)"; }
step make --no-print-directory build
step make --no-print-directory install DESTDIR="$work/root" PREFIX=/usr
test -f "$work/root/usr/include/crio_pin.h" || { echo "dist-check: make install installed no header" >&2; exit 1; }
step make --no-print-directory "$tests"
[ -z "$(ls -A "$CARGO_HOME/registry" 2>/dev/null)" ] || {
    echo "dist-check: cargo downloaded into CARGO_HOME/registry: the vendored crates are incomplete" >&2; exit 1; }
echo "dist-check: $(basename "$tarball") builds, installs and passes $tests offline"
