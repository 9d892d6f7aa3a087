//go:build !cgo || criopin_purego

package criopin

import (
	"bytes"
	"context"
	"crypto/rand"
	_ "embed" // crio_pin.wasm
	"encoding/binary"
	"errors"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// The backend without cgo: the library itself, compiled to WebAssembly
// (crio_pin.wasm, built by `make wasm` from the same source as
// libcrio_pin), run by wazero, a WebAssembly runtime written in Go. Every
// rule lives once, in the library; this file moves bytes in and out of the
// module through the same C ABI the cgo backend calls.
//
// Concurrency: a WebAssembly instance runs one call at a time, and its
// linear memory holds all of its state (a compiled set included) whenever
// no call is in progress. So a set is compiled once, in one instance, and
// when goroutines match on it at once each further instance starts as a
// copy of an idle one's memory: a bounded pool of at most
// SetMaxConcurrentCalls's cap instances a set, taken and returned without a
// lock (one compare-and-swap each way), grown only when every instance is
// busy. Why a pool rather than one instance behind a lock or shared memory:
// go/README.md, "The WebAssembly backend".

// Backend names the matcher this binary has: "wasm" (build tag
// criopin_purego, or cgo disabled: the library compiled to WebAssembly,
// run by wazero) or "libcrio_pin" (the library, through cgo).
const Backend = "wasm"

//go:embed crio_pin.wasm
var wasmModule []byte

// Version is the version of the library compiled into the embedded
// module, "MAJOR.MINOR.PATCH".
func Version() string {
	m, err := loadModule()
	if err != nil {
		panic("criopin: " + err.Message)
	}
	return m.version
}

// ctx is the context of every call into the module: none is cancelled.
var ctx = context.Background()

// module is the process's one wazero runtime with the module compiled to
// machine code (on amd64 and arm64; interpreted elsewhere), done once, on
// the first use: about a tenth of a second (docs/BENCHMARKS.md).
type module struct {
	compiled   wazero.CompiledModule
	runtime    wazero.Runtime
	version    string
	validators *pool        // instances holding no set, for Validate
	cache      *moduleCache // nil without CRIOPIN_WASM_CACHE
}

var (
	moduleOnce   sync.Once
	loaded       *module
	moduleFailed *CompileError
)

func loadModule() (*module, *CompileError) {
	moduleOnce.Do(func() {
		var err error
		if loaded, err = compileModule(); err != nil {
			moduleFailed = &CompileError{Kind: KindInternal, Index: -1, Message: "the WebAssembly module " +
				"embedded in package criopin did not load (" + err.Error() + "); this is a bug, please report " +
				"it, and build with cgo and libcrio_pin meanwhile"}
		}
	})
	return loaded, moduleFailed
}

// compileModule compiles the module, through the compilation cache when
// CRIOPIN_WASM_CACHE names a safe directory (cache_wazero.go); a cache
// that fails is left out, with one line on stderr.
func compileModule() (*module, error) {
	if dir := os.Getenv(cacheEnv); dir != "" {
		if cache := openCache(dir); cache != nil {
			m, err := compileModuleWith(cache)
			if err == nil {
				return m, nil
			}
			cache.close()
			cacheWarning(dir, "could not be used ("+err.Error()+")")
		}
	}
	return compileModuleWith(nil)
}

// compileModuleWith compiles the module in a new runtime with cache (nil:
// none) and starts its first instance.
func compileModuleWith(cache *moduleCache) (m *module, err error) {
	config := wazero.NewRuntimeConfig()
	if cache != nil {
		config = config.WithCompilationCache(cache.CompilationCache)
	}
	r := wazero.NewRuntimeWithConfig(ctx, config)
	defer func() {
		if err != nil {
			_ = r.Close(ctx)
		}
	}()
	// The module's imports: random_get seeds the exact table's hash (as
	// std's RandomState does natively), fd_write carries a panic's message
	// to stderr; it reads no environment and opens no file.
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, r); err != nil {
		return nil, err
	}
	compiled, err := r.CompileModule(ctx, wasmModule)
	if err != nil {
		return nil, err
	}
	m = &module{compiled: compiled, runtime: r, cache: cache}
	first, err := m.instantiate()
	if err != nil {
		return nil, err
	}
	version, ok := first.call1(first.version)
	if !ok {
		return nil, errors.New("crio_pin_version trapped")
	}
	m.version = first.cString(uint32(version))
	m.validators = newPool(m, first, 0)
	return m, nil
}

