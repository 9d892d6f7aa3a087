package criopin_test

// Benchmarks: the package's backend against CRI-O's Go loop (one regexp
// per pattern, see reference_test.go), on the same realistic pattern lists
// and image names, in one process. `make bench` runs them with each
// backend and prints the table.
//
// Names: BenchmarkX/n=<patterns>/<go|lib|wasm>: go is CRI-O's loop, lib
// the library through cgo, wasm2go and wasm the library compiled to
// WebAssembly, translated to Go (CGO_ENABLED=0 or build tag criopin_wasm)
// or run by wazero (build tag criopin_wazero). One call
// is one name (Match), one image's names (MatchAny), or the whole listing
// of 500 names (MatchEach); the backends' rows report the fastest round,
// one pass over the listing, a call (best-ns/call: see benchBoth).

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

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
	benchCache = map[string]*benchData{}
)

// loadBench: list is a size of data/patterns-N.txt (names: data's 500),
// or "openshift" (its own node's 600 names).
func loadBench(b *testing.B, list string) *benchData {
	benchMu.Lock()
	defer benchMu.Unlock()
	if d, ok := benchCache[list]; ok {
		return d
	}
	var patterns, names []string
	if list == "openshift" {
		patterns, names = openShiftList()
	} else {
		n, err := strconv.Atoi(list)
		if err != nil {
			b.Fatalf("list %q: want a size or openshift", list)
		}
		patterns, names = patternList(b, n), readLines(b, "image-names.txt")
		if len(patterns) != n {
			b.Fatalf("%d patterns, want %d", len(patterns), n)
		}
	}
	r, bad := compileReference(patterns, criopin.Default)
	if bad != nil {
		b.Fatal(bad)
	}
	set, err := criopin.Compile(patterns) // kept for the whole run
	if err != nil {
		b.Fatal(err)
	}
	d := &benchData{ref: r, set: set, names: names}
	// An image has several names (tags, digests): pair the names up.
	for i := 0; i+1 < len(d.names); i += 2 {
		d.images = append(d.images, d.names[i:i+2])
	}
	pinned := 0
	for _, name := range d.names {
		want := r.MatchIndex(name)
		if got := set.MatchIndex(name); got != want {
			b.Fatalf("n=%s: MatchIndex(%q) = %d, CRI-O says %d", list, name, got, want)
		}
		if want >= 0 {
			pinned++
		}
	}
	b.Logf("n=%s: %d of %d names pinned", list, pinned, len(d.names))
	benchCache[list] = d
	return d
}

// CRI-O's loop is measured beside the cgo backend, up to 10,000 patterns
// and on the OpenShift-shaped list; the wasm backend alone on the same
// lists (the table puts the runs side by side).
//
// The backends' rows run in rounds, one whole pass over the listing each
// (every name once for Match, every image once for MatchAny, one MatchEach
// of the listing), and report the fastest round (best-ns/call: the time a
// call in that round): on a busy machine one pass without interruption is
// likely, a whole second without one is not, and a mean over a noisy run
// says more about the machine than the code. CRI-O's loop runs in rounds
// too where a pass is short (up to 100 patterns); above that one pass takes
// seconds, its mean per op (ns/op) stands, and its ratios are hundreds of
// times their targets.
//
// Beside each backend's row, floor-ns/call is the fixed cost of the calls
// into the library that pass makes (callFloor): what of a row's time is
// the call itself rather than the search, which bench-go prints beside
// wasm2go's misses. ops are the names of each call, in pass's order.
func benchBoth(b *testing.B, ops func(d *benchData) [][]string, goLoop, set func(d *benchData, i int)) {
	lists, setName := []string{"1", "10", "100", "1000", "10000", "openshift"}, "lib"
	if criopin.Backend != "libcrio_pin" {
		setName = criopin.Backend // CRI-O's loop was measured in the cgo run
	}
	for _, list := range lists {
		b.Run("n="+list, func(b *testing.B) {
			d := loadBench(b, list)
			calls := ops(d)
			n := len(calls)
			if setName == "lib" {
				b.Run("go", func(b *testing.B) {
					if size, err := strconv.Atoi(list); err == nil && size <= 100 {
						rounds(b, n, func() {
							for i := range n {
								goLoop(d, i)
							}
						})
						return
					}
					b.ReportAllocs()
					for i := 0; b.Loop(); i++ {
						goLoop(d, i)
					}
				})
			}
			b.Run(setName, func(b *testing.B) {
				rounds(b, n, func() {
					for i := range n {
						set(d, i)
					}
				})
				b.ReportMetric(callFloor(d.set, calls), "floor-ns/call")
			})
		})
	}
}

