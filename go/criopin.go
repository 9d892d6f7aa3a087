package criopin

/*
#include <stdlib.h>
#include <crio_pin.h>

// The matching functions keep no pointer to their arguments and never call
// back into Go: the compiler may leave the names on the stack, and the
// calls skip the preparations for callbacks.
#cgo noescape crio_pin_match
#cgo noescape crio_pin_match_index
#cgo noescape crio_pin_match_any
#cgo noescape crio_pin_match_each
#cgo nocallback crio_pin_match
#cgo nocallback crio_pin_match_index
#cgo nocallback crio_pin_match_any
#cgo nocallback crio_pin_match_each
#cgo nocallback crio_pin_len
#cgo nocallback crio_pin_clone
#cgo nocallback crio_pin_free
*/
import "C"

import (
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"
)

// The linking directives (#cgo pkg-config) live in link_dynamic.go and
// link_static.go, chosen by the criopin_static build tag.

// Flag selects a departure from CRI-O's semantics. Flags are or-ed
// together; [Default] (0) is CRI-O exactly. They mirror the C constants
// CRIO_PIN_*.
type Flag uint32

const (
	// Default reproduces CRI-O exactly, quirks included: globs match
	// anywhere in the name and comparison is case-insensitive.
	Default Flag = 0
	// AnchorGlobs makes a glob "prefix*" match only names that start with
	// prefix (what CRI-O's documentation describes).
	AnchorGlobs Flag = 1
	// CaseSensitive turns case folding off: letters must match in case
	// exactly (names still decode as Go does: each invalid UTF-8 byte reads
	// as U+FFFD).
	CaseSensitive Flag = 2
	// Strict rejects likely mistakes: the empty pattern, a literal '*'
	// (any '*' but a trailing one or the leading one of "*word*"), and
	// whitespace or control characters.
	Strict Flag = 4
)

// The Go constants must equal the C ones (a compile error otherwise).
var (
	_ = [1]struct{}{}[AnchorGlobs^C.CRIO_PIN_ANCHOR_GLOBS]
	_ = [1]struct{}{}[CaseSensitive^C.CRIO_PIN_CASE_SENSITIVE]
	_ = [1]struct{}{}[Strict^C.CRIO_PIN_STRICT]
	_ = [1]struct{}{}[Default^C.CRIO_PIN_DEFAULT]
)

// String names the flags set in f, such as "AnchorGlobs|Strict".
func (f Flag) String() string {
	if f == Default {
		return "Default"
	}
	var names []string
	for _, known := range []struct {
		flag Flag
		name string
	}{{AnchorGlobs, "AnchorGlobs"}, {CaseSensitive, "CaseSensitive"}, {Strict, "Strict"}} {
		if f&known.flag != 0 {
			names = append(names, known.name)
			f &^= known.flag
		}
	}
	if f != 0 {
		names = append(names, "Flag(0x"+hex(uint64(f))+")")
	}
	return strings.Join(names, "|")
}

func hex(v uint64) string {
	const digits = "0123456789abcdef"
	if v == 0 {
		return "0"
	}
	var buf [16]byte
	i := len(buf)
	for v > 0 {
		i--
		buf[i] = digits[v&15]
		v >>= 4
	}
	return string(buf[i:])
}

// Version is the version of the libcrio_pin linked in, "MAJOR.MINOR.PATCH".
func Version() string {
	return C.GoString(C.crio_pin_version())
}

// CompileError is the error of [Compile]: the library's message, which
// names the pattern, says what is wrong with it and what to write instead,
// and the offending pattern's index. Use [errors.As] to get it:
//
//	var cerr *criopin.CompileError
//	if errors.As(err, &cerr) && cerr.Index >= 0 {
//		log.Printf("pinned_images[%d] = %q is invalid", cerr.Index, cerr.Pattern)
//	}
type CompileError struct {
	// Index is the index of the offending pattern in the list, or -1 when
	// no single pattern is to blame (unknown flags).
	Index int
	// Pattern is the offending pattern (patterns[Index]), or "" when
	// Index is -1.
	Pattern string
	// Message is the library's message, for example
	// `pattern 3 ("*"): a lone '*' is not a valid pattern (it crashes
	// CRI-O); write "**" to pin every image`.
	Message string
}

// Error returns "criopin: " followed by the library's message.
func (e *CompileError) Error() string {
	return "criopin: " + e.Message
}

// liveSets counts the C sets this package owns and has not freed yet
// (tests check that Close, Live and cleanups free every one).
var liveSets atomic.Int64

// closedBit marks a closed Set in Set.state; the bits below count the
// calls in progress.
const closedBit = 1 << 63

