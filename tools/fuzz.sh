#!/bin/sh
# Runs the cargo-fuzz targets in fuzz/.
#   tools/fuzz.sh quick   replay each target's committed corpus (fuzz/corpus)
#                         and named regressions (fuzz/regressions), then fuzz
#                         for FUZZ_QUICK_SECONDS (default 10): part of make test
#   tools/fuzz.sh long    fuzz each target for FUZZ_SECONDS (default 300) into
#                         build/fuzz-corpus/<target>, seeded from the committed
#                         corpus; the tracked tree does not grow: make fuzz
#   tools/fuzz.sh cmin    minimise fuzz/corpus/<target> together with what
#                         long runs found (a set cover of their coverage), to
#                         commit: make fuzz-cmin
set -eu
cd "$(dirname "$0")/.."
. tools/nightly.sh
nightly_ready || exit 0
# cargo-fuzz: the one on PATH, or one installed into build/tools (inside
# this tree: nothing is installed into the user's own cargo directory).
PATH=$PWD/build/tools/bin:$PATH
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "installing cargo-fuzz into build/tools (cargo install --locked --root build/tools cargo-fuzz)"
    if ! cargo install -q --locked --root build/tools cargo-fuzz; then
        echo "SKIPPED: fuzzing: cannot install cargo-fuzz (no network?); run:" \
             "cargo install --locked cargo-fuzz, then make test-fuzz"
        exit 0
    fi
fi
mode=${1:-quick}
case $mode in
    quick) seconds=${FUZZ_QUICK_SECONDS:-10} ;;
    long) seconds=${FUZZ_SECONDS:-300} ;;
    cmin) ;;
    *) echo "usage: $0 quick|long|cmin" >&2; exit 2 ;;
esac
grown=$PWD/build/fuzz-corpus
limits="-max_len=4096 -timeout=10 -rss_limit_mb=4096"
cd fuzz
for target in $(cargo +nightly fuzz list); do
    committed=corpus/$target
    regressions=regressions/$target
    mkdir -p "$committed" "$regressions"
    case $mode in
    quick)
        echo "== fuzz $target: $(ls $committed | wc -l) corpus inputs," \
             "$(ls $regressions | wc -l) regressions, then ${seconds}s"
        # New finds go to a scratch folder: the committed inputs stay as they are.
        scratch=$(mktemp -d)
        log=$scratch.log
        if ! cargo +nightly fuzz run -O "$target" "$scratch" "$committed" "$regressions" -- \
               -max_total_time="$seconds" $limits >"$log" 2>&1; then
            tail -n 60 "$log"
            echo "FAILED: fuzz target $target (the failing input is in fuzz/artifacts/$target;" \
                 "once fixed, add it as fuzz/regressions/$target/<what-it-broke>)"
            exit 1
        fi
        grep -E '^(INFO: seed corpus|#[0-9]+ +(INITED|DONE)|Done)' "$log" || true
        rm -rf "$scratch" "$log"
        ;;
    long)
        mkdir -p "$grown/$target"
        cargo +nightly fuzz run -O "$target" "$grown/$target" "$committed" "$regressions" -- \
            -max_total_time="$seconds" $limits
        echo "fuzz $target: $(ls "$grown/$target" | wc -l) inputs in build/fuzz-corpus/$target" \
             "(make fuzz-cmin folds them into fuzz/corpus)"
        ;;
    cmin)
        [ -d "$grown/$target" ] && cp -n "$grown/$target"/* "$committed"/ 2>/dev/null || true
        before=$(ls "$committed" | wc -l)
        cargo +nightly fuzz cmin -O "$target" "$committed" -- -set_cover_merge=1 $limits >/dev/null 2>&1 \
            || { echo "FAILED: cargo fuzz cmin $target"; exit 1; }
        echo "fuzz $target: corpus minimised from $before to $(ls "$committed" | wc -l) inputs"
        ;;
    esac
done
echo "fuzz ($mode): all targets passed"
