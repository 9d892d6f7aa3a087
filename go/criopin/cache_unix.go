//go:build (!cgo || criopin_purego) && unix

package criopin

import (
	"os"
	"strconv"
	"syscall"
)

// unsafeEntry says why path (followed if a link) may not be in the cache:
// not a directory (or, when !isDir, a regular file), not owned by this
// process's effective user, or writable by group or others.
func unsafeEntry(path string, isDir bool) string {
	st, err := os.Stat(path)
	if err != nil {
		return err.Error()
	}
	switch {
	case isDir && !st.IsDir():
		return path + " is not a directory"
	case !isDir && !st.Mode().IsRegular():
		return path + " is not a regular file"
	}
	if uid := owner(st); uid != os.Geteuid() {
		return path + " is owned by user " + strconv.Itoa(uid) + ", not this process's (" +
			strconv.Itoa(os.Geteuid()) + ")"
	}
	if st.Mode().Perm()&0o022 != 0 {
		return path + " is writable by its group or others (chmod go-w " + path + ")"
	}
	return ""
}

// unsafeParent says why a parent directory of the cache lets someone else
// replace it: owned by another user than this one or root, or writable by
// group or others without the sticky bit.
func unsafeParent(path string) string {
	st, err := os.Stat(path)
	if err != nil {
		return err.Error()
	}
	if uid := owner(st); uid != os.Geteuid() && uid != 0 {
		return "its parent " + path + " is owned by user " + strconv.Itoa(uid)
	}
	if st.Mode().Perm()&0o022 != 0 && st.Mode()&os.ModeSticky == 0 {
		return "its parent " + path + " is writable by its group or others"
	}
	return ""
}

func owner(st os.FileInfo) int {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		return int(sys.Uid)
	}
	return -1
}
