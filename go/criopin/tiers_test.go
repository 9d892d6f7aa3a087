package criopin

import (
	"strconv"
	"strings"
	"testing"
)

// xorshift is a deterministic source of test text.
type xorshift uint64

func (x *xorshift) next() uint64 {
	*x ^= *x << 13
	*x ^= *x >> 7
	*x ^= *x << 17
	return uint64(*x)
}

// text is n printable ASCII bytes, none of them '*'.
func (x *xorshift) text(n int) string {
	b := make([]byte, n)
	for i := range b {
		c := byte('!' + x.next()%93)
		if c == '*' {
			c = '~'
		}
		b[i] = c
	}
	return string(b)
}

// issue55Lists are the lists of issue 55 that stock CRI-O runs and that
// the library refused while it bounded the automaton at 32 MiB, each with
// names to ask about: some that hold a pattern's text, some that do not.
func issue55Lists() []struct {
	name            string
	patterns, names []string
	tier            Tier
} {
	x := xorshift(0x9e3779b97f4a7c15)
	type list = struct {
		name            string
		patterns, names []string
		tier            Tier
	}
	var lists []list
	holding := func(patterns []string, step int) (names []string) {
		for i := 0; i < len(patterns); i += step {
			p := strings.Trim(patterns[i], "*")
			names = append(names, "registry.example/"+p+":v1", strings.ToUpper(p))
		}
		return names
	}
	keywords := func(count, n int) []string {
		p := make([]string, count)
		for i := range p {
			p[i] = "*" + x.text(n) + "*"
		}
		return p
	}
	kw30 := keywords(10_000, 30)
	lists = append(lists, list{"10,000 random keywords of 30 bytes", kw30,
		append(holding(kw30, 700), x.text(80), x.text(200), "docker.io/library/nginx:latest"), TierDense})
	ordinary := make([]string, 40_000)
	for i := range ordinary {
		switch n := strconv.Itoa(i); {
		case i%10 < 5:
			ordinary[i] = "registry.corp.example.com/team" + n + "/app:*"
		case i%10 < 9:
			ordinary[i] = "quay.io/org" + n + "/app*"
		default:
			ordinary[i] = "*app" + n + "*"
		}
	}
	lists = append(lists, list{"40,000 patterns of an ordinary shape", ordinary,
		[]string{"registry.corp.example.com/team40/app:v1", "mirror/QUAY.IO/org39998/app-x:1", "x/app39999/y",
			"registry.corp.example.com/team41/app:v1", "quay.io/org7/ap", "docker.io/library/app:1"}, TierDense})
	kw1m := keywords(1_000_000, 20)
	lists = append(lists, list{"1,000,000 keywords of 20 bytes", kw1m,
		append(holding(kw1m, 125_000), x.text(100), x.text(255)), TierSparse})
	// Failure jumps: for each random 255-byte name s, the keywords
	// s[i:i+40] followed by a letter that is not s[i+40] in any case: past byte 40 each
	// byte of s fails into another needle's subtree. 60 names take the
	// list past the dense tier; 5 stay within it.
	for _, count := range []int{5, 60} {
		var patterns, names []string
		for k := 0; k < count; k++ {
			s := x.text(255)
			for i := 0; i+40 < len(s); i++ {
				z := "z"
				if s[i+40]|0x20 == 'z' {
					z = "y"
				}
				patterns = append(patterns, "*"+s[i:i+40]+z+"*")
			}
			if k < 8 {
				names = append(names, s, strings.ToLower(s), "x"+strings.Trim(patterns[len(patterns)-1], "*"))
			}
		}
		tier := TierDense
		if count > 5 {
			tier = TierSparse
		}
		lists = append(lists, list{"failure jumps over " + strconv.Itoa(count) + " names", patterns, names, tier})
	}
	return lists
}

