//go:build cgo && !criopin_wasm && !criopin_purego && !criopin_wazero && !criopin_wasm2go

package criopin

/*
#include <stdint.h>
#include <stdlib.h>
#include <crio_pin.h>

// The matching calls take the set as an integer: cgo checks a pointer
// argument to an incomplete struct for Go pointers on every call (it
// cannot see inside; crio_pin_set is C memory), a few nanoseconds a call.
static inline bool criopin_match(uintptr_t set, const char *name, size_t length) {
	return crio_pin_match((const crio_pin_set *)set, name, length);
}
static inline ptrdiff_t criopin_match_index(uintptr_t set, const char *name, size_t length) {
	return crio_pin_match_index((const crio_pin_set *)set, name, length);
}
// Two names in one cgo call without packing them (an image pulled by tag
// and by digest, an artifact's two names): crio_pin_match_any answers as
// crio_pin_match of each.
static inline bool criopin_match_two(uintptr_t set, const char *a, size_t a_length, const char *b, size_t b_length) {
	return crio_pin_match((const crio_pin_set *)set, a, a_length) ||
	       crio_pin_match((const crio_pin_set *)set, b, b_length);
}
static inline bool criopin_match_any(uintptr_t set, const char *names, const size_t *lengths, size_t count) {
	return crio_pin_match_any((const crio_pin_set *)set, names, lengths, count);
}
static inline size_t criopin_match_each(uintptr_t set, const char *names, const size_t *lengths, size_t count,
		uint8_t *results) {
	return crio_pin_match_each((const crio_pin_set *)set, names, lengths, count, results);
}

// The matching functions keep no pointer to their arguments and never call
// back into Go: the compiler may leave the names on the stack, and the
// calls skip the preparations for callbacks.
#cgo noescape criopin_match
#cgo noescape criopin_match_index
#cgo noescape criopin_match_two
#cgo noescape criopin_match_any
#cgo noescape criopin_match_each
#cgo nocallback criopin_match
#cgo nocallback criopin_match_index
#cgo nocallback criopin_match_two
#cgo nocallback criopin_match_any
#cgo nocallback criopin_match_each
#cgo nocallback crio_pin_clone
#cgo nocallback crio_pin_free
// crio_pin_validate keeps nothing either (it writes *error_out and
// returns): its error pointer may stay on the stack.
#cgo noescape crio_pin_validate
#cgo nocallback crio_pin_validate
*/
import "C"

import (
	"sync"
	"unsafe"
)

// Backend names the matcher this binary has: "libcrio_pin" (the library,
// through cgo), "wasm2go" (build tag criopin_wasm, or cgo disabled: the
// library compiled to WebAssembly and translated to Go) or "wasm" (build
// tag criopin_wazero: the same module run by wazero).
const Backend = "libcrio_pin"

