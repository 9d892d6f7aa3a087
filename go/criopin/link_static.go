//go:build cgo && !criopin_wasm && !criopin_purego && !criopin_wazero && !criopin_wasm2go && criopin_static

package criopin

// With -tags criopin_static, links libcrio_pin.a: the program needs no
// libcrio_pin.so at run time, whether the rest of it is dynamic or fully
// static (-extldflags -static, as CRI-O's release builds).
//
// -l:libcrio_pin.a names the archive itself (GNU ld looks it up in the -L
// directories pkg-config gives, whatever their order). It does not toggle
// -Bstatic/-Bdynamic, which would switch dynamic lookup back on in a
// -static link ("attempted static link of dynamic object"). `pkg-config
// --static` adds the system libraries the Rust archive needs
// (Libs.private); its own -lcrio_pin comes after the archive, which has
// resolved every crio_pin_* symbol by then, so --as-needed keeps
// libcrio_pin.so out of a dynamic program's dependencies.

// #cgo LDFLAGS: -Wl,--as-needed -l:libcrio_pin.a
// #cgo pkg-config: --static crio_pin
import "C"
