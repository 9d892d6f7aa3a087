package criopin_test

// Conformance: the package's backend (the library through cgo, or with
// -tags criopin_purego the pure-Go one) against CRI-O's regexps (see
// reference_test.go) and against the named table, on named edge cases, on
// generated cases from a fixed seed, and as a fuzz target. `make test`
// runs it with both backends.

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
)

// ref marks an expectation left to the reference alone.
const ref = -2

// bad marks a list that must not compile: the index of the pattern to
// blame and why.
type bad struct {
	index int
	kind  criopin.ErrorKind
}

type edgeCase struct {
	name     string
	patterns []string
	flags    criopin.Flag
	// names maps each name to the index MatchIndex must return (-1 for
	// none; ref to take the reference's answer only). The reference must
	// agree with every explicit index: a check of the test itself.
	names map[string]int
	// fails, when set, is the index of the pattern that must be rejected.
	fails *bad
}

var edgeCases = []edgeCase{
	{name: "exact, ASCII case folding", patterns: []string{"registry.k8s.io/pause:3.9"}, names: map[string]int{
		"registry.k8s.io/pause:3.9": 0, "REGISTRY.K8S.IO/PAUSE:3.9": 0, "Registry.K8s.io/Pause:3.9": 0,
		"registry.k8s.io/pause:3.10": -1, "registry.k8s.io/pause:3": -1, "xregistry.k8s.io/pause:3.9": -1,
	}},
	{name: "Kelvin sign U+212A folds with k", patterns: []string{"*k8s*", "docker.io/\u212Aube*"}, names: map[string]int{
		"registry.\u212A8s.io/pause": 0, "registry.K8S.io/pause": 0, "docker.io/kube-proxy": 1,
		"docker.io/KUBE-proxy": 1, "docker.io/\u212Aube": 1, "docker.io/cube": -1,
	}},
	{name: "long s U+017F folds with s", patterns: []string{"*pause*", "quay.io/\u017Fig*"}, names: map[string]int{
		"registry.k8s.io/pau\u017Fe:3.9": 0, "registry.k8s.io/PAU\u017FE": 0, "quay.io/sig-storage": 1,
		"quay.io/SIG": 1, "quay.io/\u017Fig": 1, "quay.io/zig": -1,
	}},
	{name: "Unicode simple-fold orbits", patterns: []string{"*\u03c3*", "\u00df", "\u01c5", "\u03c9", "\u00c5", "\u00b5", "\u03b8"}, names: map[string]int{
		"\u03a3": 0, "\u03c2": 0, "x\u03c3y": 0,
		"\u1e9e": 1, "ss": -1, "SS": -1,
		"\u01c4": 2, "\u01c6": 2,
		"\u2126": 3, "\u03a9": 3,
		"\u212b": 4, "\u00e5": 4,
		"\u03bc": 5, "\u039c": 5,
		"\u03d1": 6, "\u03f4": 6, "\u0398": 6,
	}},
	{name: "dotted and dotless i do not fold with i", patterns: []string{"i"}, names: map[string]int{
		"i": 0, "I": 0, "\u0130": -1, "\u0131": -1,
	}},
	{name: "code points whose folding changed in Unicode 16", patterns: []string{"\ufb05", "*\u019b*", "\u1c89"}, names: map[string]int{
		"\ufb05": 0, "\ufb06": ref, "\u019b": 1, "\ua7dc": ref, "\u1c89": 2, "\u1c8a": ref,
	}},
	{name: "invalid UTF-8 in names reads as U+FFFD per byte", patterns: []string{"*\ufffd*", "quay.io/*", "a\ufffd\ufffdb", "x\ufffdy"}, names: map[string]int{
		"a\xffb": 0, "a\ufffdb": 0, "quay.io/\xff": 0, "a\xe2\x82b": 0, "x\xc0y": 0,
		"ab": -1, "quay.io/ok": 1, "\xed\xa0\x80": 0, "": -1,
	}},
	{name: "invalid UTF-8 against exact patterns", patterns: []string{"a\ufffd\ufffdb", "x\ufffdy"}, names: map[string]int{
		"a\xe2\x82b": 0, "a\xff\xfeb": 0, "a\xffb": -1, "x\xffy": 1, "x\xe2\x82\xacy": -1, "x\xe2\x82y": -1,
	}},
	{name: "invalid UTF-8 pattern is an error", patterns: []string{"ok", "a\xffb"}, fails: &bad{1, criopin.KindInvalidUTF8}},
	{name: "invalid UTF-8 keyword is an error", patterns: []string{"*\xc3*"}, fails: &bad{0, criopin.KindInvalidUTF8}},
	{name: "** pins every name", patterns: []string{"**"}, names: map[string]int{
		"": 0, "x": 0, "\xff": 0, "registry.k8s.io/pause:3.9": 0,
	}},
	{name: "*** is the keyword *", patterns: []string{"***"}, names: map[string]int{
		"a*b": 0, "*": 0, "ab": -1, "": -1,
	}},
	{name: "*pause is exact with a literal star", patterns: []string{"*pause"}, names: map[string]int{
		"*pause": 0, "*PAUSE": 0, "pause": -1, "registry.k8s.io/pause": -1, "x*pause": -1,
	}},
	{name: "a*b is exact with a literal star", patterns: []string{"a*b"}, names: map[string]int{
		"a*b": 0, "A*B": 0, "axb": -1, "ab": -1, "a*bc": -1,
	}},
	{name: "a** is the glob a*", patterns: []string{"a**"}, names: map[string]int{
		"a*": 0, "xa*y": 0, "ab": -1,
	}},
	{name: "regexp metacharacters are literal", patterns: []string{"a.b", "x+y*", "*(c)*", "^$", "[z]", `\d`, "a|b", "q?{2}"}, names: map[string]int{
		"a.b": 0, "axb": -1, "pre-x+y-post": 1, "xy": -1, "xxy": -1, "foo(c)bar": 2, "c": -1,
		"^$": 3, "": -1, "[Z]": 4, "z": -1, `\d`: 5, "1": -1, "a|b": 6, "a": -1, "q?{2}": 7, "qq": -1,
	}},
	{name: "the empty pattern pins only the empty name", patterns: []string{""}, names: map[string]int{
		"": 0, "a": -1, " ": -1,
	}},
	{name: "the empty list pins nothing", patterns: []string{}, names: map[string]int{
		"": -1, "a": -1, "registry.k8s.io/pause:3.9": -1,
	}},
	{name: "trailing newline", patterns: []string{"registry.k8s.io/pause:3.9", "pause\n", "quay.io/*", "*\n*"}, names: map[string]int{
		"registry.k8s.io/pause:3.9\n": 3, "registry.k8s.io/pause:3.9": 0, "pause\n": 1, "PAUSE\n": 1,
		"pause": -1, "quay.io/\n": 2, "a\nb": 3, "ab": -1,
	}},
	{name: "NUL bytes are characters", patterns: []string{"a\x00b", "*\x00*"}, names: map[string]int{
		"a\x00b": 0, "a": -1, "x\x00": 1, "ab": -1,
	}},
	{name: "duplicates keep the first index", patterns: []string{"x", "X", "x", "quay.io/*", "QUAY.io/*", "*k*", "*K*"}, names: map[string]int{
		"x": 0, "quay.io/a": 3, "k": 5, "\u212a": 5, "y": -1,
	}},
	{name: "a name matched by several patterns: the first in CRI-O's loop", patterns: []string{
		"docker.io/library/nginx:1.25", "*nginx*", "docker.io/*", "**",
	}, names: map[string]int{
		"docker.io/library/nginx:1.25": 0, "docker.io/library/nginx:1.26": 1,
		"docker.io/library/redis": 2, "quay.io/x": 3, "": 3,
	}},
	{name: "a broad pattern before a narrow one wins", patterns: []string{"*a*", "abc", "ab*"}, names: map[string]int{
		"abc": 0, "ab": 0, "bc": -1,
	}},
	{name: "globs are not anchored", patterns: []string{"quay.io/*"}, names: map[string]int{
		"evil.example/quay.io/x": 0, "quay.io/x": 0, "quay.iox": -1,
	}},
	{name: "lone * is an error", patterns: []string{"ok", "*"}, fails: &bad{1, criopin.KindLoneStar}},
	{name: "lone * is an error first in the list", patterns: []string{"*", "**"}, fails: &bad{0, criopin.KindLoneStar}},
	{name: "pause image appended as an exact pattern", patterns: []string{"quay.io/openshift-release-dev/*", "registry.k8s.io/pause:3.9"}, names: map[string]int{
		"registry.k8s.io/pause:3.9": 1, "registry.k8s.io/pause:3.10": -1, "quay.io/openshift-release-dev/ocp": 0,
	}},
	{name: "long names and patterns", patterns: []string{strings.Repeat("ab", 1000) + "*", "*" + strings.Repeat("Z", 600) + "*"}, names: map[string]int{
		strings.Repeat("AB", 1000): 0, strings.Repeat("ab", 999): -1, "x" + strings.Repeat("z", 601): 1,
	}},

	// Flags.
	{name: "AnchorGlobs anchors globs", flags: criopin.AnchorGlobs, patterns: []string{"quay.io/*", "*pause*", "a**"}, names: map[string]int{
		"quay.io/x": 0, "QUAY.IO/x": 0, "evil.example/quay.io/x": -1, "registry.k8s.io/pause": 1,
		"a*x": 2, "xa*": -1,
	}},
	{name: "AnchorGlobs keeps the lowest index among nested prefixes", flags: criopin.AnchorGlobs, patterns: []string{"quay.io/a/b*", "quay.io/*", "quay.io/a*"}, names: map[string]int{
		"quay.io/a/b/c": 0, "quay.io/a/c": 1, "quay.io/x": 1, "x/quay.io/a": -1,
	}},
	{name: "CaseSensitive compares bytes", flags: criopin.CaseSensitive, patterns: []string{"Quay.io/*", "*k8s*", "registry.k8s.io/pause:3.9"}, names: map[string]int{
		"Quay.io/x": 0, "quay.io/x": -1, "k8s": 1, "K8S": -1, "\u212a8s": -1,
		"registry.k8s.io/pause:3.9": 1, "REGISTRY.K8S.IO/PAUSE:3.9": -1,
	}},
	{name: "AnchorGlobs and CaseSensitive", flags: criopin.AnchorGlobs | criopin.CaseSensitive, patterns: []string{"quay.io/*"}, names: map[string]int{
		"quay.io/x": 0, "QUAY.io/x": -1, "x/quay.io/": -1,
	}},
	{name: "Strict accepts well-formed patterns", flags: criopin.Strict, patterns: []string{"**", "*pause*", "quay.io/*", "registry.k8s.io/pause:3.9"}, names: map[string]int{
		"x": 0,
	}},
	{name: "Strict keeps CRI-O's matching", flags: criopin.Strict, patterns: []string{"quay.io/*", "*pause*"}, names: map[string]int{
		"evil/quay.io/x": 0, "PAUSE": 1, "x": -1,
	}},
	{name: "Strict rejects the empty pattern", flags: criopin.Strict, patterns: []string{"ok", ""}, fails: &bad{1, criopin.KindStrictEmpty}},
	{name: "Strict rejects *word", flags: criopin.Strict, patterns: []string{"*pause"}, fails: &bad{0, criopin.KindStrictLeadingStar}},
	{name: "Strict rejects a*b", flags: criopin.Strict, patterns: []string{"a", "a*b"}, fails: &bad{1, criopin.KindStrictInnerStar}},
	{name: "Strict rejects a**", flags: criopin.Strict, patterns: []string{"a**"}, fails: &bad{0, criopin.KindStrictInnerStar}},
	{name: "Strict rejects ***", flags: criopin.Strict, patterns: []string{"***"}, fails: &bad{0, criopin.KindStrictInnerStar}},
	{name: "Strict rejects *a*b*", flags: criopin.Strict, patterns: []string{"*a*b*"}, fails: &bad{0, criopin.KindStrictInnerStar}},
	{name: "Strict rejects a space", flags: criopin.Strict, patterns: []string{"quay.io/x "}, fails: &bad{0, criopin.KindStrictWhitespace}},
	{name: "Strict rejects a tab", flags: criopin.Strict, patterns: []string{"ok*", "a\tb"}, fails: &bad{1, criopin.KindStrictWhitespace}},
	{name: "Strict rejects a trailing newline", flags: criopin.Strict, patterns: []string{"quay.io/x\n"}, fails: &bad{0, criopin.KindStrictWhitespace}},
	{name: "Strict rejects DEL", flags: criopin.Strict, patterns: []string{"a\x7f"}, fails: &bad{0, criopin.KindStrictWhitespace}},
	{name: "Strict rejects NUL", flags: criopin.Strict, patterns: []string{"a\x00"}, fails: &bad{0, criopin.KindStrictWhitespace}},
	{name: "Strict rejects NEL U+0085", flags: criopin.Strict, patterns: []string{"a\u0085"}, fails: &bad{0, criopin.KindStrictWhitespace}},
	{name: "Strict rejects NBSP U+00A0", flags: criopin.Strict, patterns: []string{"a\u00a0b*"}, fails: &bad{0, criopin.KindStrictWhitespace}},
	{name: "Strict rejects U+2028", flags: criopin.Strict, patterns: []string{"*a\u2028*"}, fails: &bad{0, criopin.KindStrictWhitespace}},
	{name: "Strict rejects U+3000", flags: criopin.Strict, patterns: []string{"\u3000"}, fails: &bad{0, criopin.KindStrictWhitespace}},
	{name: "Strict accepts a zero-width space (not White_Space)", flags: criopin.Strict, patterns: []string{"a\u200bb"}, names: map[string]int{
		"a\u200bb": 0, "ab": -1,
	}},
	{name: "Strict: quotes and backslashes escaped in the message", flags: criopin.Strict, patterns: []string{`a"b'c\d e`}, fails: &bad{0, criopin.KindStrictWhitespace}},
	{name: "Strict: a combining mark escaped in the message", flags: criopin.Strict, patterns: []string{"e\u0301\u200d x"}, fails: &bad{0, criopin.KindStrictWhitespace}},
	{name: "Strict: a long pattern cut mid-rune in the message", flags: criopin.Strict, patterns: []string{"x" + strings.Repeat("\u00e9", 70) + " "}, fails: &bad{0, criopin.KindStrictWhitespace}},
	{name: "Strict: a long *word quoted twice", flags: criopin.Strict, patterns: []string{"*" + strings.Repeat("ab", 100)}, fails: &bad{0, criopin.KindStrictLeadingStar}},
	{name: "Strict: *word with a quote", flags: criopin.Strict, patterns: []string{`*it's`}, fails: &bad{0, criopin.KindStrictLeadingStar}},
	{name: "invalid UTF-8 after a long prefix", patterns: []string{strings.Repeat("a", 130) + "\xc3("}, fails: &bad{0, criopin.KindInvalidUTF8}},
	{name: "Strict names the first bad pattern", flags: criopin.Strict, patterns: []string{"ok", "also-ok*", "bad thing", ""}, fails: &bad{2, criopin.KindStrictWhitespace}},
	{name: "Strict still rejects the lone *", flags: criopin.Strict | criopin.AnchorGlobs, patterns: []string{"*"}, fails: &bad{0, criopin.KindLoneStar}},
	{name: "lone * under CaseSensitive", flags: criopin.CaseSensitive, patterns: []string{"x", "*"}, fails: &bad{1, criopin.KindLoneStar}},
}

