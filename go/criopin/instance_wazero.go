//go:build !cgo || criopin_wasm || criopin_purego

package criopin

import (
	"bytes"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"os"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// An instance of the module: its memory, its exports, and the calls that
// move bytes in and out of it through the library's C ABI.

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
	stack                [6]uint64 // the arguments and result of a call
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
		return 0, tooLargeForMemory()
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

// tooLargeForMemory is the error for patterns the module's memory cannot
// hold.
func tooLargeForMemory() *CompileError {
	return &CompileError{Kind: KindInternal, Index: -1, Message: "the WebAssembly module's memory " +
		"(at most 4 GiB) cannot hold the patterns; build with cgo and libcrio_pin for this list"}
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

// put copies name to the scratch memory; false when it cannot.
func (in *instance) put(name string) bool {
	if uint64(len(name)) > 1<<31 || !in.reserve(uint32(len(name))) {
		return false
	}
	copy(in.view(in.scratch, uint32(len(name))), name)
	return true
}
