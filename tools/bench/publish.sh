#!/bin/sh
# make bench-docs: copy the last full `make bench` run into docs/ (the
# README's table and plot come from there).
set -eu
cd "$(dirname "$0")/../.."
OUT=build/bench
for f in table.md bench.png; do
    [ -f "$OUT/$f" ] || { echo "make bench-docs: no $OUT/$f: run 'make bench' first" >&2; exit 1; }
done
if grep -q "quick mode" "$OUT/table.md"; then
    echo "make bench-docs: $OUT/table.md is from a quick run; run a full 'make bench' first" >&2
    exit 1
fi
mkdir -p docs
{
    echo "# Benchmarks"
    echo
    echo "Produced by \`make bench\` (\`benches/table.rs\`, \`tools/bench/run.sh\`), copied here"
    echo "by \`make bench-docs\`. The corpus is \`data/\` plus the 10k and 100k lists that"
    echo "\`benches/corpus/mod.rs\` generates deterministically. The plot is"
    echo "[bench.png](bench.png)."
    echo
    sed -e '1s/^## /## /' "$OUT/table.md"
} > docs/BENCHMARKS.md
cp "$OUT/bench.png" docs/bench.png
echo "wrote docs/BENCHMARKS.md and docs/bench.png"

# The README's copy: everything between the two marker lines
#   <!-- bench:begin -->
#   <!-- bench:end -->
# is replaced by the plot and the table (without its notes on method).
if grep -q '^<!-- bench:begin -->$' README.md 2>/dev/null && grep -q '^<!-- bench:end -->$' README.md; then
    {
        echo '![ns per name against list size](docs/bench.png)'
        echo
        sed -n '/^- Machine:/,/^$/p' "$OUT/table.md"
        sed -n '/^| figure/,/^$/p' "$OUT/table.md"
        echo "Method, footnotes and the targets: [docs/BENCHMARKS.md](docs/BENCHMARKS.md)."
    } > build/bench/readme-section.md
    awk -v section=build/bench/readme-section.md '
        /^<!-- bench:begin -->$/ { print; while ((getline line < section) > 0) print line; skip = 1; next }
        /^<!-- bench:end -->$/ { skip = 0 }
        !skip { print }
    ' README.md > build/bench/README.md.new
    mv build/bench/README.md.new README.md
    echo "updated the table and plot between the bench markers in README.md"
else
    echo "README.md has no '<!-- bench:begin -->' / '<!-- bench:end -->' lines: not updated"
fi
