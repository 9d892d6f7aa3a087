package criopin

import (
	// The digest algorithms the grammar names and the library takes:
	// go-digest refuses an algorithm whose hash is not linked in.
	_ "crypto/sha256"
	_ "crypto/sha512"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/distribution/reference"
)

// The tests' reference rules for every flag: how a pattern is read under
// each syntax, normalisation, and the other runtimes' byte comparisons.
// They are the library's (src/pattern.rs, src/set.rs, src/normalize.rs),
// written independently in Go so that the tests can check the library
// (through cgo, or compiled to WebAssembly) against them
// (TestSemanticsTable, TestDifferential); no backend uses them.

// patternKind is what a pattern asks of a name (src/pattern.rs, Pattern).
type patternKind uint8

const (
	exactPattern      patternKind = iota // the whole name equals the text
	globPattern                          // "prefix*": the name contains the text (starts with it, AnchorGlobs)
	keywordPattern                       // "*word*": the name contains the text
	repositoryPattern                    // cri-dockerd's bare repository: the name's repository equals the text
	blankPattern                         // cri-dockerd's blank entry: pins nothing
)

// parsedPattern is a pattern as its syntax reads it: its kind and the text
// a name is compared with (stars removed; normalised under Normalize).
type parsedPattern struct {
	kind patternKind
	text string
}

// parsePattern reads a valid UTF-8 pattern under flags' syntax; false for
// the lone "*" of CRI-O's syntax (on which CRI-O panics).
func parsePattern(p string, flags Flag) (parsedPattern, bool) {
	switch {
	case flags&Literal != 0: // containerd compares its values with ==
		return parsedPattern{exactPattern, p}, true
	case flags&CriDockerdSyntax != 0:
		return criDockerdPattern(p), true
	case len(p) >= 2 && p[0] == '*' && p[len(p)-1] == '*': // "**" is the keyword ""
		return parsedPattern{keywordPattern, p[1 : len(p)-1]}, true
	case p == "*":
		return parsedPattern{}, false
	case strings.HasSuffix(p, "*"):
		return parsedPattern{globPattern, p[:len(p)-1]}, true
	}
	return parsedPattern{exactPattern, p}, true
}

// criDockerdPattern is cri-dockerd's reading of a --pinned-images value:
// trimmed; blank pins nothing; one trailing '*' makes a prefix; a digest,
// or a tag (a ':' after the last '/'), makes an exact name; anything else
// is a bare repository.
func criDockerdPattern(p string) parsedPattern {
	t := strings.TrimSpace(p) // Unicode White_Space, as Rust's trim
	switch {
	case t == "":
		return parsedPattern{blankPattern, ""}
	case strings.HasSuffix(t, "*"):
		return parsedPattern{globPattern, t[:len(t)-1]}
	case strings.Contains(t, "@") || strings.Contains(t[strings.LastIndexByte(t, '/')+1:], ":"):
		return parsedPattern{exactPattern, t}
	}
	return parsedPattern{repositoryPattern, t}
}

// comparesBytes says whether patterns are read by containerd's or
// cri-dockerd's syntax, whose runtimes compare Go strings: case-sensitive,
// a name is compared as bytes (an invalid byte equals nothing a pattern,
// valid UTF-8, can hold); under case folding, as the library folds, each
// invalid byte reads as U+FFFD, as Go's (?i) reads it. CRI-O's syntax goes
// to its loop of regexps instead.
func comparesBytes(flags Flag) bool {
	return flags&(Literal|CriDockerdSyntax) != 0
}

// eachPattern reads a list as the library does (src/set.rs, each_pattern):
// the flags, then each pattern in order (limits, UTF-8, syntax, Strict,
// then under Normalize its reference), handing each to each (when not
// nil). The first failure is the error.
func eachPattern(patterns []string, flags Flag, each func(i int, p parsedPattern)) *CompileError {
	if flags&Literal != 0 && flags&CriDockerdSyntax != 0 {
		return &CompileError{Kind: KindConflictingFlags, Index: -1, Message: "the flags criopin.Literal and " +
			"criopin.CriDockerdSyntax are two pattern syntaxes; choose one"}
	}
	total := 0
	for i, raw := range patterns {
		total += len(raw)
		p, err := checkPattern(i, raw, total, flags)
		if err != nil {
			return err
		}
		if flags&Normalize != 0 && (p.kind == exactPattern || p.kind == repositoryPattern) {
			normalized, nerr := normalizeReference(p.text)
			if nerr != nil {
				return &CompileError{Kind: KindInvalidReference, Index: i, Pattern: raw, Message: "pattern " +
					strconv.Itoa(i) + " (" + quote(raw) + "): not an image reference (" + nerr.Error() +
					"), which criopin.Normalize requires of an exact pattern; write one such as " +
					`"registry.k8s.io/pause:3.10", or a glob "prefix*"`}
			}
			if p.kind == repositoryPattern {
				// A bare repository gained ":latest", which a name's
				// repository does not have.
				normalized = strings.TrimSuffix(normalized, ":latest")
			}
			p.text = normalized
		}
		if each != nil {
			each(i, p)
		}
	}
	return nil
}

