//go:build cgo && !criopin_wasm && !criopin_purego && !criopin_wazero && !criopin_wasm2go

package criopin

/*
#include <stdint.h>
#include <crio_pin.h>
*/
import "C"

// The tiers of the cgo backend: the library's crio_pin_tier and
// crio_pin_validate_tier (tier.go has the API).

var _ = [1]struct{}{}[TierExact^C.CRIO_PIN_TIER_EXACT]
var _ = [1]struct{}{}[TierDense^C.CRIO_PIN_TIER_DENSE]
var _ = [1]struct{}{}[TierSparse^C.CRIO_PIN_TIER_SPARSE]

// tier is the set's tier (the NULL set's, TierExact, for the zero engine);
// false on an internal failure.
func (e engine) tier() (Tier, bool) {
	t := C.crio_pin_tier(e.ptr)
	return Tier(t), t != 0
}

// validateTierEngine is ValidateTier's work on patterns with known flags.
func validateTierEngine(patterns []string, f Flag) (Tier, *CompileError) {
	var tier C.uint32_t
	err := withPatterns(patterns, func(texts **C.char, lengths *C.size_t, count C.size_t) *CompileError {
		var cerr *C.crio_pin_error
		if C.crio_pin_validate_tier(texts, lengths, count, C.uint32_t(f), &tier, &cerr) {
			return nil
		}
		return takeError(cerr, "crio_pin_validate_tier returned false and no error")
	})
	return Tier(tier), err
}