// The Go constants must equal the C ones (a compile error otherwise).
var (
	_ = [1]struct{}{}[AnchorGlobs^C.CRIO_PIN_ANCHOR_GLOBS]
	_ = [1]struct{}{}[CaseSensitive^C.CRIO_PIN_CASE_SENSITIVE]
	_ = [1]struct{}{}[Strict^C.CRIO_PIN_STRICT]
	_ = [1]struct{}{}[Default^C.CRIO_PIN_DEFAULT]
	_ = [1]struct{}{}[Literal^C.CRIO_PIN_LITERAL]
	_ = [1]struct{}{}[CriDockerdSyntax^C.CRIO_PIN_CRI_DOCKERD_SYNTAX]
	_ = [1]struct{}{}[Normalize^C.CRIO_PIN_NORMALIZE]
	_ = [1]struct{}{}[Containerd^C.CRIO_PIN_CONTAINERD]
	_ = [1]struct{}{}[ContainerdNormalized^C.CRIO_PIN_CONTAINERD_NORMALIZED]
	_ = [1]struct{}{}[CriDockerd^C.CRIO_PIN_CRI_DOCKERD]
	_ = [1]struct{}{}[KindConflictingFlags^C.CRIO_PIN_ERROR_CONFLICTING_FLAGS]
	_ = [1]struct{}{}[KindInvalidReference^C.CRIO_PIN_ERROR_INVALID_REFERENCE]
	_ = [1]struct{}{}[KindUnknownFlags^C.CRIO_PIN_ERROR_UNKNOWN_FLAGS]
	_ = [1]struct{}{}[KindInvalidUTF8^C.CRIO_PIN_ERROR_INVALID_UTF8]
	_ = [1]struct{}{}[KindLoneStar^C.CRIO_PIN_ERROR_LONE_STAR]
	_ = [1]struct{}{}[KindStrictEmpty^C.CRIO_PIN_ERROR_STRICT_EMPTY]
	_ = [1]struct{}{}[KindStrictWhitespace^C.CRIO_PIN_ERROR_STRICT_WHITESPACE]
	_ = [1]struct{}{}[KindStrictLeadingStar^C.CRIO_PIN_ERROR_STRICT_LEADING_STAR]
	_ = [1]struct{}{}[KindStrictInnerStar^C.CRIO_PIN_ERROR_STRICT_INNER_STAR]
	_ = [1]struct{}{}[KindTooLarge^C.CRIO_PIN_ERROR_TOO_LARGE]
	_ = [1]struct{}{}[KindInvalidArgument^C.CRIO_PIN_ERROR_INVALID_ARGUMENT]
	_ = [1]struct{}{}[KindInternal^C.CRIO_PIN_ERROR_INTERNAL]
	_ = [1]struct{}{}[-2-C.CRIO_PIN_MATCH_FAILED]
	_ = [1]struct{}{}[lengthNoMatch^C.CRIO_PIN_LENGTH_NO_MATCH]
	_ = [1]struct{}{}[lengthNoMatchIfASCII^C.CRIO_PIN_LENGTH_NO_MATCH_IF_ASCII]
	_ = [1]struct{}{}[lengthMayMatch^C.CRIO_PIN_LENGTH_MAY_MATCH]
)

// Engine says what runs the library: "libcrio_pin" (the library itself,
// through cgo); with the wasm backend, "wasm-compiler" or
// "wasm-interpreter".
func Engine() string { return Backend }

// Version is the version of the libcrio_pin linked in, "MAJOR.MINOR.PATCH".
func Version() string {
	return C.GoString(C.crio_pin_version())
}

// engine is one owner of a C set (one crio_pin_free owed); the zero engine
// is the NULL set, which the library treats as empty.
type engine struct {
	ptr      *C.crio_pin_set
	verdicts *lengthVerdicts // shared by clones; nil for the NULL set
}

// settled reports whether the set certainly does not pin name, from the
// library's length table alone (inlined into every matching call).
func (e engine) settled(name string) bool {
	if e.verdicts == nil {
		return e.ptr == nil
	}
	return e.verdicts.settles(name)
}

func (e engine) isZero() bool { return e.ptr == nil }

// handle is the set as the matching calls take it (C memory, no Go pointer).
func (e engine) handle() C.uintptr_t { return C.uintptr_t(uintptr(unsafe.Pointer(e.ptr))) }

func (e engine) free() { C.crio_pin_free(e.ptr) }

// clone adds an owner. The library returns NULL for a set only on an
// internal failure; an empty engine would then pin nothing, so it panics.
func (e engine) clone() engine {
	c := engine{C.crio_pin_clone(e.ptr), e.verdicts}
	if c.ptr == nil && e.ptr != nil {
		panic("criopin: internal error: libcrio_pin's crio_pin_clone could not add an owner")
	}
	return c
}

