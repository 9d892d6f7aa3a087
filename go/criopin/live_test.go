package criopin_test

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
)

func TestLiveZeroValue(t *testing.T) {
	var l criopin.Live
	if l.Match("x") || l.MatchIndex("x") != -1 || l.MatchAny("x") || l.Len() != 0 || l.Snapshot() != nil {
		t.Fatal("the zero Live pins something")
	}
	if got := l.MatchEach([]string{"a", "b"}); len(got) != 2 || got[0] || got[1] {
		t.Fatalf("MatchEach = %v", got)
	}
	if err := l.Reload([]string{"**"}); err != nil {
		t.Fatal(err)
	}
	if !l.Match("x") || l.Len() != 1 {
		t.Fatal("Reload did not take effect")
	}
	l.Close()
	l.Close()
	if l.Match("x") {
		t.Fatal("a closed Live pins")
	}
}

func TestLiveReloadErrorKeepsTheList(t *testing.T) {
	l := criopin.NewLive(criopin.MustCompile([]string{"registry.k8s.io/pause:3.9"}))
	defer l.Close()
	err := l.Reload([]string{"quay.io/*", "*"})
	var cerr *criopin.CompileError
	if !errors.As(err, &cerr) || cerr.Index != 1 {
		t.Fatalf("Reload of a bad list: %v", err)
	}
	if !l.Match("registry.k8s.io/pause:3.9") || l.Match("quay.io/x") {
		t.Fatal("a failed Reload changed the list")
	}
}

func TestLiveSnapshot(t *testing.T) {
	before := liveSetsSettled()
	l := criopin.NewLive(criopin.MustCompile([]string{"a"}))
	snap := l.Snapshot()
	if err := l.Reload([]string{"b"}); err != nil {
		t.Fatal(err)
	}
	if !snap.Match("a") || snap.Match("b") || !l.Match("b") || l.Match("a") {
		t.Fatal("the snapshot follows the reload, or the reload did not happen")
	}
	snap.Close()
	l.Close()
	if got := liveSetsSettled(); got != before {
		t.Fatalf("%d C sets alive, want %d", got, before)
	}
}

// TestLiveStoreKeepsItsOwnReference: the README's own pattern, Store then
// defer Close, must leave the Live pinning.
func TestLiveStoreKeepsItsOwnReference(t *testing.T) {
	before := liveSetsSettled()
	s := criopin.MustCompile([]string{"x"})
	l := criopin.NewLive(s)
	s.Close()
	if !l.Match("x") || l.Len() != 1 {
		t.Fatal("closing the Set given to NewLive unpinned the Live")
	}
	s2 := criopin.MustCompile([]string{"y"})
	l.Store(s2)
	s2.Close()
	if !l.Match("y") || l.Match("x") {
		t.Fatal("closing the Set given to Store unpinned the Live")
	}
	l.Close()
	if got := liveSetsSettled(); got != before {
		t.Fatalf("%d sets alive, want %d", got, before)
	}
}

