#!/bin/sh
# The library for Go without cgo, from one source, two ways: the
# WebAssembly module package criopin embeds (go/criopin/crio_pin.wasm: the
# library's own engine and C ABI, built for wasm32-wasip1 with SIMD), which
# its wazero backend runs; and the same crate built without SIMD (wasm2go
# translates no v128), translated to Go source by wasm2go
# (go/internal/libcriopin/libcriopin.go), which its wasm2go backend
# compiles with the program: no runtime, no machine code made at run time.
#
#   sh tools/wasm.sh build   (make wasm) rebuild go/criopin/crio_pin.wasm and
#                            go/internal/libcriopin/libcriopin.go, and write
#                            the module's size into go/README.md
#   sh tools/wasm.sh check   (make test) rebuild both into target/ and fail
#                            when either differs from the committed one, or
#                            go/README.md states another size
#
# The no-SIMD module is an intermediate (target/wasm-nosimd/), not
# committed: the Go it translates to is, and the check rebuilds it from the
# tree. wasm2go's version is pinned here (wasm2go_version) and named in the
# first line of the Go it writes, so that another version is a difference.
#
# The module is committed (`go get` fetches Go source only), so its build
# must be reproducible: the exact toolchain of Cargo.toml's wasm-toolchain
# (tools/versions.sh wasm; its wasm32-wasip1 standard library is added with
# rustup when missing, which says so), profile.wasm (opt-level 3, LTO, one
# codegen unit, stripped, no debug info), the locked dependencies, and
# every path that could end up in it (the panic locations of this crate and
# of its dependencies) remapped to a fixed name. Nothing in a wasm build
# records a time.
set -eu
cd "$(dirname "$0")/.."
mode=${1:?usage: wasm.sh build|check}
committed=go/criopin/crio_pin.wasm
target=wasm32-wasip1
toolchain=$(sh tools/versions.sh wasm)

command -v rustup >/dev/null 2>&1 || {
    echo "wasm: rustup is missing: the module is built with Rust $toolchain exactly (https://rustup.rs)" >&2
    exit 1
}
if ! rustup run "$toolchain" rustc --version >/dev/null 2>&1; then
    echo "wasm: installing Rust $toolchain, the toolchain that builds $committed (rustup toolchain install)"
    rustup toolchain install --profile minimal "$toolchain"
fi
if ! rustup target list --installed --toolchain "$toolchain" | grep -qx "$target"; then
    echo "wasm: adding the $target standard library to Rust $toolchain (rustup target add)"
    rustup target add --toolchain "$toolchain" "$target"
fi

cargo_home=${CARGO_HOME:-$HOME/.cargo}
# module FEATURES TARGET_DIR: the crate built as a module, with the
# RUSTFLAGS target features FEATURES, into TARGET_DIR (one a flavour, so
# that neither rebuilds the other). RUSTFLAGS with --target apply to the
# module only, not to build scripts.
module() {
    RUSTFLAGS="$1 --remap-path-prefix=$(pwd)=/crio-pin --remap-path-prefix=$cargo_home=/cargo" \
        rustup run "$toolchain" cargo rustc --locked --quiet --lib --crate-type cdylib \
        --profile wasm --target "$target" --target-dir "$2"
}
# simd128: the prefilter's vector search (src/set/prefilter/wasm32.rs) and
# memchr's; wazero compiles it to the machine's SSE or NEON.
module "-C target-feature=+simd128" target/wasm
built=target/wasm/$target/wasm/crio_pin.wasm
# Without simd128 the prefilter takes its word path (portable.rs), as on a
# machine without vectors, and memchr its portable one.
module "" target/wasm-nosimd
nosimd=target/wasm-nosimd/$target/wasm/crio_pin.wasm

# The no-SIMD module translated to Go: one file, package libcriopin, by
# the pinned wasm2go (fetched by the Go toolchain, checked against go.sum's
# database). With -unsafe: a load or store of the module's memory is one
# machine load or store after its bounds check (without it, a second check
# a word: the few-needle word path, made of 8-byte loads, took 2.2 times
# as long on the hand list, 276 ns an image against 125); wasm2go swaps
# the bytes on a big-endian machine (s390x), and reads byte by byte where
# unaligned loads are not allowed. Every access is still bounds checked.
wasm2go_version=v0.4.22
generated=go/internal/libcriopin/libcriopin.go
translate() { # out
    mkdir -p "$(dirname "$1")"
    (cd go && GOFLAGS= go run "github.com/ncruces/wasm2go@$wasm2go_version" -unsafe -pkg libcriopin \
        -o "../$1" "../$nosimd")
}

# go/README.md states the module's size ("with SIMD: N bytes", N grouped
# by commas): the build writes it there, the check fails when it is not
# the committed module's (it went stale twice when it was kept by hand).
readme=go/README.md
stated() { sed -n 's/.*with SIMD: \([0-9,]*\) bytes.*/\1/p' "$readme" | tr -d ,; }
grouped() { printf '%s' "$1" | sed ':a;s/\B[0-9]\{3\}\>/,&/;ta'; }

case $mode in
build)
    cp "$built" "$committed"
    size=$(stat -c %s "$committed")
    sed -i "s/with SIMD: [0-9,]* bytes/with SIMD: $(grouped "$size") bytes/" "$readme"
    if [ "$(stated)" != "$size" ]; then
        echo "wasm: found no one 'with SIMD: N bytes' in $readme to write the size ($size) into" >&2
        exit 1
    fi
    echo "wasm: $committed, $size bytes (stated in $readme), sha256 $(sha256sum "$committed" | cut -c1-16)"
    translate "$generated"
    echo "wasm: $generated, $(wc -l <"$generated") lines, from the module without SIMD" \
        "($(stat -c %s "$nosimd") bytes) by wasm2go $wasm2go_version"
    ;;
check)
    if ! cmp -s "$built" "$committed"; then
        echo "wasm: $committed differs from what Rust $toolchain builds from this tree" \
            "($(stat -c %s "$built") bytes, committed $(stat -c %s "$committed" 2>/dev/null || echo 0)):" \
            "run 'make wasm' and commit the result" >&2
        exit 1
    fi
    size=$(stat -c %s "$committed")
    if [ "$(stated)" != "$size" ]; then
        echo "wasm: $readme states a module of '$(stated)' bytes (\"with SIMD: N bytes\")," \
            "the committed one has $size: run 'make wasm', which writes it there, and commit" >&2
        exit 1
    fi
    echo "wasm: $committed is what Rust $toolchain builds ($size bytes, as $readme states)"
    translate target/wasm-nosimd/libcriopin.go
    if ! cmp -s target/wasm-nosimd/libcriopin.go "$generated"; then
        echo "wasm: $generated differs from what wasm2go $wasm2go_version makes of the module" \
            "Rust $toolchain builds without SIMD from this tree (target/wasm-nosimd/libcriopin.go):" \
            "run 'make wasm' and commit the result" >&2
        exit 1
    fi
    echo "wasm: $generated is what wasm2go $wasm2go_version makes of the module without SIMD"
    ;;
*)
    echo "usage: sh tools/wasm.sh build|check" >&2
    exit 2
    ;;
esac
