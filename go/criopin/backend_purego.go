//go:build !cgo || criopin_purego

package criopin

// Backend names the matcher this binary has: "go-regexp" (build tag
// criopin_purego, or cgo disabled: CRI-O's own loop of Go regexps) or
// "libcrio_pin" (the library, through cgo).
const Backend = "go-regexp"

// Version is the version of the libcrio_pin linked in, "MAJOR.MINOR.PATCH";
// with this pure-Go backend, the library version whose rules it follows.
func Version() string { return semanticsVersion }

// engine is CRI-O's loop of regexps; immutable, so clones share it. The
// zero engine is the empty set.
type engine struct {
	loop *regexpLoop
}

func (e engine) isZero() bool { return e.loop == nil }

func (e engine) free() {}

func (e engine) clone() engine { return e }

func compileEngine(patterns []string, f Flag) (engine, *CompileError) {
	if err := runtimeFlagsError(f); err != nil {
		return engine{}, err
	}
	loop, err := compileRegexpLoop(patterns, f)
	if err != nil {
		return engine{}, err
	}
	return engine{loop}, nil
}

// validateEngine runs Compile's checks without building the regexps.
func validateEngine(patterns []string, f Flag) *CompileError {
	if err := runtimeFlagsError(f); err != nil {
		return err
	}
	return validatePatterns(patterns, f)
}

// runtimeFlagsError refuses the other runtimes' rules, which this backend
// does not have (it is CRI-O's own loop): a list must not be read by
// rules other than those asked for.
func runtimeFlagsError(f Flag) *CompileError {
	if f&runtimeFlags == 0 {
		return nil
	}
	return &CompileError{Kind: KindUnknownFlags, Index: -1, Message: "flags " + (f & runtimeFlags).String() +
		": the pure-Go backend (build tag criopin_purego, or no cgo) has CRI-O's rules only; " +
		"build with cgo and libcrio_pin for the other runtimes' rules"}
}

func (e engine) match(name string) bool { return e.matchIndex(name) >= 0 }

func (e engine) matchIndex(name string) int {
	if e.loop == nil {
		return -1
	}
	return e.loop.matchIndex(name)
}

func (e engine) matchAny(names []string) bool {
	return e.loop != nil && e.loop.matchAny(names)
}

func (e engine) matchEach(results []bool, names []string) {
	if e.loop == nil {
		return
	}
	for i, name := range names {
		results[i] = e.loop.matchIndex(name) >= 0
	}
}
