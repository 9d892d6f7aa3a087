#!/bin/sh
# ABI checks on a staged install: usage: check-abi.sh STAGE VERSION SOMAJOR
set -eu
stage=$1 version=$2 somajor=$3
so="$stage/lib/libcrio_pin.so.$version"
header="$stage/include/crio_pin.h"
fail=0
check() { # description, command...
    desc=$1; shift
    if "$@"; then echo "ok: $desc"; else echo "FAIL: $desc"; fail=1; fi
}

# Version nodes are absolute (A) symbols; names carry their version (@@NODE).
exported=$(nm -D --defined-only "$so" | awk '$2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort)
# Declarations are the lines that start with a type (not a comment).
declared=$(grep -E '^[a-z].*[ *]crio_pin_[a-z_]+\(' "$header" | sed -E 's/^[^(]*[ *](crio_pin_[a-z_]+)\(.*/\1/' | sort)
foreign=$(echo "$exported" | grep -v '^crio_pin_' || true)
check "the shared object exports only crio_pin_* symbols" test -z "$foreign"
[ -z "$foreign" ] || echo "$foreign" | sed 's/^/  unexpected export: /'
check "exported symbols equal the header's functions" test "$exported" = "$declared"
[ "$exported" = "$declared" ] || diff -u /dev/fd/3 /dev/fd/4 3<<E1 4<<E2 || true
$declared
E1
$exported
E2
# Each export carries the version node packaging/debian/libcrio-pin0.symbols
# gives it (the committed ABI list; the Debian symbols file is that list).
versioned=$(objdump -T "$so" | awk '$NF ~ /^crio_pin_/ { print $NF "@" $(NF-1) }' | sort)
committed=$(awk '/^ crio_pin_/ { print $1 }' packaging/debian/libcrio-pin0.symbols | sort)
check "exported symbols and version nodes equal packaging/debian/libcrio-pin0.symbols" \
    test "$versioned" = "$committed"
[ "$versioned" = "$committed" ] || diff -u /dev/fd/3 /dev/fd/4 3<<E1 4<<E2 || true
$committed
E1
$versioned
E2
soname=$(readelf -d "$so" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
check "soname is libcrio_pin.so.$somajor (got '$soname')" test "$soname" = "libcrio_pin.so.$somajor"
check "libcrio_pin.so.$somajor links to the library" test "$(readlink -f "$stage/lib/libcrio_pin.so.$somajor")" = "$(readlink -f "$so")"
check "libcrio_pin.so links to the library" test "$(readlink -f "$stage/lib/libcrio_pin.so")" = "$(readlink -f "$so")"
pcversion=$(PKG_CONFIG_PATH="$stage/lib/pkgconfig" pkg-config --modversion crio_pin)
check "pkg-config version is $version (got '$pcversion')" test "$pcversion" = "$version"
# The alias under the project's name gives the same flags (the first guess of a C author).
alias_flags=$(PKG_CONFIG_PATH="$stage/lib/pkgconfig" pkg-config --cflags --libs crio-pin)
module_flags=$(PKG_CONFIG_PATH="$stage/lib/pkgconfig" pkg-config --cflags --libs crio_pin)
check "pkg-config crio-pin gives crio_pin's flags (got '$alias_flags')" test "$alias_flags" = "$module_flags"
# And every variable crio_pin has, with its value (a Requires: carries none
# over: the docs' rpath recipe, --variable=libdir, written with the alias).
variables() { # module: each variable=value, sorted
    for v in $(PKG_CONFIG_PATH="$stage/lib/pkgconfig" pkg-config --print-variables "$1" | sort); do
        echo "$v=$(PKG_CONFIG_PATH="$stage/lib/pkgconfig" pkg-config --variable="$v" "$1")"
    done
}
alias_variables=$(variables crio-pin) module_variables=$(variables crio_pin)
check "pkg-config crio-pin has crio_pin's variables and values" test "$alias_variables" = "$module_variables"
[ "$alias_variables" = "$module_variables" ] || diff -u /dev/fd/3 /dev/fd/4 3<<E1 4<<E2 || true
$module_variables
E1
$alias_variables
E2
# The packaging repeats the version; it must follow Cargo.toml's.
specversion=$(sed -n 's/^Version: *//p' packaging/rpm/crio-pin.spec)
check "packaging/rpm/crio-pin.spec has Version $version (got '$specversion')" test "$specversion" = "$version"
debversion=$(sed -n '1s/^crio-pin (\([^-)]*\)-[^)]*).*/\1/p' packaging/debian/changelog)
check "packaging/debian/changelog starts at $version (got '$debversion')" test "$debversion" = "$version"
exit $fail
