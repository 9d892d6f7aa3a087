//go:build !cgo || criopin_purego

package criopin

// Backend names the matcher this binary has: "go-regexp" (build tag
// criopin_purego, or cgo disabled: CRI-O's own loop of Go regexps, and the
// other runtimes' rules in Go) or "libcrio_pin" (the library, through cgo).
const Backend = "go-regexp"

// Version is the version of the libcrio_pin linked in, "MAJOR.MINOR.PATCH";
// with this pure-Go backend, the library version whose rules it follows.
func Version() string { return semanticsVersion }

// engine is the list compiled in Go (rules.go); immutable, so clones share
// it. The zero engine is the empty set.
type engine struct {
	m *goMatcher
}

func (e engine) isZero() bool { return e.m == nil }

func (e engine) free() {}

func (e engine) clone() engine { return e }

func compileEngine(patterns []string, f Flag) (engine, *CompileError) {
	m, err := compileGoMatcher(patterns, f)
	if err != nil {
		return engine{}, err
	}
	return engine{m}, nil
}

// validateEngine runs Compile's checks without building the matcher.
func validateEngine(patterns []string, f Flag) *CompileError {
	return eachPattern(patterns, f, nil)
}

func (e engine) match(name string) bool { return e.matchIndex(name) >= 0 }

func (e engine) matchIndex(name string) int {
	if e.m == nil {
		return -1
	}
	return e.m.matchIndex(name)
}

func (e engine) matchAny(names []string) bool {
	return e.m != nil && e.m.matchAny(names)
}

func (e engine) matchEach(results []bool, names []string) {
	if e.m == nil {
		return
	}
	for i, name := range names {
		results[i] = e.m.matchIndex(name) >= 0
	}
}
