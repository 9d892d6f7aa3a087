package criopin_test

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/crio-pin/crio-pin/go/criopin"
)

func mustCompile(tb testing.TB, patterns []string, flags ...criopin.Flag) *criopin.Set {
	tb.Helper()
	s, err := criopin.Compile(patterns, flags...)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

// TestVersion: the library linked in (or compiled into the module) is the
// version whose rules the tests' reference follows (a library update must
// update both).
func TestVersion(t *testing.T) {
	if v := criopin.Version(); v != criopin.SemanticsVersion {
		t.Fatalf("Version() = %q, the tests' reference follows %q", v, criopin.SemanticsVersion)
	}
}

func TestFlagString(t *testing.T) {
	for f, want := range map[criopin.Flag]string{
		criopin.Default:                            "Default",
		criopin.AnchorGlobs:                        "AnchorGlobs",
		criopin.AnchorGlobs | criopin.Strict:       "AnchorGlobs|Strict",
		criopin.CaseSensitive | criopin.Flag(0xc0): "CaseSensitive|Flag(0xc0)",
		criopin.CriDockerd:                         "AnchorGlobs|CaseSensitive|CriDockerdSyntax",
		criopin.ContainerdNormalized:               "CaseSensitive|Literal|Normalize",
	} {
		if got := f.String(); got != want {
			t.Errorf("Flag(%d).String() = %q, want %q", uint32(f), got, want)
		}
	}
}

func TestFlagsAreOred(t *testing.T) {
	s := mustCompile(t, []string{"Quay.io/*"}, criopin.AnchorGlobs, criopin.CaseSensitive)
	if s.Match("x/Quay.io/a") || s.Match("quay.io/a") || !s.Match("Quay.io/a") {
		t.Fatal("AnchorGlobs and CaseSensitive given as two arguments are not both in effect")
	}
}

func TestCompileError(t *testing.T) {
	patterns := []string{"registry.k8s.io/pause:3.9", "quay.io/*", "*"}
	s, err := criopin.Compile(patterns)
	if s != nil || err == nil {
		t.Fatalf("Compile(%q) = %v, %v; want an error", patterns, s, err)
	}
	var cerr *criopin.CompileError
	if !errors.As(err, &cerr) {
		t.Fatalf("error %T is not a *CompileError", err)
	}
	if cerr.Index != 2 || cerr.Pattern != "*" || cerr.Kind != criopin.KindLoneStar {
		t.Errorf("got Index %d Pattern %q Kind %v, want 2 %q LoneStar", cerr.Index, cerr.Pattern, cerr.Kind, "*")
	}
	want := `criopin: pattern 2 ("*"): a lone '*' is not a valid pattern; write "**" to pin every image`
	if err.Error() != want {
		t.Errorf("Error() =\n  %s\nwant\n  %s", err, want)
	}
	// Wrapped, as a caller would.
	wrapped := fmt.Errorf("reloading pinned_images: %w", err)
	if !errors.As(wrapped, &cerr) || cerr.Index != 2 {
		t.Error("errors.As through a wrapper lost the *CompileError")
	}
	if !errors.Is(wrapped, criopin.ErrLoneStar) || errors.Is(wrapped, criopin.ErrStrict) {
		t.Error("errors.Is does not tell the lone '*' from other errors")
	}
}

// TestErrorKinds: each kind has its sentinel and its name.
func TestErrorKinds(t *testing.T) {
	for _, c := range []struct {
		patterns []string
		flags    criopin.Flag
		kind     criopin.ErrorKind
		sentinel error
		name     string
	}{
		{[]string{"x"}, 64, criopin.KindUnknownFlags, criopin.ErrUnknownFlags, "UnknownFlags"},
		{[]string{"\xff"}, 0, criopin.KindInvalidUTF8, criopin.ErrInvalidUTF8, "InvalidUTF8"},
		{[]string{"*"}, 0, criopin.KindLoneStar, criopin.ErrLoneStar, "LoneStar"},
		{[]string{""}, criopin.Strict, criopin.KindStrictEmpty, criopin.ErrStrict, "StrictEmpty"},
		{[]string{"a b"}, criopin.Strict, criopin.KindStrictWhitespace, criopin.ErrStrict, "StrictWhitespace"},
		{[]string{"*ab"}, criopin.Strict, criopin.KindStrictLeadingStar, criopin.ErrStrict, "StrictLeadingStar"},
		{[]string{"a*b"}, criopin.Strict, criopin.KindStrictInnerStar, criopin.ErrStrict, "StrictInnerStar"},
	} {
		_, err := criopin.Compile(c.patterns, c.flags)
		var cerr *criopin.CompileError
		if !errors.As(err, &cerr) || cerr.Kind != c.kind || !errors.Is(err, c.sentinel) || cerr.Kind.String() != c.name {
			t.Errorf("Compile(%q, %v) = %v, want kind %s", c.patterns, c.flags, err, c.name)
		}
		checkValidate(t, c.patterns, c.flags, err)
		for _, other := range []error{criopin.ErrUnknownFlags, criopin.ErrInvalidUTF8, criopin.ErrLoneStar,
			criopin.ErrStrict, criopin.ErrTooLarge, criopin.ErrInternal} {
			if other != c.sentinel && errors.Is(err, other) {
				t.Errorf("Compile(%q, %v): errors.Is(%v) holds too", c.patterns, c.flags, other)
			}
		}
	}
}

// TestTooLarge: over 64 MiB of pattern text is an error naming the
// pattern that crosses the limit, before anything large is built.
func TestTooLarge(t *testing.T) {
	list := []string{"x", strings.Repeat("a", 64<<20)}
	_, err := criopin.Compile(list)
	var cerr *criopin.CompileError
	if !errors.As(err, &cerr) || cerr.Kind != criopin.KindTooLarge || cerr.Index != 1 || !errors.Is(err, criopin.ErrTooLarge) ||
		!strings.HasSuffix(cerr.Message, "too large: the total size of all patterns in bytes may be at most 67108864; split the list or shorten the pattern") {
		t.Fatalf("got %v", err)
	}
	checkValidate(t, list, criopin.Default, err)
	// Exactly 64 MiB is within the limit (checked without compiling it).
	if err := criopin.Validate(list[1:]); err != nil {
		t.Fatalf("Validate of 64 MiB: %v", err)
	}
}

// TestValidate: Validate answers as Compile does (the conformance tests
// compare them on every list they try: checkValidate), builds nothing, and
// returns a nil error, not a nil *CompileError, for a valid list.
func TestValidate(t *testing.T) {
	before := liveSetsSettled()
	for _, list := range [][]string{nil, {}, {""}, {"**"}, patternList(t, 1000)} {
		if err := criopin.Validate(list); err != nil {
			t.Errorf("Validate(%d patterns) = %#v, want nil", len(list), err)
		}
	}
	err := criopin.Validate([]string{"quay.io/*", "*", "\xff"})
	var cerr *criopin.CompileError
	if !errors.As(err, &cerr) || cerr.Index != 1 || cerr.Pattern != "*" || !errors.Is(err, criopin.ErrLoneStar) ||
		err.Error() != `criopin: pattern 1 ("*"): a lone '*' is not a valid pattern; write "**" to pin every image` {
		t.Errorf("Validate: %v", err)
	}
	if err := criopin.Validate([]string{"a b"}); err != nil {
		t.Errorf("Validate without Strict: %v", err)
	}
	if err := criopin.Validate([]string{"a b"}, criopin.Strict); !errors.Is(err, criopin.ErrStrict) {
		t.Errorf("Validate with Strict: %v", err)
	}
	if got := liveSetsSettled(); got != before {
		t.Fatalf("%d sets alive after Validate, want %d: it built something", got, before)
	}
}

func TestMustCompilePanics(t *testing.T) {
	defer func() {
		if _, ok := recover().(*criopin.CompileError); !ok {
			t.Fatal("MustCompile of a bad list did not panic with a *CompileError")
		}
	}()
	criopin.MustCompile([]string{"*"})
}

func TestEmptySets(t *testing.T) {
	var nilSet *criopin.Set
	var zero criopin.Set
	empty := mustCompile(t, nil)
	for name, s := range map[string]*criopin.Set{"nil": nilSet, "zero": &zero, "compiled from no patterns": empty} {
		if s.Match("x") || s.Match("") || s.MatchIndex("x") != -1 || s.MatchAny("x", "") || s.MatchAny() ||
			s.Len() != 0 {
			t.Errorf("%s set pins something", name)
		}
		if got := s.MatchEach([]string{"a", "b"}); len(got) != 2 || got[0] || got[1] {
			t.Errorf("%s set: MatchEach = %v", name, got)
		}
		if got := s.AppendEach([]bool{true}, []string{"a"}); len(got) != 2 || !got[0] || got[1] {
			t.Errorf("%s set: AppendEach = %v", name, got)
		}
		if c := s.Clone(); c.Match("x") || c.Len() != 0 {
			t.Errorf("%s set: its clone pins something", name)
		}
		if err := s.Close(); err != nil {
			t.Errorf("%s set: Close: %v", name, err)
		}
	}
}

// TestClosedSetPanics: a call on a closed Set panics (like a send on a
// closed channel) rather than answering "not pinned".
func TestClosedSetPanics(t *testing.T) {
	s := criopin.MustCompile([]string{"**"})
	s.Close()
	for name, call := range map[string]func(){
		"Match":      func() { s.Match("x") },
		"MatchIndex": func() { s.MatchIndex("x") },
		"MatchAny":   func() { s.MatchAny("x") },
		"MatchEach":  func() { s.MatchEach([]string{"x"}) },
		"AppendEach": func() { s.AppendEach(nil, []string{"x"}) },
		"Len":        func() { s.Len() },
		"Clone":      func() { s.Clone() },
	} {
		if got, want := panicOf(call), "criopin: "+name+" on a closed Set"; got != want {
			t.Errorf("%s on a closed Set: panic %v, want %q", name, got, want)
		}
	}
	if err := s.Close(); err != nil {
		t.Errorf("a second Close: %v", err)
	}
	var l criopin.Live
	if got := panicOf(func() { l.Store(s) }); got != "criopin: Clone on a closed Set" {
		t.Errorf("Live.Store of a closed Set: panic %v", got)
	}
}

// panicOf runs f and returns what it panicked with (nil for nothing).
func panicOf(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// TestCloneOwnsItsReference: each clone is an owner; closing one (or the
// original) leaves the others pinning.
func TestCloneOwnsItsReference(t *testing.T) {
	before := liveSetsSettled()
	s := criopin.MustCompile([]string{"quay.io/*"})
	c := s.Clone()
	s.Close()
	if !c.Match("quay.io/x") || c.Len() != 1 {
		t.Fatal("closing the original unpinned its clone")
	}
	c2 := c.Clone()
	c.Close()
	if !c2.Match("quay.io/x") {
		t.Fatal("closing a clone unpinned another")
	}
	c2.Close()
	if got := liveSetsSettled(); got != before {
		t.Fatalf("%d sets alive after closing every owner, want %d", got, before)
	}
}

func TestBatchEdges(t *testing.T) {
	s := mustCompile(t, []string{"", "quay.io/*"})
	if s.MatchAny() {
		t.Error("MatchAny() = true")
	}
	if got := s.MatchEach(nil); len(got) != 0 {
		t.Errorf("MatchEach(nil) = %v", got)
	}
	// All-empty names: the packed buffer is empty.
	if !s.MatchAny("", "") {
		t.Error(`MatchAny(["", ""]) = false; "" pins the empty name`)
	}
	if got := s.MatchEach([]string{"", "", "x"}); !equalBools(got, []bool{true, true, false}) {
		t.Errorf("MatchEach = %v", got)
	}
	// AppendEach reuses a slice with room, clearing stale values.
	buf := make([]bool, 1, 8)
	buf[0] = true
	stale := buf[:8]
	for i := range stale {
		stale[i] = true
	}
	got := s.AppendEach(buf, []string{"x", "quay.io/a", "y"})
	if !equalBools(got, []bool{true, false, true, false}) || &got[0] != &buf[0] {
		t.Errorf("AppendEach = %v (reused: %v)", got, &got[0] == &buf[0])
	}
	// A large batch, beyond any small buffer.
	names := make([]string, 5000)
	want := make([]bool, len(names))
	for i := range names {
		if i%3 == 0 {
			names[i] = "quay.io/" + strings.Repeat("x", i%200)
			want[i] = true
		} else {
			names[i] = "docker.io/" + strings.Repeat("y", i%200)
		}
	}
	if got := s.MatchEach(names); !equalBools(got, want) {
		t.Error("MatchEach on 5000 names disagrees")
	}
	if !s.MatchAny(names[1:4]...) || s.MatchAny(names[1:3]...) {
		t.Error("MatchAny on a slice of the batch disagrees")
	}
}

// TestZeroAlloc: matching allocates nothing in Go, but for the result of
// MatchEach; strings are not copied.
func TestZeroAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items: allocation counts are meaningless")
	}
	list100 := patternList(t, 100)
	s := mustCompile(t, list100)
	live := criopin.NewLive(criopin.MustCompile(patternList(t, 10)))
	defer live.Close()
	names := readLines(t, "image-names.txt")
	image := names[10:13]
	dst := make([]bool, 0, len(names))
	checks := []struct {
		name string
		want float64
		f    func()
	}{
		{"Set.Match", 0, func() { s.Match(names[7]) }},
		{"Set.Match empty name", 0, func() { s.Match("") }},
		{"Set.MatchIndex", 0, func() { s.MatchIndex(names[7]) }},
		{"Set.MatchAny", 0, func() { s.MatchAny(image...) }},
		{"Set.MatchAny of an artifact's two names", 0, func() { s.MatchAny(names[3], names[4]) }},
		{"Set.AppendEach", 0, func() { s.AppendEach(dst[:0], names) }},
		{"Set.MatchEach", 1, func() { s.MatchEach(names) }},
		{"Set.Len", 0, func() { s.Len() }},
		{"Validate of a valid list", 0, func() { criopin.Validate(list100) }},
		{"Validate of a valid list, with flags", 0, func() { criopin.Validate(list100, criopin.AnchorGlobs, criopin.Strict) }},
		{"Live.Match", 0, func() { live.Match(names[7]) }},
		{"Live.MatchIndex", 0, func() { live.MatchIndex(names[7]) }},
		{"Live.MatchAny", 0, func() { live.MatchAny(image...) }},
		{"Live.MatchAny of an artifact's two names", 0, func() { live.MatchAny(names[3], names[4]) }},
		{"Live.AppendEach", 0, func() { live.AppendEach(dst[:0], names) }},
		{"Live.MatchEach", 1, func() { live.MatchEach(names) }},
	}
	for _, c := range checks {
		if got := testing.AllocsPerRun(1000, c.f); got != c.want {
			t.Errorf("%s: %v allocations per call, want %v", c.name, got, c.want)
		}
	}
}

