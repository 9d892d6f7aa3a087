//go:build (!cgo || criopin_purego) && !unix

package criopin

// unsafeEntry: where files have no Unix owner and mode to check, the cache
// is refused.
func unsafeEntry(path string, _ bool) string {
	return "ignored on this system: who may write to " + path + " cannot be checked"
}

func unsafeParent(string) string { return "" }
