//go:build !cgo || criopin_purego

package criopin

import (
	"runtime"
	"testing"
	"time"
)

// The WebAssembly backend's pool of instances (backend_wazero.go): a caller
// that finds every instance busy copies the first to be idle, up to
// GOMAXPROCS instances, and from then on both run at once; past that,
// callers wait for one; a copy answers as the original; a trapped
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
	// Both busy, GOMAXPROCS (2) reached: the next caller waits for a put.
	second := p.get()
	go func() { done <- s.MatchIndex("registry.k8s.io/PAUSE:3.10") == 1 }()
	select {
	case <-done:
		t.Fatal("a third caller ran with both instances busy and GOMAXPROCS 2")
	case <-time.After(100 * time.Millisecond):
	}
	p.put(second)
	if !<-done {
		t.Fatal("MatchIndex on a waiting caller gave a wrong answer")
	}
	p.put(held)
	if got := p.live.Load(); got != 2 {
		t.Fatalf("%d instances, want at most GOMAXPROCS (2)", got)
	}
}

func TestPoolRefillsADiscardedSlot(t *testing.T) {
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