// Set is a compiled, immutable list of pinned-image patterns. Any number
// of goroutines may match on one Set at once.
//
// A Set owns C memory: call [Set.Close] when done with it. Close is
// idempotent and safe while other goroutines still match on the Set: the
// calls in progress finish on the intact set, the memory is freed when the
// last of them returns, and every call that starts after Close sees an
// empty set (Match false, MatchIndex -1, Len 0). A Set that becomes
// unreachable without Close is freed by a cleanup, as a backup only.
//
// A nil *Set and the zero Set are empty sets. A Set must not be copied.
// To replace a Set that other goroutines are using, use [Live], never Close
// and reassign a shared variable.
type Set struct {
	// state is closedBit | the number of calls using ptr. Once closedBit
	// is set no new call may start (a call that sees it undoes its
	// increment), and whoever brings the count to zero (Close or the last
	// call) frees ptr; freed makes that happen once.
	state   atomic.Uint64
	freed   atomic.Bool
	ptr     *C.crio_pin_set // immutable after construction
	n       int             // number of patterns
	cleanup runtime.Cleanup
}

func freeCSet(p *C.crio_pin_set) {
	C.crio_pin_free(p)
	liveSets.Add(-1)
}

// newSet takes ownership of p (one crio_pin_free owed).
func newSet(p *C.crio_pin_set) *Set {
	s := &Set{ptr: p, n: int(C.crio_pin_len(p))}
	liveSets.Add(1)
	s.cleanup = runtime.AddCleanup(s, freeCSet, p)
	return s
}

// acquire registers a call that uses s.ptr; false once s is closed (or for
// a nil s).
func (s *Set) acquire() bool {
	if s == nil {
		return false
	}
	if s.state.Add(1)&closedBit == 0 {
		return true
	}
	// Closed: undo. The count may reach zero here too (the set already
	// freed, or this undo came last): destroy frees at most once.
	s.release()
	return false
}

// release ends a call registered by acquire.
func (s *Set) release() {
	if s.state.Add(^uint64(0)) == closedBit {
		s.destroy()
	}
}

// destroy frees the C set, once: when s is closed and no call uses it.
func (s *Set) destroy() {
	if s.ptr == nil || !s.freed.CompareAndSwap(false, true) {
		return
	}
	s.cleanup.Stop()
	freeCSet(s.ptr)
	runtime.KeepAlive(s)
}

// Close releases the set's C memory. It is idempotent and safe to call
// while other goroutines match on s (see [Set]); afterwards s is an empty
// set. It always returns nil.
func (s *Set) Close() error {
	if s == nil {
		return nil
	}
	for {
		old := s.state.Load()
		if old&closedBit != 0 {
			return nil
		}
		if s.state.CompareAndSwap(old, old|closedBit) {
			if old == 0 {
				s.destroy()
			}
			return nil
		}
	}
}

// Compile compiles patterns, CRI-O `pinned_images` entries, into a Set.
// The flags are or-ed together; none means CRI-O's semantics exactly.
//
// Patterns are compared with image names as CRI-O compares them:
//
//   - "*word*" (a keyword) pins names containing word; "**" pins every name.
//   - "prefix*" (a glob) pins names containing prefix anywhere (CRI-O does
//     not anchor globs; [AnchorGlobs] does).
//   - Anything else pins the name equal to it; a '*' elsewhere is a
//     literal character ("*pause" and "a*b" are exact patterns).
//   - Comparison is case-insensitive with Go's Unicode simple folding,
//     like regexp's (?i), unless [CaseSensitive].
//
// The lone pattern "*" (which makes CRI-O panic) and a pattern that is not
// valid UTF-8 (which makes CRI-O's regexp.MustCompile panic) are errors,
// as are, with [Strict], likely mistakes. The error is a *[CompileError].
// An empty list compiles to a set that pins nothing.
func Compile(patterns []string, flags ...Flag) (*Set, error) {
	var f Flag
	for _, flag := range flags {
		f |= flag
	}
	count := len(patterns)
	total := 0
	for _, p := range patterns {
		total += len(p)
	}
	// The C API takes an array of pointers: build it, and the pattern
	// bytes, in C memory (Go memory passed to C may hold no Go pointers).
	// Compiling is rare; matching copies nothing.
	var texts **C.char
	var lengths *C.size_t
	if count > 0 {
		const ptrSize = unsafe.Sizeof((*C.char)(nil))
		const lenSize = unsafe.Sizeof(C.size_t(0))
		block := C.malloc(C.size_t(uintptr(count)*(ptrSize+lenSize) + uintptr(total) + 1))
		if block == nil {
			return nil, &CompileError{Index: -1, Message: "out of memory copying the patterns"}
		}
		defer C.free(block)
		// The pointer array is written as uintptrs: a store of a pointer
		// type into memory the compiler cannot see is not Go's would run
		// the GC's write barrier on the uninitialised old contents, which
		// can look like a Go pointer and corrupt the heap.
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
		texts = (**C.char)(block)
		lengths = &lens[0]
	}
	var cerr *C.crio_pin_error
	p := C.crio_pin_compile(texts, lengths, C.size_t(count), C.uint32_t(f), &cerr)
	if p == nil {
		err := &CompileError{Index: -1, Message: "unknown error (the library returned no message)"}
		if cerr != nil {
			err.Message = C.GoString(C.crio_pin_error_message(cerr))
			err.Index = int(C.crio_pin_error_pattern_index(cerr))
			C.crio_pin_error_free(cerr)
		}
		if err.Index >= 0 && err.Index < count {
			err.Pattern = patterns[err.Index]
		} else {
			err.Index = -1
		}
		return nil, err
	}
	return newSet(p), nil
}

