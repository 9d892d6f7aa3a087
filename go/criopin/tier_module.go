//go:build !cgo || criopin_wasm || criopin_purego || criopin_wazero || criopin_wasm2go

package criopin

import "encoding/binary"

// The tiers of the wasm backends: the module's crio_pin_tier and
// crio_pin_validate_tier, the library's own (tier.go has the API).

// tier is the set's tier (TierExact for the zero engine, the empty set);
// false when the module cannot answer.
func (e engine) tier() (Tier, bool) {
	if e.p == nil {
		return TierExact, true
	}
	s := e.p.get()
	if s == nil {
		return 0, false
	}
	if !s.in.has(exportTier) {
		e.p.put(s)
		return 0, false
	}
	r, ok := s.in.call1(exportTier, uint64(e.p.set))
	if !ok {
		e.p.discard(s)
		return 0, false
	}
	e.p.put(s)
	return Tier(uint32(r)), uint32(r) != 0
}

// validateTierEngine is ValidateTier's work on patterns with known flags,
// in an instance that holds no set (Validate's).
func validateTierEngine(patterns []string, f Flag) (Tier, *CompileError) {
	m, err := loadModule()
	if err != nil {
		return 0, err
	}
	s := m.validators.get()
	if s == nil {
		return 0, trapped("crio_pin_validate_tier")
	}
	t, err := s.in.validateTier(patterns, f)
	if err != nil && err.Kind == KindInternal {
		m.validators.discard(s)
		return 0, err
	}
	m.validators.put(s)
	return t, err
}

// validateTier runs crio_pin_validate_tier on patterns: the tier, or the
// library's error.
func (in *instance) validateTier(patterns []string, f Flag) (Tier, *CompileError) {
	fn := exportNames[exportValidateTier]
	if !in.has(exportValidateTier) {
		return 0, trapped(fn)
	}
	if !in.reserve(4) {
		return 0, trapped("crio_pin_wasm_alloc")
	}
	out := in.scratch
	block, size, ptrs, lens, errOut := in.patterns(patterns)
	if block == 0 {
		return 0, tooLargeForMemory()
	}
	r, ok := in.call1(exportValidateTier, uint64(ptrs), uint64(lens), uint64(len(patterns)), uint64(f), uint64(out), uint64(errOut))
	if !ok {
		return 0, trapped(fn)
	}
	cerr := binary.LittleEndian.Uint32(in.view(errOut, 4))
	tier := Tier(binary.LittleEndian.Uint32(in.view(out, 4)))
	if !in.free(block, size) {
		return 0, trapped("crio_pin_wasm_free")
	}
	if cerr != 0 {
		return 0, in.takeError(cerr)
	}
	if uint32(r) == 0 {
		return 0, &CompileError{Kind: KindInternal, Index: -1, Message: "internal error: " + fn +
			" returned false and no error"}
	}
	return tier, nil
}
