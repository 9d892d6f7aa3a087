//go:build cgo && !criopin_purego && !criopin_static

package floor

// #cgo pkg-config: crio_pin
import "C"
