//go:build criopin_wazero && !criopin_wasm2go && !linux

package criopin

import "os"

// Where the cache cannot be read through the descriptor it was checked on
// (cache_linux.go does it through /proc/self/fd), it is refused: a path
// checked and then looked up again is what another user can flip between
// the two.

func openCacheDir(dir string) (*os.File, string) {
	return nil, "the cache is read only through the descriptor of the directory checked, which needs " +
		"Linux's /proc/self/fd"
}

func readPath(*os.File) string { return "" }

func unsafeContents(*os.File, string) string { return "" }
