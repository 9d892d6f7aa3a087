package criopin

// The backend contract, stated once: what each backend gives the rest of
// the package. Build tags pick one: backend_cgo.go (libcrio_pin through
// cgo; its linking directives in link_dynamic.go and link_static.go),
// backend_wasm2go.go (libcrio_pin compiled to WebAssembly and translated
// to Go: the default without cgo) or backend_wazero.go (the same module
// run by wazero). What all share of the library's C ABI (the length table, the checks of
// its failure values) is in abi.go. The declarations below make the
// compiler check, in every build, that its backend provides:
//
//   - Backend, the constant naming it, Version, the library's version,
//     and Engine, what runs the library;
//   - compileEngine, validateEngine and validateTierEngine, the work of
//     Compile, Validate and ValidateTier on patterns with known flags
//     only, with the library's error;
//   - engine, one owner of a compiled set (the zero engine is the empty
//     set), with backendEngine's methods.

// backendEngine is what a backend's engine does. Only the package's Set
// calls it, after the checks that no call starts on a freed engine.
type backendEngine interface {
	isZero() bool             // the empty set
	free()                    // drops this owner; the last frees the set
	clone() engine            // another owner of the same compiled set
	settled(name string) bool // the length table alone says name is not pinned
	match(name string) bool
	matchIndex(name string) int
	matchAny(names []string) bool
	matchEach(results []bool, names []string) // len(results) == len(names) > 0
	tier() (Tier, bool)                       // the library's crio_pin_tier; false: it failed
	fingerprint() (Fingerprint, bool)         // the library's crio_pin_fingerprint; false: it failed
}

var (
	_ backendEngine                                = engine{}
	_ func([]string, Flag) (engine, *CompileError) = compileEngine
	_ func([]string, Flag) *CompileError           = validateEngine
	_ func([]string, Flag) (Tier, *CompileError)   = validateTierEngine
	_ func() string                                = Version
	_ func() string                                = Engine
	_ string                                       = Backend
)
