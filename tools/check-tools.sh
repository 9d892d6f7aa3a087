#!/bin/sh
# Says clearly which tools `make test` / `make demo` need and are missing.
# .ci/run installs the system ones with apt-get; elsewhere install them
# yourself (Debian/Ubuntu package names given).
missing=""
need() { # command, what provides it
    command -v "$1" >/dev/null 2>&1 || missing="$missing\n  $1  ($2)"
}
need cargo "Rust toolchain >= 1.88: https://rustup.rs"
need rustfmt "rustup component add rustfmt (in rustup's default profile)"
need cc "C compiler: apt-get install gcc"
need make "apt-get install make"
need pkg-config "apt-get install pkg-config"
need valgrind "apt-get install valgrind"
need go "Go >= 1.24, see below"
need nm "apt-get install binutils"
need readelf "apt-get install binutils"
need objdump "apt-get install binutils"
need g++ "C++ compiler (the header is checked as C++): apt-get install g++"
need file "apt-get install file"
if [ -n "$missing" ]; then
    printf "missing tools:%b\n" "$missing" >&2
    printf "install them (on Debian: sudo apt-get install pkg-config valgrind gcc g++ binutils file) and re-run\n" >&2
    exit 1
fi
# The tests' locked dev-dependencies (proptest) need Rust 1.88; the library
# alone builds with 1.82, the tool with 1.85 (Cargo.toml rust-version).
rust_required=1.88
rust_have=$(rustc --version 2>/dev/null | sed -n 's/^rustc \([0-9]*\.[0-9]*\).*/\1/p')
if [ -n "$rust_have" ] && [ "$(printf '%s\n%s\n' "$rust_required" "$rust_have" | sort -V | head -n 1)" != "$rust_required" ]; then
    echo "Rust $rust_have is too old: make test needs Rust >= $rust_required (rustup update stable)" >&2
    exit 1
fi
# The Go package needs Go 1.24 (go/go.mod). Debian 12 ships 1.19 (golang);
# bookworm-backports has golang-1.23-go, which, run in go/, downloads the
# 1.24 toolchain go.mod asks for (GOTOOLCHAIN=auto, Debian's default), so
# the version is asked for there.
go_required=1.24
go_have=$(cd go && go env GOVERSION 2>/dev/null | sed -n 's/^go\([0-9]*\.[0-9]*\).*/\1/p')
if [ -n "$go_have" ] && [ "$(printf '%s\n%s\n' "$go_required" "$go_have" | sort -V | head -n 1)" != "$go_required" ]; then
    echo "Go $go_have is too old: the Go package needs Go >= $go_required (go/go.mod). On Debian 12" >&2
    echo "  (Go 1.19): apt-get install -t bookworm-backports golang-1.23-go, put /usr/lib/go-1.23/bin" >&2
    echo "  first in PATH, and Go fetches $go_required itself when GOTOOLCHAIN=auto (go env -w" >&2
    echo "  GOTOOLCHAIN=auto if it says local); or install Go from https://go.dev/dl" >&2
    exit 1
fi
# ASan/UBSan need the compiler's runtime libraries.
if ! echo 'int main(void){return 0;}' | cc -x c -fsanitize=address,undefined -o /dev/null - 2>/dev/null; then
    echo "missing: the C compiler cannot build with -fsanitize=address,undefined (apt-get install libasan8 libubsan1, or gcc)" >&2
    exit 1
fi
