//go:build (!cgo || criopin_purego) && linux && (amd64 || arm64 || ppc64le || riscv64 || s390x || loong64)

package criopin

import (
	"testing"
	"unsafe"

	"github.com/tetratelabs/wazero/experimental"
)

// The instances' memory (memory_mapped.go): it keeps its contents as it
// grows, refuses to grow past its maximum, and the reserved kind stays in
// place; the Go-slice fallback behaves alike.
func TestInstanceMemory(t *testing.T) {
	const page = 64 << 10
	mapped := reserveMemory(0, 4*page)
	if _, ok := mapped.(*mappedMemory); !ok {
		t.Fatalf("reserveMemory gave %T, want address space reserved", mapped)
	}
	for _, m := range []experimental.LinearMemory{mapped, new(heapMemory)} {
		b := m.Reallocate(page)
		if len(b) != page {
			t.Fatalf("%T: %d bytes, want %d", m, len(b), page)
		}
		b[page-1] = 7
		grown := m.Reallocate(3 * page)
		if len(grown) != 3*page || grown[page-1] != 7 || grown[2*page] != 0 {
			t.Fatalf("%T: grown memory lost its contents or is not zero", m)
		}
		if _, reserved := m.(*mappedMemory); reserved {
			if unsafe.SliceData(grown) != unsafe.SliceData(b) {
				t.Fatal("the reserved memory moved as it grew")
			}
			if m.Reallocate(5*page) != nil {
				t.Fatal("the reserved memory grew past its maximum")
			}
		}
		m.Free()
	}
}
