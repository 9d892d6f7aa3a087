//go:build cgo && !criopin_purego

package criopin_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
)

const wantBackend = "libcrio_pin"

// TestFailureValuesPanic: the library's failure values (it cannot answer:
// an internal bug) must not read as "not pinned" or as an index.
func TestFailureValuesPanic(t *testing.T) {
	for name, call := range map[string]func(){
		"crio_pin_match_index": func() { criopin.IndexResult(-2) },
		"crio_pin_match_each":  func() { criopin.EachResult(math.MaxUint64, 3) },
	} {
		got, _ := panicOf(call).(string)
		if !strings.HasPrefix(got, "criopin: internal error: libcrio_pin's "+name+" could not answer") {
			t.Errorf("%s failure: panic %q", name, got)
		}
	}
	if criopin.IndexResult(-1) != -1 || criopin.IndexResult(7) != 7 {
		t.Error("IndexResult changes a valid answer")
	}
	if panicOf(func() { criopin.EachResult(3, 3) }) != nil {
		t.Error("EachResult panics on a valid answer")
	}
}

// TestRuntimeRules: the other runtimes' flag sets reach the library (their
// rules are tested there against each runtime's reference: tests/dialects.rs).
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
