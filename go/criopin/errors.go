package criopin

import (
	"errors"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrorKind says what is wrong with a pattern list, in a form a program can
// check (see [CompileError]). The values are the library's
// CRIO_PIN_ERROR_* constants.
type ErrorKind uint32

const (
	// KindUnknownFlags: flag bits this version does not know.
	KindUnknownFlags ErrorKind = 1
	// KindInvalidUTF8: a pattern is not valid UTF-8.
	KindInvalidUTF8 ErrorKind = 2
	// KindLoneStar: the pattern "*" (write "**" to pin every image).
	KindLoneStar ErrorKind = 3
	// KindStrictEmpty: with [Strict], the empty pattern.
	KindStrictEmpty ErrorKind = 4
	// KindStrictWhitespace: with [Strict], whitespace or a control character.
	KindStrictWhitespace ErrorKind = 5
	// KindStrictLeadingStar: with [Strict], "*word", whose '*' is literal.
	KindStrictLeadingStar ErrorKind = 6
	// KindStrictInnerStar: with [Strict], a literal '*' inside a pattern.
	KindStrictInnerStar ErrorKind = 7
	// KindTooLarge: more patterns, or more pattern bytes, than a set holds
	// (10,000,000 patterns, 64 MiB of pattern text), or globs and keywords
	// needing a larger automaton than it bounds (32 MiB of table; Index
	// -1: no one pattern is to blame).
	KindTooLarge ErrorKind = 8
	// KindInvalidArgument: the library was called with invalid arguments
	// (a bug in this package: it always passes valid ones).
	KindInvalidArgument ErrorKind = 9
	// KindInternal: an internal failure of the library (a bug).
	KindInternal ErrorKind = 10
	// KindConflictingFlags: [Literal] with [CriDockerdSyntax].
	KindConflictingFlags ErrorKind = 11
	// KindInvalidReference: with [Normalize], an exact pattern that is not
	// an image reference.
	KindInvalidReference ErrorKind = 12
)

var kindNames = [...]string{
	KindUnknownFlags:      "UnknownFlags",
	KindInvalidUTF8:       "InvalidUTF8",
	KindLoneStar:          "LoneStar",
	KindStrictEmpty:       "StrictEmpty",
	KindStrictWhitespace:  "StrictWhitespace",
	KindStrictLeadingStar: "StrictLeadingStar",
	KindStrictInnerStar:   "StrictInnerStar",
	KindTooLarge:          "TooLarge",
	KindInvalidArgument:   "InvalidArgument",
	KindInternal:          "Internal",
	KindConflictingFlags:  "ConflictingFlags",
	KindInvalidReference:  "InvalidReference",
}

// String names the kind, such as "LoneStar".
func (k ErrorKind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "ErrorKind(" + strconv.FormatUint(uint64(k), 10) + ")"
}

// Sentinel errors: errors.Is(err, criopin.ErrLoneStar) holds for a
// *[CompileError] of the matching kind, however wrapped.
var (
	ErrUnknownFlags = errors.New("criopin: unknown flags")
	ErrInvalidUTF8  = errors.New("criopin: pattern is not valid UTF-8")
	ErrLoneStar     = errors.New(`criopin: lone "*" pattern`)
	// ErrStrict matches every pattern [Strict] rejects (the four
	// KindStrict* kinds).
	ErrStrict   = errors.New("criopin: pattern rejected by Strict")
	ErrTooLarge = errors.New("criopin: pattern list too large")
	// ErrConflictingFlags: two pattern syntaxes asked for at once.
	ErrConflictingFlags = errors.New("criopin: conflicting flags")
	// ErrInvalidReference: with [Normalize], an exact pattern that is no
	// image reference.
	ErrInvalidReference = errors.New("criopin: pattern is not an image reference")
	// ErrInternal matches KindInvalidArgument and KindInternal: a bug in
	// this package or the library, not in the patterns.
	ErrInternal = errors.New("criopin: internal error")
)

// sentinel is the sentinel error of a kind.
func (k ErrorKind) sentinel() error {
	switch k {
	case KindUnknownFlags:
		return ErrUnknownFlags
	case KindInvalidUTF8:
		return ErrInvalidUTF8
	case KindLoneStar:
		return ErrLoneStar
	case KindStrictEmpty, KindStrictWhitespace, KindStrictLeadingStar, KindStrictInnerStar:
		return ErrStrict
	case KindTooLarge:
		return ErrTooLarge
	case KindConflictingFlags:
		return ErrConflictingFlags
	case KindInvalidReference:
		return ErrInvalidReference
	default:
		return ErrInternal
	}
}

// CompileError is the error of [Compile]: which pattern is wrong, why (a
// Kind to check, and a message that says what to write instead), from
// either backend alike. Use [errors.As] to get it, or [errors.Is] with a
// sentinel such as [ErrLoneStar]:
//
//	var cerr *criopin.CompileError
//	if errors.As(err, &cerr) && cerr.Index >= 0 {
//		log.Printf("pinned_images[%d] = %q is invalid", cerr.Index, cerr.Pattern)
//	}
type CompileError struct {
	// Kind says what is wrong.
	Kind ErrorKind
	// Index is the index of the offending pattern in the list, or -1 when
	// no single pattern is to blame (unknown flags).
	Index int
	// Pattern is the offending pattern (patterns[Index]), or "" when
	// Index is -1.
	Pattern string
	// Message says what is wrong and what to write instead, for example
	// `pattern 3 ("*"): a lone '*' is not a valid pattern; write "**" to
	// pin every image`. With the library it is the library's text; the
	// pure-Go backend writes its own, quoting the pattern as Go does
	// ([strconv.Quote]). Programs check Kind and Index, which both
	// backends give alike, not the text.
	Message string
}

// Error returns "criopin: " followed by the message.
func (e *CompileError) Error() string {
	return "criopin: " + e.Message
}

// Is reports whether target is the sentinel error of e's Kind.
func (e *CompileError) Is(target error) bool {
	return target == e.Kind.sentinel()
}

// Limits of one set, the library's (MAX_PATTERNS, MAX_PATTERN_BYTES,
// MAX_AUTOMATON_BYTES).
const (
	maxPatterns       = 10_000_000
	maxPatternBytes   = 64 << 20
	maxAutomatonBytes = 32 << 20
)

// unknownFlagsError names the bits this package does not know, in Go's
// names (both backends check the flags in Go, before compiling).
func unknownFlagsError(f Flag) *CompileError {
	if f&^allFlags == 0 {
		return nil
	}
	return &CompileError{Kind: KindUnknownFlags, Index: -1, Message: "unknown flag bits 0x" +
		strconv.FormatUint(uint64(f&^allFlags), 16) + "; the flags are criopin.AnchorGlobs (1), " +
		"criopin.CaseSensitive (2), criopin.Strict (4), criopin.Literal (8), criopin.CriDockerdSyntax (16) " +
		"and criopin.Normalize (32), or criopin.Default (0)"}
}

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
