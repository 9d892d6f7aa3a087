// Command pinned-images is CRI-O's pinned-image logic on package criopin.
//
// It reads a pinned_images list (one pattern per line) and a list of
// images (one image per line: its names, tags and digests, separated by
// spaces), appends the pause image to the list as CRI-O does, and prints
// which images are pinned and by which pattern. Every answer is checked
// against CRI-O's own code (CompileRegexpsForPinnedImages and
// FilterPinnedImage, copied below): the program exits 1 on any
// disagreement. With -reload, it then sends itself SIGHUP, reloads the
// list from that file through a criopin.Live, as CRI-O reloads its
// configuration, and lists again.
//
//	go run . -patterns pinned-images.txt -images images.txt -reload pinned-images-2.txt
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/crio-pin/crio-pin/go/criopin"
)

func main() {
	patternsFile := flag.String("patterns", "pinned-images.txt", "pinned_images: one pattern per line, # for comments")
	imagesFile := flag.String("images", "images.txt", "images: one per line, its names separated by spaces")
	pause := flag.String("pause", "registry.k8s.io/pause:3.10", "pause_image, appended to the pinned list as CRI-O does")
	reload := flag.String("reload", "", "after the first listing, SIGHUP ourselves and reload the list from this file")
	show := flag.Int("show", 12, "print at most this many images per listing")
	anchor := flag.Bool("anchor-globs", false, "criopin.AnchorGlobs (not CRI-O's semantics: the check against CRI-O is skipped)")
	flag.Parse()

	var flags []criopin.Flag
	if *anchor {
		flags = append(flags, criopin.AnchorGlobs)
	}
	images, err := readImages(*imagesFile)
	if err != nil {
		fail(err)
	}

	// The image service's pinned list: readers (ListImages) use it without
	// locks while the SIGHUP handler replaces it.
	var pinned criopin.Live
	defer pinned.Close()
	var list []string
	load := func(file string) error {
		patterns, err := readPatterns(file)
		if err != nil {
			return err
		}
		// As CRI-O: the configured patterns, then the pause image.
		patterns = append(patterns, *pause)
		if err := pinned.Reload(patterns, flags...); err != nil {
			var cerr *criopin.CompileError
			if errors.As(err, &cerr) && cerr.Index >= 0 {
				return fmt.Errorf("%s: pinned_images[%d] %q: %w", file, cerr.Index, cerr.Pattern, err)
			}
			return err
		}
		list = patterns
		fmt.Printf("pinned_images: %d patterns from %s + pause image %s (libcrio_pin %s)\n",
			len(patterns)-1, file, *pause, criopin.Version())
		return nil
	}
	if err := load(*patternsFile); err != nil {
		fail(err)
	}
	fmt.Printf("images: %d from %s\n", len(images), *imagesFile)
	listImages(&pinned, list, images, *show, !*anchor)

	if *reload != "" {
		hup := make(chan os.Signal, 1)
		signal.Notify(hup, syscall.SIGHUP)
		done := make(chan error)
		go func() {
			for range hup {
				done <- load(*reload)
			}
		}()
		fmt.Printf("\nkill -HUP %d (reload from %s)\n", os.Getpid(), *reload)
		if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
			fail(err)
		}
		if err := <-done; err != nil {
			fail(err)
		}
		listImages(&pinned, list, images, *show, !*anchor)
	}
}

// listImages is ListImages' pinned flag: each image is pinned when any of
// its names is. It checks criopin's answers against CRI-O's loop.
func listImages(pinned *criopin.Live, list []string, images [][]string, show int, check bool) {
	// One consistent list for the whole listing, even across a reload.
	set := pinned.Snapshot()
	defer set.Close()

	count := 0
	for i, names := range images {
		if !set.MatchAny(names...) { // all the names of the image, one call
			continue
		}
		count++
		if count <= show {
			for _, name := range names {
				if at := set.MatchIndex(name); at >= 0 {
					fmt.Printf("  pinned  image %3d  %-60s  by %q\n", i, short(name), list[at])
					break
				}
			}
		}
	}
	if count > show {
		fmt.Printf("  ... and %d more pinned images\n", count-show)
	}

	// A whole listing in one call: every name of every image.
	var all []string
	for _, names := range images {
		all = append(all, names...)
	}
	start := time.Now()
	const rounds = 20
	var each []bool
	for range rounds {
		each = set.AppendEach(each[:0], all)
	}
	lib := time.Since(start) / rounds

	fmt.Printf("listing: %d of %d images pinned\n", count, len(images))
	if !check {
		return
	}
	regexps := CompileRegexpsForPinnedImages(list)
	start = time.Now()
	crioEach := make([]bool, len(all))
	for j, name := range all {
		crioEach[j] = FilterPinnedImage(name, regexps)
	}
	crio := time.Since(start)
	disagree, at := 0, 0
	for i, names := range images {
		crioPinned := false
		for _, name := range names {
			crioPinned = crioPinned || crioEach[at]
			if each[at] != crioEach[at] {
				disagree++
				fmt.Printf("  DISAGREE on name %q of image %d: criopin %v, CRI-O %v\n", name, i, each[at], crioEach[at])
			}
			at++
		}
		if crioPinned != set.MatchAny(names...) {
			disagree++
			fmt.Printf("  DISAGREE on image %d %q\n", i, names)
		}
	}
	if disagree > 0 {
		fail(fmt.Errorf("%d disagreements with CRI-O's regexps", disagree))
	}
	fmt.Printf("CRI-O's regexp loop agrees on all %d images (%d names)\n", len(images), len(all))
	fmt.Printf("time per listing: CRI-O's loop %v, criopin %v (%.0fx)\n",
		round(crio), round(lib), float64(crio)/float64(lib))
}

// CompileRegexpsForPinnedImages is CRI-O's (internal/storage/image.go),
// for the comparison: one regexp per pattern.
func CompileRegexpsForPinnedImages(patterns []string) []*regexp.Regexp {
	regexps := make([]*regexp.Regexp, 0, len(patterns))
	for _, pattern := range patterns {
		var re *regexp.Regexp
		switch {
		case strings.HasPrefix(pattern, "*") && strings.HasSuffix(pattern, "*"):
			// keyword pattern
			keyword := regexp.QuoteMeta(pattern[1 : len(pattern)-1])
			re = regexp.MustCompile("(?i)" + keyword)
		case strings.HasSuffix(pattern, "*"):
			// glob pattern
			pattern = regexp.QuoteMeta(pattern[:len(pattern)-1]) + ".*"
			re = regexp.MustCompile("(?i)" + pattern)
		default:
			// exact pattern
			re = regexp.MustCompile("(?i)^" + regexp.QuoteMeta(pattern) + "$")
		}
		regexps = append(regexps, re)
	}
	return regexps
}

// FilterPinnedImage is CRI-O's: whether one name is pinned.
func FilterPinnedImage(image string, pinnedImages []*regexp.Regexp) bool {
	if len(pinnedImages) == 0 {
		return false
	}
	for _, pinnedImage := range pinnedImages {
		if pinnedImage.MatchString(image) {
			return true
		}
	}
	return false
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

func readImages(file string) ([][]string, error) {
	lines, err := readLines(file)
	if err != nil {
		return nil, err
	}
	var images [][]string
	for _, line := range lines {
		if names := strings.Fields(line); len(names) > 0 && !strings.HasPrefix(names[0], "#") {
			images = append(images, names)
		}
	}
	return images, nil
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

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pinned-images:", err)
	os.Exit(1)
}
