#!/bin/sh
# make test-cross: the library on the other processors CRI-O ships for
# (arm64, ppc64le, and s390x, which is big-endian), cross-built and its
# tests run under qemu-user: the engine reads names eight bytes at a time,
# hashes words and picks its search by architecture, and only here do the
# paths other than x86-64's run on another byte order and instruction set.
#
#   sh tools/cross.sh              every architecture below
#   CROSS_ARCHES="s390x" sh tools/cross.sh
#   CROSS_PARTS=nocgo sh tools/cross.sh   only the Go package without cgo
#
# For each, the parts CROSS_PARTS names (default "library nocgo"):
# library, the Rust tests below (cargo test --target, with qemu as cargo's
# runner), then the Go package's cgo backend linked with that
# architecture's libcrio_pin.a and its tests of answers run under qemu
# (go/Makefile, test-cross); nocgo, the Go package's default engine without
# cgo (wasm2go, pure Go: built with CGO_ENABLED=0, it needs qemu-user
# alone) and the same tests of answers under qemu (go/Makefile,
# test-cross-nocgo).
#
# The tools (cross compilers and C libraries, qemu-user, Rust's standard
# library for the target) are checked first; as root with apt-get, the
# missing Debian packages are installed, and rustup adds a missing target.
# What cannot be had is named, with the commands to get it, and the run
# says SKIPPED; with CROSS_REQUIRED=1 (CI) it fails instead.
set -eu
cd "$(dirname "$0")/.."

arches=${CROSS_ARCHES:-aarch64 powerpc64le s390x}
parts=${CROSS_PARTS:-library nocgo}
for part in $parts; do
    case $part in
    library | nocgo) ;;
    *)
        echo "cross.sh: unknown part $part in CROSS_PARTS (library, nocgo)" >&2
        exit 2
        ;;
    esac
done
wants() { case " $parts " in *" $1 "*) return 0 ;; esac; return 1; }
make=${MAKE:-make}
# Every test of the library but its doc examples: the engine's unit tests
# (its shapes, each search and walk, the word tricks), the named semantics
# table, the property tests against the oracles, the other runtimes' rules,
# hostile inputs, compile memory (about 3 minutes under qemu).
rust_tests="--lib --tests"

# facts ARCH: the names each tool gives it.
facts() {
    case $1 in
    aarch64) qemu=qemu-aarch64 debian=arm64 goarch=arm64 ;;
    powerpc64le) qemu=qemu-ppc64le debian=ppc64el goarch=ppc64le ;;
    s390x) qemu=qemu-s390x debian=s390x goarch=s390x ;;
    *)
        echo "cross.sh: unknown architecture $1 (aarch64, powerpc64le, s390x)" >&2
        exit 2
        ;;
    esac
    triple=$1-unknown-linux-gnu
    cc=$1-linux-gnu-gcc
    sysroot=/usr/$1-linux-gnu
}

has_rust_std() { # triple
    ls "$(rustc --print target-libdir --target "$1" 2>/dev/null)"/libstd-*.rlib >/dev/null 2>&1
}

# find_missing: sets the Debian packages and rustup targets not yet here.
packages="" targets=""
find_missing() {
    packages="" targets=""
    ! wants library || command -v cargo >/dev/null 2>&1 || {
        echo "make test-cross: cargo is missing (https://rustup.rs)" >&2
        exit 1
    }
    command -v go >/dev/null 2>&1 || { echo "make test-cross: go is missing (README: What to install)" >&2; exit 1; }
    for arch in $arches; do
        facts "$arch"
        if wants library; then
            command -v "$cc" >/dev/null 2>&1 || packages="$packages gcc-$arch-linux-gnu"
            [ -e "$sysroot/lib/libc.so" ] || packages="$packages libc6-dev-$debian-cross"
        fi
        command -v "$qemu" >/dev/null 2>&1 || case $packages in *qemu-user*) ;; *) packages="$packages qemu-user" ;; esac
        ! wants library || has_rust_std "$triple" || targets="$targets $triple"
    done
}

find_missing
if [ -n "$packages" ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing (as root, with apt-get):$packages"
    # shellcheck disable=SC2086
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $packages >/dev/null; } ||
        echo "make test-cross: apt-get could not install:$packages"
fi
if [ -n "$targets" ] && command -v rustup >/dev/null 2>&1; then
    echo "installing Rust's standard library for:$targets (outside this tree: rustup target add$targets)"
    # shellcheck disable=SC2086
    rustup target add $targets >/dev/null 2>&1 || echo "make test-cross: rustup could not add:$targets"
fi
find_missing
if [ -n "$packages$targets" ]; then
    what=""
    [ -z "$packages" ] || what="apt-get install$packages"
    [ -z "$targets" ] || what="${what:+$what && }rustup target add$targets"
    if [ "${CROSS_REQUIRED:-0}" = 1 ]; then
        echo "FAILED: make test-cross: missing tools (CROSS_REQUIRED=1); run: $what" >&2
        exit 1
    fi
    rerun="make test-cross"
    [ -z "${CROSS_PARTS:-}" ] || rerun="CROSS_PARTS=\"$parts\" $rerun"
    echo "SKIPPED: make test-cross ($parts on $arches under qemu): missing tools; run: $what && $rerun"
    exit 0
fi

seconds() { echo $(($(date +%s) - $1)); }
for arch in $arches; do
    facts "$arch"
    out=$PWD/build/cross/$arch
    mkdir -p "$out"
    if wants nocgo; then
        start=$(date +%s)
        $make -s --no-print-directory -C go test-cross-nocgo GOARCH="$goarch" QEMU="$qemu" CROSS_OUT="$out"
        echo "== cross $arch: the Go package without cgo (wasm2go) passed ($(seconds "$start") s, building included)"
    fi
    wants library || continue
    env_name=$(echo "$triple" | tr 'a-z-' 'A-Z_')
    # Warnings are errors, as clippy makes them on x86-64: code that only
    # this architecture compiles (or leaves unused) is checked here alone.
    export "CARGO_TARGET_${env_name}_LINKER=$cc" "CARGO_TARGET_${env_name}_RUNNER=$qemu -L $sysroot" \
        "CARGO_TARGET_${env_name}_RUSTFLAGS=-D warnings"
    echo "== cross $arch: cargo test --release -p crio-pin --target $triple $rust_tests (under $qemu)"
    start=$(date +%s)
    # shellcheck disable=SC2086
    cargo test -q --release -p crio-pin --target "$triple" $rust_tests
    echo "== cross $arch: the Rust tests passed ($(seconds "$start") s, building included)"
    start=$(date +%s)
    # The C libraries for the target (no LTO: what the test links needs
    # none), with a crio_pin.pc naming them and the tree's header.
    cargo build -q --release --lib --target "$triple"
    $make -s --no-print-directory pc PC="$out/crio_pin.pc" PREFIX="$out" \
        LIBDIR="$PWD/target/$triple/release" INCLUDEDIR="$PWD/include"
    $make -s --no-print-directory -C go test-cross PKG_CONFIG_PATH="$out" GOARCH="$goarch" CC="$cc" \
        QEMU="$qemu -L $sysroot" CROSS_OUT="$out"
    echo "== cross $arch: the Go package's cgo backend passed ($(seconds "$start") s, building included)"
done
echo "make test-cross: the tests of $parts passed on:" $arches
