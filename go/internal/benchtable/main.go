// Command benchtable reads the output of the package's benchmarks
// (go test -bench, names BenchmarkX/n=<patterns or list>/<go|lib|purego>) on
// standard input and prints, per list size, the time of CRI-O's Go loop,
// of the pure-Go backend (when measured), of the library, and the ratio
// Go loop / library (above 1, the library is faster), as a Markdown table,
// beside the targets of the "## Go targets" table of docs/BENCHMARKS.md
// (-targets names the file: the targets live there, not here). With several
// runs of a benchmark (-count), it keeps the fastest: the run least
// disturbed by anything else on the machine.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var line = regexp.MustCompile(`^Benchmark(\w+)/n=(\w+)/(go|lib|purego)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op`)

// floorLine is a BenchmarkFloor result: crio's ns/op, or floor's metrics
// (part-ns/image).
var (
	floorLine   = regexp.MustCompile(`^BenchmarkFloor/list=(\w+)/(crio|floor)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(.*)`)
	floorMetric = regexp.MustCompile(`([\d.]+) (matchany|native|emptycall|crio)-ns/image`)
)

// key is a call on a list: its size in patterns, or a name (openshift).
type key struct {
	bench string
	list  string
}

// listOrder sorts sizes by number, named lists after them.
func listOrder(a, b string) int {
	x, errA := strconv.Atoi(a)
	y, errB := strconv.Atoi(b)
	switch {
	case errA == nil && errB == nil:
		return x - y
	case errA == nil:
		return -1
	case errB == nil:
		return 1
	}
	return strings.Compare(a, b)
}