// TestCloseIsIdempotent, also concurrently with itself.
func TestCloseIsIdempotent(t *testing.T) {
	before := liveSetsSettled()
	s := criopin.MustCompile([]string{"x"})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				if err := s.Close(); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if got := liveSetsSettled(); got != before {
		t.Fatalf("%d C sets alive after Close, want %d", got, before)
	}
}

// TestCloseWhileMatching: Close while other goroutines match on the set.
// Calls in progress finish on the intact set and answer right; later
// calls panic (never a wrong "not pinned"); the memory is freed once,
// after the last call. Run with -race and cgocheck.
func TestCloseWhileMatching(t *testing.T) {
	before := liveSetsSettled()
	names := readLines(t, "image-names.txt")
	patterns := patternList(t, 100)
	r, _ := compileReference(patterns, criopin.Default)
	want := make([]int, len(names))
	for i, n := range names {
		want[i] = r.MatchIndex(n)
	}
	rounds := 200
	if raceEnabled {
		rounds = 40
	}
	for range rounds {
		s := criopin.MustCompile(patterns)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				defer func() {
					if v := recover(); v != nil && v != "criopin: MatchIndex on a closed Set" && v != "criopin: MatchEach on a closed Set" {
						t.Errorf("panic %v", v)
					}
				}()
				for i := g; i < len(names); i += 7 {
					if got := s.MatchIndex(names[i]); got != want[i] {
						t.Errorf("MatchIndex(%q) = %d during Close, want %d", names[i], got, want[i])
						return
					}
					if each := s.MatchEach(names[i : i+1]); each[0] != (want[i] >= 0) {
						t.Errorf("MatchEach(%q) = %v during Close", names[i], each[0])
						return
					}
				}
			}()
		}
		close(start)
		runtime.Gosched()
		s.Close()
		wg.Wait()
	}
	if got := liveSetsSettled(); got != before {
		t.Fatalf("%d C sets alive, want %d: Close while matching leaked or double-freed", got, before)
	}
}