// MustCompile is like [Compile] but panics on error, as CRI-O's
// regexp.MustCompile does. For patterns known at build time.
func MustCompile(patterns []string, flags ...Flag) *Set {
	s, err := Compile(patterns, flags...)
	if err != nil {
		panic(err)
	}
	return s
}

// cstr is a string's bytes for C, without a copy: (NULL, 0) for "".
func cstr(s string) (*C.char, C.size_t) {
	if len(s) == 0 {
		return nil, 0
	}
	return (*C.char)(unsafe.Pointer(unsafe.StringData(s))), C.size_t(len(s))
}

// Match reports whether name is pinned: whether any pattern matches it.
// It allocates nothing and does not copy name.
func (s *Set) Match(name string) bool {
	if !s.acquire() {
		return false
	}
	r := s.matchAcquired(name)
	s.release()
	return r
}

// MatchIndex returns the index of the first pattern that matches name (the
// first regexp in CRI-O's loop that would match), or -1 when none does.
// It allocates nothing and does not copy name.
func (s *Set) MatchIndex(name string) int {
	if !s.acquire() {
		return -1
	}
	r := s.matchIndexAcquired(name)
	s.release()
	return r
}

// MatchAny reports whether any of names is pinned, in one call into the
// library: pass all the names of one image (its tags and digests), as
// CRI-O's loop over FilterPinnedImage does. It allocates nothing in the
// steady state.
func (s *Set) MatchAny(names []string) bool {
	if !s.acquire() {
		return false
	}
	r := s.matchAnyAcquired(names)
	s.release()
	return r
}

// MatchEach reports for each name whether it is pinned, in one call into
// the library (a whole image listing at once). It allocates the result
// only; see [Set.AppendEach] to reuse a slice.
func (s *Set) MatchEach(names []string) []bool {
	return s.AppendEach(make([]bool, 0, len(names)), names)
}

// AppendEach appends to dst, for each name, whether it is pinned, and
// returns the extended slice, like [Set.MatchEach]. It allocates nothing
// when dst has room for len(names) more results.
func (s *Set) AppendEach(dst []bool, names []string) []bool {
	start := len(dst)
	dst = grow(dst, len(names))
	if !s.acquire() {
		return dst
	}
	s.matchEachAcquired(dst[start:], names)
	s.release()
	return dst
}

// The calls proper, on a set acquired by the caller (who releases it).
// runtime.KeepAlive(s) after each C call: s (and its cleanup) must outlive
// the use of s.ptr.

func (s *Set) matchAcquired(name string) bool {
	p, n := cstr(name)
	r := C.crio_pin_match(s.ptr, p, n)
	runtime.KeepAlive(s)
	return bool(r)
}

func (s *Set) matchIndexAcquired(name string) int {
	p, n := cstr(name)
	r := C.crio_pin_match_index(s.ptr, p, n)
	runtime.KeepAlive(s)
	return int(r)
}

func (s *Set) matchAnyAcquired(names []string) bool {
	if len(names) == 0 {
		return false
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
			r := C.crio_pin_match_any(s.ptr, (*C.char)(unsafe.Pointer(&buf[0])), &lens[0], C.size_t(len(names)))
			runtime.KeepAlive(s)
			return bool(r)
		}
	}
	sc := pack(names)
	r := C.crio_pin_match_any(s.ptr, sc.data(), sc.lengths(), C.size_t(len(names)))
	runtime.KeepAlive(s)
	sc.put()
	return bool(r)
}

// Batches of at most stackNames names and stackBytes bytes are packed on
// the stack.
const (
	stackNames = 8
	stackBytes = 512
)

// matchEachAcquired writes into results (len(names) of them).
func (s *Set) matchEachAcquired(results []bool, names []string) {
	if len(names) == 0 {
		return
	}
	sc := pack(names)
	C.crio_pin_match_each(s.ptr, sc.data(), sc.lengths(), C.size_t(len(names)),
		(*C.uint8_t)(unsafe.Pointer(unsafe.SliceData(results))))
	runtime.KeepAlive(s)
	runtime.KeepAlive(results)
	sc.put()
}

// grow extends dst by n false values.
func grow(dst []bool, n int) []bool {
	if n <= cap(dst)-len(dst) {
		dst = dst[:len(dst)+n]
		clear(dst[len(dst)-n:])
		return dst
	}
	return append(dst, make([]bool, n)...)
}

// Len returns the number of patterns the set was compiled from, duplicates
// included; 0 once closed.
func (s *Set) Len() int {
	if !s.acquire() {
		return 0
	}
	n := s.n
	s.release()
	return n
}

// cloneAcquired returns a new Set owning another reference to the same C
// set (crio_pin_clone). The caller holds a call on s (acquire), so s is
// not freed meanwhile even if it is being closed.
func (s *Set) cloneAcquired() *Set {
	p := C.crio_pin_clone(s.ptr)
	runtime.KeepAlive(s)
	c := &Set{ptr: p, n: s.n}
	liveSets.Add(1)
	c.cleanup = runtime.AddCleanup(c, freeCSet, p)
	return c
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