func main() {
	targetsFile := flag.String("targets", "../docs/BENCHMARKS.md", "the Markdown file with the \"## Go targets\" table")
	flag.Parse()
	doc, err := os.ReadFile(*targetsFile)
	if err == nil {
		var targets map[key]float64
		if targets, err = parseTargets(string(doc)); err == nil {
			err = run(os.Stdin, os.Stdout, targets)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
}

// targetRow is a row of the "## Go targets" table: | call | patterns | ≥ ratio |,
// where call "all" stands for every call at that size and patterns is a
// list size or a list's name.
var targetRow = regexp.MustCompile(`^\|\s*(\w+)\s*\|\s*(\w+)\s*\|\s*≥\s*([\d.]+)\s*\|$`)

// overheadRow is a bound on the floor table's overhead, in ns an image:
// | overhead | list or all | ≤ N ns |.
var overheadRow = regexp.MustCompile(`^\|\s*overhead\s*\|\s*(\w+)\s*\|\s*≤\s*([\d.]+)\s*ns\s*\|$`)

// parseTargets reads the ratio each call should reach at each list size.
func parseTargets(doc string) (map[key]float64, error) {
	_, section, ok := strings.Cut(doc, "\n## Go targets\n")
	if !ok {
		return nil, fmt.Errorf(`no "## Go targets" section in the targets file`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	targets := map[key]float64{}
	for _, row := range strings.Split(section, "\n") {
		if m := overheadRow.FindStringSubmatch(strings.TrimSpace(row)); m != nil {
			bound, err := strconv.ParseFloat(m[2], 64)
			if err != nil {
				return nil, fmt.Errorf("target %q: %v", row, err)
			}
			targets[key{"overhead", m[1]}] = bound
			continue
		}
		m := targetRow.FindStringSubmatch(strings.TrimSpace(row))
		if m == nil {
			continue
		}
		n := m[2]
		ratio, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			return nil, fmt.Errorf("target %q: %v", row, err)
		}
		calls := []string{m[1]}
		if m[1] == "all" {
			calls = []string{"Match", "MatchAny", "MatchEach"}
		}
		for _, c := range calls {
			if _, set := targets[key{c, n}]; !set || m[1] != "all" {
				targets[key{c, n}] = ratio
			}
		}
	}
	if len(targets) == 0 {
		return nil, fmt.Errorf(`the "## Go targets" section has no | call | patterns | ≥ ratio | rows`)
	}
	return targets, nil
}

func run(in io.Reader, out io.Writer, targets map[key]float64) error {
	ns := map[key]map[string]float64{}
	var sizes []string
	benches := []string{"Match", "MatchAny", "MatchEach"}
	floor := map[string]map[string]float64{}
	var floorLists []string
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if m := floorLine.FindStringSubmatch(sc.Text()); m != nil {
			if floor[m[1]] == nil {
				floor[m[1]] = map[string]float64{}
				floorLists = append(floorLists, m[1])
			}
			parts := [][]string{{"", m[3], "crio"}}
			if m[2] == "floor" {
				parts = floorMetric.FindAllStringSubmatch(m[4], -1)
			}
			for _, part := range parts {
				v, err := strconv.ParseFloat(part[1], 64)
				if err != nil {
					return err
				}
				if old, ok := floor[m[1]][part[2]]; !ok || v < old {
					floor[m[1]][part[2]] = v
				}
			}
			continue
		}
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n := m[2]
		v, err := strconv.ParseFloat(m[4], 64)
		if err != nil {
			return err
		}
		k := key{m[1], n}
		if ns[k] == nil {
			ns[k] = map[string]float64{}
		}
		if old, ok := ns[k][m[3]]; !ok || v < old {
			ns[k][m[3]] = v
		}
		if !slices.Contains(sizes, n) {
			sizes = append(sizes, n)
		}
		if !slices.Contains(benches, m[1]) {
			benches = append(benches, m[1])
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(sizes) == 0 && len(floorLists) == 0 {
		return fmt.Errorf("no benchmark results on standard input")
	}
	slices.SortFunc(sizes, listOrder)

	fmt.Fprintln(out, "CRI-O's Go loop, the pure-Go backend (criopin_purego) and the library through cgo, time per op;")
	fmt.Fprintln(out, "ratio = Go loop / library (above 1: the library is faster). Match: one name; MatchAny: one")
	fmt.Fprintln(out, "image (2 names); MatchEach: a listing of 500 names. Fastest of the runs of each benchmark.")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| patterns | call | Go loop | pure-Go backend | library | ratio | target |")
	fmt.Fprintln(out, "| ---: | :--- | ---: | ---: | ---: | ---: | ---: |")
	var missed []string
	for _, n := range sizes {
		for _, b := range benches {
			r := ns[key{b, n}]
			g, okG := r["go"]
			l, okL := r["lib"]
			if !okG || !okL || l == 0 {
				continue
			}
			ratio := g / l
			target := ""
			if t, ok := targets[key{b, n}]; ok {
				target = fmt.Sprintf(">= %gx", t)
				if ratio < t {
					target += " MISSED"
					missed = append(missed, fmt.Sprintf("%s on list %s: %s < %gx", b, n, times(ratio), t))
				}
			}
			pure := "–"
			if p, ok := r["purego"]; ok {
				pure = duration(p)
			}
			fmt.Fprintf(out, "| %s | %s | %s | %s | %s | %s | %s |\n", n, b, duration(g), pure, duration(l), times(ratio), target)
		}
	}
	missed = append(missed, floorTable(out, floor, floorLists, targets)...)
	fmt.Fprintln(out)
	if len(missed) == 0 {
		fmt.Fprintln(out, "Every ratio meets its target.")
	} else {
		fmt.Fprintln(out, "Below target:")
		for _, m := range missed {
			fmt.Fprintln(out, "  "+m)
		}
	}
	return nil
}

// floorTable prints, per list, MatchAny per image beside its floor (the
// library's native answer + an empty cgo call) and CRI-O's loop, and
// returns the targets missed.
func floorTable(out io.Writer, floor map[string]map[string]float64, lists []string, targets map[key]float64) []string {
	if len(lists) == 0 {
		return nil
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, "MatchAny per image at its floor (BenchmarkFloor; one stored name an image, a few images with two):")
	fmt.Fprintln(out, "native = the library's answer called from C; floor = native + an empty cgo call; overhead =")
	fmt.Fprintln(out, "MatchAny - floor (below 0: names the length table settles in Go, with no call); ratio = CRI-O's loop / MatchAny.")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| list | CRI-O's loop | MatchAny | native | empty call | floor | overhead | target | ratio | target |")
	fmt.Fprintln(out, "| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	var missed []string
	for _, l := range lists {
		r := floor[l]
		crio, okC := r["crio"]
		matchAny, okA := r["matchany"]
		native, okN := r["native"]
		call, okE := r["emptycall"]
		if !okC || !okA || !okN || !okE || matchAny == 0 {
			missed = append(missed, fmt.Sprintf("floor of list %s: not every part was measured", l))
			continue
		}
		overhead, ratio := matchAny-(native+call), crio/matchAny
		overheadTarget, ratioTarget := "", ""
		if bound, ok := targets[key{"overhead", l}]; ok || targets[key{"overhead", "all"}] > 0 {
			if !ok {
				bound = targets[key{"overhead", "all"}]
			}
			overheadTarget = fmt.Sprintf("<= %g ns", bound)
			if overhead > bound {
				overheadTarget += " MISSED"
				missed = append(missed, fmt.Sprintf("overhead on list %s: %.1f ns > %g ns", l, overhead, bound))
			}
		}
		if t, ok := targets[key{"Floor", l}]; ok {
			ratioTarget = fmt.Sprintf(">= %gx", t)
			if ratio < t {
				ratioTarget += " MISSED"
				missed = append(missed, fmt.Sprintf("MatchAny on list %s: %s < %gx", l, times(ratio), t))
			}
		}
		fmt.Fprintf(out, "| %s | %s | %s | %s | %s | %s | %.1f ns | %s | %s | %s |\n", l, duration(crio), duration(matchAny),
			duration(native), duration(call), duration(native+call), overhead, overheadTarget, times(ratio), ratioTarget)
	}
	return missed
}

// times formats a ratio.
func times(r float64) string {
	switch {
	case r >= 100:
		return fmt.Sprintf("%.0fx", r)
	case r >= 10:
		return fmt.Sprintf("%.1fx", r)
	default:
		return fmt.Sprintf("%.2fx", r)
	}
}

// duration formats nanoseconds with a unit.
func duration(ns float64) string {
	switch {
	case ns >= 1e9:
		return fmt.Sprintf("%.3g s", ns/1e9)
	case ns >= 1e6:
		return fmt.Sprintf("%.3g ms", ns/1e6)
	case ns >= 1e3:
		return fmt.Sprintf("%.3g µs", ns/1e3)
	default:
		return fmt.Sprintf("%.3g ns", ns)
	}
}
