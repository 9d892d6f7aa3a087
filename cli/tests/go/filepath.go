// Command filepath answers queries with Go's own path/filepath.Match and
// Glob, for the test of cli/src/go_filepath.rs that compares them with
// the tool's (run by that test with `go run`; no table of Go's is copied).
//
// Each line of standard input is a query, its arguments in hex (a
// pattern or name may hold any byte):
//
//	M PATTERN NAME   Match: "true", "false" or "bad" (ErrBadPattern)
//	G PATTERN        Glob: "bad", or "ok" and each match in hex
//
// One line of answer per query, in order.
package main

import (
	"bufio"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func unhex(s string) string {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		f := strings.Split(in.Text(), " ")
		switch f[0] {
		case "M":
			name := ""
			if len(f) > 2 {
				name = unhex(f[2])
			}
			ok, err := filepath.Match(unhex(f[1]), name)
			switch {
			case errors.Is(err, filepath.ErrBadPattern):
				fmt.Fprintln(out, "bad")
			case err != nil:
				panic(err)
			default:
				fmt.Fprintln(out, ok)
			}
		case "G":
			matches, err := filepath.Glob(unhex(f[1]))
			if errors.Is(err, filepath.ErrBadPattern) {
				fmt.Fprintln(out, "bad")
				continue
			} else if err != nil {
				panic(err)
			}
			fmt.Fprint(out, "ok")
			for _, m := range matches {
				fmt.Fprint(out, " ", hex.EncodeToString([]byte(m)))
			}
			fmt.Fprintln(out)
		default:
			panic("unknown query " + f[0])
		}
	}
	if err := in.Err(); err != nil {
		panic(err)
	}
}
