package criopin

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
)

// The backend (engine, compileEngine, validateEngine, Version, Backend),
// chosen by build tags, provides what backend.go states.

// Flag selects a departure from CRI-O's semantics. Flags are or-ed
// together; [Default] (0) is CRI-O exactly. They mirror the C constants
// CRIO_PIN_*.
type Flag uint32

const (
	// Default reproduces CRI-O exactly, quirks included: globs match
	// anywhere in the name and comparison is case-insensitive.
	Default Flag = 0
	// AnchorGlobs makes a glob "prefix*" match only names that start with
	// prefix (what CRI-O's documentation describes).
	AnchorGlobs Flag = 1
	// CaseSensitive turns case folding off: letters must match in case
	// exactly (names still decode as Go does: each invalid UTF-8 byte reads
	// as U+FFFD).
	CaseSensitive Flag = 2
	// Strict rejects likely mistakes: the empty pattern, a literal '*'
	// (any '*' but a trailing one or the leading one of "*word*"), and
	// whitespace or control characters.
	Strict Flag = 4
	// Literal makes every pattern an exact name, stars included
	// (containerd compares its pinned_images values with ==).
	Literal Flag = 8
	// CriDockerdSyntax reads patterns as cri-dockerd's --pinned-images:
	// trimmed, blank ones ignored, one trailing '*' makes a prefix, a
	// pattern with a tag or digest is exact, any other is a bare
	// repository that pins its every tag and digest. Not with [Literal].
	CriDockerdSyntax Flag = 16
	// Normalize compares exact patterns and names as normalised image
	// references ("nginx" pins "docker.io/library/nginx:latest"); an exact
	// pattern that is no reference is a [KindInvalidReference] error.
	Normalize Flag = 32

	// Crio is CRI-O's rules: [Default].
	Crio = Default
	// Containerd is containerd 2.x's rules: exact, case-sensitive, the
	// configured value compared as written.
	Containerd = Literal | CaseSensitive
	// ContainerdNormalized is containerd's rules with the configured value
	// normalised as the pulled name is (what containerd's fix PRs intend).
	ContainerdNormalized = Containerd | Normalize
	// CriDockerd is cri-dockerd's rules: its syntax, prefixes anchored,
	// case-sensitive.
	CriDockerd = CriDockerdSyntax | AnchorGlobs | CaseSensitive

	allFlags = AnchorGlobs | CaseSensitive | Strict | Literal | CriDockerdSyntax | Normalize
)

// String names the flags set in f, such as "AnchorGlobs|Strict".
func (f Flag) String() string {
	if f == Default {
		return "Default"
	}
	var names []string
	for _, known := range []struct {
		flag Flag
		name string
	}{{AnchorGlobs, "AnchorGlobs"}, {CaseSensitive, "CaseSensitive"}, {Strict, "Strict"}, {Literal, "Literal"},
		{CriDockerdSyntax, "CriDockerdSyntax"}, {Normalize, "Normalize"}} {
		if f&known.flag != 0 {
			names = append(names, known.name)
			f &^= known.flag
		}
	}
	if f != 0 {
		names = append(names, "Flag(0x"+strconv.FormatUint(uint64(f), 16)+")")
	}
	return strings.Join(names, "|")
}

// liveSets counts the engines this package owns and has not freed yet
// (tests check that Close, Live and cleanups free every one).
var liveSets atomic.Int64

// closedBit marks a closed Set in Set.state; the bits below count the
// calls in progress.
const closedBit = 1 << 63

// Set is a compiled, immutable list of pinned-image patterns. Any number
// of goroutines may match on one Set at once.
//
// A Set is owned by whoever compiled or cloned it, who calls [Set.Close]
// when done with it. Close is idempotent and safe while other goroutines
// still match on the Set (calls in progress finish on the intact list),
// but a call that starts after Close panics ("criopin: Match on a closed
// Set"), like a send on a closed channel: a closed list cannot answer, and
// answering "not pinned" would silently unpin every image. To give the
// same list to several consumers, give each its own [Set.Clone] or share
// one [Live]; to replace a list under running readers, use [Live].
//
// A nil *Set and the zero Set are empty sets (they pin nothing). A Set
// must not be copied. A Set that becomes unreachable without Close is
// freed by a cleanup, as a backup only.
type Set struct {
	// state is closedBit | the number of calls using eng. Once closedBit
	// is set no new call may start, and whoever brings the count to zero
	// (Close or the last call) frees eng; freed makes that happen once.
	state atomic.Uint64
	freed atomic.Bool
	eng   engine // immutable after construction; the zero engine is empty
	n     int    // number of patterns
	// The list and flags it was compiled from (a copy of the slice; the
	// strings are the caller's, immutable): what Live.ReloadIfChanged
	// compares a new list with, nil for a zero or cloned-zero Set.
	list    []string
	flags   Flag
	cleanup runtime.Cleanup
}

// newSet takes ownership of e (one free owed).
func newSet(e engine, n int) *Set {
	s := &Set{eng: e, n: n}
	liveSets.Add(1)
	s.cleanup = runtime.AddCleanup(s, freeEngine, e)
	return s
}

