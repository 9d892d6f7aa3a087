package criopin_test

import (
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
)

// TestBackend: the build tags select the backend they say
// (backend_cgo_test.go and backend_purego_test.go say which).
func TestBackend(t *testing.T) {
	if criopin.Backend != wantBackend {
		t.Fatalf("Backend = %q, this build should have %q", criopin.Backend, wantBackend)
	}
	t.Logf("backend %s, rules of libcrio_pin %s", criopin.Backend, criopin.Version())
}
