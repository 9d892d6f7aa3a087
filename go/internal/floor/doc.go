// Package floor measures, for the Go benchmarks (make bench-go), what a
// call through cgo cannot go below: an empty C call made as package criopin
// makes its calls, and the library's own answer for each image called from
// C, with no Go in between. It exists only with the library (cgo, without
// criopin_wasm, criopin_wazero or criopin_wasm2go).
package floor
