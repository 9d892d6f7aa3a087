//go:build !cgo || criopin_wasm || criopin_purego || criopin_wazero || criopin_wasm2go

package criopin

import (
	"bytes"
	"encoding/binary"
)

// An instance of the module, whichever engine runs it (wazero's
// instance_wazero.go, the Go that wasm2go made of it,
// instance_wasm2go.go): its memory, its exports, and the calls that move
// bytes in and out of it through the library's C ABI. Each engine gives
// vm, one instance's machine:
//
//   - call(f, stack) runs the export f with its arguments in stack and
//     leaves its result in stack[0]; false when it trapped (a panic in the
//     library aborts; its message went to stderr): the instance is then
//     unusable;
//   - has(f), whether the module exports f (the optional ones: tiers,
//     fingerprints, the compile of a list hashed here);
//   - memory(), the linear memory as it is now (valid until it grows);
//   - copyMemory(src), this fresh instance's memory made src's;
//   - reserveMemory(bytes), room for the memory to grow by bytes at no
//     more than the growing (before a compile, which grows it);
//   - close() and closed().

// export names one of the module's functions.
type export int

const (
	exportMatch export = iota
	exportMatchAny
	exportMatchIndex
	exportMatchEach
	exportLengthVerdicts
	exportCompile
	exportCompileFingerprinted
	exportValidate
	exportValidateTier
	exportTier
	exportFingerprint
	exportListFingerprint
	exportVersion
	exportAlloc
	exportFree
	exportSetFree
	exportErrorKind
	exportErrorIndex
	exportErrorMessage
	exportErrorFree
	exportCount // how many there are
)

// exportNames are the exports' names in the module, by export.
var exportNames = [exportCount]string{
	exportMatch: "crio_pin_match", exportMatchAny: "crio_pin_match_any",
	exportMatchIndex: "crio_pin_match_index", exportMatchEach: "crio_pin_match_each",
	exportLengthVerdicts: "crio_pin_length_verdicts", exportCompile: "crio_pin_compile",
	exportCompileFingerprinted: "crio_pin_wasm_compile_fingerprinted", exportValidate: "crio_pin_validate",
	exportValidateTier: "crio_pin_validate_tier", exportTier: "crio_pin_tier",
	exportFingerprint: "crio_pin_fingerprint", exportListFingerprint: "crio_pin_list_fingerprint",
	exportVersion: "crio_pin_version", exportAlloc: "crio_pin_wasm_alloc", exportFree: "crio_pin_wasm_free",
	exportSetFree: "crio_pin_free", exportErrorKind: "crio_pin_error_kind",
	exportErrorIndex: "crio_pin_error_pattern_index", exportErrorMessage: "crio_pin_error_message",
	exportErrorFree: "crio_pin_error_free",
}

// instance is one instance of the module. Used by one goroutine at a time
// (the pool's slot says which).
type instance struct {
	vm
	// scratch is module memory for the names of a call, reused; a copy of
	// an instance inherits it with the memory.
	scratch, scratchSize uint32
	stack                [6]uint64 // the arguments and result of a call
}

// call calls f with args; its first result is in.stack[0]. false when the
// call trapped: the instance is then unusable.
func (in *instance) call(f export, args ...uint64) bool {
	copy(in.stack[:], args)
	return in.vm.call(f, in.stack[:])
}

func (in *instance) call1(f export, args ...uint64) (uint64, bool) {
	ok := in.call(f, args...)
	return in.stack[0], ok
}

// size is the instance's memory in bytes.
func (in *instance) size() uint32 { return uint32(len(in.memory())) }

// alloc reserves size bytes of module memory; 0 when it cannot.
func (in *instance) alloc(size uint32) uint32 {
	p, ok := in.call1(exportAlloc, uint64(size))
	if !ok {
		return 0
	}
	return uint32(p)
}

func (in *instance) free(p, size uint32) bool {
	return in.call(exportFree, uint64(p), uint64(size))
}

// view is size bytes of module memory at p, written and read in place;
// valid until the memory grows (the next alloc).
func (in *instance) view(p, size uint32) []byte {
	mem := in.memory()
	if uint64(p)+uint64(size) > uint64(len(mem)) {
		panic("criopin: internal error: module memory out of range")
	}
	return mem[p : p+size : p+size]
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
	rest := in.view(p, in.size()-p)
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
	if err := in.copyMemory(&src.vm); err != nil {
		in.close()
		return nil, err
	}
	in.scratch, in.scratchSize = src.scratch, src.scratchSize
	return in, nil
}

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
func (in *instance) compile(patterns []string, flags Flag, validate bool) (uint32, *CompileError) {
	block, size, ptrs, lens, errOut := in.patterns(patterns)
	if block == 0 {
		return 0, tooLargeForMemory()
	}
	f, args := exportCompile, []uint64{uint64(ptrs), uint64(lens), uint64(len(patterns)), uint64(flags), uint64(errOut)}
	switch {
	case validate:
		f = exportValidate
	case in.has(exportCompileFingerprinted) && in.reserve(uint32(len(Fingerprint{}))):
		// The list hashed here, where SHA-256 is the machine's (see
		// hashList), not in the module.
		fp := hashList(patterns, flags)
		copy(in.view(in.scratch, uint32(len(fp))), fp[:])
		f, args = exportCompileFingerprinted, append(args[:4], uint64(in.scratch), uint64(errOut))
	}
	fn := exportNames[f]
	r, ok := in.call1(f, args...)
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

// compileMemoryPerByte is about how much module memory a compile takes a
// byte of its arguments (patterns writes them): the arguments, the set,
// the compile's scratch. Measured in a new instance: 3.3 for the
// OpenShift-shaped list (6.8 MB of arguments, 22 MB grown), 5.1 for
// 10,000 patterns (0.75 MB, 3.8 MB). Room left over stays capacity: the
// memory is what was grown, and a pool's further instances copy only that
// (copyMemory).
const compileMemoryPerByte = 6

// compileMemory is about the memory compiling patterns grows a new
// instance's by (reserved before the compile).
func compileMemory(patterns []string) uint64 {
	total := uint64(0)
	for _, p := range patterns {
		total += 8 + uint64(len(p))
	}
	return compileMemoryPerByte * (total + 4)
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
	kind, ok1 := in.call1(exportErrorKind, uint64(cerr))
	index, ok2 := in.call1(exportErrorIndex, uint64(cerr))
	message, ok3 := in.call1(exportErrorMessage, uint64(cerr))
	if !ok1 || !ok2 || !ok3 {
		return trapped("crio_pin_error_*")
	}
	err := &CompileError{Kind: ErrorKind(uint32(kind)), Index: int(int32(uint32(index))),
		Message: in.cString(uint32(message))}
	if !in.call(exportErrorFree, uint64(cerr)) {
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
