//go:build criopin_wazero && !criopin_wasm2go

package criopin

// CompileModule compiles the embedded module afresh, as the first use in
// a process does (BenchmarkModuleCompile), and closes it.
func CompileModule() error {
	m, err := compileModule()
	if err != nil {
		return err
	}
	err = m.runtime.Close(ctx)
	if m.cache != nil {
		m.cache.close()
	}
	return err
}

// SetAfterCacheCheck runs f between the check of CRIOPIN_WASM_CACHE and
// the module's compile through it (a process's first use).
func SetAfterCacheCheck(f func()) { afterCacheCheck = f }

// CompilerSupported reports whether wazero has a compiler on this platform.
func CompilerSupported() bool { return compilerSupported() }
