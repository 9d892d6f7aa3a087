// The oracle of the name CRI-O stores for a pulled name: containers/image's
// reference grammar (ParseNormalizedNamed, then TagNameOnly), as CRI-O's
// storage normalises a name. Reads names one a line on standard input and
// writes, for each, "ok\t" and the stored name, or "err\t" and the error.
// Run by cli/tests/qualify.rs.
package main

import (
	"bufio"
	// go-digest checks a digest only with its hash linked in, as it is
	// in CRI-O.
	_ "crypto/sha256"
	_ "crypto/sha512"
	"fmt"
	"os"

	"go.podman.io/image/v5/docker/reference"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<20)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		named, err := reference.ParseNormalizedNamed(in.Text())
		if err != nil {
			fmt.Fprintf(out, "err\t%v\n", err)
			continue
		}
		fmt.Fprintf(out, "ok\t%s\n", reference.TagNameOnly(named).String())
	}
}
