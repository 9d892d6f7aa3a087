package criopin_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
)

// The definition's values (docs/c.md, "Fingerprints"), computed outside
// the library with sha256sum over the bytes printf writes (the commands
// are in src/fingerprint.rs's test of them) and again with Python's
// hashlib: the empty list, and "quay.io/*" then "**", both under Default.
const (
	emptyListFingerprint = "sha256:311fed6dd0d4df70df9c284fe4697c63913dfdea5594eb362bf07e6cbaae668f"
	quayAllFingerprint   = "sha256:06606751d5578f693fe268407447bf76e9bd6fdef3fce05baf7b62da27410219"
)

func listFingerprint(t *testing.T, patterns []string, flags ...criopin.Flag) criopin.Fingerprint {
	t.Helper()
	f, err := criopin.ListFingerprint(patterns, flags...)
	if err != nil {
		t.Fatalf("ListFingerprint(%q, %v): %v", patterns, flags, err)
	}
	return f
}

// A set's fingerprint, its list's and the definition's value are one.
func TestFingerprintKnownValues(t *testing.T) {
	list := []string{"quay.io/*", "**"}
	s := criopin.MustCompile(list)
	defer s.Close()
	if got := s.Fingerprint().String(); got != quayAllFingerprint {
		t.Errorf("Set.Fingerprint = %s, want %s", got, quayAllFingerprint)
	}
	if got := listFingerprint(t, list); got != s.Fingerprint() {
		t.Errorf("ListFingerprint = %s, the set's %s", got, s.Fingerprint())
	}
	var nilSet *criopin.Set
	var zero criopin.Set
	empty := criopin.MustCompile(nil)
	defer empty.Close()
	for what, got := range map[string]criopin.Fingerprint{
		"a nil Set": nilSet.Fingerprint(), "the zero Set": zero.Fingerprint(),
		"an empty list": listFingerprint(t, nil), "a compiled empty list": empty.Fingerprint(),
		"a nil Live": (*criopin.Live)(nil).Fingerprint(), "the zero Live": new(criopin.Live).Fingerprint(),
	} {
		if got.String() != emptyListFingerprint {
			t.Errorf("%s: %s, want the empty list's %s", what, got, emptyListFingerprint)
		}
	}
}

// A compiled set's fingerprint is its list's, whatever the list holds and
// under each flag (with a wasm engine the package hashes the list it
// compiles, the library the one it is asked about).
func TestSetFingerprintIsItsLists(t *testing.T) {
	osList, _ := openShiftList()
	lists := []struct {
		patterns []string
		flags    criopin.Flag
	}{
		{nil, criopin.Default},
		{[]string{""}, criopin.Default},
		{[]string{"quay.io/*", "**"}, criopin.AnchorGlobs | criopin.CaseSensitive},
		{[]string{"registry.example/ÄÖÜ:ß", "*é*", pauseImage}, criopin.Default},
		{[]string{strings.Repeat("a", 70_000) + "*", "x"}, criopin.Default},
		{patternList(t, 1000), criopin.Default},
		{osList, criopin.Default},
	}
	// Every flag set but the two syntaxes at once (refused), on a list
	// each compiles: the bits are hashed.
	for f := criopin.Flag(0); f <= 63; f++ {
		if f&criopin.Literal != 0 && f&criopin.CriDockerdSyntax != 0 {
			continue
		}
		lists = append(lists, struct {
			patterns []string
			flags    criopin.Flag
		}{[]string{"quay.io/team/app:1.2", "registry.k8s.io/pause:3.10"}, f})
	}
	for _, l := range lists {
		s, err := criopin.Compile(l.patterns, l.flags)
		if err != nil {
			t.Fatalf("Compile of %d patterns under %v: %v", len(l.patterns), l.flags, err)
		}
		if got, want := s.Fingerprint(), listFingerprint(t, l.patterns, l.flags); got != want {
			t.Errorf("%d patterns under %v: the set's fingerprint %s, the list's %s", len(l.patterns), l.flags, got, want)
		}
		s.Close()
	}
}

