#!/bin/sh
# Runs a long, quiet command with its output in a log, and every minute
# says it is still running and what the log last showed: a first build
# takes minutes (most of them in cargo), and minutes of silence look like
# a hang. Exits with the command's status.
#
#   sh tools/logged.sh LOG COMMAND...
set -u
log=$1
shift
rm -f "$log.status"
( set +e; "$@" > "$log" 2>&1; echo $? > "$log.status" ) &
begun=$(date +%s)
ticks=0
while [ ! -s "$log.status" ]; do
    sleep 1
    ticks=$((ticks + 1))
    if [ $((ticks % 60)) = 0 ]; then
        last=$(grep -v '^[[:space:]]*$' "$log" | tail -n 1 | cut -c 1-60)
        echo "  ... $(( ($(date +%s) - begun) / 60 )) min, $(wc -l < "$log") lines logged; last: $last"
    fi
done
wait
status=$(cat "$log.status")
rm -f "$log.status"
exit "$status"
