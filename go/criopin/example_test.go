package criopin_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/crio-pin/crio-pin/go/criopin"
)

func Example() {
	set, err := criopin.Compile([]string{
		"registry.k8s.io/pause:3.9",       // exact (case-insensitive)
		"quay.io/openshift-release-dev/*", // glob: contains the prefix
		"*etcd*",                          // keyword: contains the word
	})
	if err != nil {
		panic(err)
	}
	defer set.Close()

	fmt.Println(set.Match("REGISTRY.K8S.IO/PAUSE:3.9"))
	fmt.Println(set.MatchIndex("registry.k8s.io/etcd:3.5.9-0"))
	fmt.Println(set.Match("docker.io/library/nginx:1.25"))
	// Output:
	// true
	// 2
	// false
}

// CRI-O's pinned-image code, and the same with this package.
//
// CRI-O (internal/storage/image.go) compiles one regexp per pattern, with
// the pause image appended to the list, and tries every regexp on every
// name of every image:
//
//	regexps := CompileRegexpsForPinnedImages(append(config.PinnedImages, config.PauseImage))
//	pinned := false
//	for _, name := range names { // the image's tags and digests
//		if FilterPinnedImage(name, regexps) {
//			pinned = true
//			break
//		}
//	}
//
// With criopin, compile the same list (same order, pause image last) once,
// and ask about all the names of the image in one call; the answers are
// CRI-O's, quirks included. A lone "*" in the configuration, which makes
// CRI-O panic, is an error here instead.
func Example_crioDropIn() {
	pinnedImages := []string{"quay.io/openshift-release-dev/*", "*etcd*"} // crio.conf pinned_images
	pauseImage := "registry.k8s.io/pause:3.10"                            // crio.conf pause_image

	set, err := criopin.Compile(append(pinnedImages, pauseImage))
	if err != nil {
		panic(err) // CRI-O: regexp.MustCompile panics
	}
	defer set.Close()

	images := [][]string{ // each image's names, as ListImages sees them
		{"registry.k8s.io/pause:3.10", "registry.k8s.io/pause@sha256:ee6521f290b2168b6e0935a181d4cff9be1ac3f505666ef0e3c98fae8199917a"},
		{"docker.io/library/nginx:1.25", "docker.io/library/nginx@sha256:0d17b565c37bcbd895e9d92315a05c1c3c9a29f762b011a10c54a66cd53c9b31"},
		{"registry.k8s.io/etcd:3.5.9-0"},
	}
	for _, names := range images {
		pinned := set.MatchAny(names...) // FilterPinnedImage over all names
		fmt.Println(pinned, names[0])
	}
	// Output:
	// true registry.k8s.io/pause:3.10
	// false docker.io/library/nginx:1.25
	// true registry.k8s.io/etcd:3.5.9-0
}

// A whole image listing in one call: MatchEach (or AppendEach, to reuse
// the result slice across listings).
func ExampleSet_MatchEach() {
	set := criopin.MustCompile([]string{"registry.k8s.io/*"})
	defer set.Close()
	names := []string{"registry.k8s.io/pause:3.9", "docker.io/library/redis:7", "mirror.example/registry.k8s.io/coredns"}
	fmt.Println(set.MatchEach(names)) // CRI-O's globs are not anchored
	anchored := criopin.MustCompile([]string{"registry.k8s.io/*"}, criopin.AnchorGlobs)
	defer anchored.Close()
	fmt.Println(anchored.MatchEach(names))
	// Output:
	// [true false true]
	// [true false false]
}

// Live reload: CRI-O recompiles pinned_images on SIGHUP while ListImages
// reads it. Keep the list in a Live; reload it from the signal handler;
// readers need no lock and never see a freed or half-swapped list.
func ExampleLive() {
	var pinned criopin.Live // in the image service
	if err := pinned.Reload([]string{"registry.k8s.io/pause:3.9"}); err != nil {
		panic(err)
	}
	defer pinned.Close()

	// ListImages, in any number of goroutines:
	fmt.Println(pinned.MatchAny("registry.k8s.io/pause:3.9"))

	// On SIGHUP, with the new configuration:
	err := pinned.Reload([]string{"quay.io/*", "*"})
	var cerr *criopin.CompileError
	if errors.As(err, &cerr) {
		// The old list stays in place: a typo does not unpin everything.
		fmt.Printf("pinned_images[%d] %q: rejected\n", cerr.Index, cerr.Pattern)
	}
	fmt.Println(pinned.Match("registry.k8s.io/pause:3.9"))
	// Output:
	// true
	// pinned_images[1] "*": rejected
	// true
}

