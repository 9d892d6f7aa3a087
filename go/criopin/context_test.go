package criopin_test

// One list per listing: Live.WithSnapshot and Live.From, against CRI-O's
// shape of ListImages (storage images from the image service, then
// OCI artifacts from the artifact store, both asking one Live, in two
// calls) while the list is reloaded.

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
)

// Two lists that tell every answer apart: "quay.io/a/" names are pinned by
// listA only, "quay.io/b/" names by listB only; both pin the pause image,
// neither nginx.
var (
	listA = []string{"quay.io/a/*", "registry.k8s.io/pause:3.10"}
	listB = []string{"quay.io/b/*", "registry.k8s.io/pause:3.10"}
)

// listingImageStore is the image service's part of a listing: each image's
// pinned flag on its own, as CRI-O's result builder computes it, all from
// the view of the request's context.
type listingImageStore struct {
	pinned *criopin.Live
	images [][]string
}

func (s *listingImageStore) list(ctx context.Context) []bool {
	view := s.pinned.From(ctx)
	out := make([]bool, len(s.images))
	for i, names := range s.images {
		out[i] = view.MatchAny(names...)
	}
	return out
}

// listingArtifactStore is the artifact store's part: an artifact is pinned
// when its reference or its canonical name is.
type listingArtifactStore struct {
	pinned    *criopin.Live
	artifacts [][2]string
}

func (s *listingArtifactStore) list(ctx context.Context) []bool {
	view := s.pinned.From(ctx)
	out := make([]bool, len(s.artifacts))
	for i, a := range s.artifacts {
		out[i] = view.MatchAny(a[0], a[1])
	}
	return out
}

var (
	listingImages = [][]string{
		{"quay.io/a/img:1", "quay.io/a/img@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31"}, // A
		{"registry.k8s.io/pause:3.10"},   // both
		{"quay.io/b/img:1"},              // B
		{"docker.io/library/nginx:1.25"}, // neither
	}
	listingArtifacts = [][2]string{
		{"quay.io/b/art:1", "quay.io/b/art@sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a"}, // B
		{"quay.io/a/art:1", "quay.io/a/art@sha256:5b28a364467cf7e134343bb3ee2c6d40682b473a743a72142c7bbe25767d36eb"}, // A
	}
)

// listing is one ListImages: the image store, then the artifact store,
// with a reload possibly in between (between, when not nil, runs there).
type listing struct {
	images    *listingImageStore
	artifacts *listingArtifactStore
}

func newListing(pinned *criopin.Live) listing {
	return listing{
		images:    &listingImageStore{pinned, listingImages},
		artifacts: &listingArtifactStore{pinned, listingArtifacts},
	}
}

// verdict says which list answered each part of one listing.
type verdict struct {
	images, artifacts byte // 'A', 'B', or 'x' for a mix of both within the part
	unpinned          bool // the pause image (pinned by both lists) read as unpinned, or nginx as pinned
}

func (v verdict) torn() bool { return v.images == 'x' || v.artifacts == 'x' || v.images != v.artifacts }

// which says which list gave answers a (for an item only listA pins) and
// b (for an item only listB pins).
func which(a, b bool) byte {
	switch {
	case a && !b:
		return 'A'
	case b && !a:
		return 'B'
	}
	return 'x'
}

func (l listing) run(ctx context.Context, between func()) verdict {
	images := l.images.list(ctx)
	if between != nil {
		between()
	} else {
		runtime.Gosched() // a server does I/O between the two stores
	}
	artifacts := l.artifacts.list(ctx)
	return verdict{
		images:    which(images[0], images[2]),
		artifacts: which(artifacts[1], artifacts[0]),
		unpinned:  !images[1] || images[3],
	}
}

// TestOneListPerListingReloadBetween: the worst case, deterministic: a
// reload between the image store's answer and the artifact store's, in
// every listing. Reading the Live directly tears every listing; with one
// snapshot per listing, none.
func TestOneListPerListingReloadBetween(t *testing.T) {
	before := liveSetsSettled()
	pinned := criopin.NewLive(criopin.MustCompile(listA))
	l := newListing(pinned)
	next := 0
	reload := func() {
		next++
		list := listA
		if next%2 == 1 {
			list = listB
		}
		if err := pinned.Reload(list); err != nil {
			t.Fatal(err)
		}
	}
	const listings = 200
	direct, snapshotted := 0, 0
	for range listings {
		if l.run(context.Background(), reload).torn() {
			direct++
		}
		ctx, release := pinned.WithSnapshot(context.Background())
		v := l.run(ctx, reload)
		release()
		if v.torn() {
			snapshotted++
		}
		if v.unpinned {
			t.Fatal("a listing unpinned the pause image or pinned nginx")
		}
	}
	t.Logf("reload between the stores, %d listings: %d torn reading the Live directly, %d with WithSnapshot",
		listings, direct, snapshotted)
	if direct != listings {
		t.Errorf("reading the Live directly: %d of %d listings torn, want all (the check does not see tearing)", direct, listings)
	}
	if snapshotted != 0 {
		t.Errorf("with WithSnapshot: %d of %d listings answered by two lists, want 0", snapshotted, listings)
	}
	pinned.Close()
	if got := liveSetsSettled(); got != before {
		t.Fatalf("%d sets alive, want %d: a snapshot was not freed", got, before)
	}
}