// TestNilLive: a nil *Live reads as an empty set, like a nil *Set; the
// calls that would lose a list say so.
func TestNilLive(t *testing.T) {
	var l *criopin.Live
	if l.Match("x") || l.MatchIndex("x") != -1 || l.MatchAny("x") || l.Len() != 0 || l.Snapshot() != nil {
		t.Fatal("a nil Live pins something")
	}
	if got := l.MatchEach([]string{"a"}); len(got) != 1 || got[0] {
		t.Fatalf("MatchEach = %v", got)
	}
	if got := l.AppendEach([]bool{true}, []string{"a"}); len(got) != 2 || !got[0] || got[1] {
		t.Fatalf("AppendEach = %v", got)
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Reload([]string{"x"}); err == nil || !strings.Contains(err.Error(), "nil *Live") {
		t.Fatalf("Reload on a nil Live: %v", err)
	}
	s := criopin.MustCompile([]string{"x"})
	defer s.Close()
	if got := panicOf(func() { l.Store(s) }); got == nil || !strings.Contains(fmt.Sprint(got), "nil *Live") {
		t.Fatalf("Store on a nil Live: panic %v", got)
	}
}

// imageService and artifactStore stand for CRI-O's two readers of the
// pinned list: ListImages (all the names of an image) and the OCI-artifact
// store (an artifact's reference and canonical name).
type imageService struct{ pinned *criopin.Live }

func (s *imageService) pinned_(names []string) bool { return s.pinned.MatchAny(names...) }

type artifactStore struct{ pinned *criopin.Live }

func (s *artifactStore) pinned_(reference, canonical string) bool {
	return s.pinned.MatchAny(reference, canonical)
}

// TestSharedLive: the image service and the artifact store share one
// *Live; one reload reaches both, a rejected reload keeps the old list in
// both.
func TestSharedLive(t *testing.T) {
	before := liveSetsSettled()
	var pinned criopin.Live
	if err := pinned.Reload([]string{"quay.io/a/*", "registry.k8s.io/pause:3.10"}); err != nil {
		t.Fatal(err)
	}
	images, artifacts := &imageService{&pinned}, &artifactStore{&pinned}
	check := func(stage string, wantA, wantB bool) {
		t.Helper()
		if images.pinned_([]string{"x", "quay.io/a/img:1"}) != wantA || artifacts.pinned_("quay.io/a/art:1", "y") != wantA {
			t.Errorf("%s: quay.io/a/ pinned %v, want %v", stage, !wantA, wantA)
		}
		if images.pinned_([]string{"quay.io/b/img:1"}) != wantB || artifacts.pinned_("z", "quay.io/b/art:1") != wantB {
			t.Errorf("%s: quay.io/b/ pinned %v, want %v", stage, !wantB, wantB)
		}
	}
	check("start", true, false)
	if err := pinned.Reload([]string{"quay.io/b/*"}); err != nil {
		t.Fatal(err)
	}
	check("after SIGHUP", false, true)
	if err := pinned.Reload([]string{"quay.io/a/*", "*"}); !errors.Is(err, criopin.ErrLoneStar) {
		t.Fatalf("bad reload: %v", err)
	}
	check("after a rejected reload", false, true)
	pinned.Close()
	if got := liveSetsSettled(); got != before {
		t.Fatalf("%d sets alive, want %d", got, before)
	}
}

// TestOneSetTwoLives: one compiled Set stored into each consumer's own
// Live; reloading one consumer must not unpin the other, and the caller
// closes its Set.
func TestOneSetTwoLives(t *testing.T) {
	before := liveSetsSettled()
	s := criopin.MustCompile([]string{"quay.io/a/*"})
	var forImages, forArtifacts criopin.Live
	forImages.Store(s)
	forArtifacts.Store(s)
	s.Close()
	if err := forImages.Reload([]string{"quay.io/b/*"}); err != nil {
		t.Fatal(err)
	}
	if !forArtifacts.MatchAny("quay.io/a/art:1", "x") {
		t.Fatal("reloading the image service's Live unpinned the artifact store's")
	}
	if !forImages.Match("quay.io/b/img") || forImages.Match("quay.io/a/img") {
		t.Fatal("the reload did not take effect")
	}
	forImages.Close()
	forArtifacts.Close()
	if got := liveSetsSettled(); got != before {
		t.Fatalf("%d sets alive, want %d", got, before)
	}
}

// TestLiveStress: many goroutines match while another swaps the list
// thousands of times, compiling a new set each time. Every name pinned by
// both lists must stay pinned throughout (no reader ever sees an empty or
// half-swapped list), answers must come from one of the two lists, no set
// is freed under a reader (run with -race and cgocheck), and every
// replaced set is freed.
func TestLiveStress(t *testing.T) {
	before := liveSetsSettled()
	listA := []string{"registry.k8s.io/pause:3.9", "quay.io/openshift-release-dev/*", "*etcd*", "docker.io/library/a:1"}
	listB := []string{"registry.k8s.io/pause:3.9", "*etcd*", "quay.io/openshift-release-dev/*", "docker.io/library/b:1"}
	names := []string{
		"registry.k8s.io/pause:3.9",           // both, index 0
		"quay.io/openshift-release-dev/ocp:1", // both, index 1 or 2
		"registry.k8s.io/etcd:3.5.9-0",        // both, index 2 or 1
		"docker.io/library/a:1",               // A only
		"docker.io/library/b:1",               // B only
		"docker.io/library/nginx:1.25",        // neither
		"REGISTRY.K8S.IO/PAUSE:3.9",           // both
	}
	wantA := []int{0, 1, 2, 3, -1, -1, 0}
	wantB := []int{0, 2, 1, -1, 3, -1, 0}
	inBoth := func(i int) bool { return wantA[i] >= 0 && wantB[i] >= 0 }

	swaps, readers := 5000, 8
	if raceEnabled {
		swaps = 2000
	}
	l := criopin.NewLive(criopin.MustCompile(listA))
	var stop atomic.Bool
	var reads atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, readers)
	for g := range readers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dst := make([]bool, 0, len(names))
			for n := 0; !stop.Load() || n < 100; n++ {
				i := (g + n) % len(names)
				var err error
				switch n % 5 {
				case 0:
					if got := l.MatchIndex(names[i]); got != wantA[i] && got != wantB[i] {
						err = fmt.Errorf("MatchIndex(%q) = %d, want %d (A) or %d (B)", names[i], got, wantA[i], wantB[i])
					}
				case 1:
					if got := l.Match(names[i]); inBoth(i) && !got {
						err = fmt.Errorf("Match(%q) = false during a swap; both lists pin it", names[i])
					}
				case 2:
					dst = l.AppendEach(dst[:0], names)
					for j, got := range dst {
						if inBoth(j) && !got {
							err = fmt.Errorf("AppendEach: %q unpinned during a swap", names[j])
						}
					}
					// One listing, one list: never A's only name and B's
					// only name together.
					if dst[3] && dst[4] {
						err = errors.New("AppendEach mixed the two lists in one call")
					}
				case 3:
					if !l.MatchAny(names[5], names[i%3]) {
						err = errors.New("MatchAny unpinned during a swap")
					}
				case 4:
					snap := l.Snapshot()
					if snap == nil || !snap.Match(names[0]) || snap.Len() != 4 {
						err = errors.New("Snapshot unusable during a swap")
					}
					snap.Close()
				}
				if err != nil {
					errs <- err
					return
				}
				reads.Add(1)
			}
		}()
	}
	for i := range swaps {
		list := listA
		if i%2 == 0 {
			list = listB
		}
		if err := l.Reload(list); err != nil {
			t.Fatal(err)
		}
	}
	stop.Store(true)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	l.Close()
	if got := liveSetsSettled(); got != before {
		t.Fatalf("%d C sets alive after the stress, want %d", got, before)
	}
	t.Logf("%d swaps, %d reads by %d goroutines", swaps, reads.Load(), readers)
}
