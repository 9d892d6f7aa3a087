//go:build criopin_wazero && !criopin_wasm2go

package criopin

import (
	"context"
	_ "embed" // crio_pin.wasm
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"golang.org/x/sys/cpu"
)

// The module: the library compiled to WebAssembly, compiled once a process
// by wazero into the runtime every instance is made in.

//go:embed crio_pin.wasm
var wasmModule []byte

// ctx is the context of every call into the module: none is cancelled.
var ctx = context.Background()

// module is the process's one wazero runtime with the module compiled,
// done once, on the first use: to machine code where wazero has a compiler
// and the system allows executable memory (about a tenth of a second,
// docs/BENCHMARKS.md), else for wazero's interpreter (see engineEnv).
type module struct {
	compiled   wazero.CompiledModule
	runtime    wazero.Runtime
	version    string
	engine     string       // Engine's answer: engineCompiler or engineInterpreter
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
			why := "; this is a bug, please report it, and build with cgo and libcrio_pin meanwhile"
			if errors.Is(err, errCompilerRequired) {
				why = ": allow this process executable memory, leave " + engineEnv + " unset (wazero's " +
					"interpreter, slower), or build with cgo and libcrio_pin"
			}
			moduleFailed = &CompileError{Kind: KindInternal, Index: -1, Message: "the WebAssembly module " +
				"embedded in package criopin did not load (" + err.Error() + ")" + why}
		}
	})
	return loaded, moduleFailed
}

// engineEnv names the environment variable that says how wazero runs the
// module: "compiler" (machine code, made at the first use; where it cannot
// be made, the module does not load and every Compile says why),
// "interpreter" (no machine code and no executable memory, about 100 times
// slower a name: go/README.md has the figures). Unset or empty: the compiler where
// wazero has one for the platform and the system gives executable memory,
// otherwise the interpreter, with one line on stderr saying so. Read once,
// at the first use; Engine says which runs.
const engineEnv = "CRIOPIN_WASM_ENGINE"

// Engine's answers with the wasm backend.
const (
	engineCompiler    = "wasm-compiler"
	engineInterpreter = "wasm-interpreter"
)

// errCompilerRequired is the error of a module that CRIOPIN_WASM_ENGINE
// asked to compile and that could not be.
var errCompilerRequired = errors.New(engineEnv + "=compiler")

// engineWarning is the one line a process prints when the module runs in
// the interpreter without being asked to.
func engineWarning(why string) {
	fmt.Fprintf(os.Stderr, "criopin: %s; the WebAssembly module runs in wazero's interpreter, about 100 "+
		"times slower a name (criopin.Engine() = %q): allow this process executable memory, set %s=interpreter to "+
		"choose it, or build with cgo and libcrio_pin\n", why, engineInterpreter, engineEnv)
}

// compileModule compiles the module for the engine CRIOPIN_WASM_ENGINE
// asks for, through the compilation cache when CRIOPIN_WASM_CACHE names a
// safe directory (cache_wazero.go); a cache that fails is left out, with
// one line on stderr, and so is the compiler when it fails unasked.
func compileModule() (*module, error) {
	choice := os.Getenv(engineEnv)
	switch choice {
	case "", "compiler", "interpreter":
	default:
		fmt.Fprintf(os.Stderr, "criopin: %s=%s ignored: it is \"compiler\" or \"interpreter\"\n", engineEnv, choice)
		choice = ""
	}
	if choice == "interpreter" {
		return compileModuleWith(nil, wazero.NewRuntimeConfigInterpreter(), engineInterpreter)
	}
	if choice == "" && !compilerSupported() {
		engineWarning("wazero has no compiler for " + runtime.GOOS + "/" + runtime.GOARCH + " on this processor")
		return compileModuleWith(nil, wazero.NewRuntimeConfigInterpreter(), engineInterpreter)
	}
	m, err := compileToMachineCode()
	switch {
	case err == nil:
		return m, nil
	case choice == "compiler":
		return nil, fmt.Errorf("%w, and machine code could not be made: %v", errCompilerRequired, err)
	}
	engineWarning("machine code could not be made (" + err.Error() + ")")
	return compileModuleWith(nil, wazero.NewRuntimeConfigInterpreter(), engineInterpreter)
}

// compileToMachineCode compiles the module with wazero's compiler, through
// the cache if there is one and it works.
func compileToMachineCode() (*module, error) {
	if dir := os.Getenv(cacheEnv); dir != "" {
		if cache := openCache(dir); cache != nil {
			m, err := compileModuleWith(cache, wazero.NewRuntimeConfigCompiler(), engineCompiler)
			if err == nil {
				return m, nil
			}
			cache.close()
			cacheWarning(dir, "could not be used ("+err.Error()+")")
		}
	}
	return compileModuleWith(nil, wazero.NewRuntimeConfigCompiler(), engineCompiler)
}

// compilerSupported reports whether wazero v1.11 has a compiler here: the
// rule of its internal platform.CompilerSupports, which it applies to
// NewRuntimeConfig and which it does not export (asking for the compiler
// elsewhere panics). Revisit with each wazero version.
func compilerSupported() bool {
	switch runtime.GOOS {
	case "linux", "darwin", "freebsd", "netbsd", "windows":
		if runtime.GOARCH == "arm64" {
			return true
		}
	case "dragonfly", "solaris", "illumos":
	default:
		return false
	}
	return runtime.GOARCH == "amd64" && cpu.X86.HasSSE41
}

// compileModuleWith compiles the module in a new runtime with config and
// cache (nil: none), for engine, and starts its first instance. wazero's
// compiler panics where the system refuses executable memory (mprotect
// fails: seccomp, MemoryDenyWriteExecute, SELinux's execmem): that is an
// error here.
func compileModuleWith(cache *moduleCache, config wazero.RuntimeConfig, engine string) (m *module, err error) {
	if cache != nil {
		config = config.WithCompilationCache(cache.CompilationCache)
	}
	var r wazero.Runtime
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("wazero: %v", p)
		}
		if err != nil && r != nil {
			_ = r.Close(ctx)
		}
	}()
	r = wazero.NewRuntimeWithConfig(ctx, config)
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
	m = &module{compiled: compiled, runtime: r, engine: engine, cache: cache}
	first, err := m.instantiate()
	if err != nil {
		return nil, err
	}
	version, ok := first.call1(exportVersion)
	if !ok {
		return nil, errors.New("crio_pin_version trapped")
	}
	m.version = first.cString(uint32(version))
	m.validators = newPool(m, first, 0)
	return m, nil
}
