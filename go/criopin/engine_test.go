//go:build criopin_wazero && !criopin_wasm2go && linux

package criopin_test

// Which engine runs the module (module_wazero.go): where the system
// refuses executable memory the module runs in wazero's interpreter and
// one line says so, or, with CRIOPIN_WASM_ENGINE=compiler, does not load
// and Compile says why; CRIOPIN_WASM_ENGINE=interpreter picks it without a
// word. Executable memory is refused for real, with Linux's
// PR_SET_MDWE (memory-deny-write-execute, as systemd's
// MemoryDenyWriteExecute), in a process of its own.

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
	"golang.org/x/sys/unix"
)

const (
	engineHelperEnv = "CRIOPIN_TEST_ENGINE_HELPER"
	denyExecEnv     = "CRIOPIN_TEST_DENY_EXEC"
)

// TestEngineHelperProcess is the started process: it refuses itself
// executable memory when asked, compiles a list and prints the engine
// and whether the answers are right, or the compile's error.
func TestEngineHelperProcess(t *testing.T) {
	if os.Getenv(engineHelperEnv) != "1" {
		t.Skip("run by the engine tests in a process of their own")
	}
	if os.Getenv(denyExecEnv) == "1" {
		if err := unix.Prctl(unix.PR_SET_MDWE, unix.PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0); err != nil {
			os.Stdout.WriteString("engine helper: no PR_SET_MDWE: " + err.Error() + "\n")
			return
		}
	}
	s, err := criopin.Compile([]string{"registry.k8s.io/pause:3.10", "quay.io/openshift/*", "*etcd*"})
	if err != nil {
		var cerr *criopin.CompileError
		if errors.As(err, &cerr) && cerr.Kind == criopin.KindInternal {
			os.Stdout.WriteString("engine helper: internal error: " + cerr.Message + "\n")
		}
		return
	}
	defer s.Close()
	if s.Match("registry.k8s.io/pause:3.10") && s.MatchIndex("quay.io/coreos/etcd:3") == 2 &&
		!s.MatchAny("docker.io/nginx:1", "ghcr.io/x/y:2") {
		os.Stdout.WriteString("engine helper: " + criopin.Engine() + " answers right\n")
	}
}

func startEngineHelper(t *testing.T, env ...string) (stdout, stderr string) {
	t.Helper()
	stdout, stderr, err := startHelper("TestEngineHelperProcess", append(env, engineHelperEnv+"=1")...)
	if err != nil {
		t.Fatalf("the helper failed (%v):\n%s%s", err, stdout, stderr)
	}
	if strings.Contains(stdout, "no PR_SET_MDWE") {
		t.Skipf("this kernel cannot refuse executable memory to a process (Linux 6.3+): %s", stdout)
	}
	return stdout, stderr
}

func TestEngine(t *testing.T) {
	for _, c := range []struct {
		name, env string
		denyExec  bool
		// what the process must print and its stderr must say ("": nothing)
		stdout, stderr string
	}{
		{"default", "", false, "engine helper: " + wantEngineUnset() + " answers right", ""},
		{"interpreter asked", "interpreter", false, "engine helper: wasm-interpreter answers right", ""},
		{"unknown value", "jit", false, "engine helper: " + wantEngineUnset() + " answers right",
			"CRIOPIN_WASM_ENGINE=jit ignored"},
		{"executable memory refused", "", true, "engine helper: wasm-interpreter answers right",
			"machine code could not be made"},
		{"executable memory refused, interpreter asked", "interpreter", true,
			"engine helper: wasm-interpreter answers right", ""},
		{"executable memory refused, compiler required", "compiler", true,
			"engine helper: internal error: the WebAssembly module embedded in package criopin did not load " +
				"(CRIOPIN_WASM_ENGINE=compiler, and machine code could not be made", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.denyExec && !criopin.CompilerSupported() {
				t.Skip("wazero has no compiler here: no executable memory to refuse")
			}
			env := []string{"CRIOPIN_WASM_ENGINE=" + c.env, "CRIOPIN_WASM_CACHE="}
			if c.denyExec {
				env = append(env, denyExecEnv+"=1")
			}
			stdout, stderr := startEngineHelper(t, env...)
			if !strings.Contains(stdout, c.stdout) {
				t.Fatalf("stdout %q, want %q", stdout, c.stdout)
			}
			if c.stderr == "" && stderr != "" || c.stderr != "" && (strings.Count(stderr, "\n") != 1 ||
				!strings.Contains(stderr, c.stderr)) {
				t.Fatalf("stderr %q, want %s", stderr, map[bool]string{true: "nothing", false: "one line: " + c.stderr}[c.stderr == ""])
			}
		})
	}
}

// wantEngineUnset is the engine with CRIOPIN_WASM_ENGINE unset where
// executable memory is allowed.
func wantEngineUnset() string {
	if criopin.CompilerSupported() {
		return "wasm-compiler"
	}
	return "wasm-interpreter"
}