// loopMatchIndex is CRI-O's loop's answer for each of names (ASCII, as
// the patterns are): the index of the first pattern whose regexp matches.
// A pattern's regexp is built and tried only when the name holds its text
// ignoring ASCII case (equals it, for an exact pattern): for ASCII text
// (?i) relates nothing else, so no other pattern can match (a regexp for
// each of a million patterns would take minutes); the regexps judge.
func loopMatchIndex(patterns, names []string) []int {
	parsed := make([]parsedPattern, len(patterns))
	lower := make([]string, len(patterns))
	for i, raw := range patterns {
		parsed[i], _ = parsePattern(raw, Default)
		lower[i] = strings.ToLower(parsed[i].text)
	}
	want := make([]int, len(names))
	for n, name := range names {
		want[n] = -1
		lowerName := strings.ToLower(name)
		for i, p := range parsed {
			could := strings.Contains(lowerName, lower[i])
			if p.kind == exactPattern {
				could = lowerName == lower[i]
			}
			if could && crioRegexp(p, Default).MatchString(name) {
				want[n] = i
				break
			}
		}
	}
	return want
}

// TestListsPastTheDenseTierCompile: every list of issue 55 compiles, and
// Validate accepts it, with this backend (cgo's library or the module);
// each answer on its names is CRI-O's loop's.
func TestListsPastTheDenseTierCompile(t *testing.T) {
	for _, list := range issue55Lists() {
		if err := Validate(list.patterns); err != nil {
			t.Fatalf("%s: Validate: %v", list.name, err)
		}
		tier, err := ValidateTier(list.patterns)
		if err != nil || tier != list.tier {
			t.Fatalf("%s: ValidateTier = %v, %v; want %v", list.name, tier, err, list.tier)
		}
		set, err := Compile(list.patterns)
		if err != nil {
			t.Fatalf("%s: Compile: %v", list.name, err)
		}
		if got := set.Tier(); got != tier {
			t.Errorf("%s: Tier = %v, ValidateTier %v", list.name, got, tier)
		}
		want := loopMatchIndex(list.patterns, list.names)
		pinned := 0
		for i, name := range list.names {
			if got := set.MatchIndex(name); got != want[i] {
				t.Errorf("%s: MatchIndex(%q) = %d, CRI-O's loop %d", list.name, name, got, want[i])
			}
			if set.Match(name) != (want[i] >= 0) {
				t.Errorf("%s: Match(%q) = %v", list.name, name, !(want[i] >= 0))
			}
			if want[i] >= 0 {
				pinned++
			}
		}
		if pinned == 0 || pinned == len(list.names) {
			t.Errorf("%s: %d of %d names pinned: the sample tells nothing", list.name, pinned, len(list.names))
		}
		set.Close()
	}
}

// TestTier: the tier of a list, by ValidateTier and by the compiled Set,
// agree, and ValidateTier fails as Validate does.
func TestTier(t *testing.T) {
	for _, c := range []struct {
		patterns []string
		want     Tier
	}{
		{nil, TierExact},
		{[]string{"registry.k8s.io/pause:3.10"}, TierExact},
		{[]string{"registry.k8s.io/pause:3.10", "quay.io/*", "*etcd*"}, TierDense},
	} {
		got, err := ValidateTier(c.patterns)
		if err != nil || got != c.want {
			t.Errorf("ValidateTier(%q) = %v, %v; want %v", c.patterns, got, err, c.want)
		}
		set := MustCompile(c.patterns)
		if set.Tier() != c.want {
			t.Errorf("Tier(%q) = %v", c.patterns, set.Tier())
		}
		set.Close()
	}
	var empty *Set
	if empty.Tier() != TierExact || TierSparse.String() != "sparse" || Tier(9).String() != "Tier(9)" {
		t.Errorf("nil Set: %v; names %v %v", empty.Tier(), TierSparse, Tier(9))
	}
	bad := []string{"quay.io/*", "*"}
	if tier, err := ValidateTier(bad); tier != 0 || err == nil || err.Error() != Validate(bad).Error() {
		t.Errorf("ValidateTier(%q) = %v, %v; Validate %v", bad, tier, err, Validate(bad))
	}
	if _, err := ValidateTier(nil, Flag(1<<20)); err == nil {
		t.Errorf("ValidateTier with an unknown flag: no error")
	}
}