// compileEngine compiles with the library; flags are known bits.
func compileEngine(patterns []string, f Flag) (engine, *CompileError) {
	var p *C.crio_pin_set
	err := withPatterns(patterns, func(texts **C.char, lengths *C.size_t, count C.size_t) *CompileError {
		var cerr *C.crio_pin_error
		if p = C.crio_pin_compile(texts, lengths, count, C.uint32_t(f), &cerr); p != nil {
			return nil
		}
		return takeError(cerr, "the library returned no set and no error")
	})
	if p == nil {
		return engine{}, err
	}
	// On an internal failure the library fills the table with "ask":
	// nothing is settled in Go then.
	verdicts := new(lengthVerdicts)
	C.crio_pin_length_verdicts(p, (*C.uint8_t)(unsafe.Pointer(&verdicts[0])), verdictLengths-1)
	verdicts[verdictLengths-1] = lengthMayMatch
	return engine{p, verdicts}, err
}

// validateEngine checks with the library, building nothing; flags are
// known bits.
func validateEngine(patterns []string, f Flag) *CompileError {
	return withPatterns(patterns, func(texts **C.char, lengths *C.size_t, count C.size_t) *CompileError {
		var cerr *C.crio_pin_error
		if C.crio_pin_validate(texts, lengths, count, C.uint32_t(f), &cerr) {
			return nil
		}
		return takeError(cerr, "crio_pin_validate returned false and no error")
	})
}

// withPatterns calls call with patterns as the C API takes them: an array
// of pointers to the texts and their lengths. They are built, with the
// texts, in one block of C memory, freed when call returns (Go memory
// passed to C may hold no Go pointers). Compiling and validating are
// rare; matching copies nothing.
func withPatterns(patterns []string, call func(texts **C.char, lengths *C.size_t, count C.size_t) *CompileError) *CompileError {
	count := len(patterns)
	if count == 0 {
		return call(nil, nil, 0)
	}
	total := 0
	for _, p := range patterns {
		total += len(p)
	}
	const ptrSize = unsafe.Sizeof((*C.char)(nil))
	const lenSize = unsafe.Sizeof(C.size_t(0))
	block := C.malloc(C.size_t(uintptr(count)*(ptrSize+lenSize) + uintptr(total) + 1))
	if block == nil {
		return &CompileError{Kind: KindInternal, Index: -1, Message: "out of memory copying the patterns"}
	}
	defer C.free(block)
	// The pointer array is written as uintptrs: a store of a pointer type
	// into memory the compiler cannot see is not Go's would run the GC's
	// write barrier on the uninitialised old contents, which can look like
	// a Go pointer and corrupt the heap.
	ptrs := unsafe.Slice((*uintptr)(block), count)
	lens := unsafe.Slice((*C.size_t)(unsafe.Add(block, uintptr(count)*ptrSize)), count)
	data := unsafe.Slice((*byte)(unsafe.Add(block, uintptr(count)*(ptrSize+lenSize))), total+1)
	at := 0
	for i, p := range patterns {
		copy(data[at:], p)
		ptrs[i] = uintptr(unsafe.Pointer(&data[at])) // C memory: no GC pointer
		lens[i] = C.size_t(len(p))
		at += len(p)
	}
	return call((**C.char)(block), &lens[0], C.size_t(count))
}

// takeError converts the library's error (and frees it); none is a bug.
func takeError(cerr *C.crio_pin_error, none string) *CompileError {
	if cerr == nil {
		return &CompileError{Kind: KindInternal, Index: -1, Message: "internal error: " + none}
	}
	err := &CompileError{
		Kind:    ErrorKind(C.crio_pin_error_kind(cerr)),
		Index:   int(C.crio_pin_error_pattern_index(cerr)),
		Message: C.GoString(C.crio_pin_error_message(cerr)),
	}
	C.crio_pin_error_free(cerr)
	return err
}

// cstr is a string's bytes for C, without a copy: (NULL, 0) for "".
func cstr(s string) (*C.char, C.size_t) {
	if len(s) == 0 {
		return nil, 0
	}
	return (*C.char)(unsafe.Pointer(unsafe.StringData(s))), C.size_t(len(s))
}

// match is matchAny of one name: both Set.Match and Set.MatchAny reach the
// library through one Go call.
func (e engine) match(name string) bool {
	return e.matchAny([]string{name})
}

