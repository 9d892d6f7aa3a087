//go:build criopin_wasm2go || ((!cgo || criopin_wasm || criopin_purego) && !criopin_wazero)

package criopin

// The backend without cgo by default (CGO_ENABLED=0, or the build tag
// criopin_wasm, or criopin_purego, its former name; criopin_wasm2go names
// it too), with no WebAssembly runtime: the library
// built for WebAssembly without SIMD and translated to Go source by
// wasm2go (go/internal/libcriopin, made by `make wasm`), compiled by the
// Go compiler with the program. Nothing is compiled at start and no
// executable memory is needed: an instance is a Go value, its linear
// memory a byte slice. module_wasm2go.go starts it, instance_wasm2go.go
// gives an instance to what it shares with the wazero backend:
// backend_module.go (the engine of the backend contract), pool_module.go
// (a set's instances) and instance_module.go (the calls through the C
// ABI).

// Backend names the matcher this binary has: "wasm2go" (build tag
// criopin_wasm, or cgo disabled: the library compiled to WebAssembly and
// translated to Go), "wasm" (build tag criopin_wazero: the same module
// run by wazero) or "libcrio_pin" (the library, through cgo).
const Backend = "wasm2go"
