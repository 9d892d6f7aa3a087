//go:build !cgo || criopin_wasm || criopin_purego || criopin_wazero || criopin_wasm2go

package criopin

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// The WebAssembly backend's pool of instances (pool_wazero.go): a caller
// that finds every instance busy copies the first to be idle, up to
// SetMaxConcurrentCalls's cap, and from then on both run at once; past
// that, callers wait for one; a copy answers as the original; a trapped
// instance is dropped and its slot refilled.

func poolOf(t *testing.T, s *Set) *pool {
	t.Helper()
	if s.eng.p == nil {
		t.Fatal("the set has no pool")
	}
	return s.eng.p
}

func TestPoolCopiesWhenBusy(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer SetMaxConcurrentCalls(SetMaxConcurrentCalls(2))
	s := MustCompile([]string{"quay.io/openshift/*", "registry.k8s.io/pause:3.10", "*etcd*"})
	defer s.Close()
	p := poolOf(t, s)
	held := p.get() // the first instance, busy
	if got := p.live.Load(); got != 1 {
		t.Fatalf("%d instances before any concurrent call, want 1", got)
	}
	// Another caller waits for it to be idle, copies it, and answers with
	// the copy.
	done := make(chan bool)
	go func() { done <- s.MatchAny("x/quay.io/openshift/y:1") && !s.Match("docker.io/library/nginx:1") }()
	time.Sleep(50 * time.Millisecond)
	p.put(held)
	if !<-done {
		t.Fatal("the copied instance gave a wrong answer")
	}
	if got := p.live.Load(); got != 2 {
		t.Fatalf("%d instances, want 2 (one copied)", got)
	}
	held = p.get()
	// Both busy, the cap (2) reached: the next caller waits for a put.
	second := p.get()
	go func() { done <- s.MatchIndex("registry.k8s.io/PAUSE:3.10") == 1 }()
	select {
	case <-done:
		t.Fatal("a third caller ran with both instances busy and a cap of 2")
	case <-time.After(100 * time.Millisecond):
	}
	p.put(second)
	if !<-done {
		t.Fatal("MatchIndex on a waiting caller gave a wrong answer")
	}
	p.put(held)
	if got := p.live.Load(); got != 2 {
		t.Fatalf("%d instances, want at most the cap (2)", got)
	}
}

func TestPoolRefillsADiscardedSlot(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer SetMaxConcurrentCalls(SetMaxConcurrentCalls(2))
	s := MustCompile([]string{"*etcd*"})
	defer s.Close()
	p := poolOf(t, s)
	held := p.get()
	done := make(chan bool)
	go func() { done <- s.Match("quay.io/coreos/etcd:v3") }() // copies the held instance
	time.Sleep(50 * time.Millisecond)
	p.put(held)
	if !<-done {
		t.Fatal("not pinned")
	}
	p.discard(p.get()) // as after a trap
	if got := p.live.Load(); got != 1 {
		t.Fatalf("%d instances after a discard, want 1", got)
	}
	if !s.Match("quay.io/coreos/etcd:v3") || s.Match("quay.io/coreos/etc:v3") {
		t.Fatal("wrong answer after a discard")
	}
	// The last instance gone: the set answers "pinned", never "not pinned".
	for p.live.Load() > 0 {
		p.discard(p.get())
	}
	if !s.Match("docker.io/library/nginx:1") {
		t.Fatal("a set with no instance left must answer pinned")
	}
}

