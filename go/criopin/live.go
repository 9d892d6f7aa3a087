package criopin

import (
	"errors"
	"slices"
	"sync/atomic"
)

// Live holds the current pinned-image list of a running daemon and
// replaces it atomically: CRI-O recompiles its pinned_images on SIGHUP
// while ListImages, the image garbage collector and the artifact store
// read it.
//
// Readers call Live's Match methods, which use the list current when they
// start until they return, without locks: a reload never makes a reader
// see an empty or half-built list, and never frees a list a reader is
// still using (the replaced list is freed when its last reader returns).
// Each batch call (MatchAny, MatchEach, AppendEach) uses one list
// throughout, so one listing is answered by one list.
//
// A Live keeps its own reference to the list it holds: [Live.Store] and
// [NewLive] clone the Set they are given, and the caller still owns (and
// should Close) its Set. Nothing a caller closes can unpin a Live.
//
// To share one list between several consumers (the image service and the
// artifact store), give them the same *Live and reload it once; or give
// each its own Live and Store the same Set into each.
//
// Each call is answered by one list, but two calls may be answered by two
// lists if a reload comes between them. When one request is answered by
// several calls, or by several consumers (CRI-O's ListImages: the image
// service, then the artifact store), take one snapshot for the request
// with [Live.WithSnapshot] and have the consumers read the Live through
// the request's context with [Live.From]: the whole answer then comes
// from one list. A context without a snapshot reads the current list, as
// the Live's own methods do.
//
// The zero Live is ready to use and pins nothing until the first Store or
// Reload. A nil *Live reads as an empty set, like a nil *Set: its match
// methods pin nothing, Len is 0, Snapshot nil, Close does nothing; but
// Reload on it returns an error and Store panics, since a list handed to
// no Live would be silently lost. A Live must not be copied.
type Live struct {
	cur atomic.Pointer[Set] // owned by the Live; closed only after swapped out
}

// NewLive returns a Live holding its own reference to s (see [Live.Store]).
func NewLive(s *Set) *Live {
	l := new(Live)
	l.Store(s)
	return l
}

// Store makes the list of s the current one and releases the list it
// replaces (freed once no reader uses it). The Live takes its own
// reference ([Set.Clone]): the caller may and should Close s when it no
// longer needs it. s nil is the empty set; s closed panics (see [Set]).
func (l *Live) Store(s *Set) {
	if l == nil {
		panic("criopin: Store on a nil *Live: the list would be lost")
	}
	l.swap(s.Clone())
}

// swap makes s (owned by the Live) current and closes the replaced set.
func (l *Live) swap(s *Set) {
	if old := l.cur.Swap(s); old != nil {
		old.Close()
	}
}

// Reload compiles patterns (as [Compile] does) and, when they compile,
// makes them the current list. On error the current list stays in place
// and the error (a *[CompileError]) says which pattern is wrong: a typo in
// a reloaded configuration does not unpin every image. A list and flags
// equal to the current list's are not compiled: the current list stays
// (see [Live.ReloadIfChanged], which says which happened).
func (l *Live) Reload(patterns []string, flags ...Flag) error {
	_, err := l.ReloadIfChanged(patterns, flags...)
	return err
}

// ReloadResult says what [Live.ReloadIfChanged] did.
type ReloadResult struct {
	// Changed is true when the Live serves the new list; false when the
	// list was the current one (kept: nothing was compiled) or did not
	// compile (the error says why; the current list stays).
	Changed bool
	// Fingerprint is that of the list the Live serves after the call, to
	// log: the new list's when Changed, else the current list's (the
	// empty list's under [Default] when it holds none). Zero only when
	// the library could not compute it (an internal failure).
	Fingerprint Fingerprint
}

