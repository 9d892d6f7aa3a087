#!/bin/sh
# Runs the cargo-fuzz targets in fuzz/.
#   tools/fuzz.sh quick    replay each committed corpus, then fuzz each target
#                          for FUZZ_QUICK_SECONDS (default 10): part of make test
#   tools/fuzz.sh long     fuzz each target for FUZZ_SECONDS (default 300),
#                          adding what it finds to fuzz/corpus: make fuzz
set -eu
cd "$(dirname "$0")/.."
. tools/nightly.sh
nightly_ready || exit 0
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz (cargo install --locked cargo-fuzz)"
    cargo install -q --locked cargo-fuzz || { echo "FAILED: cannot install cargo-fuzz"; exit 1; }
fi
mode=${1:-quick}
case $mode in
    quick) seconds=${FUZZ_QUICK_SECONDS:-10} ;;
    long) seconds=${FUZZ_SECONDS:-300} ;;
    *) echo "usage: $0 quick|long" >&2; exit 2 ;;
esac
cd fuzz
for target in $(cargo +nightly fuzz list); do
    mkdir -p corpus/$target
    echo "== fuzz $target: corpus of $(ls corpus/$target | wc -l) inputs, then ${seconds}s"
    if [ "$mode" = quick ]; then
        # New finds go to a scratch folder: the committed corpus stays as is.
        scratch=$(mktemp -d)
        log=$scratch.log
        if ! cargo +nightly fuzz run -O "$target" "$scratch" corpus/$target -- \
               -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=4096 \
               >"$log" 2>&1; then
            tail -n 60 "$log"
            echo "FAILED: fuzz target $target (the failing input is in fuzz/artifacts/$target)"
            exit 1
        fi
        grep -E '^(INFO: seed corpus|#[0-9]+ +(INITED|DONE)|Done)' "$log" || true
        rm -rf "$scratch" "$log"
    else
        cargo +nightly fuzz run -O "$target" corpus/$target -- \
            -max_total_time="$seconds" -max_len=4096 -timeout=10 -rss_limit_mb=4096
    fi
done
echo "fuzz: all targets passed"
