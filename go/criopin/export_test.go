package criopin

import "regexp"

// LiveSets is the number of engines this package owns and has not freed.
func LiveSets() int64 { return liveSets.Load() }

// SemanticsVersion is the library version the pure-Go backend follows.
const SemanticsVersion = semanticsVersion

// Reference is CRI-O's loop of Go regexps (the pure-Go backend's engine),
// the ground truth the tests compare each backend with.
type Reference struct{ loop *regexpLoop }

// CompileReference builds CRI-O's regexps for patterns, or the error the
// library must give (the same kind and index; the message is the pure-Go
// backend's).
func CompileReference(patterns []string, flags Flag) (*Reference, *CompileError) {
	if err := unknownFlagsError(flags); err != nil {
		return nil, err
	}
	loop, err := compileRegexpLoop(patterns, flags)
	if err != nil {
		err.Pattern = patterns[err.Index]
		return nil, err
	}
	return &Reference{loop}, nil
}

// MatchIndex is the index of the first regexp that matches name, or -1.
func (r *Reference) MatchIndex(name string) int { return r.loop.matchIndex(name) }

// Regexps are CRI-O's regexps, in list order.
func (r *Reference) Regexps() []*regexp.Regexp { return r.loop.regexps }
