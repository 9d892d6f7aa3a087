//go:build cgo && !criopin_wasm && !criopin_purego && !criopin_wazero && !criopin_wasm2go

package criopin

/*
#include <stdint.h>
#include <crio_pin.h>
*/
import "C"

import "unsafe"

// The fingerprints of the cgo backend: the library's crio_pin_fingerprint
// and crio_pin_list_fingerprint (fingerprint.go has the API).

var _ = [1]struct{}{}[len(Fingerprint{})-C.CRIO_PIN_FINGERPRINT_BYTES]

// fingerprint is the set's fingerprint (the NULL set's, the empty list's,
// for the zero engine); false on an internal failure.
func (e engine) fingerprint() (Fingerprint, bool) {
	var f Fingerprint
	ok := C.crio_pin_fingerprint(e.ptr, (*C.uint8_t)(unsafe.Pointer(&f[0])))
	return f, bool(ok)
}

// listFingerprint is the fingerprint of patterns under f, any bits.
func listFingerprint(patterns []string, f Flag) (Fingerprint, *CompileError) {
	var fp Fingerprint
	var ok C.bool
	err := withPatterns(patterns, func(texts **C.char, lengths *C.size_t, count C.size_t) *CompileError {
		ok = C.crio_pin_list_fingerprint(texts, lengths, count, C.uint32_t(f), (*C.uint8_t)(unsafe.Pointer(&fp[0])))
		return nil
	})
	if err != nil {
		return Fingerprint{}, err
	}
	if !ok {
		return Fingerprint{}, noFingerprint(patterns, f, "crio_pin_list_fingerprint")
	}
	return fp, nil
}
