#!/bin/sh
# The WebAssembly module package criopin embeds (go/criopin/crio_pin.wasm):
# the library's own engine and C ABI, built for wasm32-wasip1, which the Go
# package runs with wazero when it is built without cgo.
#
#   sh tools/wasm.sh build   (make wasm) rebuild go/criopin/crio_pin.wasm,
#                            and write its size into go/README.md
#   sh tools/wasm.sh check   (make test) rebuild it into target/wasm/ and fail
#                            when it differs from the committed one, or
#                            go/README.md states another size
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
out=target/wasm
# RUSTFLAGS with --target apply to the module only, not to build scripts.
# simd128: the prefilter's vector search (src/set/prefilter/) and
# memchr's; wazero compiles it to the machine's SSE or NEON.
RUSTFLAGS="-C target-feature=+simd128 --remap-path-prefix=$(pwd)=/crio-pin --remap-path-prefix=$cargo_home=/cargo" \
    rustup run "$toolchain" cargo rustc --locked --quiet --lib --crate-type cdylib \
    --profile wasm --target "$target" --target-dir "$out"
built=$out/$target/wasm/crio_pin.wasm

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
    ;;
*)
    echo "usage: sh tools/wasm.sh build|check" >&2
    exit 2
    ;;
esac
