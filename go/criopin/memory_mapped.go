//go:build (!cgo || criopin_purego) && linux && (amd64 || arm64 || ppc64le || riscv64 || s390x || loong64)

package criopin

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// instanceContext is what instances are created with: each instance's
// memory is address space reserved once, up to the module's maximum, and
// made readable and writable as the module grows it. Growing then copies
// nothing and allocates nothing in Go's heap (wazero's own memory is a Go
// slice, copied at each growth while a list compiles: 6 MB allocated a
// compile of 1,000 patterns, docs/BENCHMARKS.md), and closing an instance
// returns its memory to the system at once, not at the next collection.
var instanceContext = experimental.WithMemoryAllocator(ctx, experimental.MemoryAllocatorFunc(reserveMemory))

// reserveMemory reserves max bytes of address space, which costs no memory
// until used; where the reservation fails (a limit on address space), the
// memory is a Go slice, as wazero's own.
func reserveMemory(_, max uint64) experimental.LinearMemory {
	if max == 0 || max > 1<<32 {
		return new(heapMemory)
	}
	reserved, err := syscall.Mmap(-1, 0, int(max), syscall.PROT_NONE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_NORESERVE)
	if err != nil {
		return new(heapMemory)
	}
	return &mappedMemory{reserved: reserved}
}

// mappedMemory is an instance's memory in reserved address space; the
// first committed bytes are readable and writable.
type mappedMemory struct {
	reserved  []byte
	committed uint64
}

// Reallocate grows the memory to size bytes (a multiple of the 64 KiB
// WebAssembly page, so of the system's page); nil when it cannot.
func (m *mappedMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.reserved)) {
		return nil
	}
	if size > m.committed {
		if syscall.Mprotect(m.reserved[m.committed:size], syscall.PROT_READ|syscall.PROT_WRITE) != nil {
			return nil
		}
		m.committed = size
	}
	return m.reserved[:size:size]
}

// Free returns the memory to the system (wazero calls it when the instance
// is closed, with no call in progress).
func (m *mappedMemory) Free() {
	if m.reserved != nil {
		_ = syscall.Munmap(m.reserved)
		m.reserved, m.committed = nil, 0
	}
}

// heapMemory is the memory as a Go slice, grown by doubling.
type heapMemory struct{ buf []byte }

func (h *heapMemory) Reallocate(size uint64) []byte {
	if size > uint64(cap(h.buf)) {
		grown := make([]byte, size, max(size, 2*uint64(cap(h.buf))))
		copy(grown, h.buf)
		h.buf = grown
	}
	h.buf = h.buf[:size]
	return h.buf
}

func (h *heapMemory) Free() { h.buf = nil }
