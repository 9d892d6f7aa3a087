//go:build cgo && !criopin_wasm && !criopin_purego && !criopin_wazero && !criopin_wasm2go && !criopin_static

package floor

// #cgo pkg-config: crio_pin
import "C"
