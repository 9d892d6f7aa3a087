//go:build criopin_wazero && !criopin_wasm2go

package criopin

// The backend of the build tag criopin_wazero: the library itself,
// compiled to WebAssembly (crio_pin.wasm, built by `make wasm` from the
// same source as libcrio_pin), run by wazero, a WebAssembly runtime written in Go. One
// file a concept: module_wazero.go the module, compiled once a process;
// instance_wazero.go an instance in wazero; what the wasm2go backend
// shares with it, backend_module.go (the engine of the backend contract),
// pool_module.go (a set's instances) and instance_module.go (the calls
// through the C ABI). cache_wazero.go is the compilation cache, memory_*.go
// an instance's memory.

// Backend names the matcher this binary has: "wasm" (build tag
// criopin_wazero: the library compiled to WebAssembly, run by wazero),
// "wasm2go" (build tag criopin_wasm, or cgo disabled: the same module
// translated to Go) or "libcrio_pin" (the library, through cgo).
const Backend = "wasm"