// TestOneListPerListingConcurrent: listings on two goroutines while
// another reloads between two lists at full speed for as long as they run;
// each listing asks the image store and the artifact store. Reading the
// Live directly, some listings are torn (counted and logged: how many
// depends on scheduling); with one snapshot per listing none may be.
// Bounded by counts (the listings), never by time.
func TestOneListPerListingConcurrent(t *testing.T) {
	listings := 5000 // per goroutine
	if raceEnabled {
		listings = 1000
	}
	for _, mode := range []string{"direct", "snapshot"} {
		before := liveSetsSettled()
		pinned := criopin.NewLive(criopin.MustCompile(listA))
		l := newListing(pinned)
		var stop atomic.Bool
		var reloads, torn, fromA, fromB, unpinned atomic.Int64
		reloaderDone := make(chan struct{})
		go func() {
			defer close(reloaderDone)
			for i := 0; !stop.Load(); i++ {
				list := listA
				if i%2 == 0 {
					list = listB
				}
				if err := pinned.Reload(list); err != nil {
					t.Error(err)
					return
				}
				reloads.Add(1)
				if i%5 == 0 { // odd: each list in turn stays current across a yield
					runtime.Gosched() // let the listings run on a single P too
				}
			}
		}()
		var wg sync.WaitGroup
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range listings {
					ctx, release := context.Background(), func() {}
					if mode == "snapshot" {
						ctx, release = pinned.WithSnapshot(ctx)
					}
					v := l.run(ctx, nil)
					release()
					switch {
					case v.torn():
						torn.Add(1)
					case v.images == 'A':
						fromA.Add(1)
					default:
						fromB.Add(1)
					}
					if v.unpinned {
						unpinned.Add(1)
					}
				}
			}()
		}
		wg.Wait()
		stop.Store(true)
		<-reloaderDone
		t.Logf("%s: %d listings during %d reloads: %d torn (not all answered by one list), %d by list A, %d by list B",
			mode, 2*listings, reloads.Load(), torn.Load(), fromA.Load(), fromB.Load())
		if unpinned.Load() != 0 {
			t.Errorf("%s: %d listings unpinned the pause image or pinned nginx", mode, unpinned.Load())
		}
		if mode == "snapshot" {
			if torn.Load() != 0 {
				t.Errorf("with WithSnapshot: %d of %d listings answered by two lists, want 0", torn.Load(), 2*listings)
			}
			// The reloads interleaved with the listings: both lists answered.
			if fromA.Load() == 0 || fromB.Load() == 0 {
				t.Errorf("with WithSnapshot: %d listings answered by list A, %d by list B: the reloads did not interleave with the listings",
					fromA.Load(), fromB.Load())
			}
		}
		pinned.Close()
		if got := liveSetsSettled(); got != before {
			t.Fatalf("%s: %d sets alive, want %d: a snapshot was not freed", mode, got, before)
		}
	}
}

