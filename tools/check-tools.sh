#!/bin/sh
# Says clearly which tools `make test` / `make demo` need and are missing.
# .ci/run installs the system ones with apt-get; elsewhere install them
# yourself (Debian/Ubuntu package names given).
missing=""
need() { # command, what provides it
    command -v "$1" >/dev/null 2>&1 || missing="$missing\n  $1  ($2)"
}
need cargo "Rust toolchain >= 1.82: https://rustup.rs"
need cc "C compiler: apt-get install gcc"
need make "apt-get install make"
need pkg-config "apt-get install pkg-config"
need valgrind "apt-get install valgrind"
need go "Go >= 1.24: https://go.dev/dl or apt-get install golang"
need nm "apt-get install binutils"
need readelf "apt-get install binutils"
if [ -n "$missing" ]; then
    printf "missing tools:%b\n" "$missing" >&2
    printf "install them (on Debian: sudo apt-get install pkg-config valgrind gcc binutils) and re-run\n" >&2
    exit 1
fi
# ASan/UBSan need the compiler's runtime libraries.
if ! echo 'int main(void){return 0;}' | cc -x c -fsanitize=address,undefined -o /dev/null - 2>/dev/null; then
    echo "missing: the C compiler cannot build with -fsanitize=address,undefined (apt-get install libasan8 libubsan1, or gcc)" >&2
    exit 1
fi
