package criopin

import (
	"errors"
	"strconv"
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
	// pin every image`: the library's text, with either backend. Programs
	// check Kind and Index, not the text.
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
