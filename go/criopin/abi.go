package criopin

import (
	"encoding/binary"
	"strconv"
	"unsafe"
)

// What both backends share of libcrio_pin's C ABI (backend.go names them):
// the length table kept in Go and the checks of the failure values.

// verdictLengths bounds the lengths the table covers: image names are
// shorter; a longer name is asked of the library.
const verdictLengths = 512

// crio_pin_length_verdicts' values (backend_cgo.go checks them against
// the header).
const (
	lengthNoMatch        = 0 // CRIO_PIN_LENGTH_NO_MATCH
	lengthNoMatchIfASCII = 1 // CRIO_PIN_LENGTH_NO_MATCH_IF_ASCII
	lengthMayMatch       = 2 // CRIO_PIN_LENGTH_MAY_MATCH
)

// lengthVerdicts is what the library says of each name length alone
// (crio_pin_length_verdicts), kept beside a set and shared by its clones:
// a name it settles costs no call into the library. With CRI-O's default
// list, nearly every name. The last entry stands for its length and every
// longer one: "ask".
type lengthVerdicts [verdictLengths]byte

// settles reports whether the set certainly does not pin name, from the
// table alone. It is inlined into every matching call (a call of it cost
// 2-3 ns an image on the hand list): keep it, with isASCII, within the
// inliner's budget (go build -gcflags=-m).
func (v *lengthVerdicts) settles(name string) bool {
	verdict := v[min(len(name), verdictLengths-1)]
	return verdict != lengthMayMatch && (verdict == lengthNoMatch || isASCII(name))
}

// isASCII reads eight bytes at a time: at CRI-O's default list this test
// is the whole cost of most names. (No early exit: names are short, and
// non-ASCII ones rare.)
func isASCII(s string) bool {
	var high uint64
	for ; len(s) >= 8; s = s[8:] {
		high |= binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(s), 8)) // read only
	}
	for i := range len(s) {
		high |= uint64(s[i])
	}
	return high&0x8080_8080_8080_8080 == 0
}

// On a failure (an internal bug: this package passes only valid
// arguments) the library answers "pinned" from crio_pin_match and
// crio_pin_match_any, which is what they return here too, and a distinct
// value from crio_pin_match_index and crio_pin_match_each, which panic
// here: an index cannot be made up, and a failure must not pass quietly.

// indexResult checks crio_pin_match_index's answer.
func indexResult(r int64) int {
	if r < -1 {
		panic(internalError("crio_pin_match_index", strconv.FormatInt(r, 10)))
	}
	return int(r)
}

// eachResult checks crio_pin_match_each's answer (the count pinned).
func eachResult(r uint64, count int) {
	if r > uint64(count) {
		panic(internalError("crio_pin_match_each", strconv.FormatUint(r, 10)))
	}
}

func internalError(fn, got string) string {
	return "criopin: internal error: libcrio_pin's " + fn + " could not answer (returned " + got +
		"); this is a bug in libcrio_pin or package criopin, please report it"
}