func (e engine) matchIndex(name string) int {
	if e.settled(name) {
		return -1
	}
	p, n := cstr(name)
	return indexResult(int64(C.criopin_match_index(e.handle(), p, n)))
}

// matchAny answers one name (most images: one stored name) in a small
// frame of its own; several in matchSeveral.
func (e engine) matchAny(names []string) bool {
	if len(names) != 1 {
		return e.matchSeveral(names)
	}
	if e.settled(names[0]) {
		return false
	}
	p, n := cstr(names[0])
	return bool(C.criopin_match(e.handle(), p, n))
}

func (e engine) matchSeveral(names []string) bool {
	// Only names the length table does not settle need the library; one
	// or two such names are asked without packing.
	unsettled, first, second := 0, "", ""
	for _, n := range names {
		if !e.settled(n) {
			unsettled++
			first, second = second, n
		}
	}
	switch unsettled {
	case 0:
		return false
	case 1:
		p, n := cstr(second)
		return bool(C.criopin_match(e.handle(), p, n))
	case 2:
		p, n := cstr(first)
		q, m := cstr(second)
		return bool(C.criopin_match_two(e.handle(), p, n, q, m))
	}
	// The names of one image fit on the stack (the C function keeps no
	// pointer: #cgo noescape); larger batches use a pooled buffer.
	if len(names) <= stackNames {
		var lens [stackNames]C.size_t
		total := 0
		for i, n := range names {
			lens[i] = C.size_t(len(n))
			total += len(n)
		}
		if total <= stackBytes {
			var buf [stackBytes]byte
			at := 0
			for _, n := range names {
				at += copy(buf[at:], n)
			}
			return bool(C.criopin_match_any(e.handle(), (*C.char)(unsafe.Pointer(&buf[0])), &lens[0], C.size_t(len(names))))
		}
	}
	sc := pack(names)
	r := C.criopin_match_any(e.handle(), sc.data(), sc.lengths(), C.size_t(len(names)))
	sc.put()
	return bool(r)
}

// Batches of at most stackNames names and stackBytes bytes are packed on
// the stack.
const (
	stackNames = 8
	stackBytes = 512
)

// matchEach writes into results (len(names) of them, at least one).
func (e engine) matchEach(results []bool, names []string) {
	sc := pack(names)
	r := C.criopin_match_each(e.handle(), sc.data(), sc.lengths(), C.size_t(len(names)),
		(*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(results))))
	sc.put()
	eachResult(uint64(r), len(names))
}

// scratch packs the names of a batch back to back, as the C API takes
// them. Pooled, so that batch calls allocate nothing in the steady state.
type scratch struct {
	buf  []byte
	lens []C.size_t
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// maxPooled is the largest buffer kept for reuse.
const maxPooled = 16 << 20

func pack(names []string) *scratch {
	sc := scratchPool.Get().(*scratch)
	total := 0
	for _, n := range names {
		total += len(n)
	}
	if cap(sc.buf) < total {
		sc.buf = make([]byte, 0, total+total/4)
	}
	if cap(sc.lens) < len(names) {
		sc.lens = make([]C.size_t, 0, len(names)+len(names)/4)
	}
	buf, lens := sc.buf[:0], sc.lens[:0]
	for _, n := range names {
		buf = append(buf, n...)
		lens = append(lens, C.size_t(len(n)))
	}
	sc.buf, sc.lens = buf, lens
	return sc
}

func (sc *scratch) data() *C.char {
	if len(sc.buf) == 0 {
		return nil
	}
	return (*C.char)(unsafe.Pointer(unsafe.SliceData(sc.buf)))
}

func (sc *scratch) lengths() *C.size_t {
	return unsafe.SliceData(sc.lens)
}

func (sc *scratch) put() {
	if cap(sc.buf) > maxPooled {
		sc.buf = nil
	}
	if cap(sc.lens) > maxPooled/8 {
		sc.lens = nil
	}
	scratchPool.Put(sc)
}
