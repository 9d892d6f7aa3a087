//go:build unix

package criopin_test

import (
	"syscall"
	"time"
)

// processCPU is the CPU time the process has used, user and system, all
// threads: beside the wall clock, what a parallel benchmark's work cost
// whether or not the machine had a free core for each goroutine.
func processCPU() time.Duration {
	var u syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &u) != nil {
		return 0
	}
	return time.Duration(u.Utime.Nano() + u.Stime.Nano())
}
