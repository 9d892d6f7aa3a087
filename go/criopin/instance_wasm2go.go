//go:build criopin_wasm2go || ((!cgo || criopin_wasm || criopin_purego) && !criopin_wazero)

package criopin

import (
	"fmt"
	"os"

	"github.com/crio-pin/crio-pin/go/internal/libcriopin"
)

// vm is an instance of the module as Go (instance_module.go says what it
// gives): a trap is a panic in the translated code (a bounds check on the
// memory, `unreachable` after the library's panic, proc_exit), recovered
// here and said on stderr.
type vm struct {
	m *libcriopin.Module // nil once closed
}

// maxMemoryBytes is the most memory a wasm32 module addresses (4 GiB).
const maxMemoryBytes = 1 << 32

// i32 is a call's argument as the translated code takes it.
func i32(v uint64) int32 { return int32(uint32(v)) }

// ret is a result as the stack holds it (wazero's convention: the 32 bits,
// zero-extended).
func ret(v int32) uint64 { return uint64(uint32(v)) }

func (v *vm) call(f export, s []uint64) (ok bool) {
	defer func() {
		if p := recover(); p != nil {
			fmt.Fprintf(os.Stderr, "criopin: libcrio_pin's %s trapped in the module translated to Go: %v\n",
				exportNames[f], p)
			ok = false
		}
	}()
	m := v.m
	switch f {
	case exportMatch:
		s[0] = ret(m.Xcrio_pin_match(i32(s[0]), i32(s[1]), i32(s[2])))
	case exportMatchAny:
		s[0] = ret(m.Xcrio_pin_match_any(i32(s[0]), i32(s[1]), i32(s[2]), i32(s[3])))
	case exportMatchIndex:
		s[0] = ret(m.Xcrio_pin_match_index(i32(s[0]), i32(s[1]), i32(s[2])))
	case exportMatchEach:
		s[0] = ret(m.Xcrio_pin_match_each(i32(s[0]), i32(s[1]), i32(s[2]), i32(s[3]), i32(s[4])))
	case exportLengthVerdicts:
		s[0] = ret(m.Xcrio_pin_length_verdicts(i32(s[0]), i32(s[1]), i32(s[2])))
	case exportCompile:
		s[0] = ret(m.Xcrio_pin_compile(i32(s[0]), i32(s[1]), i32(s[2]), i32(s[3]), i32(s[4])))
	case exportCompileFingerprinted:
		s[0] = ret(m.Xcrio_pin_wasm_compile_fingerprinted(i32(s[0]), i32(s[1]), i32(s[2]), i32(s[3]), i32(s[4]), i32(s[5])))
	case exportValidate:
		s[0] = ret(m.Xcrio_pin_validate(i32(s[0]), i32(s[1]), i32(s[2]), i32(s[3]), i32(s[4])))
	case exportValidateTier:
		s[0] = ret(m.Xcrio_pin_validate_tier(i32(s[0]), i32(s[1]), i32(s[2]), i32(s[3]), i32(s[4]), i32(s[5])))
	case exportTier:
		s[0] = ret(m.Xcrio_pin_tier(i32(s[0])))
	case exportFingerprint:
		s[0] = ret(m.Xcrio_pin_fingerprint(i32(s[0]), i32(s[1])))
	case exportListFingerprint:
		s[0] = ret(m.Xcrio_pin_list_fingerprint(i32(s[0]), i32(s[1]), i32(s[2]), i32(s[3]), i32(s[4])))
	case exportVersion:
		s[0] = ret(m.Xcrio_pin_version())
	case exportAlloc:
		s[0] = ret(m.Xcrio_pin_wasm_alloc(i32(s[0])))
	case exportFree:
		m.Xcrio_pin_wasm_free(i32(s[0]), i32(s[1]))
	case exportSetFree:
		m.Xcrio_pin_free(i32(s[0]))
	case exportErrorKind:
		s[0] = ret(m.Xcrio_pin_error_kind(i32(s[0])))
	case exportErrorIndex:
		s[0] = ret(m.Xcrio_pin_error_pattern_index(i32(s[0])))
	case exportErrorMessage:
		s[0] = ret(m.Xcrio_pin_error_message(i32(s[0])))
	case exportErrorFree:
		m.Xcrio_pin_error_free(i32(s[0]))
	default:
		panic("criopin: internal error: no such export")
	}
	return true
}

// has is true of every export: the translated module has them all, or the
// package would not build.
func (v *vm) has(export) bool { return true }

func (v *vm) memory() []byte { return *v.m.Slice() }

func (v *vm) copyMemory(src *vm) error {
	mem := v.m.Slice()
	*mem = append((*mem)[:0], *src.m.Slice()...)
	return nil
}

// reserveMemory makes room for the memory to grow by bytes without a
// copy: the translated memory.grow appends to the slice, which past its
// capacity copies the whole memory (a compile of the OpenShift-shaped
// list grew it about 14 times, 75 MB copied for 23 MB of memory, a sixth
// of the compile's time); within it, it only clears the new pages.
//
// Only past the memory's own size: a smaller growth copies it a few
// times at most, less than the reserve's own copy into new pages (which
// took a fresh process's first Compile of the hand list from 0.35 to
// 1.5 ms).
func (v *vm) reserveMemory(bytes uint64) {
	mem := v.m.Slice()
	if bytes <= uint64(len(*mem)) || bytes <= uint64(cap(*mem)-len(*mem)) {
		return
	}
	if room := uint64(maxMemoryBytes - len(*mem)); bytes > room {
		bytes = room
	}
	// (make, not slices.Grow, which clears the room it adds: a new
	// allocation's pages come from the system zeroed, and are touched only
	// as the memory grows into them.)
	grown := make([]byte, len(*mem), uint64(len(*mem))+bytes)
	copy(grown, *mem)
	*mem = grown
}

func (v *vm) close() { v.m = nil }

func (v *vm) closed() bool { return v.m == nil }
