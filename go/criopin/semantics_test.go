package criopin_test

// The shared table of named semantics cases, data/semantics.txt (its header
// defines the format), which the Rust and C suites read too: every case on
// this package's backend, and through checkList against CRI-O's regexps
// (same answers from every entry point, same errors).

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/crio-pin/crio-pin/go/criopin"
)

// semanticsCase is one line of the table.
type semanticsCase struct {
	line     int
	name     string
	flags    criopin.Flag
	patterns []string
	match    string // the name to match, when not an error case
	want     int    // the index that pins it, -1 for none
	fails    *bad   // for an error case
}

var tableFlags = map[string]criopin.Flag{
	"anchor_globs": criopin.AnchorGlobs, "case_sensitive": criopin.CaseSensitive, "strict": criopin.Strict,
	"literal": criopin.Literal, "cri_dockerd_syntax": criopin.CriDockerdSyntax, "normalize": criopin.Normalize,
	"containerd": criopin.Containerd, "containerd_normalized": criopin.ContainerdNormalized,
	"cri_dockerd": criopin.CriDockerd,
}

// runtimeRules are the flags of the other runtimes' rules.
const runtimeRules = criopin.Literal | criopin.CriDockerdSyntax | criopin.Normalize

var tableKinds = map[string]criopin.ErrorKind{
	"not_utf8": criopin.KindInvalidUTF8, "lone_star": criopin.KindLoneStar, "empty": criopin.KindStrictEmpty,
	"whitespace": criopin.KindStrictWhitespace, "leading_star": criopin.KindStrictLeadingStar,
	"inner_star": criopin.KindStrictInnerStar, "invalid_reference": criopin.KindInvalidReference,
}

// readSemantics parses the table, failing on any line it does not
// understand (naming it).
func readSemantics(tb testing.TB) []semanticsCase {
	tb.Helper()
	data, err := os.ReadFile(dataDir + "semantics.txt")
	if err != nil {
		tb.Fatal(err)
	}
	var cases []semanticsCase
	seen := map[string]int{}
	for i, text := range strings.Split(string(data), "\n") {
		if t := strings.TrimLeft(text, " "); t == "" || t[0] == '#' {
			continue
		}
		c, err := parseSemanticsLine(text)
		if err != nil {
			tb.Fatalf("semantics.txt:%d: %v\n  %s", i+1, err, text)
		}
		if prev, dup := seen[c.name]; dup {
			tb.Fatalf("semantics.txt:%d: case %q already on line %d", i+1, c.name, prev)
		}
		c.line, seen[c.name] = i+1, i+1
		cases = append(cases, c)
	}
	if len(cases) == 0 {
		tb.Fatal("semantics.txt: no cases")
	}
	return cases
}

func parseSemanticsLine(text string) (c semanticsCase, err error) {
	toks, err := tokenize(text)
	if err != nil {
		return c, err
	}
	word := func(i int) string { // a bare token, or "" for a string or past the end
		if i < len(toks) && !toks[i].quoted {
			return toks[i].text
		}
		return ""
	}
	if len(toks) < 5 || word(0) == "" || strings.Trim(word(0), "abcdefghijklmnopqrstuvwxyz0123456789_") != "" {
		return c, fmt.Errorf("want NAME FLAGS [ PATTERN ... ] NAME-TO-MATCH WANT, or ... error INDEX KIND")
	}
	c.name = word(0)
	if f := word(1); f != "default" {
		for _, part := range strings.Split(f, "+") {
			bit, ok := tableFlags[part]
			if !ok {
				return c, fmt.Errorf("unknown flag %q", part)
			}
			c.flags |= bit
		}
	}
	if word(2) != "[" {
		return c, fmt.Errorf("want '[' after the flags")
	}
	at := 3
	for ; at < len(toks) && (toks[at].quoted || toks[at].text != "]"); at++ {
		if !toks[at].quoted {
			return c, fmt.Errorf("pattern %q is not a quoted string", toks[at].text)
		}
		c.patterns = append(c.patterns, toks[at].text)
	}
	rest := toks[min(at+1, len(toks)):]
	if at == len(toks) {
		return c, fmt.Errorf("no ']'")
	}
	switch {
	case len(rest) == 3 && !rest[0].quoted && rest[0].text == "error":
		index, err := strconv.Atoi(rest[1].text)
		kind, ok := tableKinds[rest[2].text]
		if err != nil || rest[1].quoted || !ok || rest[2].quoted || index < 0 || index >= len(c.patterns) {
			return c, fmt.Errorf("want error INDEX KIND with a pattern's index and one of not_utf8, lone_star, empty, whitespace, leading_star, inner_star")
		}
		c.fails = &bad{index, kind}
	case len(rest) == 2 && rest[0].quoted && !rest[1].quoted:
		c.match, c.want = rest[0].text, -1
		if rest[1].text != "none" {
			c.want, err = strconv.Atoi(rest[1].text)
			if err != nil || c.want < 0 || c.want >= len(c.patterns) {
				return c, fmt.Errorf("want is %q: none or a pattern's index", rest[1].text)
			}
		}
	default:
		return c, fmt.Errorf("after ']': want NAME-TO-MATCH WANT or error INDEX KIND")
	}
	return c, nil
}

