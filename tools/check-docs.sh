#!/bin/sh
# Every repository path the documentation names exists, so the README's map
# and the docs cannot drift from the tree again.
#
#   sh tools/check-docs.sh [FILE.md...]   (default: README.md docs/*.md)
#   sh tools/check-docs.sh --self-test    (the check fails on a missing path)
#
# A path is a word of an inline code span (`src/set/`, `cli/tests/data/`)
# that starts with one of the tree's top-level directories, or the target
# of a relative Markdown link, read from the linking file's directory.
# Fenced code blocks are commands and output, not claims about the tree:
# they are skipped. `{a,b}` expands; `*` is a glob that must match.
set -eu
cd "$(dirname "$0")/.."

TOP='src|cli|go|docs|tests|ctest|examples|tools|data|benches|fuzz|packaging|include'

# FILE -> "LINE<TAB>FROM<TAB>PATH" for each path it names (braces expanded;
# FROM is the directory a link is read from, . for a code span).
paths() {
    awk -v top="^($TOP)/" -v dir="$(dirname "$1")" '
    function expand(w, line, from,    m, pre, post, n, alts, i) {
        if (match(w, /\{[^{}]*\}/)) {
            pre = substr(w, 1, RSTART - 1); post = substr(w, RSTART + RLENGTH)
            n = split(substr(w, RSTART + 1, RLENGTH - 2), alts, ",")
            for (i = 1; i <= n; i++) expand(pre alts[i] post, line, from)
        } else print line "\t" from "\t" w
    }
    function flush(    s, code, n, words, i, w, t) {
        s = para
        # inline code spans
        while (match(s, /`[^`]+`/)) {
            code = substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH)
            n = split(code, words, /[ \t]+/)
            for (i = 1; i <= n; i++) {
                w = words[i]
                sub(/^[("]+/, "", w); sub(/[),;"]+$/, "", w); sub(/:[0-9]+$/, "", w)
                if (w ~ top && w !~ /\$/) expand(w, start, ".")
            }
        }
        # relative link targets: ](target) and ](target#anchor)
        s = para
        while (match(s, /\]\([^) ]+\)/)) {
            t = substr(s, RSTART + 2, RLENGTH - 3); s = substr(s, RSTART + RLENGTH)
            sub(/#.*/, "", t)
            if (t != "" && t !~ /^[a-z]+:/) expand(t, start, dir)
        }
        para = ""
    }
    /^[ \t]*(```|~~~)/ { flush(); fence = !fence; next }
    fence { next }
    /^[ \t]*$/ { flush(); next }
    { if (para == "") start = FNR; para = para " " $0 }
    END { flush() }
    ' "$1"
}

check() {
    missing=0
    for file in "$@"; do
        [ -f "$file" ] || { echo "check-docs: no such file: $file" >&2; missing=1; continue; }
        tab=$(printf '\t')
        paths "$file" > build/check-docs.paths
        while IFS="$tab" read -r line from path; do
            found=0
            # unquoted on purpose: a glob expands to what it matches
            for p in $from/$path; do [ -e "$p" ] && found=1; done
            if [ "$found" = 0 ]; then
                echo "$file:$line: names $path, which is not in the tree: fix the path or the text" >&2
                missing=1
            fi
        done < build/check-docs.paths
    done
    return "$missing"
}

mkdir -p build
if [ "${1:-}" = --self-test ]; then
    t=build/check-docs-self-test
    rm -rf "$t" && mkdir -p "$t/docs"
    printf 'The engine is `src/lib.rs`; see [the tool](tool.md).\n' > "$t/docs/good.md"
    printf '# x\n' > "$t/docs/tool.md"
    printf 'Layout:\n\n| `src/no-such-file.rs` | gone |\n' > "$t/missing-code.md"
    printf 'See [the page](docs/no-such-page.md#anchor).\n' > "$t/missing-link.md"
    printf '```sh\ncat src/inside-a-fence.rs\n```\n' > "$t/fence.md"
    check "$t/docs/good.md" "$t/fence.md" 2>/dev/null || { echo "check-docs self-test: existing paths reported missing" >&2; exit 1; }
    for bad in missing-code missing-link; do
        if check "$t/$bad.md" 2>/dev/null; then
            echo "check-docs self-test: $bad.md names a missing path and passed" >&2; exit 1
        fi
    done
    rm -rf "$t"
    echo "check-docs: self-test passed"
    exit 0
fi

[ $# -gt 0 ] || set -- README.md docs/*.md
if check "$@"; then
    echo "check-docs: every path named in $# file(s) exists"
else
    exit 1
fi
