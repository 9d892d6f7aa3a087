//go:build !cgo || criopin_wasm || criopin_purego

package criopin_test

import (
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
)

// BenchmarkFloor's parts with the wasm backend: no native answer to call
// (the module's answer is only reached through wazero), and an empty call
// into the set's module instance.
const floorRun = "wasm"

// nativeImages has floor.Images' methods; never made here.
type nativeImages interface {
	Match(from, count int) int
	Close()
}

func floorParts(_ []string, _ [][]string, set *criopin.Set) (nativeImages, func(string), error) {
	return nil, func(name string) { criopin.EmptyCall(set, name) }, nil
}

// BenchmarkModuleCompile: what the first use of the package costs a
// process once: wazero's runtime, the module compiled to machine code, its
// first instance. Beside the wall time, cpu-ns/op is the process's CPU
// time a compile (all threads: what the compile took from a busy machine).
func BenchmarkModuleCompile(b *testing.B) {
	cpu := processCPU()
	for b.Loop() {
		if err := criopin.CompileModule(); err != nil {
			b.Fatal(err)
		}
	}
	if cpu := processCPU() - cpu; cpu > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkModuleCompileCached: the same with CRIOPIN_WASM_CACHE set and
// the cache filled: a later process's start, the machine code read back
// from the directory instead of compiled.
func BenchmarkModuleCompileCached(b *testing.B) {
	b.Setenv("CRIOPIN_WASM_CACHE", b.TempDir())
	if err := criopin.CompileModule(); err != nil { // fills the cache
		b.Fatal(err)
	}
	for b.Loop() {
		if err := criopin.CompileModule(); err != nil {
			b.Fatal(err)
		}
	}
}