// instance is one instance of the module: its memory and its exports.
// Used by one goroutine at a time (the pool's slot says which).
type instance struct {
	mod api.Module
	mem api.Memory
	// The exports, looked up once: a lookup allocates.
	match, matchAny, matchIndex, matchEach, lengthVerdicts api.Function
	compileFn, validateFn, version, allocFn, freeFn        api.Function
	setFree                                                api.Function
	errorKind, errorIndex, errorMessage, errorFree         api.Function
	// scratch is module memory for the names of a call, reused; a copy of
	// an instance inherits it with the memory.
	scratch, scratchSize uint32
	stack                [5]uint64 // the arguments and result of a call
}

func (m *module) instantiate() (*instance, error) {
	config := wazero.NewModuleConfig().WithName("").WithStartFunctions().
		WithRandSource(rand.Reader).WithStderr(os.Stderr)
	mod, err := m.runtime.InstantiateModule(instanceContext, m.compiled, config)
	if err != nil {
		return nil, err
	}
	fn := func(name string) api.Function { return mod.ExportedFunction(name) }
	return &instance{mod: mod, mem: mod.Memory(),
		match: fn("crio_pin_match"), matchAny: fn("crio_pin_match_any"), matchIndex: fn("crio_pin_match_index"),
		matchEach: fn("crio_pin_match_each"), lengthVerdicts: fn("crio_pin_length_verdicts"),
		compileFn: fn("crio_pin_compile"), validateFn: fn("crio_pin_validate"), version: fn("crio_pin_version"),
		allocFn: fn("crio_pin_wasm_alloc"), freeFn: fn("crio_pin_wasm_free"), setFree: fn("crio_pin_free"),
		errorKind: fn("crio_pin_error_kind"), errorIndex: fn("crio_pin_error_pattern_index"),
		errorMessage: fn("crio_pin_error_message"), errorFree: fn("crio_pin_error_free")}, nil
}

// call calls f with args; its first result is in.stack[0]. false when the
// call trapped (a panic in the library aborts; its message went to
// stderr): the instance is then unusable.
func (in *instance) call(f api.Function, args ...uint64) bool {
	copy(in.stack[:], args)
	return f.CallWithStack(ctx, in.stack[:]) == nil
}

func (in *instance) call1(f api.Function, args ...uint64) (uint64, bool) {
	ok := in.call(f, args...)
	return in.stack[0], ok
}

// alloc reserves size bytes of module memory; 0 when it cannot.
func (in *instance) alloc(size uint32) uint32 {
	p, ok := in.call1(in.allocFn, uint64(size))
	if !ok {
		return 0
	}
	return uint32(p)
}

func (in *instance) free(p, size uint32) bool {
	return in.call(in.freeFn, uint64(p), uint64(size))
}

// view is size bytes of module memory at p, written and read in place;
// valid until the memory grows (the next alloc).
func (in *instance) view(p, size uint32) []byte {
	b, ok := in.mem.Read(p, size)
	if !ok {
		panic("criopin: internal error: module memory out of range")
	}
	return b
}

// reserve makes the scratch memory at least size bytes.
func (in *instance) reserve(size uint32) bool {
	if size <= in.scratchSize {
		return true
	}
	if in.scratch != 0 && !in.free(in.scratch, in.scratchSize) {
		return false
	}
	in.scratch, in.scratchSize = 0, 0
	grown := max(4096, size+size/4)
	if p := in.alloc(grown); p != 0 {
		in.scratch, in.scratchSize = p, grown
	}
	return in.scratch != 0
}

func (in *instance) cString(p uint32) string {
	rest := in.view(p, in.mem.Size()-p)
	if end := bytes.IndexByte(rest, 0); end >= 0 {
		rest = rest[:end]
	}
	return string(rest)
}

