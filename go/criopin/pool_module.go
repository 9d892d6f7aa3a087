//go:build !cgo || criopin_wasm || criopin_purego || criopin_wazero || criopin_wasm2go

package criopin

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// pool is a compiled set's instances (or, for set 0, Validate's), shared
// by the set's clones: the set is at the same address in each.
type pool struct {
	module   *module
	owners   atomic.Int64 // engines (clones) not freed
	set      uint32
	verdicts lengthVerdicts
	slots    []slot
	live     atomic.Int32 // instances in the slots
	// A goroutine that finds every slot busy and none to fill waits here
	// for a put.
	waiters atomic.Int32
	mu      sync.Mutex
	idle    sync.Cond
}

// A slot's states. Only the goroutine that moved a slot to busy touches
// its instance until it stores idle (or empty) again.
const (
	slotEmpty = iota
	slotIdle
	slotBusy
)

type slot struct {
	state atomic.Uint32
	in    *instance
	_     [48]byte // a cache line each: slots are taken from many cores
}

func newPool(m *module, first *instance, set uint32) *pool {
	p := &pool{module: m, set: set, slots: make([]slot, maxConcurrentCalls())}
	p.idle.L = &p.mu
	p.owners.Store(1)
	p.slots[0].in = first
	p.slots[0].state.Store(slotIdle)
	p.live.Store(1)
	return p
}

// get takes an idle instance; nil when the set has none left (every one
// trapped).
func (p *pool) get() *slot {
	// Each goroutine starts its search at a slot of its own (from its
	// stack's address: stable for a goroutine, different between them),
	// so that goroutines matching at once do not all try the first slot,
	// whose cache line the goroutine holding it writes twice a call.
	var here byte
	h := uint32(uintptr(unsafe.Pointer(&here))>>13) * 0x9e37_79b9 // stacks are 8 KiB apart or more
	i := int((uint64(h) * uint64(len(p.slots))) >> 32)
	for range p.slots {
		if s := &p.slots[i]; s.state.Load() == slotIdle && s.state.CompareAndSwap(slotIdle, slotBusy) {
			return s
		}
		if i++; i == len(p.slots) {
			i = 0
		}
	}
	return p.getSlow()
}

// getSlow fills an empty slot with a copy of an idle instance, or waits
// for one when every slot is in use.
func (p *pool) getSlow() *slot {
	for i := range p.slots {
		s := &p.slots[i]
		if !s.state.CompareAndSwap(slotEmpty, slotBusy) {
			continue
		}
		src := p.wait()
		if src == nil {
			s.state.Store(slotEmpty)
			return nil
		}
		in, err := p.module.copyOf(src.in)
		p.put(src)
		if err != nil {
			s.state.Store(slotEmpty)
			break
		}
		s.in = in
		p.live.Add(1)
		return s
	}
	return p.wait()
}

// wait blocks until an instance is idle and takes it; nil when none is
// left.
func (p *pool) wait() *slot {
	p.waiters.Add(1)
	p.mu.Lock()
	var s *slot
	for {
		for i := range p.slots {
			if c := &p.slots[i]; c.state.CompareAndSwap(slotIdle, slotBusy) {
				s = c
				break
			}
		}
		if s != nil || p.live.Load() == 0 {
			break
		}
		p.idle.Wait()
	}
	p.mu.Unlock()
	p.waiters.Add(-1)
	return s
}

// put returns a slot taken by get.
func (p *pool) put(s *slot) {
	s.state.Store(slotIdle)
	if p.waiters.Load() > 0 {
		p.mu.Lock()
		p.idle.Signal()
		p.mu.Unlock()
	}
}

// discard drops a slot's instance after a trap: its memory may be half
// written. Its slot can be filled again by a copy of another.
func (p *pool) discard(s *slot) {
	s.in.close()
	s.in = nil
	p.live.Add(-1)
	s.state.Store(slotEmpty)
	p.mu.Lock()
	p.idle.Broadcast()
	p.mu.Unlock()
}

