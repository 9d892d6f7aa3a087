package criopin_test

// Test data (the repository's data/, read in place) and the ground truth:
// CRI-O's loop of Go regexps, and the other runtimes' rules in Go
// (criopin.CompileReference, from export_test.go and rules_test.go). Every disagreement of
// the library with it is a bug in the library.

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
)

// dataDir is the repository's data/ (image names and pattern lists).
const dataDir = "../../data/"

// compileReference builds CRI-O's regexps in list order. A pattern on
// which CRI-O would panic, or that Strict rejects, is a compile error: it
// returns the error the library must give too, in kind, index and pattern
// (nil when the list compiles).
func compileReference(patterns []string, flags criopin.Flag) (*criopin.Reference, *criopin.CompileError) {
	return criopin.CompileReference(patterns, flags)
}

// readLines reads a file of data/, one entry a line.
func readLines(tb testing.TB, name string) []string {
	tb.Helper()
	f, err := os.Open(dataDir + name)
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
