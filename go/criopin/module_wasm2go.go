//go:build criopin_wasm2go || ((!cgo || criopin_wasm || criopin_purego) && !criopin_wazero)

package criopin

import (
	"crypto/rand"
	"encoding/binary"
	"errors"
	"os"
	"sync"

	"github.com/crio-pin/crio-pin/go/internal/libcriopin"
)

// The module, as Go: package libcriopin is the library's WebAssembly
// module translated by wasm2go, compiled with the program. Starting it
// compiles nothing; the first use makes the first instance (a Go value and
// its linear memory, a byte slice) and reads the library's version.

// engineWasm2go is Engine's answer with this backend.
const engineWasm2go = "wasm2go"

// module is what the process holds of the library: its version, and the
// instances holding no set, for Validate.
type module struct {
	version    string
	engine     string // Engine's answer: engineWasm2go
	validators *pool
}

var (
	moduleOnce   sync.Once
	loaded       *module
	moduleFailed *CompileError
)

func loadModule() (*module, *CompileError) {
	moduleOnce.Do(func() {
		m := &module{engine: engineWasm2go}
		first, _ := m.instantiate()
		version, ok := first.call1(exportVersion)
		if !ok {
			moduleFailed = trapped("crio_pin_version")
			return
		}
		m.version = first.cString(uint32(version))
		m.validators = newPool(m, first, 0)
		loaded = m
	})
	return loaded, moduleFailed
}

// instantiate makes an instance: the module's memory laid out as the
// module declares it (its data copied in). It cannot fail; the error is
// the contract instance_module.go's copyOf shares with wazero.
func (m *module) instantiate() (*instance, error) {
	return &instance{vm: vm{m: libcriopin.New(new(wasi))}}, nil
}

// wasi is what an instance imports (wasi_snapshot_preview1): random_get
// seeds the exact table's hash (as std's RandomState does natively),
// fd_write carries a panic's message to stderr, proc_exit ends the call
// (a trap); the module reads no environment (an empty one) and opens no
// file.
type wasi struct {
	m *libcriopin.Module
}

// wasiBadFile is WASI's errno EBADF.
const wasiBadFile = 8

// errProcExit is the trap of a module calling proc_exit.
var errProcExit = errors.New("the module called proc_exit")

// Init is called by libcriopin.New with the new module: the imports read
// and write its memory.
func (w *wasi) Init(m any) { w.m = m.(*libcriopin.Module) }

func (w *wasi) mem() []byte { return *w.m.Slice() }

func (w *wasi) Xrandom_get(buf, size int32) int32 {
	_, _ = rand.Read(w.mem()[uint32(buf) : uint32(buf)+uint32(size)])
	return 0
}

func (w *wasi) Xenviron_sizes_get(count, size int32) int32 {
	mem := w.mem()
	binary.LittleEndian.PutUint32(mem[uint32(count):], 0)
	binary.LittleEndian.PutUint32(mem[uint32(size):], 0)
	return 0
}

func (w *wasi) Xenviron_get(_, _ int32) int32 { return 0 }

// Xfd_write writes the module's stdout and stderr (a panic's message) to
// the process's stderr, as the wazero backend configures it.
func (w *wasi) Xfd_write(fd, iovs, count, written int32) int32 {
	if fd != 1 && fd != 2 {
		return wasiBadFile
	}
	mem := w.mem()
	total := uint32(0)
	for i := range uint32(count) {
		at := uint32(iovs) + 8*i
		p, n := binary.LittleEndian.Uint32(mem[at:]), binary.LittleEndian.Uint32(mem[at+4:])
		_, _ = os.Stderr.Write(mem[p : p+n])
		total += n
	}
	binary.LittleEndian.PutUint32(mem[uint32(written):], total)
	return 0
}

func (w *wasi) Xproc_exit(int32) { panic(errProcExit) }