// longCallBytes is the most module memory a call's names may take in a
// pooled instance (a batch past it is answered in several calls, chunk).
// A memory never shrinks, and every copy the pool makes copies all of it:
// one 64 MiB name grew its instance by 84 MB for the set's life, and the
// pool copied that into each new instance (680 MB held at GOMAXPROCS 8,
// against 1.2 MB for the 9-pattern list). A call past it runs in a copy of
// the instance made for that call and closed after it, so the pool's
// instances keep the size the compile left (plus at most this much
// scratch); the cost, one copy of the set's memory, is small beside
// reading that many bytes of names.
const longCallBytes = 64 << 10

// take is the slot for a call whose names take size bytes of module
// memory, and the instance to run it in: the slot's, or past longCallBytes
// (one name that long) a copy of it for this call alone. The instance is nil when there is none
// (the slot is then not taken).
func (p *pool) take(size uint64) (*slot, *instance) {
	s := p.get()
	if s == nil {
		return nil, nil
	}
	if size <= longCallBytes {
		return s, s.in
	}
	in, err := p.module.copyOf(s.in) // s is idle: taken, no call in progress
	if err != nil {
		p.put(s)
		return nil, nil
	}
	return s, in
}

// done ends a call taken with take: the copy made for a long call is
// closed, and the slot returned.
func (p *pool) done(s *slot, in *instance) {
	if in != s.in {
		in.close()
	}
	p.put(s)
}

// failed ends a call that trapped: its instance may be half written, so
// it is dropped (a long call's copy alone: the slot's own is intact).
func (p *pool) failed(s *slot, in *instance) {
	if in != s.in {
		in.close()
		p.put(s)
		return
	}
	p.discard(s)
}

// close closes every instance but one, which frees the set inside it and
// is kept as the spare for the next Compile: the last owner does, when no
// call uses the set.
func (p *pool) close() {
	kept := false
	for i := range p.slots {
		if s := &p.slots[i]; s.in != nil {
			if !kept && s.in.call(exportSetFree, uint64(p.set)) {
				putSpare(s.in)
				kept = true
			} else {
				s.in.close()
			}
			s.in = nil
			s.state.Store(slotEmpty)
		}
	}
}

// An instance whose set was closed (the set freed inside it) starts the
// next Compile: a new instance's memory is fresh address space, every page
// of which faults in as the compile first writes it (about 530 faults a
// compile of 1,000 patterns, where the cgo backend's allocator reuses the
// memory it freed and faults none), whereas a spare's pages are mapped and
// its allocator holds them free. At most one is kept, until the next
// garbage collection, which closes it (returning its memory to the system)
// unless a Compile took it first.
var spareInstance atomic.Pointer[instance]

// spareTimer is what the collector frees at its next cycle after a spare
// was kept, closing the spare then. (A pointer field: the allocator batches
// small objects without pointers, which could keep it alive longer.)
type spareTimer struct{ _ *instance }

// spareMaxBytes is the most linear memory a spare may have. A set
// compiled in a spare keeps that memory, and every further instance of its
// pool copies all of it: a spare left by a large list (OpenShift's grows
// to tens of MiB) would make each copy of a small set as large. The
// page faults a spare saves matter most for small lists, whose memory
// stays far below this (a 1,000-pattern list: about 2 MiB).
const spareMaxBytes = 4 << 20

// putSpare keeps in (idle, holding no set) as the spare, or closes it
// when there is one already or its memory is larger than spareMaxBytes.
func putSpare(in *instance) {
	if in.size() > spareMaxBytes || !spareInstance.CompareAndSwap(nil, in) {
		in.close()
		return
	}
	runtime.AddCleanup(new(spareTimer), func(in *instance) {
		if spareInstance.CompareAndSwap(in, nil) {
			in.close()
		}
	}, in)
}

// takeSpare is the spare instance, or nil when there is none.
func takeSpare() *instance {
	return spareInstance.Swap(nil)
}