// A closed set's instance, its set freed, is the spare the next Compile
// starts in (and so is an instance whose list was refused); the spare
// answers as a new instance would; at most one is kept, and the next
// garbage collection closes it.
func TestSpareStartsTheNextCompile(t *testing.T) {
	if in := takeSpare(); in != nil { // another test's
		in.close()
	}
	old := MustCompile([]string{"quay.io/openshift/*", "*etcd*", "registry.k8s.io/pause:3.10"})
	first := poolOf(t, old).slots[0].in
	old.Close()
	if _, err := Compile([]string{"quay.io/x", "*"}); err == nil {
		t.Fatal("a lone * compiled")
	}
	s := MustCompile([]string{"docker.io/library/nginx:1.27", "*coredns*"})
	if got := poolOf(t, s).slots[0].in; got != first {
		t.Fatal("the compile did not start in the closed set's instance")
	}
	for name, want := range map[string]bool{
		"docker.io/library/nginx:1.27": true, "registry.k8s.io/coredns/coredns:v1.11": true,
		"quay.io/openshift/x:1": false, "quay.io/coreos/etcd:v3": false, "registry.k8s.io/pause:3.10": false,
	} {
		if got := s.Match(name); got != want {
			t.Errorf("Match(%q) = %v in the spare instance, want %v", name, got, want)
		}
	}
	other := MustCompile([]string{"*etcd*"})
	otherFirst := poolOf(t, other).slots[0].in
	s.Close()
	other.Close()
	kept := spareInstance.Load()
	if kept != first || !otherFirst.closed() || first.closed() {
		t.Fatal("two sets closed: the first's instance is not the one spare, or the second's is open")
	}
	// Counted in collections, not time: a busy machine only makes each
	// one slower. (The sleep lets the cleanup goroutine run.)
	for collections := 0; spareInstance.Load() != nil; collections++ {
		if collections == 1000 {
			t.Fatal("the spare instance outlived 1,000 garbage collections")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if !first.closed() {
		t.Fatal("the collector dropped the spare instance without closing it")
	}
}

// A set whose instance's memory outgrew spareMaxBytes leaves no spare: a
// set compiled in it would keep that memory, and every copy of its pool
// would copy all of it.
func TestNoSpareFromALargeInstance(t *testing.T) {
	if in := takeSpare(); in != nil { // another test's
		in.close()
	}
	patterns := make([]string, 0, 60000)
	for i := 0; len(patterns) < cap(patterns); i++ {
		patterns = append(patterns, fmt.Sprintf("quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:%064x", i))
	}
	large := MustCompile(patterns)
	in := poolOf(t, large).slots[0].in
	if size := in.size(); size <= spareMaxBytes {
		t.Fatalf("the list's instance has %d bytes of memory, not more than spareMaxBytes: the test proves nothing", size)
	}
	large.Close()
	if spareInstance.Load() != nil || !in.closed() {
		t.Fatal("an instance larger than spareMaxBytes was kept as the spare")
	}
}

// heldBytes is the linear memory of the pool's instances.
func (p *pool) heldBytes() (instances int, bytes uint64) {
	for i := range p.slots {
		if in := p.slots[i].in; in != nil {
			instances, bytes = instances+1, bytes+uint64(in.size())
		}
	}
	return instances, bytes
}

// A long name is answered by a copy made for its call: the pool's
// instances keep the memory the compile left them, and so do the copies
// the pool makes afterwards (each copies an instance's whole memory).
func TestLongNamesDoNotGrowThePool(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(16))
	s := MustCompile([]string{"quay.io/openshift/*", "registry.k8s.io/pause:3.10", "*etcd*", "docker.io/library/nginx:1",
		"*monitoring*", "quay.io/myorg/*", "ghcr.io/x/y:1", "*coredns*", "registry.k8s.io/kube-proxy:v1.30"})
	defer s.Close()
	p := poolOf(t, s)
	_, compiled := p.heldBytes()
	// The most an instance may grow by: the scratch of a call just short
	// of a long one (reserve rounds up by a quarter), and what the library
	// allocates for such a name, well within this.
	const bound = 1 << 20
	long := strings.Repeat("a", 16<<20)
	pinned := long + "etcd"
	if s.Match(long) || !s.Match(pinned) || s.MatchIndex(pinned) != 2 || !s.MatchAny("x", long, pinned) {
		t.Fatal("wrong answer for a 16 MiB name")
	}
	if got := s.MatchEach([]string{long, "quay.io/coreos/etcd:v3", pinned}); got[0] || !got[1] || !got[2] {
		t.Fatalf("MatchEach with 16 MiB names: %v", got)
	}
	justShort := strings.Repeat("b", longCallBytes-5) // the longest name a pooled instance answers
	if s.Match(justShort) || !s.Match(justShort[:len(justShort)-4]+"etcd") {
		t.Fatal("wrong answer for a name just short of a long call")
	}
	if _, held := p.heldBytes(); held > compiled+bound {
		t.Fatalf("the pool holds %d bytes after 16 MiB names, the compile left %d", held, compiled)
	}
	// Copies made after the long names: short names from 16 goroutines.
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 500 {
				if !s.Match("registry.k8s.io/etcd:3.5") {
					t.Error("not pinned")
					return
				}
			}
		}()
	}
	wg.Wait()
	instances, held := p.heldBytes()
	for i := range p.slots {
		if in := p.slots[i].in; in != nil && uint64(in.size()) > compiled+bound {
			t.Errorf("an instance has %d bytes of memory after 16 MiB names, the compile left %d", in.size(), compiled)
		}
	}
	t.Logf("%d instances, %d bytes held (%d compiled)", instances, held, compiled)
}

