package criopin_test

// Conformance: the package's backend (the library through cgo, or with
// without cgo the library compiled to WebAssembly, in each engine) against
// CRI-O's regexps (see
// reference_test.go): on the shared table of named cases
// (semantics_test.go), on Go's own message cases, on generated cases from
// a fixed seed, and as a fuzz target. `make test` runs it with both
// backends.

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
)

// bad marks a list that must not compile: the index of the pattern to
// blame and why.
type bad struct {
	index int
	kind  criopin.ErrorKind
}

// messageCases are Go's own error cases, beside the shared table
// (data/semantics.txt, semantics_test.go): patterns that are awkward to
// name in a message (quotes, escapes, marks, long patterns cut, invalid
// UTF-8). Both backends must give the same kind, index and pattern; each
// writes its own message (checkList).
var messageCases = []struct {
	name     string
	patterns []string
	flags    criopin.Flag
	fails    bad
}{
	{"quotes and backslashes escaped", []string{`a"b'c\d e`}, criopin.Strict, bad{0, criopin.KindStrictWhitespace}},
	{"a combining mark and a joiner escaped", []string{"e\u0301\u200d x"}, criopin.Strict, bad{0, criopin.KindStrictWhitespace}},
	{"a long pattern cut mid-rune", []string{"x" + strings.Repeat("\u00e9", 70) + " "}, criopin.Strict, bad{0, criopin.KindStrictWhitespace}},
	{"a long *word quoted twice", []string{"*" + strings.Repeat("ab", 100)}, criopin.Strict, bad{0, criopin.KindStrictLeadingStar}},
	{"*word with a quote", []string{`*it's`}, criopin.Strict, bad{0, criopin.KindStrictLeadingStar}},
	{"invalid UTF-8 after a long prefix", []string{strings.Repeat("a", 130) + "\xc3("}, criopin.Default, bad{0, criopin.KindInvalidUTF8}},
	{"a control character", []string{"ok", "a\x1cb"}, criopin.Strict, bad{1, criopin.KindStrictWhitespace}},
}

// TestMessages: both backends give these errors with the same kind,
// index and pattern (checkList compares with the reference's), and a
// message that names the pattern.
func TestMessages(t *testing.T) {
	for _, c := range messageCases {
		t.Run(c.name, func(t *testing.T) {
			if _, rerr := compileReference(c.patterns, c.flags); rerr == nil || rerr.Index != c.fails.index || rerr.Kind != c.fails.kind {
				t.Fatalf("test table: the reference gives %v, the table says pattern %d, %v", rerr, c.fails.index, c.fails.kind)
			}
			checkList(t, c.patterns, c.flags, nil)
		})
	}
}

