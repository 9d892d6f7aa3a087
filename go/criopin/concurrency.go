package criopin

import (
	"runtime"
	"sync/atomic"
)

// maxCalls is the setting of SetMaxConcurrentCalls; 0 is the default.
var maxCalls atomic.Int64

// defaultMaxCalls is the most concurrent calls on one Set by default: one
// copy of the list whatever GOMAXPROCS. Measured with the wasm backend on
// 20,000 digests at GOMAXPROCS 16 on a shared 2-vCPU VM (go/README.md,
// "The wasm backend"), 1 to 16 callers cost the same CPU a call with one
// instance as with up to 16, and each further instance held 11.3 MB more;
// one instance answers some millions of names a second, far more than a
// node's runtime asks. A program with many concurrent callers on more
// cores raises it.
const defaultMaxCalls = 1

// SetMaxConcurrentCalls sets the most calls that run at once on one [Set]
// with the wasm backend, for the sets compiled after it (a clone shares
// its set's calls), and at most GOMAXPROCS, as many as can run at once; a
// call past it waits for one to end, and never fails. n <= 0 restores the
// default, 1: one copy of the list whatever the cores.
// It returns the previous setting (0 for the default). Safe from any
// goroutine.
//
// The wasm backend runs each concurrent call in an instance of the
// WebAssembly module of its own, a copy of the set's whole memory (1.2 MB
// for a small list, 11 MB for 20,000 digests) kept until the set's Close:
// the setting bounds a set's memory at n copies. With the library (cgo)
// every call reads the one compiled set and nothing is copied: the setting
// changes nothing there, and a program sets it the same with either.
func SetMaxConcurrentCalls(n int) (previous int) {
	return int(maxCalls.Swap(int64(max(n, 0))))
}

// maxConcurrentCalls is the cap for a set compiled now: the setting, but
// never more than GOMAXPROCS, as many calls as can run at once (the pool
// makes its slots at once).
func maxConcurrentCalls() int {
	if n := maxCalls.Load(); n > 0 {
		return int(min(n, int64(max(1, runtime.GOMAXPROCS(0)))))
	}
	return defaultMaxCalls
}