// copyOf is a new instance whose memory is src's: the same sets, scratch
// and allocator state. src must be idle (no call in progress), so that
// its one mutable global, the stack pointer, is at its initial value.
func (m *module) copyOf(src *instance) (*instance, error) {
	in, err := m.instantiate()
	if err != nil {
		return nil, err
	}
	size := src.mem.Size()
	if grow := (size - in.mem.Size()) / 65536; grow > 0 {
		if _, ok := in.mem.Grow(grow); !ok {
			in.close()
			return nil, errors.New("cannot grow a copy's memory")
		}
	}
	copy(in.view(0, size), src.view(0, size))
	in.scratch, in.scratchSize = src.scratch, src.scratchSize
	return in, nil
}

func (in *instance) close() { _ = in.mod.Close(ctx) }

// patterns writes the C API's arguments of crio_pin_compile into one
// block of module memory: count pointers, count lengths, the error
// pointer, then the texts. It returns the block, its size and the three
// addresses; block 0 when the memory cannot hold it.
func (in *instance) patterns(patterns []string) (block, size, ptrs, lens, errOut uint32) {
	count := uint32(len(patterns))
	total := 0
	for _, p := range patterns {
		total += len(p)
	}
	if uint64(total)+8*uint64(count)+4 > 1<<31 {
		return 0, 0, 0, 0, 0
	}
	size = 8*count + 4 + uint32(total)
	if block = in.alloc(size); block == 0 {
		return 0, 0, 0, 0, 0
	}
	ptrs, lens, errOut = block, block+4*count, block+8*count
	b := in.view(block, size)
	at := 8*count + 4
	for i, p := range patterns {
		binary.LittleEndian.PutUint32(b[4*i:], block+at)
		binary.LittleEndian.PutUint32(b[4*(int(count)+i):], uint32(len(p)))
		at += uint32(copy(b[at:], p))
	}
	return block, size, ptrs, lens, errOut
}

// compile runs crio_pin_compile, or crio_pin_validate when validate, on
// patterns; it returns the set (0 when validating) or the library's error.
func (in *instance) compile(patterns []string, f Flag, validate bool) (uint32, *CompileError) {
	block, size, ptrs, lens, errOut := in.patterns(patterns)
	if block == 0 {
		return 0, &CompileError{Kind: KindInternal, Index: -1, Message: "the WebAssembly module's memory " +
			"(at most 4 GiB) cannot hold the patterns; build with cgo and libcrio_pin for this list"}
	}
	fn, export := "crio_pin_compile", in.compileFn
	if validate {
		fn, export = "crio_pin_validate", in.validateFn
	}
	r, ok := in.call1(export, uint64(ptrs), uint64(lens), uint64(len(patterns)), uint64(f), uint64(errOut))
	if !ok {
		return 0, trapped(fn)
	}
	cerr := binary.LittleEndian.Uint32(in.view(errOut, 4))
	if !in.free(block, size) {
		return 0, trapped("crio_pin_wasm_free")
	}
	if cerr != 0 {
		return 0, in.takeError(cerr)
	}
	if uint32(r) == 0 && !validate {
		return 0, &CompileError{Kind: KindInternal, Index: -1, Message: "internal error: " + fn +
			" returned no set and no error"}
	}
	return uint32(r), nil
}

func trapped(fn string) *CompileError {
	return &CompileError{Kind: KindInternal, Index: -1, Message: "internal error: libcrio_pin's " + fn +
		" failed in the WebAssembly module (its message is on stderr); this is a bug, please report it"}
}