// normalizeReference is text as containerd normalises a pulled name
// (distribution/reference's ParseDockerRef): "nginx" is
// "docker.io/library/nginx:latest", "name:tag@digest" is "name@digest".
func normalizeReference(text string) (string, error) {
	named, err := reference.ParseDockerRef(text)
	if err != nil {
		return "", err
	}
	return named.String(), nil
}

// repositoryOf is a name's repository as cri-dockerd takes it: without its
// digest (from the first '@'), then without a tag (from the last ':' after
// the last '/'), so that a registry's port stays.
func repositoryOf(name string) string {
	if at := strings.IndexByte(name, '@'); at >= 0 {
		name = name[:at]
	}
	last := strings.LastIndexByte(name, '/') + 1
	if colon := strings.LastIndexByte(name[last:], ':'); colon >= 0 {
		return name[:last+colon]
	}
	return name
}

// byteLoop matches patterns read by containerd's or cri-dockerd's syntax
// (exact names, prefixes, bare repositories and blanks: no keywords) in
// list order, comparing names as bytes (see comparesBytes), folding case
// as (?i) folds it unless CaseSensitive; blanks pin nothing.
type byteLoop struct {
	patterns     []parsedPattern
	fold, anchor bool
}

func (l *byteLoop) matchIndex(name string) int {
	for i, p := range l.patterns {
		var hit bool
		switch p.kind {
		case exactPattern:
			n, ok := l.prefix(name, p.text)
			hit = ok && n == len(name)
		case globPattern:
			if l.anchor {
				_, hit = l.prefix(name, p.text)
			} else {
				hit = l.contains(name, p.text)
			}
		case repositoryPattern:
			repository := repositoryOf(name)
			n, ok := l.prefix(repository, p.text)
			hit = ok && n == len(repository)
		}
		if hit {
			return i
		}
	}
	return -1
}

// prefix matches text at the start of s and says how many bytes of s it
// took: bytes as they are, or rune by rune under folding, where an invalid
// byte of s decodes as U+FFFD (see comparesBytes).
func (l *byteLoop) prefix(s, text string) (int, bool) {
	if !l.fold {
		return len(text), strings.HasPrefix(s, text)
	}
	at := 0
	for _, want := range text {
		if at == len(s) {
			return 0, false
		}
		r, size := utf8.DecodeRuneInString(s[at:])
		if !sameFold(r, want) {
			return 0, false
		}
		at += size
	}
	return at, true
}

// contains says whether text matches s at some character of s. (A valid
// UTF-8 text found among s's bytes starts where a character of s does.)
func (l *byteLoop) contains(s, text string) bool {
	if !l.fold {
		return strings.Contains(s, text)
	}
	for at := 0; ; {
		if _, ok := l.prefix(s[at:], text); ok {
			return true
		}
		if at == len(s) {
			return false
		}
		_, size := utf8.DecodeRuneInString(s[at:])
		at += size
	}
}

// sameFold says whether a and b are one rune to (?i): the same, or in one
// orbit of unicode.SimpleFold.
func sameFold(a, b rune) bool {
	if a == b {
		return true
	}
	for r := unicode.SimpleFold(a); r != a; r = unicode.SimpleFold(r) {
		if r == b {
			return true
		}
	}
	return false
}

// goMatcher is the pure-Go backend's compiled list: CRI-O's loop of
// regexps for CRI-O's syntax, the byte loop for the other runtimes'; under
// Normalize each name is normalised first (a name that is no reference is
// matched as it is). Immutable, safe for concurrent use.
type goMatcher struct {
	normalize bool
	crio      *regexpLoop // CRI-O's syntax
	bytes     *byteLoop   // containerd's or cri-dockerd's
}

// compileGoMatcher reads patterns as the library does (the same kind and
// index of error) and builds their matcher. flags are known bits.
func compileGoMatcher(patterns []string, flags Flag) (*goMatcher, *CompileError) {
	parsed := make([]parsedPattern, 0, len(patterns))
	if err := eachPattern(patterns, flags, func(_ int, p parsedPattern) { parsed = append(parsed, p) }); err != nil {
		return nil, err
	}
	m := &goMatcher{normalize: flags&Normalize != 0}
	if comparesBytes(flags) {
		m.bytes = &byteLoop{patterns: parsed, fold: flags&CaseSensitive == 0, anchor: flags&AnchorGlobs != 0}
	} else {
		m.crio = compileRegexpLoop(parsed, flags)
	}
	return m, nil
}

func (m *goMatcher) matchIndex(name string) int {
	if m.normalize {
		if normalized, err := normalizeReference(name); err == nil {
			name = normalized
		}
	}
	if m.bytes != nil {
		return m.bytes.matchIndex(name)
	}
	return m.crio.matchIndex(name)
}

func (m *goMatcher) matchAny(names []string) bool {
	for _, name := range names {
		if m.matchIndex(name) >= 0 {
			return true
		}
	}
	return false
}