// eachName is names as calls of one name each.
func eachName(names []string) [][]string {
	calls := make([][]string, len(names))
	for i := range names {
		calls[i] = names[i : i+1]
	}
	return calls
}

// callFloor is, in ns a call of calls (the fastest of a few rounds, one
// pass over calls each), the empty call into the library with the
// attributes of set's backend (emptyCall) made once for every call that
// reaches the library: every call with a name the length table does not
// settle (the others are answered in Go). It leaves out the search and
// the copy of all but one name. A round repeats the pass to make 1,000
// calls at least: one MatchEach's single call is shorter than the clock's
// own reading.
func callFloor(set *criopin.Set, calls [][]string) float64 {
	var reaching []string // each reaching call's first unsettled name
	for _, names := range calls {
		if i := slices.IndexFunc(names, func(n string) bool { return !criopin.Settled(set, n) }); i >= 0 {
			reaching = append(reaching, names[i])
		}
	}
	if len(reaching) == 0 {
		return 0
	}
	repeats := max(1, 1000/len(reaching))
	empty, best := emptyCall(set), time.Duration(math.MaxInt64)
	for round, start := 0, time.Now(); round < 20 || time.Since(start) < 20*time.Millisecond; round++ {
		t := time.Now()
		for range repeats {
			for _, name := range reaching {
				empty(name)
			}
		}
		best = min(best, time.Since(t))
	}
	return float64(best.Nanoseconds()) / float64(repeats*len(calls))
}

// rounds runs pass, calls calls, once per b.Loop iteration and reports the
// fastest round's time a call (best-ns/call, which the table reads), the
// mean a call over every round (ns/op, in place of the time a round) and
// the allocations a call.
func rounds(b *testing.B, calls int, pass func()) {
	best, total, count := time.Duration(math.MaxInt64), time.Duration(0), 0
	for b.Loop() {
		start := time.Now()
		pass()
		took := time.Since(start)
		best, total, count = min(best, took), total+took, count+1
	}
	b.ReportMetric(float64(best.Nanoseconds())/float64(calls), "best-ns/call")
	b.ReportMetric(float64(total.Nanoseconds())/float64(count*calls), "ns/op")
	b.ReportMetric(testing.AllocsPerRun(1, pass)/float64(calls), "allocs/call")
}

var sink bool

// filterPinnedImage is CRI-O's FilterPinnedImage: the first regexp that
// matches answers.
func (d *benchData) filterPinnedImage(name string) bool { return d.ref.MatchIndex(name) >= 0 }

// BenchmarkMatch: one name per op, CRI-O's FilterPinnedImage against
// Set.Match.
func BenchmarkMatch(b *testing.B) {
	benchBoth(b, func(d *benchData) [][]string { return eachName(d.names) },
		func(d *benchData, i int) { sink = d.filterPinnedImage(d.names[i%len(d.names)]) },
		func(d *benchData, i int) { sink = d.set.Match(d.names[i%len(d.names)]) })
}

