//go:build criopin_wazero && !criopin_wasm2go

package criopin_test

// CRIOPIN_WASM_CACHE (cache_wazero.go): a process started with it keeps
// the module compiled to machine code in the directory, and the next
// process reads it from there; a directory others could write to is
// refused; a cache that fails is left out. Each case starts this test
// binary again (TestCacheHelperProcess), as a second process start is the
// subject.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/crio-pin/crio-pin/go/criopin"
)

const (
	cacheHelperEnv = "CRIOPIN_TEST_CACHE_HELPER"
	// The helper flips the link named by the first to the second between
	// the check of the cache and its use.
	flipLinkEnv = "CRIOPIN_TEST_CACHE_FLIP_LINK"
	flipToEnv   = "CRIOPIN_TEST_CACHE_FLIP_TO"
)

// flip points link at target in one step (a rename over it), as another
// user owning the link's directory would.
func flip(t *testing.T, link, target string) {
	next := link + ".next"
	if err := os.Symlink(target, next); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(next, link); err != nil {
		t.Fatal(err)
	}
}

// TestCacheHelperProcess is the started process: it loads the module
// (through the cache, when the environment names one) and checks answers.
func TestCacheHelperProcess(t *testing.T) {
	if os.Getenv(cacheHelperEnv) != "1" {
		t.Skip("run by the cache tests in a process of their own")
	}
	if link := os.Getenv(flipLinkEnv); link != "" {
		criopin.SetAfterCacheCheck(func() { flip(t, link, os.Getenv(flipToEnv)) })
	}
	s := criopin.MustCompile([]string{"registry.k8s.io/pause:3.10", "quay.io/openshift/*"})
	defer s.Close()
	if !s.Match("registry.k8s.io/pause:3.10") || !s.Match("quay.io/openshift/cli:4") || s.Match("docker.io/nginx:1") {
		t.Fatal("wrong answers")
	}
	os.Stdout.WriteString("cache helper: answers right\n")
}

// startWithCache runs the helper with CRIOPIN_WASM_CACHE=dir and returns
// its stderr (the helper must answer right whatever the cache does).
func startWithCache(t *testing.T, dir string, env ...string) string {
	t.Helper()
	stdout, stderr, err := startHelper("TestCacheHelperProcess", append(env, cacheHelperEnv+"=1", "CRIOPIN_WASM_CACHE="+dir)...)
	if err != nil || !strings.Contains(stdout, "cache helper: answers right") {
		t.Fatalf("the process with CRIOPIN_WASM_CACHE=%s failed (%v):\n%s%s", dir, err, stdout, stderr)
	}
	return stderr
}

// startHelper runs this test binary again, only the test named, with env
// added to the environment.
func startHelper(test string, env ...string) (stdout, stderr string, err error) {
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// cacheEntries are the files wazero keeps in dir.
func cacheEntries(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := filepath.Glob(filepath.Join(dir, "wazero-*", "*"))
	if err != nil {
		t.Fatal(err)
	}
	return entries
}

// damaged is a copy of a cache entry with 64 bytes of its machine code
// flipped, which wazero's checksum refuses.
func damaged(entry []byte) []byte {
	d := bytes.Clone(entry)
	for i := len(d) / 2; i < len(d)/2+64; i++ {
		d[i] ^= 0xff
	}
	return d
}

// refused checks that a start with CRIOPIN_WASM_CACHE=dir ignores it,
// saying why in one line, and writes nothing there.
func refused(t *testing.T, dir, why string) {
	t.Helper()
	got := startWithCache(t, dir)
	if strings.Count(got, "\n") != 1 || !strings.Contains(got, "CRIOPIN_WASM_CACHE="+dir+" ignored: ") ||
		!strings.Contains(got, why) {
		t.Fatalf("stderr %q, want one line: ignored, %s", got, why)
	}
	if entries := cacheEntries(t, dir); len(entries) != 0 {
		t.Fatalf("a refused cache was written: %q", entries)
	}
}

func needsRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to give a directory to another user")
	}
}

func TestCacheSecondStartUsesIt(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cache") // made by the first process
	if got := startWithCache(t, dir); got != "" {
		t.Fatalf("the first start printed %q", got)
	}
	st, err := os.Stat(dir)
	if err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("the cache directory: %v, %v; want it made 0700", st, err)
	}
	entries := cacheEntries(t, dir)
	if len(entries) != 1 {
		t.Fatalf("the first start left %q, want the module's one entry", entries)
	}
	written, err := os.ReadFile(entries[0])
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.Stat(entries[0])
	// The second start reads the entry and writes nothing.
	if got := startWithCache(t, dir); got != "" {
		t.Fatalf("the second start printed %q", got)
	}
	after, _ := os.Stat(entries[0])
	if now := cacheEntries(t, dir); len(now) != 1 || now[0] != entries[0] || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("the second start rewrote the cache: %q", now)
	}
	// That the second start read it: the same start with the entry's
	// machine code damaged notices (wazero checks its checksum), says so
	// once and compiles the module itself.
	if err := os.WriteFile(entries[0], damaged(written), 0o600); err != nil {
		t.Fatal(err)
	}
	got := startWithCache(t, dir)
	if strings.Count(got, "\n") != 1 || !strings.Contains(got, "CRIOPIN_WASM_CACHE="+dir+" could not be used") {
		t.Fatalf("a damaged entry: stderr %q, want one line saying the cache could not be used", got)
	}
}

