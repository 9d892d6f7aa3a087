package criopin

import "encoding/hex"

// Fingerprint names one list of patterns under one set of flags: the
// SHA-256 digest of the list's bytes and flags, the same in every process,
// on every machine, with either backend and in every version of the
// library. A reload compares the new list's ([ListFingerprint]) with the
// current set's ([Set.Fingerprint]) to keep the set when nothing changed
// ([Live.ReloadIfChanged] does), and a daemon logs it to say which list it
// serves.
//
// Equal fingerprints mean the same patterns, byte for byte and in the
// same order, under the same flags; lists written differently ("quay.io/*"
// and "QUAY.IO/*", another order) have different ones, even where they pin
// the same images. The library computes it (crio_pin_fingerprint and
// crio_pin_list_fingerprint of its C ABI), and defines it so that any
// implementation can reproduce it: docs/c.md, "Fingerprints", in the
// repository.
type Fingerprint [32]byte

// String is the fingerprint's text: "sha256:" and 64 lower-case
// hexadecimal digits, as the library's Rust and C users write it.
func (f Fingerprint) String() string {
	return "sha256:" + hex.EncodeToString(f[:])
}

// Fingerprint returns the fingerprint of the list s was compiled from, its
// patterns in order and its flags (computed by the library as it compiled
// them: a copy). A nil or zero Set is the empty list under [Default].
//
// It panics, as [Set.MatchIndex] does, when the library cannot answer (an
// internal failure: none is known), or on a closed Set.
func (s *Set) Fingerprint() Fingerprint {
	return fingerprintOf(s.acquire("Fingerprint"))
}

// fingerprintOf is Fingerprint for Set and Live: the fingerprint of a, an
// acquired set (nil: the empty set), which it releases.
func fingerprintOf(a *Set) Fingerprint {
	f, ok := a.matcher().fingerprint()
	a.release()
	if !ok {
		panic(internalError("crio_pin_fingerprint", "false"))
	}
	return f
}

// ListFingerprint returns the fingerprint of patterns under the flags or-ed
// together: that of the Set [Compile] would make of them, without
// compiling or validating them (the library hashes their bytes in one
// pass; the patterns are copied to it as for Compile). Unknown flags are
// part of it as given: a list that does not compile has a fingerprint no
// Set has.
//
// The error, a *[CompileError], is for a list the library does not take
// at all, past the limits of a Set (then it is the error [Compile] gives
// for the list: such a list has no Set to compare with), or an internal
// failure; the Fingerprint is then zero: do not compare it.
//
// Ownership: none; safe from any number of goroutines.
func ListFingerprint(patterns []string, flags ...Flag) (Fingerprint, error) {
	var f Flag
	for _, flag := range flags {
		f |= flag
	}
	fp, err := listFingerprint(patterns, f)
	if err != nil {
		return Fingerprint{}, blame(err, patterns)
	}
	return fp, nil
}

// noFingerprint is why the library's function fn wrote no fingerprint for
// patterns: the error Compile gives for the list (it refuses only lists
// that do not compile), or, when there is none, an internal failure.
func noFingerprint(patterns []string, f Flag, fn string) *CompileError {
	err := unknownFlagsError(f)
	if err == nil {
		err = validateEngine(patterns, f)
	}
	if err != nil {
		return err
	}
	return &CompileError{Kind: KindInternal, Index: -1, Message: "internal error: libcrio_pin's " + fn +
		" could not answer; this is a bug in libcrio_pin or package criopin, please report it"}
}
