//go:build criopin_wazero && !criopin_wasm2go

package criopin_test

import (
	"os"

	"github.com/crio-pin/crio-pin/go/criopin"
)

const wantBackend = "wasm"

// wantEngine is what Engine must say: the interpreter when
// CRIOPIN_WASM_ENGINE asks for it or wazero has no compiler here, the
// compiler otherwise (the tests run where executable memory is allowed;
// engine_test.go denies it).
func wantEngine() string {
	if os.Getenv("CRIOPIN_WASM_ENGINE") == "interpreter" || !criopin.CompilerSupported() {
		return "wasm-interpreter"
	}
	return "wasm-compiler"
}
