#!/bin/sh
# make bench: the benchmark suite, ending with the summary table.
#
#   sh tools/bench/run.sh            criterion suite, then the table (~8 min)
#   BENCH_QUICK=1 sh tools/bench/run.sh   the table only, fewer samples (~1.5 min)
#
# Writes build/bench/: table.md (the table, with the machine), results.tsv
# (every figure), bench.png (ns/name against list size, both engines),
# table.txt (what is printed last). `sh tools/bench/publish.sh` copies a
# full run into docs/ for the README.
#
# Needs: cargo (Rust >= 1.82). valgrind is optional: without it the table
# has no instruction counts (apt-get install valgrind). The plot tool
# (tools/bench/plot, plotters + a bundled font) builds from crates.io and
# needs no system library.
set -eu
cd "$(dirname "$0")/../.."

CARGO=${CARGO:-cargo}
OUT=build/bench
case "${BENCH_QUICK:-}" in
    "" | 0) quick="" ;;
    *) quick=1 ;;
esac

if ! command -v "$CARGO" >/dev/null 2>&1; then
    echo "make bench: missing cargo (Rust toolchain >= 1.82: https://rustup.rs)" >&2
    exit 1
fi
if ! command -v valgrind >/dev/null 2>&1; then
    echo "make bench: valgrind not found: the table will have no callgrind instruction counts" >&2
    echo "            (Debian/Ubuntu: apt-get install valgrind)" >&2
fi
mkdir -p "$OUT"

# Build everything first, so that no compiler competes with the timings.
echo "== building the benches and the plot tool" >&2
"$CARGO" bench --no-run --bench functions --bench table >&2
"$CARGO" build --release --locked --quiet \
    --manifest-path tools/bench/plot/Cargo.toml --target-dir target/bench-plot >&2 || {
    echo "make bench: could not build tools/bench/plot (needs crates.io: plotters, dejavu)" >&2
    exit 1
}

if [ -z "$quick" ]; then
    echo "== criterion suite (benches/functions.rs; reports in target/criterion)" >&2
    "$CARGO" bench --bench functions >&2
fi

echo "== summary table (benches/table.rs)" >&2
table_args="--out $OUT"
[ -n "$quick" ] && table_args="$table_args --quick"
# shellcheck disable=SC2086 # word splitting of table_args is wanted
"$CARGO" bench --bench table -- $table_args > "$OUT/table.txt"

echo "== plot" >&2
target/bench-plot/release/crio-pin-bench-plot "$OUT/results.tsv" "$OUT/table.md" "$OUT/bench.png" >&2

# The table, last.
cat "$OUT/table.txt"
echo "(table: $OUT/table.md, plot: $OUT/bench.png; publish a full run into docs/ with 'make bench-docs')"
