package criopin

import (
	"regexp"
	"strings"
)

// regexpLoop is CRI-O's own matcher, in Go: one regexp per pattern, built
// as CRI-O's CompileRegexpsForPinnedImages builds it, tried in list order
// as its FilterPinnedImage does. It is the pure-Go backend (build tag
// criopin_purego, or cgo disabled) and, in the tests of the cgo backend,
// the reference the library is compared with. This is the package's one
// copy of CRI-O's construction.
type regexpLoop struct {
	regexps []*regexp.Regexp // immutable, safe for concurrent use
}

// compileRegexpLoop validates patterns by the library's rules (the same
// kind and index of error) and builds CRI-O's regexps. flags are known
// bits.
func compileRegexpLoop(patterns []string, flags Flag) (*regexpLoop, *CompileError) {
	if err := validatePatterns(patterns, flags); err != nil {
		return nil, err
	}
	loop := &regexpLoop{regexps: make([]*regexp.Regexp, 0, len(patterns))}
	for _, p := range patterns {
		loop.regexps = append(loop.regexps, crioRegexp(p, flags))
	}
	return loop, nil
}

// validatePatterns is the library's validation of a list (see
// checkPattern): the first pattern that fails, in list order, is the error.
func validatePatterns(patterns []string, flags Flag) *CompileError {
	total := 0
	for i, p := range patterns {
		total += len(p)
		if err := checkPattern(i, p, total, flags); err != nil {
			return err
		}
	}
	return nil
}

// crioRegexp is CRI-O's regexp for one valid pattern. The flags depart from
// CRI-O as the library's do: AnchorGlobs puts "^" before a glob,
// CaseSensitive drops "(?i)".
func crioRegexp(p string, flags Flag) *regexp.Regexp {
	fold := "(?i)"
	if flags&CaseSensitive != 0 {
		fold = ""
	}
	switch {
	case strings.HasPrefix(p, "*") && strings.HasSuffix(p, "*"): // keyword ("**" pins all)
		return regexp.MustCompile(fold + regexp.QuoteMeta(p[1:len(p)-1]))
	case strings.HasSuffix(p, "*"): // glob: not anchored, as CRI-O
		anchor := ""
		if flags&AnchorGlobs != 0 {
			anchor = "^"
		}
		return regexp.MustCompile(fold + anchor + regexp.QuoteMeta(p[:len(p)-1]) + ".*")
	default: // exact
		return regexp.MustCompile(fold + "^" + regexp.QuoteMeta(p) + "$")
	}
}

// matchIndex is the index of the first regexp that matches name, or -1.
func (l *regexpLoop) matchIndex(name string) int {
	for i, re := range l.regexps {
		if re.MatchString(name) {
			return i
		}
	}
	return -1
}

func (l *regexpLoop) matchAny(names []string) bool {
	for _, name := range names {
		if l.matchIndex(name) >= 0 {
			return true
		}
	}
	return false
}