func TestEdgeCases(t *testing.T) {
	for _, c := range edgeCases {
		t.Run(c.name, func(t *testing.T) {
			r, rerr := compileReference(c.patterns, c.flags)
			if c.fails != nil {
				if rerr == nil || rerr.Index != c.fails.index || rerr.Kind != c.fails.kind {
					t.Fatalf("test table: the reference gives %v, the table says pattern %d, %v", rerr, c.fails.index, c.fails.kind)
				}
			} else if rerr != nil {
				t.Fatalf("test table: the reference rejects the list: %v", rerr)
			}
			for name, want := range c.names {
				if got := r.MatchIndex(name); want != ref && got != want {
					t.Errorf("test table: the reference says %d for %q, the table %d", got, name, want)
				}
			}
			names := make([]string, 0, len(c.names))
			for name := range c.names {
				names = append(names, name)
			}
			checkList(t, c.patterns, c.flags, names)
		})
	}
}

// TestUnknownFlags: bits the package does not know are an error naming no
// pattern, and naming the flags as a Go program spells them.
func TestUnknownFlags(t *testing.T) {
	for f, bits := range map[criopin.Flag]string{8: "0x8", 1 << 31: "0x80000000", criopin.Strict | 16: "0x10"} {
		_, err := criopin.Compile([]string{"x"}, f)
		var cerr *criopin.CompileError
		if !errors.As(err, &cerr) {
			t.Fatalf("flags %v: got %v, want a *CompileError", f, err)
		}
		want := "unknown flag bits " + bits + "; the flags are criopin.AnchorGlobs (1), criopin.CaseSensitive (2) " +
			"and criopin.Strict (4), or criopin.Default (0)"
		if cerr.Index != -1 || cerr.Pattern != "" || cerr.Kind != criopin.KindUnknownFlags || cerr.Message != want ||
			!errors.Is(err, criopin.ErrUnknownFlags) {
			t.Errorf("flags %v: got %+v, want the message %q", f, cerr, want)
		}
	}
}

