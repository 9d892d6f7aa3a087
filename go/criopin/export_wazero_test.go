//go:build !cgo || criopin_wasm || criopin_purego

package criopin

// EmptyCall is the floor of a matching call into s's module instance
// (BenchmarkFloor): an instance taken from the pool, name copied in,
// crio_pin_match on the empty set (which reads nothing), the instance
// returned.
func EmptyCall(s *Set, name string) {
	slot := s.eng.p.get()
	in := slot.in
	in.put(name)
	in.call(in.match, 0, uint64(in.scratch), uint64(len(name)))
	s.eng.p.put(slot)
}

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
