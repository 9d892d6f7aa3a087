package criopin_test

// BenchmarkFloor: MatchAny per image beside what it cannot go below, on the
// lists nodes carry and a node's images with one stored name each, as a
// live CRI-O stores them (a pull by tag stores its tag, a pull by digest
// its digest name; a few images are pulled both ways and have both).
// BenchmarkFloor/list=<list>/crio is CRI-O's loop (FilterPinnedImage over
// an image's names), one op one image; BenchmarkFloor/list=<list>/floor
// (cgo backend) or /wasm (wasm backend, floor_wazero_bench_test.go)
// reports, in ns an image, the fastest of its rounds (one pass over the
// images each) of (crio also, on the lists short enough)
//
//	matchany   Set.MatchAny(image's names...)
//	native     (cgo) the library's answer for the image called from C
//	           (crio_pin_match, or crio_pin_match_any of its names packed),
//	           each call waiting for the one before
//	emptycall  one empty call into the library, with the attributes of the
//	           package's calls: cgo's, or (wasm) an instance taken from the
//	           set's pool, the first name copied in, crio_pin_match on the
//	           empty set, the instance returned
//
// The floor of MatchAny is native + emptycall; what it costs above that
// is the Go side's overhead (negative where the length table settles names
// in Go, with no call). internal/benchtable prints the table.

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/crio-pin/crio-pin/go/criopin"
)

// The lists: CRI-O's default (the pause image it appends), a hand-written
// list, and an OpenShift-shaped one (20,000 pinned digests and the pause
// image).
const pauseImage = "registry.k8s.io/pause:3.10"

var handList = []string{"quay.io/myorg/*", "*monitoring*", "docker.io/library/nginx:latest", pauseImage}

// nodeImages are the images of a node from data/image-names.txt, one
// stored name each: a name with a digest was pulled by digest and stored as
// repo@digest, any other by tag; one in eight is pulled both ways. A few of
// the hand list's images are added.
func nodeImages(tb testing.TB) [][]string {
	names := append(readLines(tb, "image-names.txt"),
		"quay.io/myorg/api:v2.3.1", "quay.io/myorg/web@sha256:"+strings.Repeat("5e", 32),
		"docker.io/grafana/monitoring-agent:1.4", pauseImage)
	var images [][]string
	for i, n := range names {
		repo, digest, byDigest := strings.Cut(n, "@")
		if slash := strings.LastIndexByte(repo, '/'); byDigest && strings.Contains(repo[slash+1:], ":") {
			repo = repo[:slash+1+strings.IndexByte(repo[slash+1:], ':')] // a digest pull stores no tag
		}
		switch {
		case byDigest && i%8 == 0:
			images = append(images, []string{n[:strings.IndexByte(n, '@')], repo + "@" + digest})
		case byDigest:
			images = append(images, []string{repo + "@" + digest})
		case i%8 == 0:
			images = append(images, []string{n, repo + "@sha256:" + fmt.Sprintf("%064x", fnv32(n))})
		default:
			images = append(images, []string{n})
		}
	}
	return images
}

// openShiftNode is the OpenShift-shaped list's first 20,000 digests and the
// pause image, and its node's images (benches' openshift(): 300 images),
// one stored name each (by digest, by tag in one in three, both in one in
// ten).
func openShiftNode() (patterns []string, images [][]string) {
	list, names := openShiftList()
	patterns = append(list[:20_000:20_000], pauseImage)
	for i := 0; i+1 < len(names); i += 2 {
		tag, digest := names[i], names[i+1]
		switch {
		case i/2%10 == 0:
			images = append(images, []string{tag, digest})
		case i/2%3 == 0:
			images = append(images, []string{tag})
		default:
			images = append(images, []string{digest})
		}
	}
	return patterns, images
}

