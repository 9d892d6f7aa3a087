//go:build (!cgo || criopin_wasm || criopin_purego || criopin_wazero || criopin_wasm2go) && unix

package criopin

import (
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
