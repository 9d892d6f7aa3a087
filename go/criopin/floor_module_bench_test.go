//go:build !cgo || criopin_wasm || criopin_purego || criopin_wazero || criopin_wasm2go

package criopin_test

import (
	"github.com/crio-pin/crio-pin/go/criopin"
)

// BenchmarkFloor's parts with a wasm backend: no native answer to call
// (the module's answer is only reached through its engine), and an empty
// call into the set's module instance.
const floorRun = criopin.Backend

// nativeImages has floor.Images' methods; never made here.
type nativeImages interface {
	Match(from, count int) int
	Close()
}

func floorParts(_ []string, _ [][]string, set *criopin.Set) (nativeImages, func(string), error) {
	return nil, emptyCall(set), nil
}

// emptyCall is an empty call into set's module instance (criopin.EmptyCall).
func emptyCall(set *criopin.Set) func(string) {
	return func(name string) { criopin.EmptyCall(set, name) }
}