func BenchmarkFloor(b *testing.B) {
	node := nodeImages(b)
	osPatterns, osImages := openShiftNode()
	for _, l := range []struct {
		name     string
		patterns []string
		images   [][]string
	}{{"default", []string{pauseImage}, node}, {"hand", handList, node}, {"openshift", osPatterns, osImages}} {
		b.Run("list="+l.name, func(b *testing.B) {
			set := criopin.MustCompile(l.patterns)
			defer set.Close()
			ref, cerr := compileReference(l.patterns, criopin.Default)
			if cerr != nil {
				b.Fatal(cerr)
			}
			native, emptyCall, err := floorParts(l.patterns, l.images, set)
			if err != nil {
				b.Fatal(err)
			}
			if native != nil {
				defer native.Close()
			}
			pinned := 0
			for i, image := range l.images {
				want := false
				for _, n := range image {
					want = want || ref.MatchIndex(n) >= 0
				}
				if set.MatchAny(image...) != want || (native != nil && (native.Match(i, 1) == 1) != want) {
					b.Fatalf("image %q: the answers differ", image)
				}
				if want {
					pinned++
				}
			}
			b.Logf("list %s: %d patterns, %d images, %d pinned", l.name, len(l.patterns), len(l.images), pinned)
			images := l.images
			b.Run("crio", func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					pinned := false
					for _, name := range images[i%len(images)] {
						if ref.MatchIndex(name) >= 0 {
							pinned = true
							break
						}
					}
					sink = pinned
				}
			})
			// The rest in rounds of one pass over the images each, the
			// fastest round kept: on a loaded machine, a round without
			// interruption is likely, a second without one is not.
			b.Run(floorRun, func(b *testing.B) {
				matchAny, nativeBest, emptyBest, crio := math.Inf(1), math.Inf(1), math.Inf(1), math.Inf(1)
				// CRI-O's loop in the rounds too where a pass is short.
				crioRounds := len(l.patterns) <= 100
				perImage := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(len(images)) }
				for b.Loop() {
					start := time.Now()
					for _, image := range images {
						sink = set.MatchAny(image...)
					}
					afterMatch := time.Now()
					if native != nil {
						sink = native.Match(0, len(images)) > 0
					}
					afterNative := time.Now()
					for _, image := range images {
						emptyCall(image[0])
					}
					end := time.Now()
					if crioRounds {
						for _, image := range images {
							pinned := false
							for _, name := range image {
								if ref.MatchIndex(name) >= 0 {
									pinned = true
									break
								}
							}
							sink = pinned
						}
						crio = min(crio, perImage(time.Since(end)))
					}
					matchAny = min(matchAny, perImage(afterMatch.Sub(start)))
					nativeBest = min(nativeBest, perImage(afterNative.Sub(afterMatch)))
					emptyBest = min(emptyBest, perImage(end.Sub(afterNative)))
				}
				b.ReportMetric(matchAny, "matchany-ns/image")
				if native != nil {
					b.ReportMetric(nativeBest, "native-ns/image")
				}
				b.ReportMetric(emptyBest, "emptycall-ns/image")
				if crioRounds {
					b.ReportMetric(crio, "crio-ns/image")
				}
				if allocs := testing.AllocsPerRun(3, func() { sink = set.MatchAny(images[0]...) }); allocs != 0 {
					b.Errorf("MatchAny allocates %v times an image", allocs)
				}
			})
		})
	}
}

// BenchmarkParallel: MatchAny per image on the hand list from GOMAXPROCS
// goroutines at once (b.RunParallel), as CRI-O's ListImages handlers call
// it; one op one image. With the wasm backend this is what its pool of
// instances is for: compare with -cpu 1,2 (go/README.md, "The wasm
// backend"). Beside the wall time a call (ns/op: it halves from -cpu 1 to
// 2 when the calls scale and the machine has two free cores), cpu-ns/op is
// the process's CPU time a call, all threads: it stays flat when the calls
// scale, and grows when goroutines cost each other (contention), whatever
// else the machine runs.
func BenchmarkParallel(b *testing.B) {
	images := nodeImages(b)
	set := criopin.MustCompile(handList)
	defer set.Close()
	backend := "lib"
	if criopin.Backend != "libcrio_pin" {
		backend = criopin.Backend
	}
	b.Run("list=hand/"+backend, func(b *testing.B) {
		cpu := processCPU()
		b.RunParallel(func(pb *testing.PB) {
			pinned := false
			for i := 0; pb.Next(); i++ {
				pinned = set.MatchAny(images[i%len(images)]...) != pinned
			}
			sink = pinned
		})
		if cpu := processCPU() - cpu; cpu > 0 {
			b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
		}
	})
}
