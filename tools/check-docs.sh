#!/bin/sh
# Every repository path the documentation names exists, and every link to a
# section finds its heading, so the README's map and the docs cannot drift
# from the tree again.
#
#   sh tools/check-docs.sh [FILE.md...]   (default: every Markdown file git
#                                          tracks, or else finds, but
#                                          CHANGELOG.md, a record)
#   sh tools/check-docs.sh --self-test    (the check fails on a missing path
#                                          and on a missing section)
#
# A path is a word of an inline code span (`src/set/`, `cli/tests/data/`)
# that starts with one of the tree's top-level directories, or the target
# of a relative Markdown link, read from the linking file's directory.
# Fenced code blocks are commands and output, not claims about the tree:
# they are skipped. `{a,b}` expands; `*` is a glob that must match; a word
# with `$` or `<` is a placeholder (`fuzz/artifacts/<target>/`). A link's
# `#anchor` (to another Markdown file, or alone: this file) must be the
# anchor GitHub gives one of that file's headings: lower case, each space a
# hyphen, every character but letters, digits, `_` and `-` dropped, and
# `-1`, `-2`... after repeats.
set -eu
cd "$(dirname "$0")/.."

TOP='src|cli|go|docs|tests|ctest|examples|tools|data|benches|fuzz|packaging|include'

# FILE -> "LINE<TAB>FROM<TAB>PATH<TAB>ANCHOR" for each path it names (braces
# expanded; FROM is the directory a link is read from, . for a code span;
# ANCHOR is a link's #anchor without the #, or empty; a link to an anchor
# alone names FILE itself).
paths() {
    awk -v top="^($TOP)/" -v dir="$(dirname "$1")" -v self="$(basename "$1")" '
    function expand(w, line, from, anchor,    m, pre, post, n, alts, i) {
        if (match(w, /\{[^{}]*\}/)) {
            pre = substr(w, 1, RSTART - 1); post = substr(w, RSTART + RLENGTH)
            n = split(substr(w, RSTART + 1, RLENGTH - 2), alts, ",")
            for (i = 1; i <= n; i++) expand(pre alts[i] post, line, from, anchor)
        } else print line "\t" from "\t" w "\t" anchor
    }
    function flush(    s, code, n, words, i, w, t, a) {
        s = para
        # inline code spans
        while (match(s, /`[^`]+`/)) {
            code = substr(s, RSTART + 1, RLENGTH - 2); s = substr(s, RSTART + RLENGTH)
            n = split(code, words, /[ \t]+/)
            for (i = 1; i <= n; i++) {
                w = words[i]
                sub(/^[("]+/, "", w); sub(/[),;"]+$/, "", w); sub(/:[0-9]+$/, "", w)
                if (w ~ top && w !~ /[$<]/) expand(w, start, ".", "")
            }
        }
        # relative link targets: ](target), ](target#anchor), ](#anchor)
        s = para
        while (match(s, /\]\([^) ]+\)/)) {
            t = substr(s, RSTART + 2, RLENGTH - 3); s = substr(s, RSTART + RLENGTH)
            if (t ~ /^[a-z]+:/) continue
            a = ""
            if (match(t, /#/)) { a = substr(t, RSTART + 1); t = substr(t, 1, RSTART - 1) }
            if (t == "") t = self
            expand(t, start, dir, a)
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

# FILE -> the anchor of each of its headings (outside fenced blocks), one a
# line, as GitHub makes them.
anchors() {
    awk '
    /^[ \t]*(```|~~~)/ { fence = !fence; next }
    fence || !/^#+[ \t]/ { next }
    {
        h = tolower($0); sub(/^#+[ \t]+/, "", h); sub(/[ \t#]+$/, "", h)
        gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h)
        print (seen[h]++ ? h "-" seen[h] - 1 : h)
    }
    ' "$1"
}

check() {
    missing=0
    for file in "$@"; do
        [ -f "$file" ] || { echo "check-docs: no such file: $file" >&2; missing=1; continue; }
        tab=$(printf '\t')
        paths "$file" > build/check-docs.paths
        while IFS="$tab" read -r line from path anchor; do
            found=0
            # unquoted on purpose: a glob expands to what it matches
            for p in $from/$path; do [ -e "$p" ] && found=1; done
            if [ "$found" = 0 ]; then
                echo "$file:$line: names $path, which is not in the tree: fix the path or the text" >&2
                missing=1
            elif [ -n "$anchor" ] && case $path in *.md) true ;; *) false ;; esac \
                && ! anchors "$from/$path" | grep -qxF -- "$anchor"; then
                echo "$file:$line: links to $path#$anchor, a section $path does not have: link to one of its headings" >&2
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
    printf '# Top\n\n## The `make bench` run (issue 36), in full\n\n## Notes\n\n## Notes\n\n' > "$t/docs/sections.md"
    printf 'See [it](#top), [a run](docs/sections.md#the-make-bench-run-issue-36-in-full)\nand [notes](docs/sections.md#notes-1).\n' > "$t/anchors.md"
    printf '# Top\n' >> "$t/anchors.md"
    printf 'See [a run](docs/sections.md#the-make-bench-run).\n' > "$t/missing-section.md"
    printf 'See [it](#no-such-heading).\n\n# Top\n' > "$t/missing-own-section.md"
    check "$t/docs/good.md" "$t/fence.md" "$t/anchors.md" 2>/dev/null ||
        { echo "check-docs self-test: existing paths or sections reported missing" >&2; exit 1; }
    for bad in missing-code missing-link missing-section missing-own-section; do
        if check "$t/$bad.md" 2>/dev/null; then
            echo "check-docs self-test: $bad.md names a missing path or section and passed" >&2; exit 1
        fi
    done
    rm -rf "$t"
    echo "check-docs: self-test passed"
    exit 0
fi

if [ $# -eq 0 ]; then
    # (Outside a git checkout, as in an unpacked release: the pages found.)
    tracked=$(git ls-files '*.md' 2>/dev/null) || tracked=$(find . -name '*.md' -not -path './target/*' \
        -not -path './build/*' | sed 's|^\./||')
    set -- $(printf '%s\n' "$tracked" | grep -vx CHANGELOG.md)
fi
if check "$@"; then
    echo "check-docs: every path and section named in $# file(s) exists"
else
    exit 1
fi