// TestCloseFreesAfterTheLastCall: Close during a call frees the set when
// that call ends, at once (not at a later GC), even if calls refused
// meanwhile came between.
func TestCloseFreesAfterTheLastCall(t *testing.T) {
	before := liveSetsSettled()
	s := criopin.MustCompile([]string{"quay.io/*"})
	end := criopin.HoldCall(s)
	s.Close()
	if got := criopin.LiveSets(); got != before+1 {
		t.Fatalf("%d sets alive during a call on a closed set, want %d", got, before+1)
	}
	for range 3 {
		if got := panicOf(func() { s.MatchAny("quay.io/a") }); got != "criopin: MatchAny on a closed Set" {
			t.Fatalf("MatchAny on a closed Set: panic %v", got)
		}
	}
	end()
	if got := criopin.LiveSets(); got != before {
		t.Fatalf("%d sets alive after the last call on a closed set ended, want %d", got, before)
	}
	runtime.KeepAlive(s) // no cleanup may free it meanwhile
}

// TestCleanupFreesUnreachableSets: a Set dropped without Close is freed
// by its runtime.AddCleanup.
func TestCleanupFreesUnreachableSets(t *testing.T) {
	before := liveSetsSettled()
	func() {
		for range 50 {
			s := criopin.MustCompile([]string{"quay.io/*", "x"})
			if !s.Match("quay.io/a") {
				t.Error("no match")
			}
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for criopin.LiveSets() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d C sets still alive 10s after becoming unreachable", criopin.LiveSets()-before)
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
}

// TestKeepAliveDuringCall: a set whose last use is the call itself must
// not be freed by its cleanup while the library reads it.
func TestKeepAliveDuringCall(t *testing.T) {
	size, count := 1000, 20000
	names := make([]string, count)
	for i := range names {
		names[i] = "registry.example/" + strings.Repeat("a", i%300)
	}
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-done:
				return
			default:
				runtime.GC()
			}
		}
	}()
	defer close(done)
	for range 20 {
		got := criopin.MustCompile(patternList(t, size)).MatchEach(names)
		if len(got) != len(names) {
			t.Fatal("short result")
		}
	}
}