// checkList compares the library with the reference on one list and its
// names, through every entry point; it returns the number of (list, name)
// cases checked (0 for a list that must not compile) and how many of the
// names are pinned.
func checkList(t testing.TB, patterns []string, flags criopin.Flag, names []string) (cases, pinned int) {
	t.Helper()
	r, rerr := compileReference(patterns, flags)
	set, err := criopin.Compile(patterns, flags)
	if rerr != nil {
		var cerr *criopin.CompileError
		if err == nil {
			set.Close()
			t.Errorf("Compile(%q, %v) succeeded; CRI-O rejects it: %v", patterns, flags, rerr)
			return 0, 0
		}
		if !errors.As(err, &cerr) {
			t.Errorf("Compile(%q, %v): error %T %v is not a *CompileError", patterns, flags, err, err)
			return 0, 0
		}
		// Both backends give the same error: kind, index, pattern, text.
		prefix := fmt.Sprintf("pattern %d (", rerr.Index)
		if *cerr != *rerr || !strings.HasPrefix(cerr.Message, prefix) || !errors.Is(err, sentinels[rerr.Kind]) {
			t.Errorf("Compile(%q, %v):\n  got  %#v\n  want %#v", patterns, flags, cerr, rerr)
		}
		return 0, 0
	}
	if err != nil {
		t.Errorf("Compile(%q, %v): %v; CRI-O compiles this list", patterns, flags, err)
		return 0, 0
	}
	defer set.Close()
	if set.Len() != len(patterns) {
		t.Errorf("Len() = %d, want %d", set.Len(), len(patterns))
	}
	wantEach := make([]bool, len(names))
	anyPinned := false
	for i, name := range names {
		want := r.MatchIndex(name)
		wantEach[i] = want >= 0
		anyPinned = anyPinned || want >= 0
		if want >= 0 {
			pinned++
		}
		if got := set.MatchIndex(name); got != want {
			t.Errorf("MatchIndex(%q) = %d, want %d (CRI-O's regexp %d)\n  patterns %q, flags %v\n  regexps %v",
				name, got, want, want, patterns, flags, r.Regexps())
		}
		if got := set.Match(name); got != (want >= 0) {
			t.Errorf("Match(%q) = %v, want %v\n  patterns %q, flags %v", name, got, want >= 0, patterns, flags)
		}
	}
	if got := set.MatchEach(names); !equalBools(got, wantEach) {
		t.Errorf("MatchEach(%q) = %v, want %v\n  patterns %q, flags %v", names, got, wantEach, patterns, flags)
	}
	if got := set.MatchAny(names...); got != anyPinned {
		t.Errorf("MatchAny(%q) = %v, want %v\n  patterns %q, flags %v", names, got, anyPinned, patterns, flags)
	}
	// Every name alone, and with an unpinned neighbour, through the batch
	// calls.
	for i, name := range names {
		if got := set.MatchAny(name); got != wantEach[i] {
			t.Errorf("MatchAny([%q]) = %v, want %v\n  patterns %q, flags %v", name, got, wantEach[i], patterns, flags)
		}
		if i > 0 {
			pair := []string{names[i-1], name}
			if got := set.MatchAny(pair...); got != (wantEach[i-1] || wantEach[i]) {
				t.Errorf("MatchAny(%q) = %v, want %v\n  patterns %q, flags %v", pair, got, !got, patterns, flags)
			}
		}
	}
	return len(names), pinned
}

