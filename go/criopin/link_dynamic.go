//go:build cgo && !criopin_wasm && !criopin_purego && !criopin_wazero && !criopin_wasm2go && !criopin_static

package criopin

// Links libcrio_pin.so: the program needs it at run time (found through
// the loader's path, e.g. an install under /usr/lib or LD_LIBRARY_PATH).
// Build with -tags criopin_static to link libcrio_pin.a instead.

// #cgo pkg-config: crio_pin
import "C"
