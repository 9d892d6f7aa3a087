//go:build criopin_wazero && !criopin_wasm2go

package criopin

import (
	"crypto/rand"
	"errors"
	"os"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
)

// vm is an instance of the module in wazero (instance_module.go says what
// it gives).
type vm struct {
	mod api.Module
	mem api.Memory
	fns [exportCount]api.Function // looked up once: a lookup allocates; nil: not exported
}

func (m *module) instantiate() (*instance, error) {
	config := wazero.NewModuleConfig().WithName("").WithStartFunctions().
		WithRandSource(rand.Reader).WithStderr(os.Stderr)
	mod, err := m.runtime.InstantiateModule(instanceContext, m.compiled, config)
	if err != nil {
		return nil, err
	}
	in := &instance{vm: vm{mod: mod, mem: mod.Memory()}}
	for f, name := range exportNames {
		in.fns[f] = mod.ExportedFunction(name)
	}
	return in, nil
}

func (v *vm) call(f export, stack []uint64) bool {
	return v.fns[f].CallWithStack(ctx, stack) == nil
}

func (v *vm) has(f export) bool { return v.fns[f] != nil }

func (v *vm) memory() []byte {
	b, _ := v.mem.Read(0, v.mem.Size())
	return b
}

func (v *vm) copyMemory(src *vm) error {
	size := src.mem.Size()
	if grow := (size - v.mem.Size()) / 65536; grow > 0 {
		if _, ok := v.mem.Grow(grow); !ok {
			return errors.New("cannot grow a copy's memory")
		}
	}
	copy(v.memory(), src.memory())
	return nil
}

// reserveMemory does nothing: wazero's memory grows as its runtime
// decides (api.Memory reserves nothing).
func (v *vm) reserveMemory(uint64) {}

func (v *vm) close() { _ = v.mod.Close(ctx) }

func (v *vm) closed() bool { return v.mod.IsClosed() }
