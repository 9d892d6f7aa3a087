package criopin

import "sync/atomic"

// Live holds the current pinned-image Set of a running daemon and replaces
// it atomically: CRI-O recompiles its pinned_images on SIGHUP while
// ListImages and the image garbage collector's status calls read it.
//
// Readers call Live's Match methods, which use the set current when they
// start until they return, without locks: a reload never makes a reader
// see an empty or half-built list, and never frees a set a reader is still
// using (the replaced set is freed when its last reader returns). Each
// batch call (MatchAny, MatchEach, AppendEach) uses one set throughout, so
// one listing is answered by one list.
//
// The zero Live is ready to use and pins nothing until the first
// [Live.Store] or [Live.Reload]. A Live must not be copied.
type Live struct {
	cur atomic.Pointer[Set]
}

// NewLive returns a Live holding s, which it now owns (see [Live.Store]).
func NewLive(s *Set) *Live {
	l := new(Live)
	l.Store(s)
	return l
}

// Store makes s the current set and closes the set it replaces (its memory
// is freed once no reader uses it). The Live owns s from now on: do not
// Close s yourself. s may be nil, an empty set.
func (l *Live) Store(s *Set) {
	if old := l.cur.Swap(s); old != nil && old != s {
		old.Close()
	}
}

// Reload compiles patterns (as [Compile] does) and, when they compile,
// makes them the current set. On error the current set stays in place and
// the error (a *[CompileError]) says which pattern is wrong: a typo in a
// reloaded configuration does not unpin every image.
func (l *Live) Reload(patterns []string, flags ...Flag) error {
	s, err := Compile(patterns, flags...)
	if err != nil {
		return err
	}
	l.Store(s)
	return nil
}

// Close closes the current set; the Live pins nothing until the next Store
// or Reload. Idempotent; it always returns nil.
func (l *Live) Close() error {
	l.Store(nil)
	return nil
}

// acquire returns the current set with a call registered on it (release
// it), or nil for none.
func (l *Live) acquire() *Set {
	for {
		s := l.cur.Load()
		if s == nil || s.acquire() {
			return s
		}
		// s was closed: replaced since the Load (so the next Load sees a
		// newer set), or closed by a caller despite Store's contract
		// (then it is an empty set, not a reason to spin).
		if l.cur.Load() == s {
			return nil
		}
	}
}

// Snapshot returns the current set as a Set of its own (another reference
// to the same compiled list, no copy): it stays valid after reloads until
// you Close it. Use it to answer many calls from one list; for single
// calls, Live's own methods are cheaper. Nil when the Live holds no set.
func (l *Live) Snapshot() *Set {
	s := l.acquire()
	if s == nil {
		return nil
	}
	c := s.cloneAcquired()
	s.release()
	return c
}

// Match reports whether name is pinned by the current set. See
// [Set.Match].
func (l *Live) Match(name string) bool {
	s := l.acquire()
	if s == nil {
		return false
	}
	r := s.matchAcquired(name)
	s.release()
	return r
}

// MatchIndex returns the index of the first pattern of the current set
// that matches name, or -1. See [Set.MatchIndex].
func (l *Live) MatchIndex(name string) int {
	s := l.acquire()
	if s == nil {
		return -1
	}
	r := s.matchIndexAcquired(name)
	s.release()
	return r
}

// MatchAny reports whether any of names is pinned by the current set. See
// [Set.MatchAny].
func (l *Live) MatchAny(names []string) bool {
	s := l.acquire()
	if s == nil {
		return false
	}
	r := s.matchAnyAcquired(names)
	s.release()
	return r
}

// MatchEach reports for each name whether the current set pins it. See
// [Set.MatchEach].
func (l *Live) MatchEach(names []string) []bool {
	return l.AppendEach(make([]bool, 0, len(names)), names)
}

// AppendEach appends, for each name, whether the current set pins it. See
// [Set.AppendEach].
func (l *Live) AppendEach(dst []bool, names []string) []bool {
	start := len(dst)
	dst = grow(dst, len(names))
	s := l.acquire()
	if s == nil {
		return dst
	}
	s.matchEachAcquired(dst[start:], names)
	s.release()
	return dst
}

// Len returns the number of patterns of the current set (0 for none).
func (l *Live) Len() int {
	s := l.acquire()
	if s == nil {
		return 0
	}
	n := s.n
	s.release()
	return n
}
