//go:build cgo && !criopin_wasm && !criopin_purego && !criopin_wazero && !criopin_wasm2go

package criopin_test

import (
	"math"
	"strings"
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
)

const wantBackend = "libcrio_pin"

// wantEngine is what Engine must say: the library itself.
func wantEngine() string { return "libcrio_pin" }

// TestFailureValuesPanic: the library's failure values (it cannot answer:
// an internal bug) must not read as "not pinned" or as an index.
func TestFailureValuesPanic(t *testing.T) {
	for name, call := range map[string]func(){
		"crio_pin_match_index": func() { criopin.IndexResult(-2) },
		"crio_pin_match_each":  func() { criopin.EachResult(math.MaxUint64, 3) },
	} {
		got, _ := panicOf(call).(string)
		if !strings.HasPrefix(got, "criopin: internal error: libcrio_pin's "+name+" could not answer") {
			t.Errorf("%s failure: panic %q", name, got)
		}
	}
	if criopin.IndexResult(-1) != -1 || criopin.IndexResult(7) != 7 {
		t.Error("IndexResult changes a valid answer")
	}
	if panicOf(func() { criopin.EachResult(3, 3) }) != nil {
		t.Error("EachResult panics on a valid answer")
	}
}
