package criopin

import "regexp"

// regexpLoop is CRI-O's own matcher, in Go: one regexp per pattern, built
// as CRI-O's CompileRegexpsForPinnedImages builds it, tried in list order
// as its FilterPinnedImage does. It is the tests' reference for CRI-O's
// syntax (goMatcher), which both backends are compared with, and what the
// benchmarks measure as CRI-O's cost. This is the package's one copy
// of CRI-O's construction (its classification of a pattern is
// parsePattern's).
type regexpLoop struct {
	regexps []*regexp.Regexp // immutable, safe for concurrent use
}

// compileRegexpLoop builds CRI-O's regexps for patterns read by CRI-O's
// syntax (parsePattern, eachPattern).
func compileRegexpLoop(patterns []parsedPattern, flags Flag) *regexpLoop {
	loop := &regexpLoop{regexps: make([]*regexp.Regexp, 0, len(patterns))}
	for _, p := range patterns {
		loop.regexps = append(loop.regexps, crioRegexp(p, flags))
	}
	return loop
}

// crioRegexp is CRI-O's regexp for one pattern. The flags depart from
// CRI-O as the library's do: AnchorGlobs puts "^" before a glob,
// CaseSensitive drops "(?i)".
func crioRegexp(p parsedPattern, flags Flag) *regexp.Regexp {
	fold := "(?i)"
	if flags&CaseSensitive != 0 {
		fold = ""
	}
	switch p.kind {
	case keywordPattern: // "*word*" ("**" pins all)
		return regexp.MustCompile(fold + regexp.QuoteMeta(p.text))
	case globPattern: // "prefix*": not anchored, as CRI-O
		anchor := ""
		if flags&AnchorGlobs != 0 {
			anchor = "^"
		}
		return regexp.MustCompile(fold + anchor + regexp.QuoteMeta(p.text) + ".*")
	default: // exact
		return regexp.MustCompile(fold + "^" + regexp.QuoteMeta(p.text) + "$")
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
