//go:build criopin_wazero && !criopin_wasm2go && linux && (amd64 || arm64 || ppc64le || riscv64 || s390x || loong64)

package criopin

import (
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unsafe"

	"github.com/tetratelabs/wazero/experimental"
	"golang.org/x/sys/unix"
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
	// (A huge page more of address space, to align the memory to one.)
	huge := hugePageBytes()
	if max <= smallMemory {
		huge = 0
	}
	mapping, err := syscall.Mmap(-1, 0, int(max+huge), syscall.PROT_NONE,
		syscall.MAP_PRIVATE|syscall.MAP_ANONYMOUS|syscall.MAP_NORESERVE)
	if err != nil {
		return new(heapMemory)
	}
	m := &mappedMemory{mapping: mapping, reserved: mapping[:max:max]}
	if huge != 0 {
		skip := (huge - uint64(uintptr(unsafe.Pointer(&mapping[0])))%huge) % huge
		m.reserved, m.huge = mapping[skip:skip+max:skip+max], huge
		// Only advice: where the kernel has no transparent huge pages, or
		// declines, the memory is in small pages as before.
		_ = unix.Madvise(m.reserved[smallMemory:], unix.MADV_HUGEPAGE)
	}
	return m
}

// Above its first smallMemory bytes (where a spare instance stops: small
// lists' memory stays below it) an instance's memory is in huge pages
// where the kernel offers them (transparent huge pages, "madvise" mode,
// the default of most distributions). A large list writes tens of MiB of
// fresh memory as it compiles (the OpenShift list grows the memory to 23
// MiB), and every further instance of its pool copies all of it: in small
// pages, a page fault every 4 KiB, which was a third of that compile's
// time (docs/BENCHMARKS.md). Small lists never reach that part, so an
// instance of theirs, and each copy of it, stays as small as its pages.
const smallMemory = spareMaxBytes

// hugePageBytes is the size of the kernel's transparent huge pages, 0
// when it has none or they are too large to be worth aligning to (arm64
// with 64 KiB pages has 512 MiB ones).
var hugePageBytes = sync.OnceValue(func() uint64 {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size")
	if err != nil {
		return 0
	}
	n, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || n == 0 || n&(n-1) != 0 || n > 32<<20 {
		return 0
	}
	return n
})

// mappedMemory is an instance's memory in reserved address space; the
// first committed bytes are readable and writable.
type mappedMemory struct {
	mapping   []byte // the whole reservation, as mapped
	reserved  []byte // the memory's maximum, within mapping
	committed uint64
	huge      uint64 // the huge page size when reserved is aligned to it and advised, else 0
}

// Reallocate grows the memory to size bytes (a multiple of the 64 KiB
// WebAssembly page, so of the system's page); nil when it cannot. In the
// part advised for huge pages it commits whole huge pages, which the
// kernel can back only when all of one has the same protection.
func (m *mappedMemory) Reallocate(size uint64) []byte {
	if size > uint64(len(m.reserved)) {
		return nil
	}
	if size > m.committed {
		commit := size
		if m.huge != 0 && size > smallMemory {
			commit = min((size+m.huge-1)/m.huge*m.huge, uint64(len(m.reserved)))
		}
		if syscall.Mprotect(m.reserved[m.committed:commit], syscall.PROT_READ|syscall.PROT_WRITE) != nil {
			return nil
		}
		m.committed = commit
	}
	return m.reserved[:size:size]
}

// Free returns the memory to the system (wazero calls it when the instance
// is closed, with no call in progress).
func (m *mappedMemory) Free() {
	if m.mapping != nil {
		_ = syscall.Munmap(m.mapping)
		m.mapping, m.reserved, m.committed = nil, nil, 0
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
