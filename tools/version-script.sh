#!/bin/sh
# Prints the linker version script of libcrio_pin.so, made from the
# committed ABI list (packaging/debian/libcrio-pin0.symbols, in dpkg-gensymbols format):
# each export is bound to the version node it first appeared in
# (CRIO_PIN_0.1, CRIO_PIN_0.2, ...), each node inherits the one before,
# and every other symbol (Rust's std, the allocator) stays local.
# usage: version-script.sh packaging/debian/libcrio-pin0.symbols > crio_pin.map
set -eu
awk '
    /^ / {
        split($1, parts, "@")
        symbol = parts[1]; node = parts[2]
        if (symbol == node) { nodes[++count] = node; next }
        exports[node] = exports[node] "    " symbol ";\n"
    }
    END {
        if (count == 0) { print "no version nodes in the symbols file" > "/dev/stderr"; exit 1 }
        for (i = 1; i <= count; i++) {
            printf "%s {\n  global:\n%s", nodes[i], exports[nodes[i]]
            if (i == 1) printf "  local: *;\n"
            printf "}%s;\n", (i == 1 ? "" : " " nodes[i - 1])
        }
    }
' "$1"
