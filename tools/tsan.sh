#!/bin/sh
# ThreadSanitizer run of the multi-threaded C test (ctest/test_threads.c).
#
# The library itself must be instrumented, or TSan cannot see the atomics
# that order a set's last free after other threads' reads: so it is rebuilt
# with nightly's -Zsanitizer=thread (std included, -Zbuild-std), and the
# test links Rust's TSan runtime (gcc's libtsan lacks entry points that
# Rust's LLVM emits).
set -eu
cd "$(dirname "$0")/.."
. tools/nightly.sh
nightly_ready rust-src || exit 0

# -Zbuild-std needs an explicit target: the host's.
target=$(rustc -vV | sed -n 's/^host: //p')
out=build/tsan
lib=target/tsan/$target/release
RUSTFLAGS="-Zsanitizer=thread" cargo +nightly build -q -Zbuild-std --target $target \
    --release --lib --target-dir target/tsan
runtime=$(rustc +nightly --print target-libdir --target $target)/librustc-nightly_rt.tsan.a
[ -f "$runtime" ] || { echo "FAILED: nightly has no TSan runtime ($runtime)"; exit 1; }

mkdir -p $out
ln -sf "$PWD/$lib/libcrio_pin.so" $out/libcrio_pin.so.0
cc -std=c99 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wpedantic -Werror -O1 -g -pthread \
   -fsanitize=thread -Iinclude -c -o $out/test_threads.o ctest/test_threads.c
cc -pthread -o $out/test_threads $out/test_threads.o \
   -Wl,--whole-archive "$runtime" -Wl,--no-whole-archive \
   -L$lib -lcrio_pin -lstdc++ -ldl -lm -lrt
echo "== tsan: test_threads"
LD_LIBRARY_PATH=$out TSAN_OPTIONS="halt_on_error=1 exitcode=66" ./$out/test_threads
