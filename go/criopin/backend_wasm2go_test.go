//go:build criopin_wasm2go || ((!cgo || criopin_wasm || criopin_purego) && !criopin_wazero)

package criopin_test

const wantBackend = "wasm2go"

// wantEngine is what Engine must say: the translated module, whatever the
// system allows.
func wantEngine() string { return "wasm2go" }