// takeError converts the library's error and frees it.
func (in *instance) takeError(cerr uint32) *CompileError {
	kind, ok1 := in.call1(in.errorKind, uint64(cerr))
	index, ok2 := in.call1(in.errorIndex, uint64(cerr))
	message, ok3 := in.call1(in.errorMessage, uint64(cerr))
	if !ok1 || !ok2 || !ok3 {
		return trapped("crio_pin_error_*")
	}
	err := &CompileError{Kind: ErrorKind(uint32(kind)), Index: int(int32(uint32(index))),
		Message: in.cString(uint32(message))}
	if !in.call(in.errorFree, uint64(cerr)) {
		return trapped("crio_pin_error_free")
	}
	return err
}

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
// pooled instance (a batch past it is answered in several calls, chunk). A memory never shrinks, and every copy the pool makes
// copies all of it: one 64 MiB name grew its instance by 84 MB for the
// set's life, and the pool copied that into each new instance (680 MB held
// at GOMAXPROCS 8, against 1.2 MB for the 9-pattern list). A call past it
// runs in a copy of the instance made for that call and closed after it,
// so the pool's instances keep the size the compile left (plus at most
// this much scratch); the cost, one copy of the set's memory, is small
// beside reading that many bytes of names.
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
			if !kept && s.in.call(s.in.setFree, uint64(p.set)) {
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
	if in.mem.Size() > spareMaxBytes || !spareInstance.CompareAndSwap(nil, in) {
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

// engine is one owner of a compiled set's pool; the zero engine is the
// empty set.
type engine struct {
	p *pool
}

func (e engine) isZero() bool { return e.p == nil }

func (e engine) free() {
	if e.p != nil && e.p.owners.Add(-1) == 0 {
		e.p.close()
	}
}

// clone adds an owner: the clones share the instances and the table.
func (e engine) clone() engine {
	if e.p != nil {
		e.p.owners.Add(1)
	}
	return e
}

// settled reports whether the set certainly does not pin name, from the
// library's length table alone (inlined into every matching call).
func (e engine) settled(name string) bool {
	return e.p == nil || e.p.verdicts.settles(name)
}

// compileEngine compiles in the spare instance, or a new one, which
// becomes the first of the set's pool; flags are known bits.
func compileEngine(patterns []string, f Flag) (engine, *CompileError) {
	m, err := loadModule()
	if err != nil {
		return engine{}, err
	}
	in := takeSpare()
	if in == nil {
		var ierr error
		if in, ierr = m.instantiate(); ierr != nil {
			return engine{}, &CompileError{Kind: KindInternal, Index: -1, Message: "the WebAssembly module " +
				"could not start (" + ierr.Error() + ")"}
		}
	}
	set, err := in.compile(patterns, f, false)
	if err != nil {
		// A list the library refused leaves the instance as it was; after
		// an internal error it may not be.
		if err.Kind == KindInternal {
			in.close()
		} else {
			putSpare(in)
		}
		return engine{}, err
	}
	p := newPool(m, in, set)
	// On a failure the table says "ask" for every length: nothing is
	// settled in Go then.
	for i := range p.verdicts {
		p.verdicts[i] = lengthMayMatch
	}
	if in.reserve(verdictLengths) {
		if _, ok := in.call1(in.lengthVerdicts, uint64(set), uint64(in.scratch),
			verdictLengths-1); ok {
			copy(p.verdicts[:verdictLengths-1], in.view(in.scratch, verdictLengths-1))
		}
	}
	return engine{p}, nil
}

// validateEngine checks with the library, building nothing; flags are
// known bits.
func validateEngine(patterns []string, f Flag) *CompileError {
	m, err := loadModule()
	if err != nil {
		return err
	}
	s := m.validators.get()
	if s == nil {
		return trapped("crio_pin_validate")
	}
	_, err = s.in.compile(patterns, f, true)
	if err != nil && err.Kind == KindInternal {
		m.validators.discard(s)
		return err
	}
	m.validators.put(s)
	return err
}

// unsettled counts the names the length table does not settle, and their
// bytes; last is the last of them.
func (e engine) unsettled(names []string) (count, total int, last string) {
	for _, n := range names {
		if !e.settled(n) {
			count, total, last = count+1, total+len(n), n
		}
	}
	return count, total, last
}

// names writes the count names (of total bytes) the table does not settle
// into the scratch memory in one copy: their lengths, then room for one
// result byte each, then their bytes. false when the memory cannot hold
// them.
func (in *instance) names(e engine, names []string, count, total int) bool {
	if uint64(total)+5*uint64(count) > 1<<31 || !in.reserve(uint32(5*count+total)) {
		return false
	}
	b := in.view(in.scratch, uint32(5*count+total))
	at, i := 5*count, 0
	for _, n := range names {
		if !e.settled(n) {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(len(n)))
			at += copy(b[at:], n)
			i++
		}
	}
	return true
}

// callBytes is the module memory a call's count names of total bytes take
// (names writes them so; one name alone takes less).
func callBytes(count, total int) uint64 { return 5*uint64(count) + uint64(total) }

// A matching call that cannot answer (no instance left, memory exhausted,
// a trap) answers "pinned", as the library's crio_pin_match does, or
// panics where no answer can be made up (MatchIndex, MatchEach).

func (e engine) match(name string) bool {
	return e.matchAny([]string{name})
}

// chunk is how many of names, one at least, one call takes when they do
// not all fit longCallBytes: as many as fit. A batch is answered in such
// calls in pooled instances; only a single name past it needs a copy.
func (e engine) chunk(names []string) int {
	var size uint64
	for i, n := range names {
		if !e.settled(n) {
			if size += callBytes(1, len(n)); size > longCallBytes && i > 0 {
				return i
			}
		}
	}
	return len(names)
}

func (e engine) matchAny(names []string) bool {
	count, total, last := e.unsettled(names)
	if count == 0 {
		return false
	}
	if count > 1 && callBytes(count, total) > longCallBytes {
		for len(names) > 0 {
			n := e.chunk(names) // fits, or is one name: not split again
			if e.matchAny(names[:n]) {
				return true
			}
			names = names[n:]
		}
		return false
	}
	s, in := e.p.take(callBytes(count, total))
	if in == nil {
		return true
	}
	var ok bool
	if count == 1 { // most images: one stored name
		ok = in.put(last) && in.call(in.match, uint64(e.p.set), uint64(in.scratch), uint64(len(last)))
	} else {
		ok = in.names(e, names, count, total) && in.call(in.matchAny, uint64(e.p.set),
			uint64(in.scratch)+5*uint64(count), uint64(in.scratch), uint64(count))
	}
	if !ok {
		e.p.failed(s, in)
		return true
	}
	pinned := uint32(in.stack[0]) != 0
	e.p.done(s, in)
	return pinned
}

// put copies name to the scratch memory; false when it cannot.
func (in *instance) put(name string) bool {
	if uint64(len(name)) > 1<<31 || !in.reserve(uint32(len(name))) {
		return false
	}
	copy(in.view(in.scratch, uint32(len(name))), name)
	return true
}

func (e engine) matchIndex(name string) int {
	if e.settled(name) {
		return -1
	}
	s, in := e.p.take(callBytes(1, len(name)))
	if in == nil {
		panic(internalError("crio_pin_match_index", "no instance of the WebAssembly module to run it in"))
	}
	if !in.put(name) {
		e.p.done(s, in)
		panic(internalError("crio_pin_match_index", "no module memory for the name"))
	}
	if !in.call(in.matchIndex, uint64(e.p.set), uint64(in.scratch), uint64(len(name))) {
		e.p.failed(s, in)
		panic(internalError("crio_pin_match_index", "a trap in the WebAssembly module"))
	}
	r := int64(int32(uint32(in.stack[0])))
	e.p.done(s, in)
	return indexResult(r)
}

// matchEach writes into results (len(names) of them, at least one). The
// names the length table settles are not sent: their result stays false
// (grow cleared it), and the module walks only the others.
func (e engine) matchEach(results []bool, names []string) {
	if e.p == nil {
		return
	}
	count, total, _ := e.unsettled(names)
	if count == 0 {
		return
	}
	if count > 1 && callBytes(count, total) > longCallBytes {
		for len(names) > 0 {
			n := e.chunk(names) // fits, or is one name: not split again
			e.matchEach(results[:n], names[:n])
			results, names = results[n:], names[n:]
		}
		return
	}
	s, in := e.p.take(callBytes(count, total))
	if in == nil {
		panic(internalError("crio_pin_match_each", "no instance of the WebAssembly module to run it in"))
	}
	if !in.names(e, names, count, total) {
		e.p.done(s, in)
		panic(internalError("crio_pin_match_each", "no module memory for the names"))
	}
	out := uint64(in.scratch) + 4*uint64(count)
	if !in.call(in.matchEach, uint64(e.p.set), out+uint64(count), uint64(in.scratch), uint64(count), out) {
		e.p.failed(s, in)
		panic(internalError("crio_pin_match_each", "a trap in the WebAssembly module"))
	}
	r := uint64(uint32(in.stack[0]))
	answers := in.view(uint32(out), uint32(count))
	if count == len(names) {
		for i, b := range answers {
			results[i] = b != 0
		}
	} else {
		j := 0
		for i, n := range names {
			if !e.settled(n) {
				results[i] = answers[j] != 0
				j++
			}
		}
	}
	e.p.done(s, in)
	eachResult(r, count)
}
