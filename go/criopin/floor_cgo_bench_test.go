//go:build cgo && !criopin_wasm && !criopin_purego && !criopin_wazero && !criopin_wasm2go

package criopin_test

import (
	"github.com/crio-pin/crio-pin/go/criopin"
	"github.com/crio-pin/crio-pin/go/internal/floor"
)

// BenchmarkFloor's parts with the cgo backend: the library's native answer
// and an empty cgo call (internal/floor).
const floorRun = "floor"

func floorParts(patterns []string, images [][]string, _ *criopin.Set) (*floor.Images, func(string), error) {
	native, err := floor.NewImages(patterns, images)
	return native, emptyCall(nil), err
}

// emptyCall is an empty cgo call (any set: the call reads none).
func emptyCall(*criopin.Set) func(string) { return floor.Empty }
