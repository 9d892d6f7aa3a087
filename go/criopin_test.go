package criopin_test

import (
	"errors"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	criopin "github.com/crio-pin/crio-pin/go"
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

func TestVersion(t *testing.T) {
	v := criopin.Version()
	if parts := strings.Split(v, "."); len(parts) != 3 || parts[0] != "0" {
		t.Fatalf("Version() = %q, want 0.MINOR.PATCH", v)
	}
}

func TestFlagString(t *testing.T) {
	for f, want := range map[criopin.Flag]string{
		criopin.Default:                            "Default",
		criopin.AnchorGlobs:                        "AnchorGlobs",
		criopin.AnchorGlobs | criopin.Strict:       "AnchorGlobs|Strict",
		criopin.CaseSensitive | criopin.Flag(0x18): "CaseSensitive|Flag(0x18)",
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
	if cerr.Index != 2 || cerr.Pattern != "*" {
		t.Errorf("got Index %d Pattern %q, want 2 %q", cerr.Index, cerr.Pattern, "*")
	}
	want := `criopin: pattern 2 ("*"): a lone '*' is not a valid pattern (it crashes CRI-O); write "**" to pin every image`
	if err.Error() != want {
		t.Errorf("Error() =\n  %s\nwant\n  %s", err, want)
	}
	// Wrapped, as a caller would.
	wrapped := errors.Join(errors.New("reloading pinned_images"), err)
	if !errors.As(wrapped, &cerr) || cerr.Index != 2 {
		t.Error("errors.As through a wrapper lost the *CompileError")
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
	closed := criopin.MustCompile([]string{"**"})
	closed.Close()
	for name, s := range map[string]*criopin.Set{"nil": nilSet, "zero": &zero, "compiled from no patterns": empty, "closed": closed} {
		if s.Match("x") || s.Match("") || s.MatchIndex("x") != -1 || s.MatchAny([]string{"x", ""}) ||
			s.Len() != 0 {
			t.Errorf("%s set pins something", name)
		}
		if got := s.MatchEach([]string{"a", "b"}); len(got) != 2 || got[0] || got[1] {
			t.Errorf("%s set: MatchEach = %v", name, got)
		}
		if got := s.AppendEach([]bool{true}, []string{"a"}); len(got) != 2 || !got[0] || got[1] {
			t.Errorf("%s set: AppendEach = %v", name, got)
		}
		if err := s.Close(); err != nil {
			t.Errorf("%s set: Close: %v", name, err)
		}
	}
}

func TestBatchEdges(t *testing.T) {
	s := mustCompile(t, []string{"", "quay.io/*"})
	if s.MatchAny(nil) {
		t.Error("MatchAny(nil) = true")
	}
	if got := s.MatchEach(nil); len(got) != 0 {
		t.Errorf("MatchEach(nil) = %v", got)
	}
	// All-empty names: the packed buffer is empty.
	if !s.MatchAny([]string{"", ""}) {
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
	if !s.MatchAny(names[1:4]) || s.MatchAny(names[1:3]) {
		t.Error("MatchAny on a slice of the batch disagrees")
	}
}

// TestZeroAlloc: matching allocates nothing in Go, but for the result of
// MatchEach; strings are not copied.
func TestZeroAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop items: allocation counts are meaningless")
	}
	s := mustCompile(t, patternList(t, 100))
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
		{"Set.MatchAny", 0, func() { s.MatchAny(image) }},
		{"Set.AppendEach", 0, func() { s.AppendEach(dst[:0], names) }},
		{"Set.MatchEach", 1, func() { s.MatchEach(names) }},
		{"Set.Len", 0, func() { s.Len() }},
		{"Live.Match", 0, func() { live.Match(names[7]) }},
		{"Live.MatchIndex", 0, func() { live.MatchIndex(names[7]) }},
		{"Live.MatchAny", 0, func() { live.MatchAny(image) }},
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
	if s.Match("x") {
		t.Fatal("a closed set still pins")
	}
}

// TestCloseWhileMatching: Close while other goroutines match on the set.
// Calls in progress finish on the intact set; later calls see an empty
// set; the memory is freed once, after the last call. Run with -race and
// cgocheck.
func TestCloseWhileMatching(t *testing.T) {
	before := liveSetsSettled()
	names := readLines(t, "image-names.txt")
	patterns := patternList(t, 100)
	r, _ := compileReference(patterns, criopin.Default)
	want := make([]int, len(names))
	for i, n := range names {
		want[i] = r.matchIndex(n)
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
				for i := g; i < len(names); i += 7 {
					got := s.MatchIndex(names[i])
					if got != want[i] && got != -1 {
						t.Errorf("MatchIndex(%q) = %d during Close, want %d or -1", names[i], got, want[i])
						return
					}
					each := s.MatchEach(names[i : i+1])
					if each[0] && want[i] < 0 {
						t.Errorf("MatchEach(%q) pins during Close", names[i])
						return
					}
				}
			}()
		}
		close(start)
		runtime.Gosched()
		s.Close()
		wg.Wait()
		if s.Match(names[0]) || s.Len() != 0 {
			t.Fatal("a closed set still pins")
		}
	}
	if got := liveSetsSettled(); got != before {
		t.Fatalf("%d C sets alive, want %d: Close while matching leaked or double-freed", got, before)
	}
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
	names := make([]string, 20000)
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
		got := criopin.MustCompile(patternList(t, 1000)).MatchEach(names)
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
