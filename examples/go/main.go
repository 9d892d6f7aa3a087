// Command pinned-images is CRI-O's pinned-image logic on package criopin:
// two consumers of one pinned_images list, reloaded on SIGHUP.
//
// It reads a pinned_images list (one pattern per line), a list of images
// (one per line: its names, tags and digests, separated by spaces) and a
// list of OCI artifacts (one per line: reference, canonical name), appends
// the pause image to the list as CRI-O does, and compiles it into one
// criopin.Live shared by an image service (ListImages: an image is pinned
// when any of its names is) and an artifact store (an artifact is pinned
// when its reference or canonical name is). Each -reload file is then
// loaded on a SIGHUP the program sends itself, as CRI-O reloads its
// configuration: a list that does not compile is rejected with the
// pattern to blame, and both consumers keep the list they had.
//
// Each listing (ListImages: the images, then the artifacts) takes one
// snapshot of the list into its context, and both consumers read the list
// through that context, so a reload in the middle of a listing cannot
// answer its images from one list and its artifacts from another. With
// -torn N the program shows it: N listings while a goroutine reloads
// between the -patterns list and the first -reload list at full speed,
// first with the consumers reading the Live directly, then with one
// snapshot per listing, and the number of listings not answered by one
// list in each case (exit status 1 if any with the snapshot).
//
//	go run . -patterns pinned-images.txt -images images.txt -artifacts artifacts.txt \
//		-reload pinned-images.txt -reload pinned-images-2.txt -reload pinned-images-bad.txt
//	go run . -patterns pinned-images.txt -images images.txt -artifacts artifacts.txt \
//		-reload pinned-images-2.txt -torn 20000
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/crio-pin/crio-pin/go/criopin"
)

// imageService is the part of CRI-O's image service that needs the list.
type imageService struct {
	pinned *criopin.Live // shared with the artifact store
	images [][]string
}

// artifactStore is the part of CRI-O's OCI-artifact store that needs it.
type artifactStore struct {
	pinned    *criopin.Live // the same Live: one reload reaches both
	artifacts [][2]string   // reference, canonical name
}

// config holds the daemon's pinned list and reloads it.
type config struct {
	pinned *criopin.Live
	pause  string
	list   []string // the patterns in effect, for messages
}

func main() {
	patternsFile := flag.String("patterns", "pinned-images.txt", "pinned_images: one pattern per line, # for comments")
	imagesFile := flag.String("images", "images.txt", "images: one per line, its names separated by spaces")
	artifactsFile := flag.String("artifacts", "", "OCI artifacts: one per line, reference and canonical name")
	pause := flag.String("pause", "registry.k8s.io/pause:3.10", "pause_image, appended to the pinned list as CRI-O does")
	var reloads []string
	flag.Func("reload", "on SIGHUP, reload the list from this file (repeatable)", func(f string) error {
		reloads = append(reloads, f)
		return nil
	})
	show := flag.Int("show", 12, "print at most this many images per listing")
	torn := flag.Int("torn", 0, "count listings torn by reloads in this many listings, then exit (needs -artifacts and a -reload)")
	flag.Parse()

	images, err := readFields(*imagesFile)
	if err != nil {
		fail(err)
	}
	svc := &imageService{images: images}
	store := &artifactStore{}
	if *artifactsFile != "" {
		lines, err := readFields(*artifactsFile)
		if err != nil {
			fail(err)
		}
		for _, f := range lines {
			if len(f) != 2 {
				fail(fmt.Errorf("%s: want a reference and a canonical name per line, got %q", *artifactsFile, f))
			}
			store.artifacts = append(store.artifacts, [2]string{f[0], f[1]})
		}
	}

	// One list for both consumers.
	cfg := &config{pinned: new(criopin.Live), pause: *pause}
	defer cfg.pinned.Close()
	svc.pinned, store.pinned = cfg.pinned, cfg.pinned
	if err := cfg.load(*patternsFile); err != nil {
		fail(err) // at start-up a bad list is fatal, as in CRI-O
	}
	fmt.Printf("backend %s (libcrio_pin %s); images: %d from %s; artifacts: %d\n",
		criopin.Backend, criopin.Version(), len(images), *imagesFile, len(store.artifacts))
	if *torn > 0 {
		if len(reloads) == 0 || len(store.artifacts) == 0 {
			fail(errors.New("-torn needs -artifacts and a -reload list"))
		}
		if err := countTorn(cfg, svc, store, reloads[0], *torn); err != nil {
			fail(err)
		}
		return
	}
	listImages(svc, store, *show)

	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	for _, file := range reloads {
		// No PID: it differs from run to run, and says nothing to a reader.
		fmt.Printf("\nkill -HUP (this process: reload pinned_images from %s)\n", file)
		if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
			fail(err)
		}
		<-hup
		if err := cfg.load(file); err != nil {
			// On reload a bad list is rejected and the old one stays.
			fmt.Printf("reload rejected, keeping the %d patterns in effect:\n  %v\n", len(cfg.list), wrap(err.Error(), 96, "\n    "))
			var cerr *criopin.CompileError
			if errors.As(err, &cerr) {
				fmt.Printf("  to blame: pinned_images[%d] = %q (%v)\n", cerr.Index, cerr.Pattern, cerr.Kind)
			}
		}
		listImages(svc, store, *show)
	}
}

