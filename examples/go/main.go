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
//	go run . -patterns pinned-images.txt -images images.txt -artifacts artifacts.txt \
//		-reload pinned-images-2.txt -reload pinned-images-bad.txt
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
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
	svc.listImages(*show)
	store.list()

	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	for _, file := range reloads {
		fmt.Printf("\nkill -HUP %d (reload pinned_images from %s)\n", os.Getpid(), file)
		if err := syscall.Kill(os.Getpid(), syscall.SIGHUP); err != nil {
			fail(err)
		}
		<-hup
		if err := cfg.load(file); err != nil {
			// On reload a bad list is rejected and the old one stays.
			fmt.Printf("reload rejected, keeping the %d patterns in effect:\n  %v\n", len(cfg.list), err)
			var cerr *criopin.CompileError
			if errors.As(err, &cerr) {
				fmt.Printf("  to blame: pinned_images[%d] = %q (%v)\n", cerr.Index, cerr.Pattern, cerr.Kind)
			}
		}
		svc.listImages(*show)
		store.list()
	}
}

// load compiles the patterns of file, then the pause image, and makes them
// the list of both consumers; on error the current list stays.
func (c *config) load(file string) error {
	patterns, err := readPatterns(file)
	if err != nil {
		return err
	}
	patterns = append(patterns, c.pause)
	if err := c.pinned.Reload(patterns); err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	c.list = patterns
	fmt.Printf("pinned_images: %d patterns from %s + pause image %s\n", len(patterns)-1, file, c.pause)
	return nil
}

// listImages is ListImages' pinned flag for every image, and the time of a
// whole listing in one call.
func (s *imageService) listImages(show int) {
	// One list for the whole listing, even across a reload.
	set := s.pinned.Snapshot()
	defer set.Close()
	count := 0
	for i, names := range s.images {
		if !set.MatchAny(names...) { // all the names of the image, one call
			continue
		}
		count++
		if count <= show {
			for _, name := range names {
				if at := set.MatchIndex(name); at >= 0 {
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
		each = set.AppendEach(each[:0], all)
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

// list prints the artifacts' pinned flags.
func (s *artifactStore) list() {
	for _, a := range s.artifacts {
		fmt.Printf("  artifact %-50s pinned: %v\n", short(a[0]), s.pinned.MatchAny(a[0], a[1]))
	}
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

func fail(err error) {
	fmt.Fprintln(os.Stderr, "pinned-images:", err)
	os.Exit(1)
}
