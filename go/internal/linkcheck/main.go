// Command linkcheck is the program `make -C go test` links in each shape
// (libcrio_pin dynamic; libcrio_pin static in a dynamic program; fully
// static; no library at all) and runs: it exits 0 only when the package
// answers as CRI-O on a small list, and as containerd and cri-dockerd on
// theirs (digests of every algorithm the grammar takes included: a program
// that links nothing else must still read them), and prints which backend
// it has.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/crio-pin/crio-pin/go/criopin"
)

func main() {
	set, err := criopin.Compile([]string{"registry.k8s.io/pause:3.10", "quay.io/openshift-release-dev/*", "*etcd*"})
	if err != nil {
		fail(err)
	}
	defer set.Close()
	for name, want := range map[string]int{
		"REGISTRY.K8S.IO/PAUSE:3.10":                       0,
		"mirror.example/quay.io/openshift-release-dev/ocp": 1,
		"registry.k8s.io/etcd:3.5.9-0":                     2,
		"docker.io/library/nginx:1.25":                     -1,
		"\u212a8s.io/etcd":                                 2,
	} {
		if got := set.MatchIndex(name); got != want {
			fail(fmt.Errorf("MatchIndex(%q) = %d, want %d", name, got, want))
		}
	}
	if !set.MatchAny("x", "quay.io/openshift-release-dev/ocp:4") || set.MatchAny("x", "y") {
		fail(errors.New("MatchAny disagrees with CRI-O"))
	}
	if _, err := criopin.Compile([]string{"*"}); !errors.Is(err, criopin.ErrLoneStar) {
		fail(fmt.Errorf("the lone '*': %v", err))
	}
	hex := "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, c := range []struct {
		flags   criopin.Flag
		pattern string
		name    string
		want    bool
	}{
		{criopin.Containerd, "nginx", "docker.io/library/nginx:latest", false},
		{criopin.Containerd, "quay.io/*", "quay.io/*", true},
		{criopin.ContainerdNormalized, "nginx", "docker.io/library/nginx:latest", true},
		{criopin.ContainerdNormalized, "a:1@sha256:" + hex, "docker.io/library/a@sha256:" + hex, true},
		{criopin.ContainerdNormalized, "a@sha512:" + hex + hex, "docker.io/library/a@sha512:" + hex + hex, true},
		{criopin.CriDockerd, "nginx", "nginx:1.27", true},
		{criopin.CriDockerd, "quay.io/*", "mirror/quay.io/x:1", false},
	} {
		set, err := criopin.Compile([]string{c.pattern}, c.flags)
		if err != nil {
			fail(fmt.Errorf("%v %q: %v", c.flags, c.pattern, err))
		}
		if got := set.Match(c.name); got != c.want {
			fail(fmt.Errorf("%v: %q pins %q: %v, want %v", c.flags, c.pattern, c.name, got, c.want))
		}
		set.Close()
	}
	fmt.Printf("linkcheck: ok (backend %s, libcrio_pin %s)\n", criopin.Backend, criopin.Version())
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "linkcheck:", err)
	os.Exit(1)
}