// A reload that changes nothing compiles nothing and says so, with the
// fingerprint of the list served (the same on every machine for the same
// list and flags): what a daemon logs on SIGHUP.
func ExampleLive_ReloadIfChanged() {
	var pinned criopin.Live
	defer pinned.Close()
	list := []string{"quay.io/*", "**"}
	for _, reloaded := range [][]string{list, list, {"quay.io/*"}} {
		r, err := pinned.ReloadIfChanged(reloaded)
		if err != nil {
			panic(err) // (the current list would stay)
		}
		fmt.Println(r.Changed, r.Fingerprint)
	}
	// Output:
	// true sha256:06606751d5578f693fe268407447bf76e9bd6fdef3fce05baf7b62da27410219
	// false sha256:06606751d5578f693fe268407447bf76e9bd6fdef3fce05baf7b62da27410219
	// true sha256:eb15bff494a5dced87dd66a42f774fec2aebd658a89d91e5b8c9ff8c56920a45
}

func ExampleCompileError() {
	_, err := criopin.Compile([]string{"quay.io/x", "quay.io/y ", "*pause"}, criopin.Strict)
	var cerr *criopin.CompileError
	if errors.As(err, &cerr) {
		fmt.Println(cerr.Index, cerr.Pattern+"|")
		fmt.Println(err)
	}
	// Output:
	// 1 quay.io/y |
	// criopin: pattern 1 ("quay.io/y "): whitespace ' ' (U+0020) at byte 9; image names never contain whitespace or control characters: remove it (look for stray spaces, tabs or newlines)
}

// One ListImages answered from one list: the handler takes a snapshot into
// the request's context; the image store and the artifact store read the
// shared Live through that context. A reload in between does not reach
// this listing (the next one sees it).
func ExampleLive_WithSnapshot() {
	pinned := new(criopin.Live) // shared by the image service and the artifact store
	defer pinned.Close()
	if err := pinned.Reload([]string{"quay.io/a/*"}); err != nil {
		panic(err)
	}

	// ListImages:
	ctx, release := pinned.WithSnapshot(context.Background())
	defer release() // the handler owns the snapshot

	image := pinned.From(ctx).MatchAny("quay.io/a/img:1", "quay.io/a/img@sha256:0d17b565")
	if err := pinned.Reload([]string{"quay.io/b/*"}); err != nil { // SIGHUP, mid-listing
		panic(err)
	}
	artifact := pinned.From(ctx).MatchAny("quay.io/a/art:1", "quay.io/a/art@sha256:ee6521f2")
	fmt.Println(image, artifact)                                        // one list for the whole listing
	fmt.Println(pinned.From(context.Background()).Match("quay.io/b/x")) // no snapshot: the current list
	// Output:
	// true true
	// true
}

// Validate checks a configuration (at start-up, in a dry run, before a
// reload reports success) without compiling it: Compile's verdict and
// error, nothing to Close.
func ExampleValidate() {
	configured := []string{"quay.io/openshift-release-dev/*", "*"} // pinned_images
	pause := "registry.k8s.io/pause:3.10"                          // appended, as CRI-O does
	err := criopin.Validate(append(configured, pause))
	var cerr *criopin.CompileError
	if errors.As(err, &cerr) && cerr.Index < len(configured) {
		fmt.Printf("pinned_images[%d] = %q: %v\n", cerr.Index, cerr.Pattern, cerr.Kind)
	}
	fmt.Println(err)
	// Output:
	// pinned_images[1] = "*": LoneStar
	// criopin: pattern 1 ("*"): a lone '*' is not a valid pattern; write "**" to pin every image
}
