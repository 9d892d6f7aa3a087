#!/bin/sh
# make bench: the criterion suite (every time figure), then the summary
# harness (memory, allocations, threads, instructions, and the criterion
# times read back, each beside its target from docs/BENCHMARKS.md), then
# the plot, then crio-pin beside Hyperscan and the hash floor
# (benches/peers.rs, ratios), then the compile budget (benches/budget.rs: the most
# expensive lists accepted) and the crio-pin tool's times
# (cli/benches/times.rs).
#
#   sh tools/bench/run.sh                  full criterion runs (~6 min)
#   BENCH_QUICK=1 sh tools/bench/run.sh    short criterion runs (~3 min)
#
# Writes build/bench/: table.md (the library's table), peers.md, results.tsv,
# bench.png (ns/name against list size, both engines), budget.md (the
# compile budget), tool.txt (the tool's times); the tables are printed
# last.
#
# Needs: cargo (the Rust of test-rust-version in Cargo.toml, as the
# tests: tools/versions.sh rust-test). valgrind is optional (instruction counts:
# apt-get install valgrind), Hyperscan too (see below). The plot tool (tools/bench/plot) builds from
# crates.io and needs no system library.
set -eu
cd "$(dirname "$0")/../.."

CARGO=${CARGO:-cargo}
OUT=build/bench
case "${BENCH_QUICK:-}" in
    "" | 0) quick="" ;;
    *) quick=1 ;;
esac

if ! command -v "$CARGO" >/dev/null 2>&1; then
    echo "make bench: missing cargo (Rust toolchain >= $(sh tools/versions.sh rust-test): https://rustup.rs)" >&2
    exit 1
fi
mkdir -p "$OUT"

# Hyperscan, for benches/peers.rs' column (x86-64 Debian/Ubuntu: the
# library it opens at run time is libhs.so.5). Installed here the way
# .ci/run installs the test tools: as root with apt-get, announced;
# otherwise the column is skipped and the table says so.
if ! ldconfig -p 2>/dev/null | grep -q 'libhs\.so\.5 '; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "== installing libhyperscan-dev (apt-get) for the Hyperscan column" >&2
        apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libhyperscan-dev >&2 ||
            echo "make bench: could not install libhyperscan-dev: no Hyperscan column" >&2
    else
        echo "make bench: no libhs.so.5 (apt-get install libhyperscan-dev): no Hyperscan column" >&2
    fi
fi

# Build everything first, so that no compiler competes with the timings.
echo "== building the benches and the plot tool" >&2
"$CARGO" bench --no-run --bench functions --bench table --bench peers --bench budget >&2
"$CARGO" build --release -p crio-pin-cli >&2
"$CARGO" bench --no-run -p crio-pin-cli --bench times >&2
"$CARGO" build --release --locked --quiet \
    --manifest-path tools/bench/plot/Cargo.toml --target-dir target/bench-plot >&2 || {
    echo "make bench: could not build tools/bench/plot (needs crates.io: plotters, dejavu)" >&2
    exit 1
}

echo "== criterion suite (benches/functions.rs; reports in target/criterion)" >&2
if [ -n "$quick" ]; then
    "$CARGO" bench --bench functions -- --warm-up-time 0.1 --measurement-time 0.3 --sample-size 10 >&2
else
    "$CARGO" bench --bench functions >&2
fi

echo "== summary (benches/table.rs)" >&2
# shellcheck disable=SC2046 # no argument, or --quick
"$CARGO" bench --bench table -- --out "$OUT" $([ -n "$quick" ] && echo --quick) > "$OUT/table.txt"

echo "== plot" >&2
target/bench-plot/release/crio-pin-bench-plot "$OUT/results.tsv" "$OUT/table.md" "$OUT/bench.png" >&2

echo "== beside Hyperscan and the hash floor (benches/peers.rs)" >&2
"$CARGO" bench --bench peers -- --out "$OUT" > /dev/null

echo "== compile budget (benches/budget.rs)" >&2
"$CARGO" bench --bench budget -- --out "$OUT" > /dev/null

echo "== crio-pin tool times (cli/benches/times.rs)" >&2
"$CARGO" bench -p crio-pin-cli --bench times > "$OUT/tool.txt"

cat "$OUT/table.txt"
echo
cat "$OUT/peers.md"
echo
cat "$OUT/budget.md"
echo
cat "$OUT/tool.txt"
echo "(table: $OUT/table.md, plot: $OUT/bench.png; the README's plot is docs/bench.png: copy it from a full run)"
