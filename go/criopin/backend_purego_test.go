//go:build !cgo || criopin_purego

package criopin_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
)

const wantBackend = "go-regexp"

// TestRuntimeRulesRefused: this backend has CRI-O's rules only, and says
// so rather than read a list by other rules.
func TestRuntimeRulesRefused(t *testing.T) {
	for _, f := range []criopin.Flag{criopin.Containerd, criopin.ContainerdNormalized, criopin.CriDockerd, criopin.Normalize} {
		_, err := criopin.Compile([]string{"nginx"}, f)
		if !errors.Is(err, criopin.ErrUnknownFlags) || !strings.Contains(err.Error(), "CRI-O's rules only") {
			t.Errorf("%v: got %v, want the backend's refusal", f, err)
		}
		if err := criopin.Validate([]string{"nginx"}, f); !errors.Is(err, criopin.ErrUnknownFlags) {
			t.Errorf("Validate %v: got %v, want the backend's refusal", f, err)
		}
	}
}