// Limits of one set, the library's (MAX_PATTERNS, MAX_PATTERN_BYTES): no
// list within them is refused for its size.
const (
	maxPatterns     = 10_000_000
	maxPatternBytes = 64 << 20
)

// checkPattern is the library's validation of pattern i (src/pattern.rs and
// src/set/intake.rs: the same rules in the same order, so the same kind and index
// for a list): the size limits, UTF-8, the syntax (the lone "*"), then the
// Strict rules; it returns the pattern as the syntax reads it. total is the
// size of patterns 0..i. The messages are this package's own (see
// CompileError.Message).
func checkPattern(i int, p string, total int, flags Flag) (parsedPattern, *CompileError) {
	tooLarge := func(what string, limit int) *CompileError {
		// The pattern is not quoted: it may be megabytes long.
		return &CompileError{Kind: KindTooLarge, Index: i, Pattern: p, Message: "pattern " + strconv.Itoa(i) +
			": too large: " + what + " may be at most " + strconv.Itoa(limit) + "; split the list or shorten the pattern"}
	}
	if i >= maxPatterns {
		return parsedPattern{}, tooLarge("the number of patterns", maxPatterns)
	}
	if total > maxPatternBytes {
		return parsedPattern{}, tooLarge("the total size of all patterns in bytes", maxPatternBytes)
	}
	at := func(kind ErrorKind, msg string) (parsedPattern, *CompileError) {
		return parsedPattern{}, &CompileError{Kind: kind, Index: i, Pattern: p,
			Message: "pattern " + strconv.Itoa(i) + " (" + quote(p) + "): " + msg}
	}
	if !utf8.ValidString(p) { // the fast check first: most patterns are ASCII
		return at(KindInvalidUTF8, "not valid UTF-8 (bad byte at offset "+strconv.Itoa(invalidUTF8At(p))+
			"); patterns are text: fix the encoding of the configuration")
	}
	parsed, ok := parsePattern(p, flags)
	if !ok {
		return at(KindLoneStar, `a lone '*' is not a valid pattern; write "**" to pin every image`)
	}
	if flags&Strict == 0 {
		return parsed, nil
	}
	if p == "" {
		return at(KindStrictEmpty, "empty pattern (it pins only an image with an empty name); remove it")
	}
	for off, r := range p {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			what := "control character"
			if unicode.IsSpace(r) {
				what = "whitespace"
			}
			return at(KindStrictWhitespace, what+" "+strconv.QuoteRune(r)+" ("+codePoint(r)+") at byte "+
				strconv.Itoa(off)+"; image names never contain whitespace or control characters: "+
				"remove it (look for stray spaces, tabs or newlines)")
		}
	}
	// The wildcard stars are gone from the text: any star left is a
	// literal character. (Strict has refused whitespace, so the text of a
	// trimmed syntax starts where the pattern does.)
	star := strings.IndexByte(parsed.text, '*')
	if star < 0 {
		return parsed, nil
	}
	if parsed.kind == exactPattern && star == 0 && !strings.Contains(parsed.text[1:], "*") {
		word, anyCase := parsed.text[1:], ""
		if flags&CaseSensitive == 0 {
			anyCase = " (in any case)"
		}
		return at(KindStrictLeadingStar, "a '*' only at the start is a literal character, so this pins "+
			"only the name "+quote(parsed.text)+" itself"+anyCase+"; write "+quote("*"+word+"*")+
			" to pin names containing "+quote(word)+" (CRI-O has no suffix match)")
	}
	if parsed.kind == keywordPattern {
		star++ // the keyword's leading star
	}
	return at(KindStrictInnerStar, "the '*' at byte "+strconv.Itoa(star)+" is a literal character "+
		`(only a trailing '*', or the leading '*' of "*word*", is a wildcard); remove it, or split the `+
		`pattern into a "prefix*" glob or a "*word*" keyword`)
}

// invalidUTF8At is the offset of the first byte of p that is not valid
// UTF-8, or -1.
func invalidUTF8At(p string) int {
	for i := 0; i < len(p); {
		r, size := utf8.DecodeRuneInString(p[i:])
		if r == utf8.RuneError && size == 1 {
			return i
		}
		i += size
	}
	return -1
}

// quoteLimit is the longest part of a pattern quoted in a message.
const quoteLimit = 120

// quote names a pattern in a message as Go quotes a string
// (strconv.Quote); a pattern longer than quoteLimit bytes is cut on a
// character boundary and its size given.
func quote(p string) string {
	if len(p) <= quoteLimit {
		return strconv.Quote(p)
	}
	cut := quoteLimit
	for i := 1; i < utf8.UTFMax && !utf8.RuneStart(p[cut]); i++ {
		cut--
	}
	return strconv.Quote(p[:cut]) + "... (" + strconv.Itoa(len(p)) + " bytes)"
}

// codePoint is r in U+ notation, as fmt's %U writes it: "U+0020".
func codePoint(r rune) string {
	h := strings.ToUpper(strconv.FormatInt(int64(r), 16))
	return "U+" + strings.Repeat("0", max(0, 4-len(h))) + h
}