// One byte, the order, the cut between patterns and each flag count; the
// fingerprint does not validate (unknown flags and a lone "*" have one).
func TestFingerprintsOfDifferentLists(t *testing.T) {
	lists := []struct {
		patterns []string
		flags    criopin.Flag
	}{
		{[]string{"quay.io/*", "**"}, criopin.Default},
		{[]string{"quay.io/*", "**"}, criopin.AnchorGlobs},
		{[]string{"quay.io/*", "**"}, criopin.CaseSensitive},
		{[]string{"quay.io/*", "**"}, criopin.Flag(0x40)},
		{[]string{"quay.io/+", "**"}, criopin.Default},
		{[]string{"**", "quay.io/*"}, criopin.Default},
		{[]string{"quay.io/**", "*"}, criopin.Default},
		{[]string{"quay.io/*", "**", ""}, criopin.Default},
	}
	seen := map[criopin.Fingerprint]int{}
	for i, l := range lists {
		f := listFingerprint(t, l.patterns, l.flags)
		if j, ok := seen[f]; ok {
			t.Errorf("%q under %v has the fingerprint of %q under %v", l.patterns, l.flags, lists[j].patterns, lists[j].flags)
		}
		seen[f] = i
	}
}

// A list past the limits has no fingerprint: the error Compile gives.
func TestListFingerprintPastTheLimits(t *testing.T) {
	list := []string{"x", strings.Repeat("a", 64<<20)}
	f, err := criopin.ListFingerprint(list)
	var cerr *criopin.CompileError
	if !errors.As(err, &cerr) || cerr.Kind != criopin.KindTooLarge || cerr.Index != 1 || f != (criopin.Fingerprint{}) {
		t.Fatalf("ListFingerprint of 64 MiB and a byte: %v, %v", f, err)
	}
}

// An unchanged list and flags keep the current set, compiling nothing; a
// list that differs in one byte, or in its flags only, is compiled and
// served.
func TestLiveReloadIfChanged(t *testing.T) {
	before := liveSetsSettled()
	compiles := criopin.CountReloadCompiles(t)
	list := []string{"registry.k8s.io/pause:3.9", "quay.io/openshift/*"}
	first := criopin.MustCompile(list)
	l := criopin.NewLive(first)
	first.Close()
	served := criopin.CurrentSet(l)
	reload := func(want bool, patterns []string, flags ...criopin.Flag) criopin.ReloadResult {
		t.Helper()
		n := compiles()
		r, err := l.ReloadIfChanged(patterns, flags...)
		if err != nil {
			t.Fatalf("ReloadIfChanged(%q, %v): %v", patterns, flags, err)
		}
		if r.Changed != want || r.Fingerprint != listFingerprint(t, patterns, flags...) || r.Fingerprint != l.Fingerprint() {
			t.Fatalf("ReloadIfChanged(%q, %v) = %+v (changed %v wanted; the Live serves %s)", patterns, flags, r, want, l.Fingerprint())
		}
		if compiled := compiles() - n; compiled != map[bool]int{false: 0, true: 1}[want] {
			t.Fatalf("ReloadIfChanged(%q, %v) compiled %d lists", patterns, flags, compiled)
		}
		return r
	}
	reload(false, []string{"registry.k8s.io/pause:3.9", "quay.io/openshift/*"})
	reload(false, list, criopin.Default)
	if criopin.CurrentSet(l) != served {
		t.Fatal("an unchanged reload replaced the set")
	}
	reload(true, []string{"registry.k8s.io/pause:3.9", "quay.io/openshift/+"})
	if l.Match("quay.io/openshift/x") || !l.Match("quay.io/openshift/+") {
		t.Fatal("a list that differs in one byte was not applied")
	}
	reload(true, []string{"registry.k8s.io/pause:3.9", "quay.io/openshift/+"}, criopin.AnchorGlobs)
	reload(false, []string{"registry.k8s.io/pause:3.9", "quay.io/openshift/+"}, criopin.AnchorGlobs)
	reload(true, list, criopin.AnchorGlobs)
	if !l.Match("quay.io/openshift/x") || l.Match("evil/quay.io/openshift/x") {
		t.Fatal("a list that differs in its flags only was not applied")
	}
	// Reload, the older call, skips an unchanged list too.
	n := compiles()
	if err := l.Reload(list, criopin.AnchorGlobs); err != nil || compiles() != n {
		t.Fatalf("Reload of the unchanged list: %v, %d compiles", err, compiles()-n)
	}
	// A failed reload keeps the list and says which it serves.
	r, err := l.ReloadIfChanged([]string{"*"})
	if err == nil || r.Changed || r.Fingerprint != listFingerprint(t, list, criopin.AnchorGlobs) {
		t.Fatalf("ReloadIfChanged of a bad list: %+v, %v", r, err)
	}
	l.Close()
	// A Live holding no list serves the empty list under Default.
	reload(false, nil)
	reload(true, []string{"**"})
	l.Close()
	if got := liveSetsSettled(); got != before {
		t.Fatalf("%d engines left, %d before", got, before)
	}
}