type token struct {
	text   string
	quoted bool
}

// tokenize splits a line into bare words, '[' and ']', and quoted strings
// (escapes decoded).
func tokenize(line string) ([]token, error) {
	var toks []token
	for i := 0; i < len(line); {
		switch ch := line[i]; {
		case ch == ' ':
			i++
		case ch == '[' || ch == ']':
			toks = append(toks, token{text: line[i : i+1]})
			i++
		case ch == '"':
			s, n, err := unquote(line[i+1:])
			if err != nil {
				return nil, fmt.Errorf("column %d: %v", i+1, err)
			}
			toks = append(toks, token{text: s, quoted: true})
			i += 1 + n
		default:
			j := i
			for j < len(line) && line[j] != ' ' && line[j] != '[' && line[j] != ']' && line[j] != '"' {
				j++
			}
			toks = append(toks, token{text: line[i:j]})
			i = j
		}
	}
	return toks, nil
}

// unquote decodes a string up to its closing quote; n counts the bytes
// read, the quote included.
func unquote(s string) (out string, n int, err error) {
	var b strings.Builder
	for i := 0; i < len(s); {
		ch := s[i]
		switch {
		case ch == '"':
			return b.String(), i + 1, nil
		case ch == '\\' && i+1 < len(s):
			switch e := s[i+1]; e {
			case '\\', '"':
				b.WriteByte(e)
				i += 2
			case 't', 'n', 'r':
				b.WriteByte(map[byte]byte{'t': '\t', 'n': '\n', 'r': '\r'}[e])
				i += 2
			case 'x':
				v, err := strconv.ParseUint(s[i+2:min(i+4, len(s))], 16, 8)
				if err != nil || i+4 > len(s) {
					return "", 0, fmt.Errorf(`bad \x escape: want two hex digits`)
				}
				b.WriteByte(byte(v))
				i += 4
			case 'u':
				end := strings.IndexByte(s[i:], '}')
				if !strings.HasPrefix(s[i+2:], "{") || end < 4 || end > 9 {
					return "", 0, fmt.Errorf(`bad \u escape: want \u{H...} with 1 to 6 hex digits`)
				}
				v, err := strconv.ParseUint(s[i+3:i+end], 16, 32)
				if err != nil || !utf8.ValidRune(rune(v)) {
					return "", 0, fmt.Errorf(`bad \u escape: not a Unicode scalar value`)
				}
				b.WriteRune(rune(v))
				i += end + 1
			default:
				return "", 0, fmt.Errorf(`unknown escape \%c`, e)
			}
		case ch >= 0x20 && ch <= 0x7e && ch != '\\':
			b.WriteByte(ch)
			i++
		default:
			return "", 0, fmt.Errorf("byte 0x%02x must be escaped", ch)
		}
	}
	return "", 0, fmt.Errorf("no closing quote")
}

// TestSemanticsTable runs every case of data/semantics.txt, the other
// runtimes' included, on the backend: the table's answer, and the
// reference rules' through every entry point (checkList), for matches and
// for errors.
func TestSemanticsTable(t *testing.T) {
	cases := readSemantics(t)
	runtimeCases := 0
	for _, c := range cases {
		where := fmt.Sprintf("semantics.txt:%d %s", c.line, c.name)
		if c.flags&runtimeRules != 0 {
			runtimeCases++
		}
		if c.fails != nil {
			_, err := criopin.Compile(c.patterns, c.flags)
			var cerr *criopin.CompileError
			if !errors.As(err, &cerr) || cerr.Index != c.fails.index || cerr.Kind != c.fails.kind {
				t.Errorf("%s: Compile(%q, %v) = %v, want pattern %d, %v", where, c.patterns, c.flags, err, c.fails.index, c.fails.kind)
			}
			checkList(t, c.patterns, c.flags, nil)
			continue
		}
		set, err := criopin.Compile(c.patterns, c.flags)
		if err != nil {
			t.Errorf("%s: %v", where, err)
			continue
		}
		if got := set.MatchIndex(c.match); got != c.want {
			t.Errorf("%s: MatchIndex(%q) = %d, want %d", where, c.match, got, c.want)
		}
		set.Close()
		checkList(t, c.patterns, c.flags, []string{c.match, "unrelated:1"})
	}
	t.Logf("%d named cases from data/semantics.txt, %d of them other runtimes' rules", len(cases), runtimeCases)
}