func TestWithSnapshot(t *testing.T) {
	before := liveSetsSettled()
	pinned := criopin.NewLive(criopin.MustCompile(listA))
	ctx, release := pinned.WithSnapshot(context.Background())
	view := pinned.From(ctx)
	if !view.Snapshotted() || pinned.From(context.Background()).Snapshotted() {
		t.Fatal("Snapshotted: wrong")
	}
	if err := pinned.Reload(listB); err != nil {
		t.Fatal(err)
	}
	// The snapshot answers, through every method, and a View taken before
	// or after the reload alike.
	for name, v := range map[string]criopin.View{"earlier view": view, "later view": pinned.From(ctx)} {
		if !v.Match("quay.io/a/x") || v.Match("quay.io/b/x") || v.MatchIndex("registry.k8s.io/pause:3.10") != 1 ||
			!v.MatchAny("y", "quay.io/a/x") || v.Len() != 2 {
			t.Errorf("%s: does not answer from the snapshot", name)
		}
		if got := v.MatchEach([]string{"quay.io/a/x", "quay.io/b/x"}); !got[0] || got[1] {
			t.Errorf("%s: MatchEach = %v", name, got)
		}
		if got := v.AppendEach([]bool{true}, []string{"quay.io/b/x"}); len(got) != 2 || !got[0] || got[1] {
			t.Errorf("%s: AppendEach = %v", name, got)
		}
	}
	// The Live itself, and a context without the snapshot, read the new list.
	if !pinned.Match("quay.io/b/x") || !pinned.From(context.Background()).Match("quay.io/b/x") || !pinned.From(nil).Match("quay.io/b/x") {
		t.Fatal("the reload did not reach the Live")
	}
	// Nested: the outermost snapshot answers; the inner release does nothing.
	inner, releaseInner := pinned.WithSnapshot(ctx)
	if inner != ctx {
		t.Error("WithSnapshot on a context that carries a snapshot of the same Live made another")
	}
	releaseInner()
	if !pinned.From(ctx).Match("quay.io/a/x") {
		t.Error("the inner release gave up the outer snapshot")
	}
	// Another Live's snapshot in the same context is its own.
	other := criopin.NewLive(criopin.MustCompile([]string{"other.example/*"}))
	both, releaseOther := other.WithSnapshot(ctx)
	if err := other.Reload([]string{"another.example/*"}); err != nil {
		t.Fatal(err)
	}
	if !other.From(both).Match("other.example/x") || !pinned.From(both).Match("quay.io/a/x") || pinned.From(both).Match("other.example/x") {
		t.Error("two Lives' snapshots in one context mixed up")
	}
	releaseOther()
	other.Close()
	// After release: the current list, no panic; release is idempotent.
	release()
	release()
	if view.Snapshotted() || !view.Match("quay.io/b/x") || view.Match("quay.io/a/x") || !pinned.From(ctx).Match("quay.io/b/x") {
		t.Error("after release, the context does not read the current list")
	}
	// A released snapshot is replaced by a new one.
	again, releaseAgain := pinned.WithSnapshot(ctx)
	if again == ctx || !pinned.From(again).Snapshotted() {
		t.Error("WithSnapshot over a released snapshot did not take a new one")
	}
	releaseAgain()
	pinned.Close()
	if got := liveSetsSettled(); got != before {
		t.Fatalf("%d sets alive, want %d: a snapshot was not freed", got, before)
	}
}

// TestWithSnapshotEmptyAndNil: a snapshot of a Live that holds no list is
// the empty list until released; a nil *Live reads as the empty set with
// or without a snapshot, and its WithSnapshot changes nothing.
func TestWithSnapshotEmptyAndNil(t *testing.T) {
	var empty criopin.Live
	ctx, release := empty.WithSnapshot(context.Background())
	if err := empty.Reload([]string{"**"}); err != nil {
		t.Fatal(err)
	}
	if v := empty.From(ctx); !v.Snapshotted() || v.Match("x") || v.MatchIndex("x") != -1 || v.MatchAny("x") || v.Len() != 0 {
		t.Error("the snapshot of an empty Live pins something after a reload")
	}
	release()
	if !empty.From(ctx).Match("x") {
		t.Error("after release, the context does not read the current list")
	}
	empty.Close()

	var nilLive *criopin.Live
	base := context.Background()
	got, releaseNil := nilLive.WithSnapshot(base)
	if got != base {
		t.Error("WithSnapshot on a nil Live changed the context")
	}
	releaseNil()
	var zero criopin.View
	for name, v := range map[string]criopin.View{"nil Live": nilLive.From(got), "nil Live, nil ctx": nilLive.From(nil), "zero View": zero} {
		if v.Snapshotted() || v.Match("x") || v.MatchIndex("x") != -1 || v.MatchAny("x") || v.Len() != 0 {
			t.Errorf("%s pins something", name)
		}
		if r := v.MatchEach([]string{"a"}); len(r) != 1 || r[0] {
			t.Errorf("%s: MatchEach = %v", name, r)
		}
	}
}

// TestViewZeroAlloc: a View answers without allocating, as the Live does.
func TestViewZeroAlloc(t *testing.T) {
	if raceEnabled {
		t.Skip("allocation counts are meaningless under the race detector")
	}
	pinned := criopin.NewLive(criopin.MustCompile(listA))
	defer pinned.Close()
	ctx, release := pinned.WithSnapshot(context.Background())
	defer release()
	names := listingImages[0]
	dst := make([]bool, 0, len(names))
	for name, v := range map[string]criopin.View{"snapshot": pinned.From(ctx), "no snapshot": pinned.From(context.Background())} {
		for call, f := range map[string]func(){
			"Match":      func() { v.Match(names[0]) },
			"MatchIndex": func() { v.MatchIndex(names[0]) },
			"MatchAny":   func() { v.MatchAny(names...) },
			"AppendEach": func() { v.AppendEach(dst[:0], names) },
			"From":       func() { pinned.From(ctx) },
		} {
			if got := testing.AllocsPerRun(100, f); got != 0 {
				t.Errorf("%s: View.%s: %v allocations per call, want 0", name, call, got)
			}
		}
	}
}
