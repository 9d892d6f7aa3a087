//go:build !cgo || criopin_wasm || criopin_purego || criopin_wazero || criopin_wasm2go

package criopin

// The fingerprints of the wasm backends: the module's crio_pin_fingerprint
// and crio_pin_list_fingerprint, the library's own (fingerprint.go has the
// API). Nothing here hashes: a module built before those exports existed
// answers no fingerprint, and a reload then compiles, as before them.

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
