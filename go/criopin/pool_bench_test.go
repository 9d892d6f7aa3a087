//go:build (!cgo || criopin_wasm || criopin_purego || criopin_wazero || criopin_wasm2go) && unix

package criopin

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// BenchmarkPoolGetPut: taking an instance from a set's pool and returning
// it, with no call between, from GOMAXPROCS goroutines (b.RunParallel;
// compare -cpu 1,2): what the pool itself costs a call, and, in cpu-ns/op
// (the process's CPU time an op), what goroutines taking instances at once
// cost each other. BenchmarkPoolControl is the same loop on memory of each
// goroutine's own: what the machine lets two goroutines gain at all (its
// ns/op halves from -cpu 1 to 2 only with two free cores).
func BenchmarkPoolGetPut(b *testing.B) {
	s := MustCompile([]string{"quay.io/myorg/*", "*monitoring*"})
	defer s.Close()
	p := s.eng.p
	cpu := processCPU()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			p.put(p.get())
		}
	})
	b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

type padded struct {
	n uint64
	_ [56]byte
}

func BenchmarkPoolControl(b *testing.B) {
	cpu := processCPU()
	b.RunParallel(func(pb *testing.PB) {
		c := new(padded)
		for pb.Next() {
			bump(&c.n)
		}
	})
	b.ReportMetric(float64((processCPU()-cpu).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

//go:noinline
func bump(n *uint64) { *n++ }

func processCPU() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}

// BenchmarkSetMemory: the memory one Set holds, in copies of its compiled
// list (copies = the linear memory of every instance in its pool / that of
// the instance the compile left), on 20,000 digests and the pause image at
// GOMAXPROCS 16 with the default cap (BenchmarkSetMemory/<Backend>): after 16 goroutines matching at
// once (callers-copies), and after a 16 MiB name and 16 callers again
// (long-copies). compiled-bytes is one copy. internal/benchtable reads
// them against issue 56's bound, 1.5 copies.
func BenchmarkSetMemory(b *testing.B) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(16))
	patterns := make([]string, 0, 20_001)
	for i := range 20_000 {
		patterns = append(patterns, fmt.Sprintf("quay.io/openshift-release-dev/ocp-v4.0-art-dev@sha256:%064x", i))
	}
	patterns = append(patterns, "registry.k8s.io/pause:3.10")
	long := strings.Repeat("a", 16<<20)
	callers := func(b *testing.B, s *Set) {
		var wg sync.WaitGroup
		for range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 200 {
					if !s.Match(patterns[7]) || s.Match("registry.k8s.io/etcd:3.5") {
						b.Error("wrong answer")
						return
					}
				}
			}()
		}
		wg.Wait()
	}
	b.Run(Backend, func(b *testing.B) {
		var compiled, afterCallers, afterLong uint64
		for b.Loop() {
			s := MustCompile(patterns)
			_, compiled = s.eng.p.heldBytes()
			callers(b, s)
			_, afterCallers = s.eng.p.heldBytes()
			if s.Match(long) || s.MatchIndex(long) != -1 {
				b.Fatal("a 16 MiB name of one byte repeated read as pinned")
			}
			callers(b, s)
			_, afterLong = s.eng.p.heldBytes()
			s.Close()
		}
		b.ReportMetric(float64(compiled), "compiled-bytes")
		b.ReportMetric(float64(afterCallers)/float64(compiled), "callers-copies")
		b.ReportMetric(float64(afterLong)/float64(compiled), "long-copies")
	})
}
