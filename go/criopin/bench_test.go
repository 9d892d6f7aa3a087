package criopin_test

// Benchmarks: the package's backend against CRI-O's Go loop (one regexp
// per pattern, see reference_test.go), on the same realistic pattern lists
// and image names, in one process. `make bench` runs them with each
// backend and prints the table.
//
// Names: BenchmarkX/n=<patterns>/<go|lib|purego>: go is CRI-O's loop, lib
// the library through cgo, purego the pure-Go backend (build tag
// criopin_purego), which is CRI-O's loop behind this package's API. One op
// is one name (Match), one image's names (MatchAny), or the whole listing
// of 500 names (MatchEach).

import (
	"fmt"
	"sync"
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
)

type benchData struct {
	ref    *criopin.Reference
	set    *criopin.Set
	names  []string
	images [][]string
}

var (
	benchMu    sync.Mutex
	benchCache = map[int]*benchData{}
)

func loadBench(b *testing.B, n int) *benchData {
	benchMu.Lock()
	defer benchMu.Unlock()
	if d, ok := benchCache[n]; ok {
		return d
	}
	patterns := patternList(b, n)
	if len(patterns) != n {
		b.Fatalf("%d patterns, want %d", len(patterns), n)
	}
	r, bad := compileReference(patterns, criopin.Default)
	if bad != nil {
		b.Fatal(bad)
	}
	set, err := criopin.Compile(patterns) // kept for the whole run
	if err != nil {
		b.Fatal(err)
	}
	d := &benchData{ref: r, set: set, names: readLines(b, "image-names.txt")}
	// An image has several names (tags, digests): pair the names up.
	for i := 0; i+1 < len(d.names); i += 2 {
		d.images = append(d.images, d.names[i:i+2])
	}
	pinned := 0
	for _, name := range d.names {
		want := r.MatchIndex(name)
		if got := set.MatchIndex(name); got != want {
			b.Fatalf("n=%d: MatchIndex(%q) = %d, CRI-O says %d", n, name, got, want)
		}
		if want >= 0 {
			pinned++
		}
	}
	b.Logf("n=%d: %d of %d names pinned", n, pinned, len(d.names))
	benchCache[n] = d
	return d
}

// With the library, CRI-O's loop is measured beside it up to 10,000
// patterns; the pure-Go backend (that same loop) is measured alone, up to
// 1,000 (a listing at 10,000 patterns takes seconds).
func benchBoth(b *testing.B, goLoop, set func(d *benchData, i int)) {
	sizes, setName := []int{1, 10, 100, 1000, 10000}, "lib"
	if criopin.Backend == "go-regexp" {
		sizes, setName = []int{1, 10, 100, 1000}, "purego"
	}
	for _, n := range sizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			d := loadBench(b, n)
			if setName == "lib" {
				b.Run("go", func(b *testing.B) {
					b.ReportAllocs()
					for i := 0; b.Loop(); i++ {
						goLoop(d, i)
					}
				})
			}
			b.Run(setName, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					set(d, i)
				}
			})
		})
	}
}

var sink bool

// filterPinnedImage is CRI-O's FilterPinnedImage: the first regexp that
// matches answers.
func (d *benchData) filterPinnedImage(name string) bool { return d.ref.MatchIndex(name) >= 0 }

// BenchmarkMatch: one name per op, CRI-O's FilterPinnedImage against
// Set.Match.
func BenchmarkMatch(b *testing.B) {
	benchBoth(b,
		func(d *benchData, i int) { sink = d.filterPinnedImage(d.names[i%len(d.names)]) },
		func(d *benchData, i int) { sink = d.set.Match(d.names[i%len(d.names)]) })
}

// BenchmarkMatchAny: one image (two names) per op, CRI-O's loop over the
// image's names against Set.MatchAny.
func BenchmarkMatchAny(b *testing.B) {
	benchBoth(b,
		func(d *benchData, i int) {
			pinned := false
			for _, name := range d.images[i%len(d.images)] {
				if d.filterPinnedImage(name) {
					pinned = true
					break
				}
			}
			sink = pinned
		},
		func(d *benchData, i int) { sink = d.set.MatchAny(d.images[i%len(d.images)]...) })
}

// BenchmarkMatchEach: a whole listing (500 names) per op, with a new
// result slice per op on both sides.
func BenchmarkMatchEach(b *testing.B) {
	benchBoth(b,
		func(d *benchData, i int) {
			res := make([]bool, len(d.names))
			for j, name := range d.names {
				res[j] = d.filterPinnedImage(name)
			}
			sink = res[i%len(res)]
		},
		func(d *benchData, i int) {
			res := d.set.MatchEach(d.names)
			sink = res[i%len(res)]
		})
}
