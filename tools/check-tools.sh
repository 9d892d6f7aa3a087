#!/bin/sh
# Says which tools a make target needs and are missing, before it does any
# work: `sh tools/check-tools.sh TARGET`, TARGET one of build, install,
# demo, test, rpm, deb (the README lists the same, per command). .ci/run
# installs the system ones with apt-get; elsewhere install them yourself
# (Debian/Ubuntu package names given).
set -u
target=${1:?usage: check-tools.sh build|install|demo|test|rpm|deb}
missing=""
need() { # command, what provides it
    command -v "$1" >/dev/null 2>&1 || missing="$missing\n  $1  ($2)"
}
# The minimum versions are written once each and read here (tools/versions.sh):
# Rust for the build is the crates' rust-version, Rust for the tests (and
# the packages, whose build runs them) Cargo.toml's test-rust-version, Go
# go/go.mod's go line.
versions=$(dirname "$0")/versions.sh
rust_build=$(sh "$versions" rust) || exit 2
rust_test=$(sh "$versions" rust-test) || exit 2
go_min=$(sh "$versions" go) || exit 2
rust_required=$rust_build
go_required=""
case $target in
build)
    need cargo "Rust toolchain >= $rust_required: https://rustup.rs"
    need cc "C compiler: apt-get install gcc"
    ;;
install)
    need install "apt-get install coreutils"
    ;;
demo)
    need cargo "Rust toolchain >= $rust_required: https://rustup.rs"
    need cc "C compiler: apt-get install gcc"
    need strip "apt-get install binutils"
    need pkg-config "apt-get install pkg-config"
    need go "Go >= $go_min, see below"
    go_required=$go_min
    ;;
test)
    rust_required=$rust_test
    need cargo "Rust toolchain >= $rust_required: https://rustup.rs"
    need rustfmt "rustup component add rustfmt (in rustup's default profile)"
    need cc "C compiler: apt-get install gcc"
    need pkg-config "apt-get install pkg-config"
    need valgrind "apt-get install valgrind"
    need go "Go >= $go_min, see below"
    need nm "apt-get install binutils"
    need readelf "apt-get install binutils"
    need objdump "apt-get install binutils"
    need strip "apt-get install binutils"
    need g++ "C++ compiler (the header is checked as C++): apt-get install g++"
    need file "apt-get install file"
    need git "apt-get install git (make dist packs the tracked files)"
    go_required=$go_min
    ;;
rpm)
    rust_required=$rust_test
    need cargo "Rust toolchain >= $rust_required: https://rustup.rs"
    need cc "C compiler: apt-get install gcc"
    need git "apt-get install git (make dist packs the tracked files)"
    need rpmbuild "apt-get install rpm"
    ;;
deb)
    rust_required=$rust_test
    need cargo "Rust toolchain >= $rust_required: https://rustup.rs"
    need cc "C compiler: apt-get install gcc"
    need git "apt-get install git (make dist packs the tracked files)"
    need dpkg-buildpackage "apt-get install dpkg-dev"
    need dh "apt-get install debhelper"
    need lintian "apt-get install lintian (make deb checks the packages with it)"
    ;;
*)
    echo "check-tools.sh: unknown target $target (build, install, demo, test, rpm, deb)" >&2
    exit 2
    ;;
esac
if [ "$target" = test ] && command -v cargo >/dev/null 2>&1 && ! cargo clippy --version >/dev/null 2>&1; then
    missing="$missing\n  cargo clippy  (rustup component add clippy: in rustup's default profile)"
fi
if [ -n "$missing" ]; then
    printf "make %s: missing tools:%b\n" "$target" "$missing" >&2
    printf "install them and re-run (the README lists what each make command needs)\n" >&2
    exit 1
fi
older() { # required, have: true if have < required
    [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -n 1)" != "$1" ]
}
if command -v rustc >/dev/null 2>&1; then
    rust_have=$(rustc --version 2>/dev/null | sed -n 's/^rustc \([0-9]*\.[0-9]*\).*/\1/p')
    if [ -n "$rust_have" ] && older "$rust_required" "$rust_have"; then
        echo "make $target: Rust $rust_have is too old, it needs Rust >= $rust_required (rustup update stable)" >&2
        exit 1
    fi
fi
# The Go package needs the Go of go/go.mod. Debian 12 ships 1.19 (golang);
# bookworm-backports has golang-1.23-go, which, run in go/, downloads the
# toolchain go.mod asks for (GOTOOLCHAIN=auto, Debian's default), so the
# version is asked for there.
if [ -n "$go_required" ]; then
    go_have=$(cd "$(dirname "$0")/../go" && go env GOVERSION 2>/dev/null | sed -n 's/^go\([0-9]*\.[0-9]*\).*/\1/p')
    if [ -n "$go_have" ] && older "$go_required" "$go_have"; then
        echo "make $target: Go $go_have is too old, the Go package needs Go >= $go_required (go/go.mod). On Debian 12" >&2
        echo "  (Go 1.19): apt-get install -t bookworm-backports golang-1.23-go, put /usr/lib/go-1.23/bin" >&2
        echo "  first in PATH, and Go fetches $go_required itself when GOTOOLCHAIN=auto (go env -w" >&2
        echo "  GOTOOLCHAIN=auto if it says local); or install Go from https://go.dev/dl" >&2
        exit 1
    fi
fi
# ASan/UBSan need the compiler's runtime libraries.
if [ "$target" = test ] && ! echo 'int main(void){return 0;}' | cc -x c -fsanitize=address,undefined -o /dev/null - 2>/dev/null; then
    echo "make test: the C compiler cannot build with -fsanitize=address,undefined (apt-get install libasan8 libubsan1, or gcc)" >&2
    exit 1
fi
exit 0
