package criopin_test

// The ground truth: CRI-O's own code, in Go, with Go's regexp. The library
// is compared with it; every disagreement is a bug in the library.

import (
	"bufio"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode"

	criopin "github.com/crio-pin/crio-pin/go"
)

// crioRegexp is one iteration of CRI-O's CompileRegexpsForPinnedImages
// (internal/storage/image.go), verbatim but for the two opt-in flags:
// AnchorGlobs adds "^" before a glob, CaseSensitive drops "(?i)". Like
// CRI-O it panics on the lone "*" (pattern[1:0]) and on a pattern that is
// not valid UTF-8 (regexp.MustCompile).
func crioRegexp(pattern string, flags criopin.Flag) *regexp.Regexp {
	fold := "(?i)"
	if flags&criopin.CaseSensitive != 0 {
		fold = ""
	}
	var re *regexp.Regexp
	switch {
	case strings.HasPrefix(pattern, "*") && strings.HasSuffix(pattern, "*"):
		// keyword pattern
		keyword := regexp.QuoteMeta(pattern[1 : len(pattern)-1])
		re = regexp.MustCompile(fold + keyword)
	case strings.HasSuffix(pattern, "*"):
		// glob pattern
		anchor := ""
		if flags&criopin.AnchorGlobs != 0 {
			anchor = "^"
		}
		pattern = regexp.QuoteMeta(pattern[:len(pattern)-1]) + ".*"
		re = regexp.MustCompile(fold + anchor + pattern)
	default:
		// exact pattern
		re = regexp.MustCompile(fold + "^" + regexp.QuoteMeta(pattern) + "$")
	}
	return re
}

// strictRejects is the Strict flag's rule, written from its specification:
// the empty pattern, whitespace or control characters anywhere, and any
// '*' but a trailing one or the leading one of a "*word*" keyword.
func strictRejects(p string) bool {
	if p == "" {
		return true
	}
	for _, r := range p {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return true
		}
	}
	body := p
	switch {
	case len(p) >= 2 && p[0] == '*' && p[len(p)-1] == '*':
		body = p[1 : len(p)-1]
	case strings.HasSuffix(p, "*"):
		body = p[:len(p)-1]
	}
	return strings.Contains(body, "*")
}

// reference is CRI-O's list of regexps for patterns.
type reference struct {
	regexps []*regexp.Regexp
}

// compileReference builds CRI-O's regexps in list order. A pattern on which
// CRI-O would panic, or that Strict rejects, is a compile error: it returns
// the index of the first such pattern (-1 when the list compiles).
func compileReference(patterns []string, flags criopin.Flag) (ref *reference, badIndex int) {
	ref = &reference{regexps: make([]*regexp.Regexp, 0, len(patterns))}
	for i, p := range patterns {
		if flags&criopin.Strict != 0 && strictRejects(p) {
			return nil, i
		}
		re, ok := mustCompileRecovered(p, flags)
		if !ok {
			return nil, i
		}
		ref.regexps = append(ref.regexps, re)
	}
	return ref, -1
}

func mustCompileRecovered(p string, flags criopin.Flag) (re *regexp.Regexp, ok bool) {
	defer func() {
		if recover() != nil {
			re, ok = nil, false
		}
	}()
	return crioRegexp(p, flags), true
}

// matchIndex is CRI-O's FilterPinnedImage loop, returning the index of the
// first regexp that matches (-1 for none) instead of true.
func (r *reference) matchIndex(name string) int {
	for i, re := range r.regexps {
		if re.MatchString(name) {
			return i
		}
	}
	return -1
}

// filterPinnedImage is CRI-O's FilterPinnedImage, verbatim.
func filterPinnedImage(image string, pinnedImages []*regexp.Regexp) bool {
	if len(pinnedImages) == 0 {
		return false
	}
	for _, pinnedImage := range pinnedImages {
		if pinnedImage.MatchString(image) {
			return true
		}
	}
	return false
}

// readLines reads a file of testdata, one entry a line.
func readLines(tb testing.TB, name string) []string {
	tb.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			lines = append(lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	return lines
}

// patternList returns the realistic list of n patterns: the files for 1 to
// 1000, and for larger n, the 1000 list followed by deterministic variants
// of it with the same mix of exact names, globs and keywords.
func patternList(tb testing.TB, n int) []string {
	tb.Helper()
	switch n {
	case 1, 10, 100, 1000:
		return readLines(tb, fmt.Sprintf("patterns-%d.txt", n))
	}
	base := readLines(tb, "patterns-1000.txt")
	out := make([]string, 0, n)
	for v := 0; len(out) < n; v++ {
		for _, p := range base {
			if len(out) == n {
				break
			}
			out = append(out, patternVariant(p, v))
		}
	}
	return out
}

// patternVariant is variant v of a pattern (v 0 is the pattern itself):
// another digest, tag, team or keyword of the same shape.
func patternVariant(p string, v int) string {
	if v == 0 {
		return p
	}
	h := fmt.Sprintf("%08x", fnv32(fmt.Sprintf("%d/%s", v, p)))
	switch {
	case len(p) >= 2 && p[0] == '*' && p[len(p)-1] == '*':
		return fmt.Sprintf("%s-v%d*", p[:len(p)-1], v)
	case strings.HasSuffix(p, "/*"):
		return fmt.Sprintf("%s-v%d/*", p[:len(p)-2], v)
	case strings.HasSuffix(p, "*"):
		return p[:len(p)-1] + h[:2] + "*"
	case strings.Contains(p, "@sha256:") && len(p) > 8:
		return p[:len(p)-8] + h
	default:
		return fmt.Sprintf("%s-v%d", p, v)
	}
}

func fnv32(s string) uint32 {
	h := uint32(2166136261)
	for i := 0; i < len(s); i++ {
		h ^= uint32(s[i])
		h *= 16777619
	}
	return h
}