// listImages is one ListImages: the image service's images, then the
// artifact store's artifacts, both answered from the one list the
// listing's context carries (as CRI-O's ListImages would: the handler
// takes the snapshot, the two stores read the Live through the context).
func listImages(svc *imageService, store *artifactStore, show int) {
	ctx, release := svc.pinned.WithSnapshot(context.Background())
	defer release() // the listing owns the snapshot
	svc.listImages(ctx, show)
	store.list(ctx)
}

// load compiles the patterns of file, then the pause image, and makes them
// the list of both consumers, unless they are the list served already; on
// error the current list stays. It says which, with the fingerprint of the
// list served, as CRI-O's log would.
func (c *config) load(file string) error {
	patterns, err := readPatterns(file)
	if err != nil {
		return err
	}
	patterns = append(patterns, c.pause)
	r, err := c.pinned.ReloadIfChanged(patterns)
	if err != nil {
		return fmt.Errorf("%s: %w (still serving %s)", file, err, r.Fingerprint)
	}
	c.list = patterns
	if !r.Changed {
		fmt.Printf("pinned_images: %s unchanged, not recompiled: serving %s\n", file, r.Fingerprint)
		return nil
	}
	fmt.Printf("pinned_images: %d patterns from %s\n  + pause image %s\n  serving %s\n", len(patterns)-1, file,
		c.pause, r.Fingerprint)
	return nil
}

// pinnedFlags is ListImages' pinned flag for each image, each computed on
// its own as CRI-O's result builder does, from the list of ctx's
// snapshot (or, without one, the list current at each image).
func (s *imageService) pinnedFlags(ctx context.Context) []bool {
	view := s.pinned.From(ctx)
	flags := make([]bool, len(s.images))
	for i, names := range s.images {
		flags[i] = view.MatchAny(names...) // all the names of the image, one call
	}
	return flags
}

// listImages prints the pinned images, and the time of a whole listing in
// one call.
func (s *imageService) listImages(ctx context.Context, show int) {
	view := s.pinned.From(ctx) // the listing's list, even across a reload
	count := 0
	for i, pinned := range s.pinnedFlags(ctx) {
		if !pinned {
			continue
		}
		count++
		if count <= show {
			for _, name := range s.images[i] {
				if at := view.MatchIndex(name); at >= 0 {
					fmt.Printf("  pinned  image %3d  %-60s  by pattern %d\n", i, short(name), at)
					break
				}
			}
		}
	}
	if count > show {
		fmt.Printf("  ... and %d more pinned images\n", count-show)
	}
	var all []string
	for _, names := range s.images {
		all = append(all, names...)
	}
	const rounds = 20
	var each []bool
	start := time.Now()
	for range rounds {
		each = view.AppendEach(each[:0], all)
	}
	pinnedNames := 0
	for _, p := range each {
		if p {
			pinnedNames++
		}
	}
	fmt.Printf("images: %d of %d pinned (%d of %d names; %v per listing)\n",
		count, len(s.images), pinnedNames, len(all), round(time.Since(start)/rounds))
}

// pinnedFlags is each artifact's pinned flag (its reference or its
// canonical name pinned), from the list of ctx's snapshot, or the current
// one.
func (s *artifactStore) pinnedFlags(ctx context.Context) []bool {
	view := s.pinned.From(ctx)
	flags := make([]bool, len(s.artifacts))
	for i, a := range s.artifacts {
		flags[i] = view.MatchAny(a[0], a[1])
	}
	return flags
}

