//go:build !cgo || criopin_purego

package criopin

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/tetratelabs/wazero"
)

// cacheEnv names the environment variable that opts a process into
// wazero's compilation cache (doc.go, "The WebAssembly module's cache"):
// CRIOPIN_WASM_CACHE=DIR keeps the module compiled to machine code in DIR,
// so that the compile of the module (a tenth of a second, once per
// process) is paid once per machine. Unset or empty, the module is
// compiled in memory by every process. Only the wasm backend reads it.
//
// The cache holds machine code that the process runs: a directory someone
// else can write to is code execution for them. So DIR (created 0700 when
// missing), its wazero-* entries and their files must be owned by the
// process's effective user and writable by nobody else, and each parent
// directory owned by that user or root and not writable by others (unless
// sticky, as /tmp); otherwise the variable is ignored, with one line on
// stderr. Any other failure of the cache (an entry that does not read
// back, a cache that cannot be written) also prints one line and compiles
// the module without it: the cache can make start-up faster, never make
// the package fail.
const cacheEnv = "CRIOPIN_WASM_CACHE"

// cacheWarning is the one line a process prints about its cache.
func cacheWarning(dir, why string) {
	fmt.Fprintf(os.Stderr, "criopin: %s=%s %s; compiling the WebAssembly module without the cache\n", cacheEnv, dir, why)
}

// openCache is the compilation cache in dir, or nil (with the line said)
// when dir is not safe or cannot hold one.
func openCache(dir string) wazero.CompilationCache {
	abs, err := filepath.Abs(dir)
	if err != nil {
		cacheWarning(dir, "ignored: "+err.Error())
		return nil
	}
	if _, err := os.Lstat(abs); os.IsNotExist(err) {
		if err := os.MkdirAll(abs, 0o700); err != nil {
			cacheWarning(dir, "ignored: "+err.Error())
			return nil
		}
	}
	if why := unsafeCacheDir(abs); why != "" {
		cacheWarning(dir, "ignored: "+why)
		return nil
	}
	cache, err := wazero.NewCompilationCacheWithDir(abs)
	if err != nil {
		cacheWarning(dir, "ignored: "+err.Error())
		return nil
	}
	// wazero has made its wazero-<version>-<arch>-<os> directory: check
	// it too, as a directory that predates this process.
	if why := unsafeCacheDir(abs); why != "" {
		_ = cache.Close(ctx)
		cacheWarning(dir, "ignored: "+why)
		return nil
	}
	return cache
}

// unsafeCacheDir says why dir (absolute) may not hold the cache; "" when
// it may: dir, its wazero-* entries and their files owned by this user
// and writable by no one else, its parents owned by this user or root and
// writable by no one else unless sticky.
func unsafeCacheDir(dir string) string {
	if why := unsafeEntry(dir, true); why != "" {
		return why
	}
	for parent := filepath.Dir(dir); ; parent = filepath.Dir(parent) {
		if why := unsafeParent(parent); why != "" {
			return why
		}
		if filepath.Dir(parent) == parent {
			break
		}
	}
	versions, err := filepath.Glob(filepath.Join(dir, "wazero-*"))
	if err != nil {
		return err.Error()
	}
	for _, v := range versions {
		if why := unsafeEntry(v, true); why != "" {
			return why
		}
		files, err := os.ReadDir(v)
		if err != nil {
			return err.Error()
		}
		for _, f := range files {
			if why := unsafeEntry(filepath.Join(v, f.Name()), false); why != "" {
				return why
			}
		}
	}
	return ""
}