// liveSetsSettled returns the number of C sets alive once the cleanups of
// sets other tests dropped have run.
func liveSetsSettled() int64 {
	last, same := criopin.LiveSets(), 0
	for i := 0; i < 500 && same < 5; i++ {
		runtime.GC()
		time.Sleep(time.Millisecond)
		if n := criopin.LiveSets(); n == last {
			same++
		} else {
			last, same = n, 0
		}
	}
	return last
}

// TestEachWithSettledNames: a listing where the length table settles most
// names (no pattern has their length) and asks about the rest: each answer
// lands at its own name's index, and a reused slice's stale values are
// cleared (the wasm backend sends the module only the names it asks about).
func TestEachWithSettledNames(t *testing.T) {
	s := criopin.MustCompile([]string{"registry.k8s.io/pause:3.10", "quay.io/x/y:1"})
	defer s.Close()
	names := []string{"a", "registry.k8s.io/pause:3.10", "docker.io/library/nginx:latest", "quay.io/x/y:1",
		"quay.io/x/y:2", "bb", "REGISTRY.K8S.IO/PAUSE:3.10", ""}
	want := []bool{false, true, false, true, false, false, true, false}
	if got := s.MatchEach(names); !equalBools(got, want) {
		t.Fatalf("MatchEach = %v, want %v", got, want)
	}
	dst := make([]bool, 1, 1+len(names))
	dst[0] = true
	stale := dst[:cap(dst)]
	for i := range stale {
		stale[i] = true
	}
	if got := s.AppendEach(dst, names); !equalBools(got, append([]bool{true}, want...)) {
		t.Fatalf("AppendEach over stale values = %v, want true then %v", got, want)
	}
}
