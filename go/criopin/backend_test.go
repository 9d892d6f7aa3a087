package criopin_test

import (
	"errors"
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
)

// TestBackend: the build tags select the backend they say, and Engine
// says what runs it (backend_cgo_test.go and backend_wazero_test.go say
// which).
func TestBackend(t *testing.T) {
	if criopin.Backend != wantBackend {
		t.Fatalf("Backend = %q, this build should have %q", criopin.Backend, wantBackend)
	}
	if got := criopin.Engine(); got != wantEngine() {
		t.Fatalf("Engine() = %q, want %q", got, wantEngine())
	}
	t.Logf("backend %s, engine %s, rules of libcrio_pin %s", criopin.Backend, criopin.Engine(), criopin.Version())
}

// TestRuntimeRules: the other runtimes' flag sets, with either backend
// (the library's rules are tested against each runtime's reference in
// tests/dialects.rs; TestSemanticsTable and TestDifferential compare the
// backends).
func TestRuntimeRules(t *testing.T) {
	for _, c := range []struct {
		flags   criopin.Flag
		pattern string
		name    string
		pinned  bool
	}{
		{criopin.Crio, "nginx", "docker.io/library/nginx:latest", false},
		{criopin.Containerd, "nginx", "docker.io/library/nginx:latest", false},
		{criopin.Containerd, "quay.io/*", "quay.io/*", true},
		{criopin.ContainerdNormalized, "nginx", "docker.io/library/nginx:latest", true},
		{criopin.CriDockerd, "nginx", "nginx:1.27", true},
		{criopin.CriDockerd, "quay.io/*", "mirror/quay.io/x:1", false},
		{criopin.Crio | criopin.Normalize, "NGINX:1", "docker.io/library/nginx:1", false},
	} {
		set, err := criopin.Compile([]string{c.pattern}, c.flags)
		if c.flags&criopin.Normalize != 0 && c.pattern == "NGINX:1" {
			if !errors.Is(err, criopin.ErrInvalidReference) {
				t.Errorf("%v %q: got %v, want ErrInvalidReference", c.flags, c.pattern, err)
			}
			continue
		}
		if err != nil {
			t.Fatalf("%v %q: %v", c.flags, c.pattern, err)
		}
		if got := set.Match(c.name); got != c.pinned {
			t.Errorf("%v: %q pins %q: %v, want %v", c.flags, c.pattern, c.name, got, c.pinned)
		}
		set.Close()
	}
	_, err := criopin.Compile([]string{"x"}, criopin.Literal|criopin.CriDockerdSyntax)
	if !errors.Is(err, criopin.ErrConflictingFlags) {
		t.Errorf("Literal|CriDockerdSyntax: got %v, want ErrConflictingFlags", err)
	}
}

// SetMaxConcurrentCalls returns the setting it replaces, 0 for the
// default, and takes n <= 0 as the default, with either backend.
func TestSetMaxConcurrentCalls(t *testing.T) {
	defer criopin.SetMaxConcurrentCalls(criopin.SetMaxConcurrentCalls(3))
	for _, c := range []struct{ set, previous int }{{5, 3}, {-1, 5}, {2, 0}, {0, 2}, {0, 0}} {
		if got := criopin.SetMaxConcurrentCalls(c.set); got != c.previous {
			t.Fatalf("SetMaxConcurrentCalls(%d) returned %d, want %d", c.set, got, c.previous)
		}
	}
}