// sentinels is the sentinel error of each kind a pattern list can have.
var sentinels = map[criopin.ErrorKind]error{
	criopin.KindUnknownFlags: criopin.ErrUnknownFlags, criopin.KindInvalidUTF8: criopin.ErrInvalidUTF8,
	criopin.KindLoneStar: criopin.ErrLoneStar, criopin.KindStrictEmpty: criopin.ErrStrict,
	criopin.KindStrictWhitespace: criopin.ErrStrict, criopin.KindStrictLeadingStar: criopin.ErrStrict,
	criopin.KindStrictInnerStar: criopin.ErrStrict, criopin.KindTooLarge: criopin.ErrTooLarge,
}

func equalBools(a, b []bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

var (
	genCases = flag.Int("cases", 100_000, "TestGenerated: (list, name) cases to check")
	genSeed  = flag.Uint64("seed", 0x5eed, "TestGenerated: seed of the generator")
)

// TestGenerated checks at least 100,000 generated (pattern list, name)
// cases from a fixed seed: realistic image references mixed with
// adversarial strings, under every combination of flags. For more, or
// others: go test -run TestGenerated -args -cases 1000000 -seed 7
func TestGenerated(t *testing.T) {
	g := newGenerator(t, *genSeed)
	want := *genCases
	cases, pinned, lists, rejected := 0, 0, 0, 0
	for cases < want {
		patterns, flags, names := g.list()
		n, p := checkList(t, patterns, flags, names)
		if n == 0 {
			rejected++
		}
		cases += n
		pinned += p
		lists++
		if t.Failed() {
			break // enough to diagnose; the rest would repeat it
		}
	}
	t.Logf("%d (list, name) cases, %d of them pinned, in %d lists (and %d lists rejected, as CRI-O would)",
		cases, pinned, lists-rejected, rejected)
}

// generator makes pattern lists and names from a fixed seed.
type generator struct {
	rng    *rand.Rand
	corpus []string
}

func newGenerator(tb testing.TB, seed uint64) *generator {
	return &generator{
		rng:    rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		corpus: readLines(tb, "image-names.txt"),
	}
}

// Adversarial bits: fold orbits, invalid UTF-8, metacharacters, stars,
// whitespace and control characters.
var spice = []string{
	"k", "K", "\u212a", "s", "S", "\u017f", "\u00df", "\u1e9e", "\u03c3", "\u03a3", "\u03c2",
	"\u00b5", "\u03bc", "\u2126", "\u00e5", "\u212b", "\u01c4", "\u01c5", "\u01c6", "\u0130", "\u0131",
	"\ufb05", "\ufb06", "\ufffd", "\xff", "\xc3", "\xe2\x82", "\xed\xa0\x80", "\xc0\xaf", "\xf4\x90\x80\x80",
	".", "+", "?", "(", ")", "[", "]", "{", "}", "|", "^", "$", `\`, "*", "**", ":", "@", "/",
	" ", "\t", "\n", "\x00", "\x7f", "\u0085", "\u00a0", "\u2028", "\u200b", "é", "É", "ẞ",
}

func (g *generator) pick(list []string) string { return list[g.rng.IntN(len(list))] }

// name is an image name: from the corpus, often mutated.
func (g *generator) name() string {
	n := g.pick(g.corpus)
	switch g.rng.IntN(12) {
	case 0, 1, 2, 3:
		return n
	case 4:
		return g.recase(n)
	case 5:
		return g.foldSwap(n)
	case 6:
		return g.splice(n)
	case 7:
		return n[:g.rng.IntN(len(n)+1)]
	case 8:
		return n + g.pick([]string{"\n", "x", ":latest", "@sha256:00", "\xff"})
	case 9:
		return g.pick([]string{"evil.example/", "x", "docker.io/", ""}) + n
	case 10:
		return g.pick([]string{"", "*", "**", "a*b", "*pause", "pause", "k8s", "\xff", "\n", " "})
	default:
		return g.splice(g.recase(n))
	}
}

func (g *generator) recase(s string) string {
	b := []byte(s)
	for i := range b {
		if g.rng.IntN(3) == 0 {
			switch c := b[i]; {
			case 'a' <= c && c <= 'z':
				b[i] = c - 32
			case 'A' <= c && c <= 'Z':
				b[i] = c + 32
			}
		}
	}
	return string(b)
}

// foldSwap replaces k, s and friends by other runes of their fold orbit.
func (g *generator) foldSwap(s string) string {
	return strings.NewReplacer("k", "\u212a", "s", "\u017f", "S", "\u017f", "K", "\u212a").Replace(s)
}

// splice inserts an adversarial bit somewhere.
func (g *generator) splice(s string) string {
	at := g.rng.IntN(len(s) + 1)
	return s[:at] + g.pick(spice) + s[at:]
}

// substring returns a piece of s (on byte boundaries: it may cut a rune).
func (g *generator) substring(s string) string {
	if s == "" {
		return ""
	}
	i := g.rng.IntN(len(s))
	j := i + 1 + g.rng.IntN(min(len(s)-i, 24))
	return s[i:j]
}

// pattern is one pinned_images entry.
func (g *generator) pattern(names []string) string {
	base := g.pick(g.corpus)
	if len(names) > 0 && g.rng.IntN(2) == 0 {
		base = g.pick(names) // aim at the names under test
	}
	switch g.rng.IntN(20) {
	case 0, 1, 2, 3, 4:
		return base
	case 5:
		return g.recase(base)
	case 6, 7, 8:
		return base[:g.rng.IntN(len(base)+1)] + "*"
	case 9, 10, 11:
		return "*" + g.substring(base) + "*"
	case 12:
		return g.foldSwap(g.substring(base)) + "*"
	case 13:
		return "*" + g.splice(g.substring(base)) + "*"
	case 14:
		return g.splice(base)
	case 15:
		return g.pick([]string{"**", "***", "*pause", "a*b", "", "*pause*", "registry.k8s.io/*", "*\ufffd*", "*K*", "*\u017f*"})
	case 16:
		return g.pick(spice) + g.pick(spice) + g.pick([]string{"", "*"})
	case 17:
		if g.rng.IntN(8) == 0 {
			return "*" // rejected: the whole list fails, as CRI-O panics
		}
		return "*" + g.pick(spice) + "*"
	case 18:
		return g.substring(base) + g.pick([]string{"*", "**", ""})
	default:
		return g.foldSwap(base)
	}
}

// list returns a pattern list, flags and the names to try on it.
func (g *generator) list() ([]string, criopin.Flag, []string) {
	names := make([]string, 20)
	for i := range names {
		names[i] = g.name()
	}
	patterns := make([]string, 1+g.rng.IntN(12))
	for i := range patterns {
		patterns[i] = g.pattern(names)
	}
	// Invalid UTF-8 in a pattern rejects the list: keep most lists valid.
	for i, p := range patterns {
		if g.rng.IntN(4) != 0 {
			patterns[i] = strings.ToValidUTF8(p, "\ufffd")
		}
	}
	flags := criopin.Default
	if g.rng.IntN(2) == 0 {
		flags = criopin.Flag(g.rng.IntN(8))
	}
	return patterns, flags, names
}

// FuzzConformance compares the library with CRI-O's regexps on fuzzed
// lists and names. The list's first byte is the separator of the
// patterns that follow it; flags keeps its low 3 bits. Run it longer with
//
//	go test -run '^$' -fuzz FuzzConformance -fuzztime 10m
//
// (the committed seed corpus is in testdata/fuzz/FuzzConformance).
func FuzzConformance(f *testing.F) {
	for _, c := range edgeCases {
		name := "x"
		if len(c.names) > 0 {
			name = slices.Sorted(maps.Keys(c.names))[0]
		}
		f.Add("\n"+strings.Join(c.patterns, "\n"), name, uint8(c.flags))
	}
	f.Add("\x00registry.k8s.io/pause:3.9\x00quay.io/*\x00*etcd*", "QUAY.IO/x", uint8(0))
	f.Add("|*|**|***", "a*b", uint8(4))
	f.Fuzz(func(t *testing.T, list, name string, flags uint8) {
		if len(list) > 4096 || len(name) > 4096 {
			t.Skip("too long")
		}
		var patterns []string
		if len(list) > 0 {
			patterns = strings.Split(list[1:], list[:1])
		}
		if len(patterns) > 64 {
			t.Skip("too many patterns") // the regexp loop would be slow
		}
		names := []string{name, strings.ToUpper(name), name + "\n", ""}
		for _, p := range patterns[:min(len(patterns), 16)] {
			names = append(names, p, strings.Trim(p, "*"))
		}
		checkList(t, patterns, criopin.Flag(flags&7), names)
	})
}
