//go:build criopin_wasm2go

package criopin_test

const wantBackend = "wasm2go"

// wantEngine is what Engine must say: the translated module, whatever the
// system allows.
func wantEngine() string { return "wasm2go" }
