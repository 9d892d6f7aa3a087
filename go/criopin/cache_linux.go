//go:build criopin_wazero && !criopin_wasm2go && linux

package criopin

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// The cache directory is opened once and everything is checked through
// that descriptor: the directory itself, its parents (reached by ".." from
// it: the directory's real parents, not those of the path that named it,
// which a symbolic link can hide) and its wazero-* entries. wazero then
// reads it through the same descriptor (/proc/self/fd/N), so that a link
// or a parent flipped after the check changes nothing: the directory read
// is the one checked, and inside it only its owner (this user) or root can
// create, replace or remove an entry.

// openCacheDir opens dir (absolute, made 0700 when missing) and checks it
// and its real parents; it returns the open directory, or nil and why it
// may not hold the cache.
func openCacheDir(dir string) (*os.File, string) {
	if _, err := os.Lstat(dir); os.IsNotExist(err) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err.Error()
		}
	}
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		if err == unix.ENOTDIR {
			return nil, dir + " is not a directory"
		}
		return nil, "cannot open " + dir + ": " + err.Error()
	}
	// The directory's real path, for the messages (the checks use the
	// descriptor); the returned file is named after it.
	real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(fd))
	if err != nil {
		unix.Close(fd)
		return nil, "cannot be read through its descriptor (" + err.Error() + "; is /proc mounted?)"
	}
	d := os.NewFile(uintptr(fd), real)
	if why := unsafeDir(d, real); why != "" {
		d.Close()
		return nil, why
	}
	if why := unsafeParents(d, real); why != "" {
		d.Close()
		return nil, why
	}
	// What wazero will open must be what was checked (a /proc without
	// this process's descriptors would name something else).
	var held, through unix.Stat_t
	if unix.Fstat(fd, &held) != nil || unix.Stat(readPath(d), &through) != nil ||
		held.Dev != through.Dev || held.Ino != through.Ino {
		d.Close()
		return nil, "cannot be read through its descriptor (" + readPath(d) + "; is /proc mounted?)"
	}
	return d, ""
}

// readPath is the path that reads d through its descriptor: looking it up
// resolves to the open directory, whatever its path names by then.
func readPath(d *os.File) string {
	return "/proc/self/fd/" + strconv.Itoa(int(d.Fd()))
}

// unsafeDir says why d (at real) may not hold the cache: not owned by
// this process's effective user, or writable by group or others.
func unsafeDir(d *os.File, real string) string {
	var st unix.Stat_t
	if err := unix.Fstat(int(d.Fd()), &st); err != nil {
		return err.Error()
	}
	return unsafeOwner(&st, real, false)
}

// unsafeOwner says why st (of path; isParent: a parent of the cache) lets
// someone else write what it holds: a cache directory or entry must be
// this user's and writable by no one else; a parent may be root's too, and
// writable by others when sticky (as /tmp: others cannot rename or remove
// what they do not own).
func unsafeOwner(st *unix.Stat_t, path string, isParent bool) string {
	euid := os.Geteuid()
	writable := st.Mode&0o022 != 0
	if isParent {
		switch {
		case int(st.Uid) != euid && st.Uid != 0:
			return "its parent " + path + " is owned by user " + strconv.Itoa(int(st.Uid))
		case writable && st.Mode&unix.S_ISVTX == 0:
			return "its parent " + path + " is writable by its group or others"
		}
		return ""
	}
	switch {
	case int(st.Uid) != euid:
		return path + " is owned by user " + strconv.Itoa(int(st.Uid)) + ", not this process's (" +
			strconv.Itoa(euid) + ")"
	case writable:
		return path + " is writable by its group or others (chmod go-w " + path + ")"
	}
	return ""
}

// unsafeParents walks from d up to the root through "..", checking each
// parent it reaches (named, in messages, after real's components).
func unsafeParents(d *os.File, real string) string {
	cur, err := unix.Dup(int(d.Fd()))
	if err != nil {
		return err.Error()
	}
	defer func() { unix.Close(cur) }()
	var st unix.Stat_t
	if err := unix.Fstat(cur, &st); err != nil {
		return err.Error()
	}
	for path := filepath.Dir(real); ; path = filepath.Dir(path) {
		parent, err := unix.Openat(cur, "..", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			return "cannot open the parent " + path + ": " + err.Error()
		}
		unix.Close(cur)
		cur = parent
		var pst unix.Stat_t
		if err := unix.Fstat(cur, &pst); err != nil {
			return err.Error()
		}
		if pst.Dev == st.Dev && pst.Ino == st.Ino { // the root is its own parent
			return ""
		}
		if why := unsafeOwner(&pst, path, true); why != "" {
			return why
		}
		st = pst
	}
}

// unsafeContents says why the wazero-* entries of d (at real) may not be
// read: each must be a directory (not a link) owned by this user and
// writable by no one else, and each file in it a regular file (not a link)
// the same. They are looked up in d, which only this user or root can
// change.
func unsafeContents(d *os.File, real string) string {
	names, err := namesIn(int(d.Fd()))
	if err != nil {
		return "cannot list " + real + ": " + err.Error()
	}
	for _, name := range names {
		if !strings.HasPrefix(name, "wazero-") {
			continue
		}
		path := filepath.Join(real, name)
		if why := unsafeEntry(int(d.Fd()), name, path, true); why != "" {
			return why
		}
		v, err := unix.Openat(int(d.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|unix.O_NOFOLLOW, 0)
		if err != nil {
			return "cannot open " + path + ": " + err.Error()
		}
		files, err := namesIn(v)
		for _, f := range files {
			if why := unsafeEntry(v, f, filepath.Join(path, f), false); why != "" {
				unix.Close(v)
				return why
			}
		}
		unix.Close(v)
		if err != nil {
			return "cannot list " + path + ": " + err.Error()
		}
	}
	return ""
}

// unsafeEntry checks name in the directory dirfd, not following a link.
func unsafeEntry(dirfd int, name, path string, isDir bool) string {
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return "cannot check " + path + ": " + err.Error()
	}
	switch kind := st.Mode & unix.S_IFMT; {
	case kind == unix.S_IFLNK:
		return path + " is a symbolic link (the cache's entries must be its own)"
	case isDir && kind != unix.S_IFDIR:
		return path + " is not a directory"
	case !isDir && kind != unix.S_IFREG:
		return path + " is not a regular file"
	}
	return unsafeOwner(&st, path, false)
}

// namesIn lists the directory dirfd through a descriptor of its own (the
// listing moves the offset of the one it reads).
func namesIn(dirfd int) ([]string, error) {
	fd, err := unix.Openat(dirfd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), ".")
	defer f.Close()
	return f.Readdirnames(-1)
}