// ReloadIfChanged is [Live.Reload] saying what it did. When patterns and
// flags are the current list's, byte for byte and in order (the same list
// by [ListFingerprint]'s definition: their fingerprints are equal), the
// current list stays and nothing is compiled or hashed (Changed false, nil
// error). Otherwise it compiles the list and, when it compiles, makes it
// the current one (Changed true); on error the current list stays.
//
// Cost: an unchanged list costs a comparison of its strings with the
// current list's (the Set keeps a copy of the slice it was compiled from:
// 16 bytes a pattern, the strings themselves shared); a changed one costs
// a compile (go/README.md, "A reload that changes nothing", has the
// figures).
func (l *Live) ReloadIfChanged(patterns []string, flags ...Flag) (ReloadResult, error) {
	if l == nil {
		return ReloadResult{}, errNilLive
	}
	var f Flag
	for _, flag := range flags {
		f |= flag
	}
	a := l.acquire()
	var list []string // (a Live that holds none serves the empty list under Default)
	var listFlags Flag
	if a != nil {
		list, listFlags = a.list, a.flags
	}
	same := listFlags == f && slices.Equal(list, patterns)
	current, _ := a.matcher().fingerprint() // (zero when not known)
	a.release()
	if same {
		return ReloadResult{Changed: false, Fingerprint: current}, nil
	}
	s, err := reloadCompile(patterns, f)
	if err != nil {
		return ReloadResult{Changed: false, Fingerprint: current}, err
	}
	next, _ := s.matcher().fingerprint() // (zero when not known)
	l.swap(s)
	return ReloadResult{Changed: true, Fingerprint: next}, nil
}

// reloadCompile is Compile for ReloadIfChanged (a variable: the tests count
// the compiles of reloads).
var reloadCompile = func(patterns []string, f Flag) (*Set, error) { return Compile(patterns, f) }

// Fingerprint returns the fingerprint of the current list (see
// [Set.Fingerprint]): the empty list's under [Default] when the Live holds
// none, as for a nil Live. For a daemon's log of the list it serves.
func (l *Live) Fingerprint() Fingerprint {
	return fingerprintOf(l.acquire())
}

var errNilLive = errors.New("criopin: Reload on a nil *Live: the list would be lost")

// Close releases the current list; the Live pins nothing until the next
// Store or Reload. Idempotent; it always returns nil.
func (l *Live) Close() error {
	if l != nil {
		l.swap(nil)
	}
	return nil
}

// acquire returns the current set with a call registered on it (release
// it), or nil for none.
func (l *Live) acquire() *Set {
	if l == nil {
		return nil
	}
	for {
		s := l.cur.Load()
		if s == nil || s.tryAcquire() {
			return s
		}
		// Closed: only the Live closes its sets, after swapping them out,
		// so the next Load sees a newer set.
	}
}

// Snapshot returns the current list as a Set of its own (another
// reference to the same compiled list, no copy): it stays valid after
// reloads until you Close it. Use it to answer many calls from one list;
// for single calls, Live's own methods are cheaper. Nil when the Live
// holds no list. To hand one list to several consumers for one request,
// see [Live.WithSnapshot].
func (l *Live) Snapshot() *Set {
	a := l.acquire()
	c := a.cloneAcquired()
	a.release()
	return c
}

// Match reports whether name is pinned by the current list. See
// [Set.Match].
func (l *Live) Match(name string) bool {
	a := l.acquire()
	r := a.matcher().match(name)
	a.release()
	return r
}

// MatchIndex returns the index of the first pattern of the current list
// that matches name, or -1. See [Set.MatchIndex].
func (l *Live) MatchIndex(name string) int {
	a := l.acquire()
	r := a.matcher().matchIndex(name)
	a.release()
	return r
}

// MatchAny reports whether any of names is pinned by the current list.
// See [Set.MatchAny].
func (l *Live) MatchAny(names ...string) bool {
	a := l.acquire()
	r := a.matcher().matchAny(names)
	a.release()
	return r
}

// MatchEach reports for each name whether the current list pins it. See
// [Set.MatchEach].
func (l *Live) MatchEach(names []string) []bool {
	return l.AppendEach(make([]bool, 0, len(names)), names)
}

// AppendEach appends, for each name, whether the current list pins it.
// See [Set.AppendEach].
func (l *Live) AppendEach(dst []bool, names []string) []bool {
	return appendEach(l.acquire(), dst, names)
}

// Len returns the number of patterns of the current list (0 for none).
func (l *Live) Len() int {
	a := l.acquire()
	n := a.length()
	a.release()
	return n
}
