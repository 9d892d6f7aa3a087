//go:build criopin_wazero && !criopin_wasm2go && !(linux && (amd64 || arm64 || ppc64le || riscv64 || s390x || loong64))

package criopin

// instanceContext is what instances are created with: here wazero's own
// memory, a Go slice (memory_mapped.go reserves address space instead on
// 64-bit Linux).
var instanceContext = ctx
