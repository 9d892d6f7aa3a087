//go:build criopin_wazero && !criopin_wasm2go && linux && (amd64 || arm64 || ppc64le || riscv64 || s390x || loong64)

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

// Past its first smallMemory bytes, where the kernel has transparent huge
// pages, the memory is aligned to them and committed a whole huge page at
// a time, as the kernel needs to back it so; below, a page at a time.
func TestInstanceMemoryHugePages(t *testing.T) {
	const page = 64 << 10
	huge := hugePageBytes()
	if huge == 0 {
		t.Skip("no transparent huge pages here (/sys/kernel/mm/transparent_hugepage/hpage_pmd_size)")
	}
	m := reserveMemory(0, smallMemory+4*huge).(*mappedMemory)
	defer m.Free()
	if uintptr(unsafe.Pointer(unsafe.SliceData(m.reserved)))%uintptr(huge) != 0 || m.huge != huge {
		t.Fatalf("memory at %p not aligned to %d-byte huge pages", unsafe.SliceData(m.reserved), huge)
	}
	small := m.Reallocate(smallMemory - page)
	if m.committed != smallMemory-page {
		t.Fatalf("below %d bytes, committed %d for %d", smallMemory, m.committed, len(small))
	}
	size := uint64(smallMemory + page)
	b := m.Reallocate(size)
	if uint64(len(b)) != size || m.committed != smallMemory+huge {
		t.Fatalf("grown to %d bytes: %d committed, want %d", len(b), m.committed, smallMemory+huge)
	}
	b[size-1] = 7
	if grown := m.Reallocate(size + page); grown[size-1] != 7 || m.committed != smallMemory+huge {
		t.Fatalf("within a committed huge page: %d committed, or contents lost", m.committed)
	}
	if m.Reallocate(smallMemory+4*huge) == nil || m.Reallocate(smallMemory+4*huge+page) != nil {
		t.Fatal("the memory did not grow to exactly its maximum")
	}
}
