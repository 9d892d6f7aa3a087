// Package criopin answers "is this image pinned?" for CRI-O's
// pinned_images patterns, with CRI-O's exact answers, through libcrio_pin
// (a Rust library with a C ABI, linked with cgo): the whole list is
// compiled once, and each name is matched in one pass whatever the list
// size, instead of one regexp per pattern.
//
// # Drop-in for CRI-O
//
// CRI-O's internal/storage/image.go compiles one regexp per pattern
// (CompileRegexpsForPinnedImages), with the pause image appended to the
// list as one more (exact) pattern, and tries them all on every name of
// every image (FilterPinnedImage in a loop over the image's names):
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
//	pinned := set.MatchAny(names)
//
// [Set.MatchIndex] returns the index of the first regexp of CRI-O's loop
// that would match, [Set.MatchEach] answers for a whole image listing in
// one call, and [Live] replaces the set on a configuration reload (SIGHUP)
// safely, where CRI-O today swaps its slice of regexps without
// synchronisation while ListImages reads it.
//
// # Semantics
//
// With no flags the answers are CRI-O's, quirks included: "*word*" pins
// names containing word; "prefix*" pins names containing prefix anywhere
// (globs are not anchored); anything else pins the name equal to it, and a
// '*' elsewhere is a literal character ("*pause" and "a*b" are exact,
// "**" pins everything, "***" is the keyword "*"). Comparison is
// case-insensitive with Go's Unicode simple folding, as regexp's (?i)
// ("k" matches U+212A KELVIN SIGN), and a byte of a name that is not valid
// UTF-8 reads as U+FFFD, as in Go. The lone pattern "*", on which CRI-O
// panics, and patterns that are not UTF-8 are errors ([CompileError]).
// The flags [AnchorGlobs], [CaseSensitive] and [Strict] opt into saner
// rules. The tests check all this against Go's regexp, built exactly as
// CRI-O builds it.
//
// # Performance and memory
//
// Names cross into C without a copy, and a match allocates nothing in Go
// (except the result of [Set.MatchEach]; [Set.AppendEach] reuses a slice).
// A call into C costs some tens of nanoseconds: batch the names of an
// image with [Set.MatchAny] and a listing with [Set.MatchEach].
//
// # Lifetimes
//
// A [Set] holds C memory. [Set.Close] frees it; Close is idempotent and
// safe while other goroutines still use the Set: calls in progress finish
// on the intact set, the memory is freed after the last of them, and
// calls that start after Close see an empty set (they pin nothing). A Set
// that becomes unreachable without Close is freed by a runtime.AddCleanup,
// as a backup. To swap sets under running readers, use [Live], which never
// shows readers a closed set.
//
// # Building
//
// The package links libcrio_pin through pkg-config (package crio_pin): set
// PKG_CONFIG_PATH to the install's lib/pkgconfig if it is not a system
// one. By default it links libcrio_pin.so, which the program then needs at
// run time; with the build tag criopin_static it links libcrio_pin.a
// (through pkg-config --static), and the program needs no libcrio_pin.so:
//
//	go build -tags criopin_static ./cmd/crio
package criopin
