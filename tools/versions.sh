#!/bin/sh
# The minimum Rust and Go versions. Each is written in one place, which the
# scripts read and the documents name, instead of repeating the number:
#
#   rust       what `make` builds with: the highest `rust-version` of the
#              workspace's crates (Cargo.toml: the library; cli/Cargo.toml:
#              the tool)
#   rust-test  what the tests and benchmarks build with (make test, make
#              bench, the packages' test step): `test-rust-version` in
#              Cargo.toml's [package.metadata.crio-pin], for the tests'
#              locked dev-dependencies (cargo has no rust-version for them)
#   go         the `go` line of go/go.mod
#   wasm       the exact Rust toolchain that builds go/criopin/crio_pin.wasm:
#              `wasm-toolchain` in Cargo.toml's [package.metadata.crio-pin]
#
# usage: sh tools/versions.sh rust|rust-test|go|wasm   prints that version
#        sh tools/versions.sh check               (make test) the places
#            that must repeat a number say the same (the RPM spec's
#            BuildRequires, Debian's Build-Depends if it names Rust or Go,
#            the other go.mod files), and rust-test is what the locked
#            dependencies ask for
#
# Needs only sh, sed, sort and head (check-tools.sh runs it with a PATH of
# little more); `check` also runs cargo.
set -eu
cd "$(dirname "$0")/.."

# The value of `KEY = "VALUE"` in a TOML file (the first one).
field() { # file, key
    sed -n "s/^$2 = \"\([^\"]*\)\"\$/\1/p" "$1" | head -n 1
}
highest() { # versions...
    printf '%s\n' "$@" | sort -V -r | head -n 1
}
# The `go` directive of a go.mod file.
go_line() { # file
    sed -n 's/^go \([0-9][0-9.]*\)$/\1/p' "$1" | head -n 1
}
nonempty() { # what, value
    [ -n "$2" ] || { echo "versions.sh: $1 not found" >&2; exit 2; }
    echo "$2"
}

v_rust() {
    lib=$(nonempty "rust-version in Cargo.toml" "$(field Cargo.toml rust-version)")
    tool=$(nonempty "rust-version in cli/Cargo.toml" "$(field cli/Cargo.toml rust-version)")
    highest "$lib" "$tool"
}
v_rust_test() {
    nonempty "test-rust-version in Cargo.toml's [package.metadata.crio-pin]" \
        "$(sed -n '/^\[package\.metadata\.crio-pin\]/,/^\[/s/^test-rust-version = "\([^"]*\)"$/\1/p' Cargo.toml)"
}
v_wasm() {
    nonempty "wasm-toolchain in Cargo.toml's [package.metadata.crio-pin]" \
        "$(sed -n '/^\[package\.metadata\.crio-pin\]/,/^\[/s/^wasm-toolchain = "\([^"]*\)"$/\1/p' Cargo.toml)"
}
v_go() {
    nonempty "the go line of go/go.mod" "$(go_line go/go.mod)"
}

check() {
    fails=0
    fail() { echo "versions: $*" >&2; fails=$((fails + 1)); }
    build=$(v_rust)
    test=$(v_rust_test)
    gomin=$(v_go)
    [ "$(highest "$build" "$test")" = "$test" ] ||
        fail "test-rust-version ($test) is lower than what the build needs ($build)"

    # RPM: BuildRequires cannot read Cargo.toml; the spec's %check runs the tests.
    spec=packaging/rpm/crio-pin.spec
    n=0
    for v in $(sed -n 's/^BuildRequires: *\(cargo\|rust\) *>= *\([0-9.]*\)$/\2/p' $spec); do
        n=$((n + 1))
        [ "$v" = "$test" ] || fail "$spec: BuildRequires Rust >= $v, Cargo.toml's test-rust-version is $test"
    done
    [ "$n" = 2 ] || fail "$spec: expected BuildRequires for cargo and rust with a version, found $n"

    # Debian: the toolchain comes from the build environment; a versioned
    # Build-Depends on it, if one is ever added, must say the same.
    control=packaging/debian/control
    for v in $(sed -n 's/.*\(cargo\|rustc\) (>= \([0-9.]*\)).*/\2/p' $control); do
        [ "$v" = "$test" ] || fail "$control: Build-Depends Rust >= $v, Cargo.toml's test-rust-version is $test"
    done
    for v in $(sed -n 's/.*golang[-a-z0-9.]* (>= [0-9]*:*\([0-9.]*\)).*/\1/p' $control); do
        [ "$v" = "$gomin" ] || fail "$control: Build-Depends Go >= $v, go/go.mod says $gomin"
    done

    # The other Go modules of the tree build with the same Go.
    for mod in examples/go/go.mod tools/bench/crio-decode/go.mod; do
        v=$(go_line $mod)
        [ "$v" = "$gomin" ] || fail "$mod: go $v, go/go.mod says go $gomin"
    done

    # test-rust-version is what the locked dependencies (on this platform)
    # ask for: the highest rust-version among them, proptest's today.
    if command -v cargo >/dev/null 2>&1 && command -v rustc >/dev/null 2>&1; then
        host=$(rustc -vV | sed -n 's/^host: //p')
        if meta=$(cargo metadata --format-version 1 --locked --filter-platform "$host" 2>/dev/null); then
            # shellcheck disable=SC2046
            locked=$(highest $(printf '%s' "$meta" | sed 's/,/\n/g' |
                sed -n 's/.*"rust_version":"\([0-9]*\.[0-9]*\)[0-9.]*".*/\1/p'))
            [ "$locked" = "$test" ] ||
                fail "the locked dependencies need Rust $locked, Cargo.toml's test-rust-version is $test: make them equal"
        else
            echo "versions: cargo metadata failed: the locked dependencies were not compared with test-rust-version" >&2
        fi
    fi
    [ "$fails" = 0 ] || exit 1
    echo "versions: Rust $build (build), $test (tests), Go $gomin: every copy agrees"
}

case ${1:-} in
rust) v_rust ;;
rust-test) v_rust_test ;;
go) v_go ;;
wasm) v_wasm ;;
check) check ;;
*)
    echo "usage: sh tools/versions.sh rust|rust-test|go|wasm|check" >&2
    exit 2
    ;;
esac