// list prints the artifacts' pinned flags.
func (s *artifactStore) list(ctx context.Context) {
	for i, pinned := range s.pinnedFlags(ctx) {
		fmt.Printf("  artifact %-50s pinned: %v\n", short(s.artifacts[i][0]), pinned)
	}
}

// countTorn runs n listings while a goroutine reloads between the list in
// effect and the list of file at full speed, first with both consumers
// reading the Live directly, then with one snapshot per listing, and
// prints how many listings were not answered by one list: images and
// artifacts answered by different lists, or the images (or the artifacts)
// of one listing by both. An error if any was with the snapshot.
func countTorn(cfg *config, svc *imageService, store *artifactStore, file string, n int) error {
	patterns, err := readPatterns(file)
	if err != nil {
		return err
	}
	lists := [2][]string{cfg.list, append(patterns, cfg.pause)}
	// What each list answers, alone.
	var want [2]struct{ images, artifacts []bool }
	for i, list := range lists {
		if err := cfg.pinned.Reload(list); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		want[i].images, want[i].artifacts = svc.pinnedFlags(context.Background()), store.pinnedFlags(context.Background())
	}
	if slices.Equal(want[0].images, want[1].images) || slices.Equal(want[0].artifacts, want[1].artifacts) {
		return fmt.Errorf("-torn: the two lists must pin different images and different artifacts")
	}
	answeredBy := func(got []bool, part func(i int) []bool) int {
		for i := range lists {
			if slices.Equal(got, part(i)) {
				return i
			}
		}
		return -1 // some by one list, some by the other
	}
	fmt.Printf("%d listings (images, then artifacts), while a goroutine reloads %d and %d patterns:\n",
		n, len(lists[0]), len(lists[1]))
	for _, snapshot := range []bool{false, true} {
		var stop atomic.Bool
		var reloads atomic.Int64
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { // SIGHUP after SIGHUP
			defer wg.Done()
			for i := 0; !stop.Load(); i++ {
				if err := cfg.pinned.Reload(lists[i%2]); err != nil {
					panic(err) // both lists compiled above
				}
				reloads.Add(1)
			}
		}()
		torn := 0
		for range n {
			ctx, release := context.Background(), func() {}
			if snapshot {
				ctx, release = cfg.pinned.WithSnapshot(ctx)
			}
			images, artifacts := svc.pinnedFlags(ctx), store.pinnedFlags(ctx)
			release()
			byImages := answeredBy(images, func(i int) []bool { return want[i].images })
			byArtifacts := answeredBy(artifacts, func(i int) []bool { return want[i].artifacts })
			if byImages < 0 || byArtifacts < 0 || byImages != byArtifacts {
				torn++
			}
		}
		stop.Store(true)
		wg.Wait()
		how := "both stores reading the Live directly"
		if snapshot {
			how = "one snapshot per listing (WithSnapshot)"
		}
		fmt.Printf("  %-40s %6d torn of %d (%d reloads meanwhile)\n", how+":", torn, n, reloads.Load())
		if snapshot && torn > 0 {
			return fmt.Errorf("%d listings torn with one snapshot per listing", torn)
		}
	}
	return nil
}

func readPatterns(file string) ([]string, error) {
	lines, err := readLines(file)
	if err != nil {
		return nil, err
	}
	var patterns []string
	for _, line := range lines {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			patterns = append(patterns, line)
		}
	}
	return patterns, nil
}

// readFields reads one entry a line, its fields separated by spaces.
func readFields(file string) ([][]string, error) {
	lines, err := readLines(file)
	if err != nil {
		return nil, err
	}
	var out [][]string
	for _, line := range lines {
		if f := strings.Fields(line); len(f) > 0 && !strings.HasPrefix(f[0], "#") {
			out = append(out, f)
		}
	}
	return out, nil
}

func readLines(file string) ([]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	return lines, sc.Err()
}

// round keeps three or four significant digits.
func round(d time.Duration) time.Duration {
	for unit := time.Duration(1); unit < time.Second; unit *= 10 {
		if d < 1000*unit {
			return d.Round(unit)
		}
	}
	return d.Round(time.Millisecond)
}

func short(name string) string {
	if len(name) > 60 {
		return name[:57] + "..."
	}
	return name
}

// wrap breaks text at spaces into lines of at most width bytes (a longer
// word stays whole), joined by sep: messages fit a terminal.
func wrap(text string, width int, sep string) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return strings.Join(append(lines, line), sep)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pinned-images:", err)
	os.Exit(1)
}