// BenchmarkMatchAny: one image (two names) per op, CRI-O's loop over the
// image's names against Set.MatchAny.
func BenchmarkMatchAny(b *testing.B) {
	benchBoth(b, func(d *benchData) [][]string { return d.images },
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
	benchBoth(b, func(d *benchData) [][]string { return [][]string{d.names} },
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

// openShiftList is the benches' OpenShift-shaped list (benches/corpus,
// openshift(): the same generator, seed and output, checked by its
// checksum in TestOpenShiftList): 50,000 digest references, as
// PinnedImageSets pin them (most of them release payload images of one
// repository), then CRI-O's pause image and 3 globs; and its node's 600
// names (300 images by tag and by digest, two in three of them pinned).
func openShiftList() (patterns, names []string) {
	namespaces := []string{
		"openshift4", "rhel9", "ubi9", "odf4", "rhacm2", "multicluster-engine", "openshift-logging", "rhceph",
		"container-native-virtualization", "openshift-gitops-1", "rh-sso-7", "amq7", "jboss-eap-8",
		"ansible-automation-platform-24", "advanced-cluster-security", "quay", "openshift-service-mesh",
		"openshift-serverless-1", "rhods", "redhat",
	}
	r := splitMix64(0x6f70_656e_7368_6966)
	repos := []string{"quay.io/openshift-release-dev/ocp-v4.0-art-dev"}
	for i := 1; i < 300; i++ {
		repos = append(repos, fmt.Sprintf("registry.redhat.io/%s/component-%03d-rhel9-operator", namespaces[i%len(namespaces)], i))
	}
	repoOf := func() int {
		if r.below(5) < 2 { // two in five digests are release payload images
			return 0
		}
		return 1 + int(r.below(299))
	}
	patterns = make([]string, 0, 50_004)
	for range 50_000 {
		patterns = append(patterns, repos[repoOf()]+"@sha256:"+r.hex(64))
	}
	patterns = append(patterns, "registry.k8s.io/pause:3.10", "registry.ci.openshift.org/ocp/*",
		"quay.io/openshift-release-dev/ocp-release:4.18*", "localhost/*")
	// The node: 300 images by tag and by digest, two in three pinned.
	names = make([]string, 0, 600)
	for i := range 300 {
		var digestRef string
		if i%3 < 2 {
			digestRef = patterns[r.below(50_000)]
		} else {
			repo := repos[repoOf()]
			digestRef = repo + "@sha256:" + r.hex(64)
		}
		repo, _, _ := strings.Cut(digestRef, "@")
		names = append(names, fmt.Sprintf("%s:v4.18.%d", repo, r.below(40)), digestRef)
	}
	return patterns, names
}

// splitMix64 is the benches' generator (benches/corpus: SplitMix64).
type splitMix64 uint64

func (s *splitMix64) next() uint64 {
	*s += 0x9e37_79b9_7f4a_7c15
	z := uint64(*s)
	z = (z ^ (z >> 30)) * 0xbf58_476d_1ce4_e5b9
	z = (z ^ (z >> 27)) * 0x94d0_49bb_1331_11eb
	return z ^ (z >> 31)
}

func (s *splitMix64) below(n uint64) uint64 { return s.next() % n }

func (s *splitMix64) hex(digits int) string {
	out := ""
	for len(out) < digits {
		out += fmt.Sprintf("%016x", s.next())
	}
	return out[:digits]
}

// checksum is the benches' fingerprint of a list (benches/corpus:
// checksum): FNV-1a over the lines, each followed by '\n'.
func checksum(lines []string) uint64 {
	hash := uint64(0xcbf2_9ce4_8422_2325)
	for _, line := range lines {
		for _, b := range []byte(line + "\n") {
			hash ^= uint64(b)
			hash *= 0x0000_0100_0000_01b3
		}
	}
	return hash
}

// TestOpenShiftList: the Go port generates the benches' list and names
// exactly (checksums printed by `cargo bench --bench table -- --write-corpus DIR`).
func TestOpenShiftList(t *testing.T) {
	list, names := openShiftList()
	if len(list) != 50_004 || checksum(list) != 0x8b6446f6e9874d36 {
		t.Fatalf("%d patterns, checksum %016x; the benches' list has 50004, 8b6446f6e9874d36", len(list), checksum(list))
	}
	if len(names) != 600 || checksum(names) != 0xa206f130daaa9275 {
		t.Fatalf("%d names, checksum %016x; the benches' node has 600, a206f130daaa9275", len(names), checksum(names))
	}
}

// BenchmarkCompile and BenchmarkValidate: one op compiles, or only
// validates, a whole list: the OpenShift-shaped list (50,004 patterns) and
// data/patterns-{1,10,100,1000}.txt and 10,000 patterns made from the
// last (patternList). Validate builds nothing: its cost is what a
// configuration check (start-up, `crio config`, a reload) adds. The wasm
// backend's Compile must stay within 1.5x of the cgo backend's.
func BenchmarkCompile(b *testing.B) {
	benchLists(b, func(patterns []string) error {
		s, err := criopin.Compile(patterns)
		s.Close()
		return err
	})
}

func BenchmarkValidate(b *testing.B) {
	benchLists(b, func(patterns []string) error { return criopin.Validate(patterns) })
}

func benchLists(b *testing.B, op func([]string) error) {
	type list struct {
		name     string
		patterns func() []string
	}
	lists := []list{{"openshift", func() []string { p, _ := openShiftList(); return p }}}
	for _, n := range []int{1, 10, 100, 1000, 10000} {
		lists = append(lists, list{fmt.Sprintf("patterns=%d", n), func() []string { return patternList(b, n) }})
	}
	backend := "lib"
	if criopin.Backend != "libcrio_pin" {
		backend = criopin.Backend
	}
	for _, list := range lists {
		b.Run(list.name+"/"+backend, func(b *testing.B) {
			patterns := list.patterns()
			b.ReportAllocs()
			best := time.Duration(math.MaxInt64)
			for b.Loop() {
				start := time.Now()
				err := op(patterns)
				best = min(best, time.Since(start))
				if err != nil {
					b.Fatal(err)
				}
			}
			// The fastest op, as the per-call rows' fastest round: what
			// the table reads.
			b.ReportMetric(float64(best.Nanoseconds()), "best-ns/call")
		})
	}
}

// firstCompileChild is set in the environment of the process
// BenchmarkFirstCompile starts: it makes TestFirstCompileChild measure.
const firstCompileChild = "CRIOPIN_FIRST_COMPILE_CHILD"

// BenchmarkFirstCompile: a fresh process's first Compile of the hand list,
// what a program's start pays before its first answer (with wazero, the
// module's compile to machine code; with wasm2go, an instance's memory
// made; with cgo, the library's compile alone). Each op runs this test
// binary again with only TestFirstCompileChild, which times its one
// Compile and prints it; best-ns/call is the fastest of them, which
// internal/benchtable reads against issue 56's bound (10 ms), and
// process-ns/op the child's whole life, exec to exit (Go's start and the
// test framework's included). CRIOPIN_WASM_CACHE is unset in the child:
// a start with no cache.
func BenchmarkFirstCompile(b *testing.B) {
	backend := "lib"
	if criopin.Backend != "libcrio_pin" {
		backend = criopin.Backend
	}
	b.Run("hand/"+backend, func(b *testing.B) {
		best := time.Duration(math.MaxInt64)
		var lives time.Duration
		for b.Loop() {
			child := exec.Command(os.Args[0], "-test.run", "^TestFirstCompileChild$", "-test.count", "1", "-test.v")
			child.Env = append(slices.DeleteFunc(os.Environ(), func(v string) bool {
				return strings.HasPrefix(v, "CRIOPIN_WASM_CACHE=")
			}), firstCompileChild+"=1")
			start := time.Now()
			out, err := child.CombinedOutput()
			lives += time.Since(start)
			if err != nil {
				b.Fatalf("%s: %v\n%s", child, err, out)
			}
			_, after, ok := strings.Cut(string(out), "first-compile-ns ")
			ns, err := strconv.ParseInt(strings.Fields(after + " ")[0], 10, 64)
			if !ok || err != nil {
				b.Fatalf("%s printed no first-compile-ns:\n%s", child, out)
			}
			best = min(best, time.Duration(ns))
		}
		b.ReportMetric(float64(best.Nanoseconds()), "best-ns/call")
		b.ReportMetric(float64(lives.Nanoseconds())/float64(b.N), "process-ns/op")
	})
}

// TestFirstCompileChild is BenchmarkFirstCompile's child: with
// CRIOPIN_FIRST_COMPILE_CHILD set, it times the process's first Compile
// (nothing before it in this process touches the package) and prints it.
func TestFirstCompileChild(t *testing.T) {
	if os.Getenv(firstCompileChild) == "" {
		t.Skip("BenchmarkFirstCompile's child: runs only in the process the benchmark starts")
	}
	start := time.Now()
	s, err := criopin.Compile(handList)
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !s.Match(pauseImage) {
		t.Fatalf("%s not pinned by the hand list", pauseImage)
	}
	fmt.Printf("first-compile-ns %d\n", elapsed.Nanoseconds())
}
