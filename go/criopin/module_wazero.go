//go:build !cgo || criopin_purego

package criopin

import (
	"context"
	_ "embed" // crio_pin.wasm
	"errors"
	"os"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// The module: the library compiled to WebAssembly, compiled once a process
// by wazero into the runtime every instance is made in.

//go:embed crio_pin.wasm
var wasmModule []byte

// ctx is the context of every call into the module: none is cancelled.
var ctx = context.Background()

// module is the process's one wazero runtime with the module compiled to
// machine code (on amd64 and arm64; interpreted elsewhere), done once, on
// the first use: about a tenth of a second (docs/BENCHMARKS.md).
type module struct {
	compiled   wazero.CompiledModule
	runtime    wazero.Runtime
	version    string
	validators *pool        // instances holding no set, for Validate
	cache      *moduleCache // nil without CRIOPIN_WASM_CACHE
}

var (
	moduleOnce   sync.Once
	loaded       *module
	moduleFailed *CompileError
)

func loadModule() (*module, *CompileError) {
	moduleOnce.Do(func() {
		var err error
		if loaded, err = compileModule(); err != nil {
			moduleFailed = &CompileError{Kind: KindInternal, Index: -1, Message: "the WebAssembly module " +
				"embedded in package criopin did not load (" + err.Error() + "); this is a bug, please report " +
				"it, and build with cgo and libcrio_pin meanwhile"}
		}
	})
	return loaded, moduleFailed
}

// compileModule compiles the module, through the compilation cache when
// CRIOPIN_WASM_CACHE names a safe directory (cache_wazero.go); a cache
// that fails is left out, with one line on stderr.
func compileModule() (*module, error) {
	if dir := os.Getenv(cacheEnv); dir != "" {
		if cache := openCache(dir); cache != nil {
			m, err := compileModuleWith(cache)
			if err == nil {
				return m, nil
			}
			cache.close()
			cacheWarning(dir, "could not be used ("+err.Error()+")")
		}
	}
	return compileModuleWith(nil)
}

// compileModuleWith compiles the module in a new runtime with cache (nil:
// none) and starts its first instance.
func compileModuleWith(cache *moduleCache) (m *module, err error) {
	config := wazero.NewRuntimeConfig()
	if cache != nil {
		config = config.WithCompilationCache(cache.CompilationCache)
	}
	r := wazero.NewRuntimeWithConfig(ctx, config)
	defer func() {
		if err != nil {
			_ = r.Close(ctx)
		}
	}()
	// The module's imports: random_get seeds the exact table's hash (as
	// std's RandomState does natively), fd_write carries a panic's message
	// to stderr; it reads no environment and opens no file.
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, r); err != nil {
		return nil, err
	}
	compiled, err := r.CompileModule(ctx, wasmModule)
	if err != nil {
		return nil, err
	}
	m = &module{compiled: compiled, runtime: r, cache: cache}
	first, err := m.instantiate()
	if err != nil {
		return nil, err
	}
	version, ok := first.call1(first.version)
	if !ok {
		return nil, errors.New("crio_pin_version trapped")
	}
	m.version = first.cString(uint32(version))
	m.validators = newPool(m, first, 0)
	return m, nil
}
