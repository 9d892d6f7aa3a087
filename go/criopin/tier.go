package criopin

import "strconv"

// Tier says which structure of the library answers for a set's glob and
// keyword patterns, and so what matching a name may cost. Every list
// within the limits of a Set compiles, whatever its size: one too large
// for the fast tier's table gets the second tier, never an error. (The
// repository's docs/reliability.md, "Tiers", argues each tier's cost.)
type Tier int

const (
	// TierExact: no glob or keyword, only exact names (one probe of a
	// hash table a name, whatever their number).
	TierExact Tier = 1
	// TierDense: the fast tier, a dense table of at most 128 MiB: one
	// table entry read a byte of the name.
	TierDense Tier = 2
	// TierSparse: the second tier, for glob and keyword lists past the
	// dense table: at most 2 states visited a byte of the name (3 with
	// [AnchorGlobs]), each a few memory reads; bounded by the name's
	// length too, but slower than the dense tier. Fewer or shorter globs
	// and keywords (or exact names) bring a list back to the fast tier.
	TierSparse Tier = 3
)

// String is the tier's name: "exact", "dense" or "sparse".
func (t Tier) String() string {
	switch t {
	case TierExact:
		return "exact"
	case TierDense:
		return "dense"
	case TierSparse:
		return "sparse"
	}
	return "Tier(" + strconv.Itoa(int(t)) + ")"
}

// Tier returns the tier the library compiled s into (the library's
// crio_pin_tier). A nil or zero Set is [TierExact], the empty set. It
// panics, as [Set.MatchIndex] does, when the library cannot answer (an
// internal failure: none is known), or on a closed Set.
func (s *Set) Tier() Tier {
	a := s.acquire("Tier")
	t, ok := a.matcher().tier()
	a.release()
	if !ok {
		panic(internalError("crio_pin_tier", "0"))
	}
	return t
}

// ValidateTier is [Validate] that also says which tier the Set [Compile]
// would make of patterns gets (the library's crio_pin_validate_tier): the
// tier and nil, or 0 and exactly the error Validate returns. Cost,
// ownership and concurrency: as Validate's, and a sort of the glob and
// keyword patterns' text to size their automaton.
func ValidateTier(patterns []string, flags ...Flag) (Tier, error) {
	var f Flag
	for _, flag := range flags {
		f |= flag
	}
	if err := unknownFlagsError(f); err != nil {
		return 0, err
	}
	t, err := validateTierEngine(patterns, f)
	if err != nil {
		return 0, blame(err, patterns)
	}
	return t, nil
}