// A batch past longCallBytes is answered in several calls in the pooled
// instances: the same answers as name by name, across the calls'
// boundaries, and no copy made (a copy would allocate).
func TestLargeBatchesAreChunked(t *testing.T) {
	s := MustCompile([]string{"*etcd*", "quay.io/openshift/*", "registry.k8s.io/pause:3.10"})
	defer s.Close()
	var names []string
	for i := 0; callBytes(len(names), 60*len(names)) < 3*longCallBytes; i++ {
		switch i % 3 {
		case 0:
			names = append(names, fmt.Sprintf("quay.io/coreos/etcd-%043d", i))
		case 1:
			names = append(names, fmt.Sprintf("docker.io/library/nginx-%047d", i))
		default:
			names = append(names, fmt.Sprintf("registry.k8s.io/pause:3.10-%043d", i))
		}
	}
	if n := s.eng.chunk(names); n == len(names) {
		t.Fatalf("%d names fit one call: the test proves nothing", len(names))
	}
	got := s.MatchEach(names)
	for i, n := range names {
		if want := s.Match(n); got[i] != want {
			t.Fatalf("MatchEach[%d] (%q) = %v, Match = %v", i, n, got[i], want)
		}
	}
	nginx := make([]string, 0, len(names))
	for _, n := range names {
		if !s.Match(n) {
			nginx = append(nginx, n)
		}
	}
	if s.MatchAny(nginx...) || !s.MatchAny(append(nginx, names[0])...) {
		t.Fatal("MatchAny over several calls: wrong answer")
	}
	out := make([]bool, 0, len(names))
	if allocs := testing.AllocsPerRun(10, func() { out = s.AppendEach(out[:0], names) }); allocs != 0 {
		t.Fatalf("AppendEach of %d names allocated %v times a call: copied an instance", len(names), allocs)
	}
}

// 16 callers at GOMAXPROCS 16: the pool never holds more instances than
// the cap, every call past it waits (never fails), and the memory held is
// at most the cap's copies of the compiled list; by default, one copy.
func TestPoolCapsConcurrentCalls(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(16))
	patterns := make([]string, 0, 1000)
	for i := 0; len(patterns) < cap(patterns); i++ {
		patterns = append(patterns, fmt.Sprintf("quay.io/openshift-release-dev/ocp@sha256:%064x", i))
	}
	pinned, other := patterns[500], "quay.io/openshift-release-dev/ocp@sha256:"+strings.Repeat("f", 64)
	for _, c := range []int{0, 4} { // 0: the default
		t.Run(fmt.Sprintf("cap=%d", c), func(t *testing.T) {
			defer SetMaxConcurrentCalls(SetMaxConcurrentCalls(c))
			want := maxConcurrentCalls()
			s := MustCompile(patterns)
			defer s.Close()
			p := poolOf(t, s)
			_, compiled := p.heldBytes()
			// Rounds of 16 callers until the calls have overlapped up to
			// the cap (counted in rounds: a loaded machine only makes each
			// one slower).
			var inUse, most atomic.Int32
			for round := 0; most.Load() < int32(want); round++ {
				if round == 100 {
					t.Fatalf("100 rounds of 16 callers overlapped at most %d calls, the cap is %d", most.Load(), want)
				}
				var wg sync.WaitGroup
				for range 16 {
					wg.Add(1)
					go func() {
						defer wg.Done()
						for i := range 300 {
							if i%2 == 0 { // the public calls
								if !s.MatchAny(other, pinned) || s.Match(other) {
									t.Error("wrong answer")
									return
								}
								continue
							}
							// A call held across a yield, counted while held,
							// so that calls overlap.
							slot := p.get()
							n := inUse.Add(1)
							for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
							}
							runtime.Gosched()
							inUse.Add(-1)
							p.put(slot)
						}
					}()
				}
				wg.Wait()
			}
			instances, held := p.heldBytes()
			if got := most.Load(); got > int32(want) {
				t.Errorf("%d calls ran at once, more than the cap, %d", got, want)
			}
			if instances > want || int(p.live.Load()) > want {
				t.Errorf("%d instances, more than the cap, %d", instances, want)
			}
			if held > uint64(want)*compiled {
				t.Errorf("%d bytes held, more than %d copies of the compiled list's %d", held, want, compiled)
			}
			t.Logf("cap %d: %d instances, %d bytes held (%d compiled)", want, instances, held, compiled)
		})
	}
}
