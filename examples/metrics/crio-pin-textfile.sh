#!/bin/sh
# crio-pin-textfile.sh DIR [CRIO-PIN OPTIONS...]: writes `crio-pin check
# --format openmetrics` to DIR/crio-pin.prom for node_exporter's textfile
# collector (--collector.textfile.directory=DIR), atomically: into a
# temporary file in DIR, then renamed over the old one, so the collector
# never reads half a file. Exit status 1 (a finding) is a reading like any
# other; on 2 (the runtime or the files cannot be read) the old file is
# removed, so that absent(crio_pin_check_status) alerts rather than a stale
# reading. Run by crio-pin-textfile.service from its timer.
set -u
dir=$1
shift
tmp=$(mktemp "$dir/.crio-pin.prom.XXXXXX") || exit 2
crio-pin "$@" check --format openmetrics >"$tmp"
status=$?
if [ "$status" -le 1 ]; then
    chmod 0644 "$tmp" && mv -f "$tmp" "$dir/crio-pin.prom" && exit 0
fi
rm -f "$tmp" "$dir/crio-pin.prom"
exit "$status"
