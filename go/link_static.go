//go:build criopin_static

package criopin

// With -tags criopin_static, links libcrio_pin.a: the program needs no
// libcrio_pin.so at run time. `pkg-config --static` adds the system
// libraries the Rust archive needs (Libs.private).
//
// pkg-config's -lcrio_pin would pick the .so when both are installed, so
// the archive is linked explicitly first (-Bstatic ... -Bdynamic; GNU ld
// applies every -L to every -l, whatever the order), and --as-needed keeps
// the later -lcrio_pin, whose symbols are all resolved by then, out of the
// program's dependencies.

// #cgo LDFLAGS: -Wl,-Bstatic -lcrio_pin -Wl,-Bdynamic -Wl,--as-needed
// #cgo pkg-config: --static crio_pin
import "C"