// digestList is n digest references, as a node's pinned list of release
// images has them.
func digestList(n int) []string {
	r := splitMix64(55)
	list := make([]string, n)
	for i := range list {
		list[i] = fmt.Sprintf("registry.example.com/app%d@sha256:%s", r.below(100), r.hex(64))
	}
	return list
}

// globList is n globs of an ordinary shape (a registry's team
// repositories, any tag), whose compile builds the automaton.
func globList(n int) []string {
	list := make([]string, n)
	for i := range list {
		list[i] = fmt.Sprintf("registry.corp.example.com/team%d/app%d:*", i%997, i)
	}
	return list
}

// BenchmarkReloadUnchanged: what reloading an unchanged list costs, for
// 20,000 digests (compiled into the exact table) and 20,000 globs (into
// the automaton): a compile (all a reload did before fingerprints), and
// ReloadIfChanged of the same list read again (new strings, as a reload
// re-reads the files), which compares it with the served one and keeps the
// set; a changed list of as many patterns (compared, then compiled); and
// the hash alone (ListFingerprint). Each row's fastest round is
// best-ns/call.
func BenchmarkReloadUnchanged(b *testing.B) {
	for _, c := range []struct {
		name string
		list []string
	}{{"digests=20000", digestList(20_000)}, {"globs=20000", globList(20_000)}} {
		list := c.list
		b.Run(c.name+"/compile", func(b *testing.B) {
			rounds(b, 1, func() { criopin.MustCompile(list).Close() })
		})
		b.Run(c.name+"/unchanged", func(b *testing.B) {
			s := criopin.MustCompile(list)
			l := criopin.NewLive(s)
			s.Close()
			defer l.Close()
			again := make([]string, len(list))
			for i, p := range list {
				again[i] = strings.Clone(p)
			}
			rounds(b, 1, func() {
				if r, err := l.ReloadIfChanged(again); err != nil || r.Changed {
					b.Fatalf("%+v, %v", r, err)
				}
			})
		})
		// The worst case: as many patterns, one byte apart, hashed and
		// compiled.
		b.Run(c.name+"/changed", func(b *testing.B) {
			other := append([]string{}, list...)
			other[len(other)-1] += "0"
			s := criopin.MustCompile(list)
			l := criopin.NewLive(s)
			s.Close()
			defer l.Close()
			lists, i := [2][]string{list, other}, 0
			rounds(b, 1, func() {
				i++
				if r, err := l.ReloadIfChanged(lists[i%2]); err != nil || !r.Changed {
					b.Fatalf("%+v, %v", r, err)
				}
			})
		})
		b.Run(c.name+"/list_fingerprint", func(b *testing.B) {
			rounds(b, 1, func() {
				if _, err := criopin.ListFingerprint(list); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}