// TestUnknownFlags: bits the package does not know are an error naming no
// pattern, and naming the flags as a Go program spells them.
func TestUnknownFlags(t *testing.T) {
	for f, bits := range map[criopin.Flag]string{64: "0x40", 1 << 31: "0x80000000", criopin.Strict | 128: "0x80"} {
		_, err := criopin.Compile([]string{"x"}, f)
		var cerr *criopin.CompileError
		if !errors.As(err, &cerr) {
			t.Fatalf("flags %v: got %v, want a *CompileError", f, err)
		}
		checkValidate(t, []string{"x"}, f, err)
		want := "unknown flag bits " + bits + "; the flags are criopin.AnchorGlobs (1), criopin.CaseSensitive (2), " +
			"criopin.Strict (4), criopin.Literal (8), criopin.CriDockerdSyntax (16) and criopin.Normalize (32), " +
			"or criopin.Default (0)"
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
	checkValidate(t, patterns, flags, err)
	if rerr != nil {
		var cerr *criopin.CompileError
		if err == nil {
			set.Close()
			t.Errorf("Compile(%q, %v) succeeded; the reference rules reject it: %v", patterns, flags, rerr)
			return 0, 0
		}
		if !errors.As(err, &cerr) {
			t.Errorf("Compile(%q, %v): error %T %v is not a *CompileError", patterns, flags, err, err)
			return 0, 0
		}
		// Both backends give the same error: kind, index and pattern
		// (what a program checks); each writes its own message, which
		// names the pattern.
		if cerr.Kind != rerr.Kind || cerr.Index != rerr.Index || cerr.Pattern != rerr.Pattern ||
			!errors.Is(err, sentinels[rerr.Kind]) || !namesPattern(cerr) {
			t.Errorf("Compile(%q, %v):\n  got  %#v\n  want kind %v, index %d, pattern %q",
				patterns, flags, cerr, rerr.Kind, rerr.Index, rerr.Pattern)
		}
		return 0, 0
	}
	if err != nil {
		t.Errorf("Compile(%q, %v): %v; the reference rules compile this list", patterns, flags, err)
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
			t.Errorf("MatchIndex(%q) = %d, want %d (the reference rules: %d)\n  patterns %q, flags %v\n  regexps %v",
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

// checkValidate: Validate gives Compile's verdict on the list, and its
// error (kind, index, pattern, message), building nothing.
func checkValidate(t testing.TB, patterns []string, flags criopin.Flag, compileErr error) {
	t.Helper()
	err := criopin.Validate(patterns, flags)
	if compileErr == nil {
		if err != nil {
			t.Errorf("Validate(%q, %v) = %v; Compile accepts the list", patterns, flags, err)
		}
		return
	}
	var verr, cerr *criopin.CompileError
	if !errors.As(err, &verr) || !errors.As(compileErr, &cerr) || *verr != *cerr {
		t.Errorf("Validate(%q, %v):\n  got  %#v\n  want %#v (Compile's)", patterns, flags, err, compileErr)
	}
}

// namesPattern: the message of an error that blames no pattern names none;
// that of an error that blames a pattern starts by naming it, "pattern N
// (...)" (the library's quoting, which the Rust and C suites check; both
// backends give the library's message).
func namesPattern(e *criopin.CompileError) bool {
	if e.Index < 0 {
		return e.Pattern == "" && !strings.HasPrefix(e.Message, "pattern ")
	}
	return strings.HasPrefix(e.Message, fmt.Sprintf("pattern %d (", e.Index))
}

// sentinels is the sentinel error of each kind a pattern list can have.
var sentinels = map[criopin.ErrorKind]error{
	criopin.KindUnknownFlags: criopin.ErrUnknownFlags, criopin.KindInvalidUTF8: criopin.ErrInvalidUTF8,
	criopin.KindLoneStar: criopin.ErrLoneStar, criopin.KindStrictEmpty: criopin.ErrStrict,
	criopin.KindStrictWhitespace: criopin.ErrStrict, criopin.KindStrictLeadingStar: criopin.ErrStrict,
	criopin.KindStrictInnerStar: criopin.ErrStrict, criopin.KindTooLarge: criopin.ErrTooLarge,
	criopin.KindConflictingFlags: criopin.ErrConflictingFlags, criopin.KindInvalidReference: criopin.ErrInvalidReference,
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

// FuzzConformance compares the library with the reference rules on fuzzed
// lists and names, under every rule set. The list's first byte is the
// separator of the patterns that follow it; flags keeps its low 6 bits. Run it longer with
//
//	go test -run '^$' -fuzz FuzzConformance -fuzztime 10m
//
// (the committed seed corpus is in testdata/fuzz/FuzzConformance).
func FuzzConformance(f *testing.F) {
	for _, c := range messageCases {
		f.Add("\n"+strings.Join(c.patterns, "\n"), "x", uint8(c.flags))
	}
	for _, c := range readSemantics(f) {
		f.Add("\x00"+strings.Join(c.patterns, "\x00"), c.match, uint8(c.flags))
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
		checkList(t, patterns, criopin.Flag(flags&63), names)
	})
}

// TestLengthTable: the cgo backend answers a name from the library's length
// table without calling it when the table settles the name; those answers
// must be the reference's, at every length the table covers and past it,
// for names that fold to another length (U+212A KELVIN SIGN folds to 'k',
// a bad byte reads as 3 bytes) as well as ASCII ones.
func TestLengthTable(t *testing.T) {
	lists := [][]string{
		{"registry.k8s.io/pause:3.10.1"},
		{"kkkkkkkkk", "\uFFFD\uFFFD\uFFFD"},
		{"quay.io/x:1", "abc*"},
		{},
	}
	for _, patterns := range lists {
		set := criopin.MustCompile(patterns)
		ref, cerr := compileReference(patterns, criopin.Default)
		if cerr != nil {
			t.Fatal(cerr)
		}
		var names []string
		for n := 0; n < 530; n++ {
			names = append(names, strings.Repeat("k", n), strings.Repeat("\xff", n))
			if n%3 == 0 {
				names = append(names, strings.Repeat("\u212A", n/3))
			}
		}
		names = append(names, patterns...)
		for _, name := range names {
			want := ref.MatchIndex(name)
			if got := set.MatchIndex(name); got != want {
				t.Errorf("%q: MatchIndex(%d-byte name) = %d, want %d", patterns, len(name), got, want)
			}
			if got := set.Match(name); got != (want >= 0) {
				t.Errorf("%q: Match(%d-byte name) = %v", patterns, len(name), got)
			}
			if got := set.MatchAny(name, "z"); got != (want >= 0 || ref.MatchIndex("z") >= 0) {
				t.Errorf("%q: MatchAny(%d-byte name, z) = %v", patterns, len(name), got)
			}
		}
		set.Close()
	}
}