func freeEngine(e engine) {
	e.free()
	liveSets.Add(-1)
}

// tryAcquire registers a call that uses s.eng; false once s is closed.
func (s *Set) tryAcquire() bool {
	if s.state.Add(1)&closedBit == 0 {
		return true
	}
	s.undoAcquire()
	return false
}

// acquire registers a call of method op on s and returns s, or nil for a
// nil s (the empty set); it panics on a closed s. It is tryAcquire with
// the panic out of line, so that it is inlined into every method (a call
// of it cost 2 ns an image on the hand list).
func (s *Set) acquire(op string) *Set {
	if s != nil && s.state.Add(1)&closedBit != 0 {
		s.refuse(op)
	}
	return s
}

// undoAcquire undoes the registration of a call that found s closed. The
// count may reach zero here too (the set already freed, or this undo came
// last): destroy frees at most once. Out of line: the closed case is
// rare, and inlined it took tryAcquire over the inliner's budget.
//
//go:noinline
func (s *Set) undoAcquire() {
	s.release()
}

// refuse is acquire's closed case: undo, and panic.
//
//go:noinline
func (s *Set) refuse(op string) {
	s.undoAcquire()
	panic("criopin: " + op + " on a closed Set")
}

// Every method of Set, Live and View that reads a list is one call on a
// set acquired by Set.acquire, Live.acquire or View.acquire (nil: the
// empty set):
//
//	a := l.acquire()
//	r := a.matcher().match(name)
//	a.release()
//	return r
//
// with no branch for the empty set: nil's matcher is the zero engine,
// which is the empty set. Nothing here adds a call on the hot path. (A
// generic helper taking the call as a func value is not inlined, since the
// func value's call and the release exceed the inliner's budget: it cost
// about 1.3 ns, 3%, on Set.Match at 1 pattern.)

// matcher is the engine a call on s answers with: s's, or the zero engine
// (the empty set) for nil.
func (s *Set) matcher() engine {
	if s == nil {
		return engine{}
	}
	return s.eng
}

// release ends a call registered by acquire; nothing for nil. s is
// referenced until the call ends, so no cleanup frees its engine during
// the call.
func (s *Set) release() {
	if s != nil && s.state.Add(^uint64(0)) == closedBit {
		s.destroy()
	}
}

// destroy frees the engine, once: when s is closed and no call uses it.
func (s *Set) destroy() {
	if s.eng.isZero() || !s.freed.CompareAndSwap(false, true) {
		return
	}
	s.cleanup.Stop()
	freeEngine(s.eng)
	runtime.KeepAlive(s)
}

// Close releases this owner's reference to the compiled list. It is
// idempotent and safe to call while other goroutines match on s (see
// [Set]); afterwards any call on s but Close panics. Clones of s and
// [Live]s it was stored in are not affected. It always returns nil.
func (s *Set) Close() error {
	if s == nil {
		return nil
	}
	for {
		old := s.state.Load()
		if old&closedBit != 0 {
			return nil
		}
		if s.state.CompareAndSwap(old, old|closedBit) {
			if old == 0 {
				s.destroy()
			}
			return nil
		}
	}
}

// Clone returns another owner of the same compiled list (no copy: the
// library counts references). Each owner is closed on its own, so two
// consumers that each hold a clone cannot unpin each other. A nil s
// gives nil.
func (s *Set) Clone() *Set {
	a := s.acquire("Clone")
	c := a.cloneAcquired()
	a.release()
	return c
}

// cloneAcquired is Clone on a set acquired by the caller (nil for nil), so
// s is not freed meanwhile even if it is being closed.
func (s *Set) cloneAcquired() *Set {
	if s == nil {
		return nil
	}
	if s.eng.isZero() {
		return &Set{} // the zero Set: empty, nothing to share
	}
	c := newSet(s.eng.clone(), s.n)
	c.list, c.flags = s.list, s.flags
	runtime.KeepAlive(s)
	return c
}

// Compile compiles patterns, CRI-O `pinned_images` entries, into a Set.
// The flags are or-ed together; none means CRI-O's semantics exactly.
//
// Patterns are compared with image names as CRI-O compares them:
//
//   - "*word*" (a keyword) pins names containing word; "**" pins every name.
//   - "prefix*" (a glob) pins names containing prefix anywhere (CRI-O does
//     not anchor globs; [AnchorGlobs] does).
//   - Anything else pins the name equal to it; a '*' elsewhere is a
//     literal character ("*pause" and "a*b" are exact patterns).
//   - Comparison is case-insensitive with Go's Unicode simple folding,
//     like regexp's (?i), unless [CaseSensitive].
//
// The lone pattern "*" (which makes CRI-O panic) and a pattern that is not
// valid UTF-8 (which makes CRI-O's regexp.MustCompile panic) are errors,
// as are unknown flags and, with [Strict], likely mistakes. The error is a
// *[CompileError] with the same Kind, Index, Pattern and Message (the
// library's text) with either backend. An empty list compiles to a set
// that pins nothing.
func Compile(patterns []string, flags ...Flag) (*Set, error) {
	var f Flag
	for _, flag := range flags {
		f |= flag
	}
	if err := unknownFlagsError(f); err != nil {
		return nil, err
	}
	e, err := compileEngine(patterns, f)
	if err != nil {
		return nil, blame(err, patterns)
	}
	set := newSet(e, len(patterns))
	set.list, set.flags = slices.Clone(patterns), f
	return set, nil
}

