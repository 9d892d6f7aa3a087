//go:build cgo && !criopin_wasm && !criopin_purego && !criopin_wazero && !criopin_wasm2go && criopin_static

package floor

// As package criopin links it (criopin/link_static.go).

// #cgo LDFLAGS: -Wl,--as-needed -l:libcrio_pin.a
// #cgo pkg-config: --static crio_pin
import "C"
