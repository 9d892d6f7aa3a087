package criopin_test

// Benchmarks: the library through cgo against CRI-O's Go loop (one regexp
// per pattern, see reference_test.go), on the same realistic pattern lists
// and image names, in one process. `make bench` prints the ratio table.
//
// Names: BenchmarkX/n=<patterns>/<go|lib>. One op is one name (Match),
// one image's names (MatchAny), or the whole listing of 500 names
// (MatchEach).

import (
	"fmt"
	"regexp"
	"sync"
	"testing"

	criopin "github.com/crio-pin/crio-pin/go"
)

var benchSizes = []int{1, 10, 100, 1000, 10000}

type benchData struct {
	regexps []*regexp.Regexp
	set     *criopin.Set
	names   []string
	images  [][]string
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
	if bad >= 0 {
		b.Fatalf("pattern %d rejected", bad)
	}
	set, err := criopin.Compile(patterns) // kept for the whole run
	if err != nil {
		b.Fatal(err)
	}
	d := &benchData{regexps: r.regexps, set: set, names: readLines(b, "image-names.txt")}
	// An image has several names (tags, digests): pair the names up.
	for i := 0; i+1 < len(d.names); i += 2 {
		d.images = append(d.images, d.names[i:i+2])
	}
	pinned := 0
	for _, name := range d.names {
		want := r.matchIndex(name)
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

func benchBoth(b *testing.B, goLoop, lib func(d *benchData, i int)) {
	for _, n := range benchSizes {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			d := loadBench(b, n)
			b.Run("go", func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					goLoop(d, i)
				}
			})
			b.Run("lib", func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; b.Loop(); i++ {
					lib(d, i)
				}
			})
		})
	}
}

var sink bool

// BenchmarkMatch: one name per op, CRI-O's FilterPinnedImage against
// Set.Match.
func BenchmarkMatch(b *testing.B) {
	benchBoth(b,
		func(d *benchData, i int) { sink = filterPinnedImage(d.names[i%len(d.names)], d.regexps) },
		func(d *benchData, i int) { sink = d.set.Match(d.names[i%len(d.names)]) })
}

// BenchmarkMatchAny: one image (two names) per op, CRI-O's loop over the
// image's names against Set.MatchAny.
func BenchmarkMatchAny(b *testing.B) {
	benchBoth(b,
		func(d *benchData, i int) {
			pinned := false
			for _, name := range d.images[i%len(d.images)] {
				if filterPinnedImage(name, d.regexps) {
					pinned = true
					break
				}
			}
			sink = pinned
		},
		func(d *benchData, i int) { sink = d.set.MatchAny(d.images[i%len(d.images)]) })
}

// BenchmarkMatchEach: a whole listing (500 names) per op, with a new
// result slice per op on both sides.
func BenchmarkMatchEach(b *testing.B) {
	benchBoth(b,
		func(d *benchData, i int) {
			res := make([]bool, len(d.names))
			for j, name := range d.names {
				res[j] = filterPinnedImage(name, d.regexps)
			}
			sink = res[i%len(res)]
		},
		func(d *benchData, i int) {
			res := d.set.MatchEach(d.names)
			sink = res[i%len(res)]
		})
}
