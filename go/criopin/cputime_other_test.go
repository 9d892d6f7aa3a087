//go:build !unix

package criopin_test

import "time"

// processCPU: not measured here (0: the benchmark reports no cpu-ns/op).
func processCPU() time.Duration { return 0 }
