//go:build !cgo || criopin_wasm || criopin_purego || criopin_wazero || criopin_wasm2go

package criopin

import (
	"crypto/sha256"
	"encoding/binary"
)

// The fingerprints of the wasm backends: the module's crio_pin_fingerprint
// and crio_pin_list_fingerprint, the library's own (fingerprint.go has the
// API). A module built before those exports existed answers no
// fingerprint, and a reload then compiles, as before them. Only a compile
// hashes here (hashList): the module stores the fingerprint it is given.

// fingerprint is the set's fingerprint (the empty list's for the zero
// engine, the empty set); false when the module cannot answer.
func (e engine) fingerprint() (Fingerprint, bool) {
	if e.p == nil {
		f, err := listFingerprint(nil, Default)
		return f, err == nil
	}
	s := e.p.get()
	if s == nil {
		return Fingerprint{}, false
	}
	in := s.in
	if !in.has(exportFingerprint) || !in.reserve(uint32(len(Fingerprint{}))) {
		e.p.put(s)
		return Fingerprint{}, false
	}
	if !in.call(exportFingerprint, uint64(e.p.set), uint64(in.scratch)) {
		e.p.discard(s)
		return Fingerprint{}, false
	}
	f, ok := in.fingerprintAt(in.scratch)
	e.p.put(s)
	return f, ok
}

// fingerprintAt reads the fingerprint the last call wrote at p, if it
// returned true.
func (in *instance) fingerprintAt(p uint32) (Fingerprint, bool) {
	var f Fingerprint
	if uint32(in.stack[0]) == 0 {
		return f, false
	}
	copy(f[:], in.view(p, uint32(len(f))))
	return f, true
}

// listFingerprint is the fingerprint of patterns under f, any bits, asked
// of an instance that holds no set (Validate's).
func listFingerprint(patterns []string, f Flag) (Fingerprint, *CompileError) {
	fn := exportNames[exportListFingerprint]
	m, err := loadModule()
	if err != nil {
		return Fingerprint{}, err
	}
	s := m.validators.get()
	if s == nil {
		return Fingerprint{}, trapped(fn)
	}
	in := s.in
	if !in.has(exportListFingerprint) {
		m.validators.put(s)
		return Fingerprint{}, &CompileError{Kind: KindInternal, Index: -1, Message: "the WebAssembly module " +
			"embedded in package criopin has no " + fn + ": it was built from an older library than this " +
			"package's source (run make wasm); this is a bug, please report it"}
	}
	if !in.reserve(uint32(len(Fingerprint{}))) {
		m.validators.put(s)
		return Fingerprint{}, trapped("crio_pin_wasm_alloc")
	}
	out := in.scratch
	block, size, ptrs, lens, _ := in.patterns(patterns)
	if block == 0 { // (Validate, in noFingerprint, says why.)
		m.validators.put(s)
		return Fingerprint{}, noFingerprint(patterns, f, fn)
	}
	if !in.call(exportListFingerprint, uint64(ptrs), uint64(lens), uint64(len(patterns)), uint64(f), uint64(out)) {
		m.validators.discard(s)
		return Fingerprint{}, trapped(fn)
	}
	fp, ok := in.fingerprintAt(out)
	if !in.free(block, size) {
		m.validators.discard(s)
		return Fingerprint{}, trapped("crio_pin_wasm_free")
	}
	m.validators.put(s)
	if !ok {
		return Fingerprint{}, noFingerprint(patterns, f, fn)
	}
	return fp, nil
}

// listDomain starts the bytes a list's fingerprint hashes.
const listDomain = "crio-pin list fingerprint v1\n"

// hashBuffer is how many bytes hashList gathers before hashing them.
const hashBuffer = 32 << 10

// hashList is the fingerprint of patterns under f, as the library defines
// it (src/fingerprint.rs, "Definition"): the SHA-256 digest of the domain
// string, f's bits (32 bits, little-endian), each pattern's length (64
// bits) then its bytes, and their count (64 bits). What a compile hands
// the module (crio_pin_wasm_compile_fingerprinted): Go's SHA-256 runs on
// the machine's SHA instructions where it has them, the module's in its
// own code, which took 44% of compiling the OpenShift-shaped list with
// wasm2go. TestSetFingerprintIsItsLists holds the two to one value.
func hashList(patterns []string, f Flag) Fingerprint {
	h := sha256.New()
	size := len(listDomain) + 12
	for _, p := range patterns {
		if size += 8 + len(p); size >= hashBuffer {
			break
		}
	}
	buf := make([]byte, 0, min(size, hashBuffer))
	buf = binary.LittleEndian.AppendUint32(append(buf, listDomain...), uint32(f))
	for _, p := range patterns {
		buf = append(binary.LittleEndian.AppendUint64(buf, uint64(len(p))), p...)
		if len(buf) >= hashBuffer {
			h.Write(buf)
			buf = buf[:0]
		}
	}
	h.Write(binary.LittleEndian.AppendUint64(buf, uint64(len(patterns))))
	var fp Fingerprint
	h.Sum(fp[:0])
	return fp
}
