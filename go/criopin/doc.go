// Package criopin answers "is this image pinned?" for CRI-O's
// pinned_images patterns, with CRI-O's exact answers: a drop-in for CRI-O's
// CompileRegexpsForPinnedImages and FilterPinnedImage, plus [Live] for
// reloads shared by several consumers.
//
// # Drop-in for CRI-O
//
// CRI-O compiles one regexp per pattern, with the pause image appended to
// the list, and tries them all on every name of every image:
//
//	regexps := CompileRegexpsForPinnedImages(append(pinnedImages, pauseImage))
//	pinned := false
//	for _, name := range names {
//		if FilterPinnedImage(name, regexps) {
//			pinned = true
//			break
//		}
//	}
//
// The same with this package, same list in the same order:
//
//	set, err := criopin.Compile(append(pinnedImages, pauseImage))
//	// ...
//	pinned := set.MatchAny(names...)
//
// [Set.MatchIndex] returns the index of the first regexp of CRI-O's loop
// that would match, [Set.MatchEach] answers for a whole image listing in
// one call. The lone pattern "*", on which CRI-O panics, is an error
// ([ErrLoneStar]). See docs/cri-o.md in the repository for the whole
// integration.
//
// # Backends
//
// The package has three backends, all the same library, with the same
// API, answers and errors (kind, index, pattern and message); the
// constant [Backend] says which one a binary has:
//
//   - "libcrio_pin" (the default when cgo is on): libcrio_pin, a Rust
//     library with a C ABI, linked through cgo and pkg-config (package
//     crio_pin). The whole list is compiled once, and each name is matched
//     in one pass whatever the list size: the time per name hardly grows
//     with the list.
//   - "wasm2go" (CGO_ENABLED=0, or build tag criopin_wasm): the same
//     library compiled to WebAssembly without SIMD and translated to Go
//     source by wasm2go (package internal/libcriopin), compiled by the Go
//     compiler with the program. It needs no C library, no C compiler and
//     no WebAssembly runtime; nothing is compiled at start and no
//     executable memory is needed ([Engine] says "wasm2go").
//   - "wasm" (build tag criopin_wazero): the library's module
//     (crio_pin.wasm, with SIMD, embedded in the package), run by wazero,
//     a WebAssembly runtime in pure Go. The module is compiled to machine
//     code once per process, on first use ([Engine] says
//     "wasm-compiler"), or run by wazero's interpreter where machine code
//     cannot be made ("wasm-interpreter", about 100 times slower a name,
//     said in one line on stderr; CRIOPIN_WASM_ENGINE=interpreter chooses
//     it, CRIOPIN_WASM_ENGINE=compiler makes its absence an error).
//
// With either engine without cgo, goroutines matching at once each get
// an instance of the module from the set's pool, each a copy of the
// first's memory, up to [SetMaxConcurrentCalls] (default 1: one copy of
// the list whatever the cores; past it calls wait).
//
// [Backend] is a constant, fixed by the build; [Engine] says what runs the
// library in this process ("libcrio_pin", "wasm2go", "wasm-compiler" or
// "wasm-interpreter"): the one to log at start-up.
//
// The tests compare each with CRI-O's own construction (one Go regexp per
// pattern) and the other runtimes' rules written independently in Go. The
// measured figures of each, and of Compile and Validate, are in the
// repository's docs/BENCHMARKS.md, "Through cgo" (`make bench-go`
// measures them; go/README.md, "Without cgo", argues the default engine).
//
// # Other runtimes' rules
//
// [Containerd], [ContainerdNormalized] and [CriDockerd] are the flag sets
// that read a list as containerd 2.x and cri-dockerd read theirs
// ([Literal], [CriDockerdSyntax], [Normalize]; the rules side by side in
// the repository's docs/runtimes.md). Both backends have them, with the
// same answers and errors: under [Literal] and [CriDockerdSyntax] with
// [CaseSensitive] (as in those sets) names compare as bytes, as those
// runtimes compare Go strings (an invalid UTF-8 byte is no character
// there; folding case, it reads as U+FFFD, as Go's (?i) reads it), and
// [Normalize] reads references as
// github.com/distribution/reference v0.6.0 does (the library follows the
// same grammar; the tests compare it with that package's ParseDockerRef).
//
// # Build tags
//
// Like containers_image_openpgp selects a pure-Go OpenPGP instead of
// gpgme, the tags choose the backend and how the library is linked:
//
//	(none)                  libcrio_pin.so, found through pkg-config; needed at run time
//	criopin_static          libcrio_pin.a: no libcrio_pin.so at run time; works in a
//	                        dynamic program and in a fully static one:
//	                        go build -tags 'netgo osusergo criopin_static' \
//	                            -ldflags '-linkmode external -extldflags "-static -lm"'
//	criopin_wasm            no library: the wasm2go backend (also what CGO_ENABLED=0 builds)
//	criopin_purego          the same: criopin_wasm's former name, kept as an alias
//	criopin_wasm2go         the same, by its engine's name
//	criopin_wazero          no library: the module run by wazero (JIT, or its interpreter)
//
// Set PKG_CONFIG_PATH to the install's lib/pkgconfig when it is not a
// system one. The installed libcrio_pin.a is built with link-time
// optimisation, so a fully static link is silent: an archive built
// without it carries code of Rust's standard library (home-directory and
// host lookup) that makes glibc warn about getpwuid_r and getaddrinfo,
// harmless since the library never calls it.
//
// # The WebAssembly module's cache
//
// With the wasm backend, the first [Compile], [Validate] or [Version] of a
// process compiles the embedded module to machine code (0.1 to 0.3 s).
// CRIOPIN_WASM_CACHE=DIR in the environment keeps that machine code in DIR
// (wazero's compilation cache), so that a later process reads it instead
// (about 10 ms): paid once per machine and wazero version, not
// once per process start. Unset or empty, nothing is written anywhere.
// The cgo backend ignores the variable.
//
// The cache is code the process runs, so a cache someone else can write
// to is code execution for them: the directory DIR names, its links
// followed (made 0700 when missing), its wazero-* directories and their
// files must be owned by the process's effective user, writable by no one
// else and not links, and every real parent directory owned by that user
// or root and writable by no one else unless sticky (as /tmp). Otherwise
// the variable is ignored, with one line on stderr. On Linux the directory
// is opened once, checked through that descriptor and read through it
// (/proc/self/fd): a link flipped after the check changes nothing. Other
// systems ignore the variable, with that line.
// (wazero checks an entry's checksum, which catches damage, not
// tampering: the owner and modes are the protection.) Any failure of the
// cache (an entry that does not read back, a directory that cannot be
// written) also prints one line and the module
// is compiled without it: the cache never makes the package fail. The
// variable is read once, on that first use.
//
// # Sharing and reloads
//
// A [Set] is immutable and safe for any number of goroutines. Whoever
// compiles or clones a Set owns it and closes it; a call on a closed Set
// panics, like a send on a closed channel, rather than answering "not
// pinned". A nil *Set and the zero Set are empty.
//
// CRI-O reloads pinned_images on SIGHUP while ListImages, the image
// garbage collector's status calls and the OCI-artifact store read it.
// Keep the list in one [Live] and give the same *Live to every consumer:
// [Live.Reload] compiles the new list and swaps it in atomically for all
// of them, readers never see a half-swapped or freed list, and a list that
// does not compile is rejected (the error names the pattern) while the
// old one stays in place. [Live.Store] and [NewLive] take their own
// reference to the Set they are given ([Set.Clone]), so the caller closes
// its Set as usual and nothing it does can unpin the Live. A nil *Live
// reads as an empty set. A reload of the list already served compiles
// nothing: [Live.ReloadIfChanged] compares the list's [Fingerprint] (a
// SHA-256 of its patterns and flags, the same on every machine) with the
// current list's, keeps the list when they are equal, and says which
// happened and which list it serves.
//
// One request answered by several consumers (CRI-O's ListImages: storage
// images from the image service, then OCI artifacts from the artifact
// store) is answered from one list when its handler takes a snapshot into
// the request's context and the consumers read the Live through it:
//
//	ctx, release := pinned.WithSnapshot(ctx) // the handler owns the snapshot
//	defer release()
//	// in each consumer:
//	view := pinned.From(ctx) // the snapshot; without one, the current list
//	p := view.MatchAny(image.Names...)
//
// # Validating without compiling
//
// [Validate] gives [Compile]'s verdict and error for a list without
// building anything, for a configuration check (start-up, a dry run, a
// reload) that must refuse a bad list before it is used.
//
// # Failures
//
// A pin must not be lost silently. The library answers "pinned" when a
// match cannot be answered (an internal bug; this package only passes
// valid arguments); [Set.MatchIndex] and [Set.MatchEach], whose answers
// tell a failure apart, panic with "criopin: internal error: ..." then.
//
// # Performance and memory
//
// With the library, names cross into C without a copy, and a match
// allocates nothing in Go (except the result of [Set.MatchEach];
// [Set.AppendEach] reuses a slice); MatchAny of one image's names (or an
// artifact's two) allocates nothing either. A call into C costs some tens
// of nanoseconds: batch the names of an image with [Set.MatchAny] and a
// listing with [Set.MatchEach].
package criopin
