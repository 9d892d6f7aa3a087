//go:build criopin_wazero && !criopin_wasm2go

package criopin_test

import (
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
)

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
