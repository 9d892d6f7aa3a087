// crio-decode times CRI-O's TOML decoder (BurntSushi/toml v1.6.0, the
// version CRI-O vendors) on one configuration file, reading the keys the
// crio-pin tool reads: [crio.image] pinned_images and pause_image. The
// crio-pin tool's benchmark (cli/benches/times.rs) prints its time beside
// the tool's.
//
//	go run . FILE   prints: <seconds> <number of pinned_images>
package main

import (
	"fmt"
	"os"
	"time"

	"github.com/BurntSushi/toml"
)

type config struct {
	Crio struct {
		Image struct {
			PinnedImages []string `toml:"pinned_images"`
			PauseImage   string   `toml:"pause_image"`
		} `toml:"image"`
	} `toml:"crio"`
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: crio-decode FILE")
		os.Exit(2)
	}
	start := time.Now()
	var c config
	// As CRI-O does (pkg/config UpdateFromFile): read the file, then decode.
	data, err := os.ReadFile(os.Args[1])
	if err == nil {
		_, err = toml.Decode(string(data), &c)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Printf("%.3f %d\n", time.Since(start).Seconds(), len(c.Crio.Image.PinnedImages))
}