// Validate reports whether patterns compile, without compiling them: nil
// exactly when [Compile] with the same patterns and flags would succeed,
// otherwise the *[CompileError] Compile would return (same Kind, Index,
// Pattern and Message). Use it to check a
// configuration before it is used: at start-up, in a dry run such as
// `crio config`, or before a reload reports success.
//
// Ownership: none. Validate builds nothing (there is nothing to Close)
// and keeps no reference to patterns. It is safe to call from any number
// of goroutines, also while Sets and Lives are in use.
//
// Cost: one pass over the patterns and no allocation unless the list is
// invalid. It copies the patterns into the library's memory (C memory, or
// an instance of the WebAssembly module kept for validating), as Compile
// does, but builds no matcher: a small fraction of Compile's time
// (measured in the repository's docs/BENCHMARKS.md, "Compile and
// Validate").
func Validate(patterns []string, flags ...Flag) error {
	var f Flag
	for _, flag := range flags {
		f |= flag
	}
	if err := unknownFlagsError(f); err != nil {
		return err
	}
	if err := validateEngine(patterns, f); err != nil {
		return blame(err, patterns)
	}
	return nil
}

// blame fills in the pattern an error names (Index -1 when it names none).
func blame(err *CompileError, patterns []string) *CompileError {
	if err.Index >= 0 && err.Index < len(patterns) {
		err.Pattern = patterns[err.Index]
	} else {
		err.Index, err.Pattern = -1, ""
	}
	return err
}

// MustCompile is like [Compile] but panics on error, as CRI-O's
// regexp.MustCompile does. For patterns known at build time.
func MustCompile(patterns []string, flags ...Flag) *Set {
	s, err := Compile(patterns, flags...)
	if err != nil {
		panic(err)
	}
	return s
}

// Match reports whether name is pinned: whether any pattern matches it.
// It allocates nothing and does not copy name.
func (s *Set) Match(name string) bool {
	a := s.acquire("Match")
	r := a.matcher().match(name)
	a.release()
	return r
}

// MatchIndex returns the index of the first pattern that matches name (the
// first regexp in CRI-O's loop that would match), or -1 when none does.
// It allocates nothing and does not copy name.
func (s *Set) MatchIndex(name string) int {
	a := s.acquire("MatchIndex")
	r := a.matcher().matchIndex(name)
	a.release()
	return r
}

// MatchAny reports whether any of names is pinned, in one call into the
// backend: all the names of one image (MatchAny(image.Names...)), as
// CRI-O's loop over FilterPinnedImage does, or the two names of an OCI
// artifact (MatchAny(a.Reference(), a.CanonicalName())). It allocates
// nothing for a handful of names.
func (s *Set) MatchAny(names ...string) bool {
	a := s.acquire("MatchAny")
	r := a.matcher().matchAny(names)
	a.release()
	return r
}

// MatchEach reports for each name whether it is pinned, in one call into
// the backend (a whole image listing at once). It allocates the result
// only; see [Set.AppendEach] to reuse a slice.
func (s *Set) MatchEach(names []string) []bool {
	return appendEach(s.acquire("MatchEach"), make([]bool, 0, len(names)), names)
}

// AppendEach appends to dst, for each name, whether it is pinned, and
// returns the extended slice, like [Set.MatchEach]. It allocates nothing
// when dst has room for len(names) more results.
func (s *Set) AppendEach(dst []bool, names []string) []bool {
	return appendEach(s.acquire("AppendEach"), dst, names)
}

// appendEach is AppendEach for Set, Live and View: it appends to dst
// whether a, an acquired set (nil: the empty set), pins each of names,
// and releases a.
func appendEach(a *Set, dst []bool, names []string) []bool {
	start := len(dst)
	dst = grow(dst, len(names))
	if len(names) > 0 {
		a.matcher().matchEach(dst[start:], names)
	}
	a.release()
	return dst
}

// grow extends dst by n false values.
func grow(dst []bool, n int) []bool {
	if n <= cap(dst)-len(dst) {
		dst = dst[:len(dst)+n]
		clear(dst[len(dst)-n:])
		return dst
	}
	return append(dst, make([]bool, n)...)
}

// Len returns the number of patterns the set was compiled from, duplicates
// included.
func (s *Set) Len() int {
	a := s.acquire("Len")
	n := a.length()
	a.release()
	return n
}

// length is the number of patterns of s, acquired (0 for nil).
func (s *Set) length() int {
	if s == nil {
		return 0
	}
	return s.n
}
