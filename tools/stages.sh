#!/bin/sh
# Runs make targets one after the other as the stages of a longer command
# (make test, make rpm, make deb), each announced with its number, and
# closed with its time and the disk the tree then uses, so a long run says
# where it is and a slow stage shows itself.
#
#   sh tools/stages.sh TITLE TARGET...     (MAKE: the make to run)
#
# After the stage `stage` (the private install) has run, the later targets
# take it as done (make -o stage -o build): each would otherwise re-run
# the build and re-install, and rebuild what links against the install.
set -eu
title=$1
shift
cd "$(dirname "$0")/.."
make=${MAKE:-make}
total=$#
n=0
begin=$(date +%s)

duration() {
    s=$1
    if [ "$s" -ge 60 ]; then echo "$((s / 60)) min $((s % 60)) s"; else echo "$s s"; fi
}
tree_size() {
    du -sk . 2>/dev/null | awk '{ k = $1; if (k >= 1048576) printf "%.1f GiB", k / 1048576; else printf "%d MiB", k / 1024 }'
}

staged=""
for target in "$@"; do
    n=$((n + 1))
    echo "== $title [$n/$total] $target"
    start=$(date +%s)
    # shellcheck disable=SC2086
    if ! $make --no-print-directory $staged "$target"; then
        echo "== $title [$n/$total] $target FAILED after $(duration $(( $(date +%s) - start )))" >&2
        exit 1
    fi
    echo "== $title [$n/$total] $target: $(duration $(( $(date +%s) - start ))), tree $(tree_size)"
    [ "$target" = stage ] && staged="-o stage -o build"
done
echo "== $title: $total stages in $(duration $(( $(date +%s) - begin ))), tree $(tree_size)"
