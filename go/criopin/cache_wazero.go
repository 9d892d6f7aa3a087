//go:build criopin_wazero && !criopin_wasm2go

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
// else can write to is code execution for them. So the directory DIR
// names, once its links are followed (created 0700 when missing), its
// wazero-* entries and their files must be owned by the process's
// effective user, writable by nobody else and not links, and each of the
// directory's real parents owned by that user or root and not writable by
// others (unless sticky, as /tmp); otherwise the variable is ignored, with
// one line on stderr. The directory is opened once, checked through that
// descriptor and read by wazero through it (cache_linux.go): nothing is
// looked up by DIR's path after the check. Any other failure of the cache
// (an entry that does not read back, a cache that cannot be written) also
// prints one line and compiles the module without it: the cache can make
// start-up faster, never make the package fail.
const cacheEnv = "CRIOPIN_WASM_CACHE"

// moduleCache is wazero's compilation cache over a checked directory,
// held open for as long as the cache is used.
type moduleCache struct {
	wazero.CompilationCache
	dir *os.File
}

func (c *moduleCache) close() {
	_ = c.CompilationCache.Close(ctx)
	_ = c.dir.Close()
}

// afterCacheCheck, when set (by a test), runs between the check of the
// cache and the module's compile through it: the window in which another
// user would flip a link.
var afterCacheCheck func()

// cacheWarning is the one line a process prints about its cache.
func cacheWarning(dir, why string) {
	fmt.Fprintf(os.Stderr, "criopin: %s=%s %s; compiling the WebAssembly module without the cache\n", cacheEnv, dir, why)
}

// openCache is the compilation cache in dir, or nil (with the line said)
// when dir is not safe or cannot hold one.
func openCache(dir string) *moduleCache {
	abs, err := filepath.Abs(dir)
	if err != nil {
		cacheWarning(dir, "ignored: "+err.Error())
		return nil
	}
	held, why := openCacheDir(abs)
	if held == nil {
		cacheWarning(dir, "ignored: "+why)
		return nil
	}
	cache, err := wazero.NewCompilationCacheWithDir(readPath(held))
	if err != nil {
		_ = held.Close()
		cacheWarning(dir, "ignored: "+err.Error())
		return nil
	}
	c := &moduleCache{cache, held}
	// wazero has made its wazero-<version>-<arch>-<os> directory: check
	// it too, as a directory that may predate this process.
	if why := unsafeContents(held, held.Name()); why != "" {
		c.close()
		cacheWarning(dir, "ignored: "+why)
		return nil
	}
	if afterCacheCheck != nil {
		afterCacheCheck()
	}
	return c
}