func TestCacheRefusesUnsafeDirectories(t *testing.T) {
	t.Run("others may write", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		refused(t, dir, "writable by its group or others")
	})
	t.Run("its group may write", func(t *testing.T) {
		dir := t.TempDir()
		if err := os.Chmod(dir, 0o770); err != nil {
			t.Fatal(err)
		}
		refused(t, dir, "writable by its group or others")
	})
	t.Run("a version directory others may write", func(t *testing.T) {
		dir := t.TempDir()
		version := filepath.Join(dir, "wazero-v0-planted")
		if err := os.Mkdir(version, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(version, 0o777); err != nil {
			t.Fatal(err)
		}
		refused(t, dir, version+" is writable")
	})
	t.Run("another user's", func(t *testing.T) {
		needsRoot(t)
		dir := t.TempDir()
		if err := os.Chown(dir, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		refused(t, dir, "is owned by user 65534")
	})
	t.Run("not a directory", func(t *testing.T) {
		file := filepath.Join(t.TempDir(), "file")
		if err := os.WriteFile(file, nil, 0o600); err != nil {
			t.Fatal(err)
		}
		got := startWithCache(t, file)
		if strings.Count(got, "\n") != 1 || !strings.Contains(got, "is not a directory") {
			t.Fatalf("stderr %q, want one line: not a directory", got)
		}
	})
}

// The directory checked is the one read: its real parents are checked, not
// those of the path that named it, and a link flipped after the check
// changes nothing.
func TestCacheChecksTheRealPath(t *testing.T) {
	t.Run("a link to a safe directory", func(t *testing.T) {
		root := t.TempDir()
		link := filepath.Join(root, "link")
		if err := os.Symlink(filepath.Join(root, "real"), link); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(root, "real"), 0o700); err != nil {
			t.Fatal(err)
		}
		for start := range 2 {
			if got := startWithCache(t, link); got != "" {
				t.Fatalf("start %d through a link to a safe directory printed %q", start+1, got)
			}
		}
		if entries := cacheEntries(t, filepath.Join(root, "real")); len(entries) != 1 {
			t.Fatalf("the directory linked to holds %q, want the module's one entry", entries)
		}
	})
	t.Run("a link hiding a parent others may write", func(t *testing.T) {
		root := t.TempDir()
		open := filepath.Join(root, "open")
		if err := os.Mkdir(open, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(open, 0o777); err != nil { // not sticky: anyone may rename what it holds
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(open, "cache"), 0o700); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(root, "link")
		if err := os.Symlink(filepath.Join(open, "cache"), link); err != nil {
			t.Fatal(err)
		}
		refused(t, link, "its parent "+open+" is writable by its group or others")
	})
	t.Run("another user's link and directory", func(t *testing.T) {
		needsRoot(t)
		root := t.TempDir()
		theirs := filepath.Join(root, "theirs")
		if err := os.Mkdir(theirs, 0o755); err != nil {
			t.Fatal(err)
		}
		// This user's directory, in one that user 65534 may change.
		if err := os.Mkdir(filepath.Join(theirs, "cache"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(theirs, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		link := filepath.Join(root, "link")
		if err := os.Symlink(filepath.Join(theirs, "cache"), link); err != nil {
			t.Fatal(err)
		}
		if err := os.Lchown(link, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		refused(t, link, "its parent "+theirs+" is owned by user 65534")
	})
	t.Run("a link flipped between check and use", func(t *testing.T) {
		needsRoot(t)
		root := t.TempDir()
		good, theirs := filepath.Join(root, "good"), filepath.Join(root, "theirs")
		if got := startWithCache(t, good); got != "" { // good's entry, made by this user
			t.Fatalf("the first start printed %q", got)
		}
		entries := cacheEntries(t, good)
		if len(entries) != 1 {
			t.Fatalf("the first start left %q, want one entry", entries)
		}
		written, err := os.ReadFile(entries[0])
		if err != nil {
			t.Fatal(err)
		}
		before, _ := os.Stat(entries[0])
		// Another user's directory with the same entry, damaged: read, it
		// would be refused by its checksum and said on stderr (the stand-in
		// for their code).
		planted := filepath.Join(theirs, strings.TrimPrefix(entries[0], good))
		if err := os.MkdirAll(filepath.Dir(planted), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(planted, damaged(written), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, p := range []string{theirs, filepath.Dir(planted), planted} {
			if err := os.Chown(p, 65534, 65534); err != nil {
				t.Fatal(err)
			}
		}
		link := filepath.Join(root, "link")
		if err := os.Symlink(good, link); err != nil {
			t.Fatal(err)
		}
		got := startWithCache(t, link, flipLinkEnv+"="+link, flipToEnv+"="+theirs)
		if target, err := os.Readlink(link); err != nil || target != theirs {
			t.Fatalf("the link was not flipped (%q, %v): the test proves nothing", target, err)
		}
		if got != "" {
			t.Fatalf("the start whose link was flipped printed %q: it read the directory flipped to", got)
		}
		after, _ := os.Stat(entries[0])
		if now := cacheEntries(t, good); len(now) != 1 || !after.ModTime().Equal(before.ModTime()) {
			t.Fatalf("the checked directory changed: %q", now)
		}
		if now := cacheEntries(t, theirs); len(now) != 1 || now[0] != planted {
			t.Fatalf("the directory flipped to was written: %q", now)
		}
	})
}
