package criopin

import (
	"regexp"
	"sync/atomic"
	"testing"
)

// LiveSets is the number of engines this package owns and has not freed.
func LiveSets() int64 { return liveSets.Load() }

// RepositoryOf is a name's repository as cri-dockerd takes it (the tests
// aim bare-repository patterns with it).
func RepositoryOf(name string) string { return repositoryOf(name) }

// Settled reports whether s's length table answers name in Go, with no
// call into the library.
func Settled(s *Set, name string) bool { return s.eng.settled(name) }

// SemanticsVersion is the library version whose rules the reference
// (rules_test.go) follows; the tests check it against Version.
const SemanticsVersion = "0.2.0"

// Reference is the tests' reference matcher (CRI-O's loop of Go regexps,
// and the other runtimes' rules in Go), which the tests compare each
// backend with.
type Reference struct{ m *goMatcher }

// CompileReference builds the reference matcher for patterns, or the
// error the library must give (the same kind and index; the message is the
// reference's own).
func CompileReference(patterns []string, flags Flag) (*Reference, *CompileError) {
	if err := unknownFlagsError(flags); err != nil {
		return nil, err
	}
	m, err := compileGoMatcher(patterns, flags)
	if err != nil {
		return nil, blame(err, patterns)
	}
	return &Reference{m}, nil
}

// MatchIndex is the index of the first pattern that pins name, or -1.
func (r *Reference) MatchIndex(name string) int { return r.m.matchIndex(name) }

// Regexps are CRI-O's regexps, in list order (none under the other
// runtimes' syntaxes).
func (r *Reference) Regexps() []*regexp.Regexp {
	if r.m.crio == nil {
		return nil
	}
	return r.m.crio.regexps
}

// HoldCall registers a call on s, as every method does while it runs, and
// returns its end: a test stands in a call in progress with it.
func HoldCall(s *Set) (end func()) {
	a := s.acquire("HoldCall")
	return a.release
}

// CountReloadCompiles makes Live's reloads count the lists they compile,
// until the test ends; the function it returns reads the count.
func CountReloadCompiles(t testing.TB) (compiles func() int) {
	var n atomic.Int64
	saved := reloadCompile
	reloadCompile = func(patterns []string, f Flag) (*Set, error) {
		n.Add(1)
		return saved(patterns, f)
	}
	t.Cleanup(func() { reloadCompile = saved })
	return func() int { return int(n.Load()) }
}

// CurrentSet is the set l holds (its own reference): a reload that keeps
// the list keeps this pointer.
func CurrentSet(l *Live) *Set { return l.cur.Load() }
