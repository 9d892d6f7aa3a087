#!/bin/sh
# make test: tools/check-tools.sh names exactly what each make target
# lacks. Runs it with a PATH that holds only the tools a target needs, less
# one, and checks the message names that one (and passes with all of them).
set -eu
cd "$(dirname "$0")/.."
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
# What the script itself runs, always present.
base="sh sed sort head printf dirname cat"
# with TOOL...: a PATH directory holding base and TOOL...
with() {
    rm -f "$bin"/*
    for t in $base "$@"; do
        p=$(command -v "$t") || { echo "check-tools-test: $t is not installed here" >&2; exit 1; }
        ln -s "$p" "$bin/$t"
    done
}
fails=0
expect() { # target, expected word in the message (or "ok"), tools...
    target=$1 want=$2
    shift 2
    with "$@"
    if out=$(PATH=$bin sh tools/check-tools.sh "$target" 2>&1); then got=ok; else got=$out; fi
    case $want in
        ok) [ "$got" = ok ] || { echo "FAIL: make $target with $*: $got"; fails=$((fails + 1)); } ;;
        *) case $got in *"  $want  ("*) ;; *) echo "FAIL: make $target without $want: got: $got"; fails=$((fails + 1)) ;; esac ;;
    esac
}
# Each target: all its tools pass; each one missing is named. (cargo and
# go are linked but their versions are checked only where found.)
check() { # target, tools...
    target=$1
    shift
    expect "$target" ok "$@"
    for drop in "$@"; do
        keep=""
        for t in "$@"; do [ "$t" = "$drop" ] || keep="$keep $t"; done
        # shellcheck disable=SC2086
        expect "$target" "$drop" $keep
    done
}
check build cargo cc
check install install
check demo cargo cc strip pkg-config go
if command -v rpmbuild >/dev/null 2>&1; then
    check rpm cargo cc git rpmbuild
fi
if command -v dh >/dev/null 2>&1 && command -v lintian >/dev/null 2>&1; then
    check deb cargo cc git dpkg-buildpackage dh lintian
fi
# A tool of another target is not asked for: build needs no valgrind.
expect build ok cargo cc
# make test-cross with none of its tools and nothing to install them with
# (no apt-get, no rustup): SKIPPED, naming each package and the Rust
# target; with CROSS_REQUIRED=1 (CI), a failure.
with cargo go id ls tr
for arch in aarch64 s390x; do
    out=$(PATH=$bin CROSS_ARCHES=$arch sh tools/cross.sh 2>&1) && status=0 || status=$?
    case $status:$out in
    "0:SKIPPED: "*"gcc-$arch-linux-gnu"*qemu-user*"rustup target add $arch-unknown-linux-gnu && make test-cross") ;;
    *) echo "FAIL: make test-cross without its tools on $arch (exit $status): $out"; fails=$((fails + 1)) ;;
    esac
    out=$(PATH=$bin CROSS_ARCHES=$arch CROSS_REQUIRED=1 sh tools/cross.sh 2>&1) && status=0 || status=$?
    case $status:$out in
    "1:FAILED: "*"gcc-$arch-linux-gnu"*) ;;
    *) echo "FAIL: make test-cross CROSS_REQUIRED=1 without its tools on $arch (exit $status): $out"; fails=$((fails + 1)) ;;
    esac
done
# Its no-cgo part alone needs qemu-user and Go, not cargo nor a C compiler.
with go id ls tr
out=$(PATH=$bin CROSS_ARCHES=s390x CROSS_PARTS=nocgo sh tools/cross.sh 2>&1) && status=0 || status=$?
case $status:$out in
*gcc* | *rustup*) echo "FAIL: CROSS_PARTS=nocgo make test-cross asks for the library's tools: $out"; fails=$((fails + 1)) ;;
'0:SKIPPED: '*'apt-get install qemu-user && CROSS_PARTS="nocgo" make test-cross') ;;
*) echo "FAIL: CROSS_PARTS=nocgo make test-cross without qemu-user (exit $status): $out"; fails=$((fails + 1)) ;;
esac
echo "check-tools: every target names what it lacks ($fails failure(s))"
[ "$fails" = 0 ]
