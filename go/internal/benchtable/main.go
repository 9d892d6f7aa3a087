// Command benchtable reads the output of the package's benchmarks
// (go test -bench, names BenchmarkX/n=<patterns or list>/<go|lib|wasm2go|wasm>)
// on standard input and prints, per list size, the time of CRI-O's Go loop,
// of the library through cgo and compiled to WebAssembly (when measured:
// wasm2go, the default without cgo, and wasm, run by wazero), and the
// ratios (Go loop / library: above 1, the library is faster; engine /
// cgo), a fresh process's first Compile and a set's memory with 16
// callers, as Markdown tables (a row's time is its best-ns/call where
// it reports one: the fastest round, one whole pass over the listing),
// beside the targets of the "## Go targets" table of docs/BENCHMARKS.md
// (-targets names the file: the targets live there, not here). With several
// runs of a benchmark (-count), it keeps the fastest: the run least
// disturbed by anything else on the machine.
package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

var line = regexp.MustCompile(`^Benchmark(\w+)/n=(\w+)/(go|lib|wasm2go|wasm)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(.*)`)

// engines are the backends without cgo, the default first, as their
// benchmarks name them (criopin.Backend), with the name the tables give
// them. The default's rows carry CRI-O's loop / engine beside engine / cgo.
var engines = []struct{ backend, title string }{{"wasm2go", "wasm2go"}, {"wasm", "wazero"}}

// bestMetric is a per-call row's fastest round (bench_test.go's rounds):
// read in place of ns/op, the mean, where a row reports it.
var bestMetric = regexp.MustCompile(`([\d.]+) best-ns/call`)

// floorMetricCall is a backend's call floor beside its row: the fixed cost
// of the calls into the library its pass makes, in ns a call.
var floorMetricCall = regexp.MustCompile(`([\d.]+) floor-ns/call`)

// compileLine is a BenchmarkCompile result with a backend; moduleLine the
// wasm backend's once-per-process compile of its module, cachedLine the
// same read from CRIOPIN_WASM_CACHE's directory.
var (
	compileLine = regexp.MustCompile(`^BenchmarkCompile/([\w=]+)/(lib|wasm2go|wasm)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(.*)`)
	moduleLine  = regexp.MustCompile(`^BenchmarkModuleCompile(?:-\d+)?\s+\d+\s+([\d.]+) ns/op`)
	cachedLine  = regexp.MustCompile(`^BenchmarkModuleCompileCached(?:-\d+)?\s+\d+\s+([\d.]+) ns/op`)
)

// floorLine is a BenchmarkFloor result: crio's ns/op, or floor's metrics
// (part-ns/image).
var (
	floorLine   = regexp.MustCompile(`^BenchmarkFloor/list=(\w+)/(crio|floor|wasm2go|wasm)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op(.*)`)
	floorMetric = regexp.MustCompile(`([\d.]+) (matchany|native|emptycall|crio)-ns/image`)
)

// firstLine is BenchmarkFirstCompile: a fresh process's first Compile of a
// list (best-ns/call) and the process's life (process-ns/op); memoryLine
// BenchmarkSetMemory, a set's memory in copies of its compiled list.
var (
	firstLine     = regexp.MustCompile(`^BenchmarkFirstCompile/(\w+)/(lib|wasm2go|wasm)(?:-\d+)?\s+\d+\s+[\d.]+ ns/op(.*)`)
	processMetric = regexp.MustCompile(`([\d.]+) process-ns/op`)
	memoryLine    = regexp.MustCompile(`^BenchmarkSetMemory/(wasm2go|wasm)(?:-\d+)?\s+\d+\s+[\d.]+ ns/op(.*)`)
	memoryMetric  = regexp.MustCompile(`([\d.]+) (compiled-bytes|callers-copies|long-copies)`)
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

// boundRow is an upper bound: | what | list or all | ≤ N [ns|ms] |: the
// floor table's overhead (ns an image), an engine's time / cgo's (what is
// its backend's name: wasm2go, wasm), its Compile / cgo's (wasm2gocompile,
// wasmcompile), the module's compile (ms), a fresh process's first
// Compile (firstcompile, list = backend: lib, wasm2go or wasm; ms) and a
// set's memory in copies of its list (memory, list = backend).
var boundRow = regexp.MustCompile(`^\|\s*(\w+)\s*\|\s*(\w+)\s*\|\s*≤\s*([\d.]+)\s*(?:ns|ms)?\s*\|$`)

// parseTargets reads the ratio each call should reach at each list size.
func parseTargets(doc string) (map[key]float64, error) {
	_, section, ok := strings.Cut(doc, "\n## Go targets\n")
	if !ok {
		return nil, fmt.Errorf(`no "## Go targets" section in the targets file`)
	}
	section, _, _ = strings.Cut(section, "\n## ")
	targets := map[key]float64{}
	for _, row := range strings.Split(section, "\n") {
		if m := boundRow.FindStringSubmatch(strings.TrimSpace(row)); m != nil {
			bound, err := strconv.ParseFloat(m[3], 64)
			if err != nil {
				return nil, fmt.Errorf("target %q: %v", row, err)
			}
			targets[key{"≤" + m[1], m[2]}] = bound
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
	compile := map[string]map[string]float64{}
	var compileLists []string
	module, cached := 0.0, 0.0
	first := map[string][2]float64{} // backend: first Compile, process
	memory := map[string]map[string]float64{}
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		if m := firstLine.FindStringSubmatch(sc.Text()); m != nil {
			best, process := bestMetric.FindStringSubmatch(m[3]), processMetric.FindStringSubmatch(m[3])
			if best == nil || process == nil {
				return fmt.Errorf("%q: no best-ns/call or process-ns/op", sc.Text())
			}
			b, errB := strconv.ParseFloat(best[1], 64)
			p, errP := strconv.ParseFloat(process[1], 64)
			if errB != nil || errP != nil {
				return fmt.Errorf("%q: %v", sc.Text(), errors.Join(errB, errP))
			}
			if old, ok := first[m[2]]; !ok || b < old[0] {
				first[m[2]] = [2]float64{b, p}
			}
			continue
		}
		if m := memoryLine.FindStringSubmatch(sc.Text()); m != nil {
			if memory[m[1]] == nil {
				memory[m[1]] = map[string]float64{}
			}
			for _, part := range memoryMetric.FindAllStringSubmatch(m[2], -1) {
				v, err := strconv.ParseFloat(part[1], 64)
				if err != nil {
					return err
				}
				if old, ok := memory[m[1]][part[2]]; !ok || v > old { // the most any run held
					memory[m[1]][part[2]] = v
				}
			}
			continue
		}
		if m := compileLine.FindStringSubmatch(sc.Text()); m != nil {
			value := m[3]
			if best := bestMetric.FindStringSubmatch(m[4]); best != nil {
				value = best[1]
			}
			v, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return err
			}
			if compile[m[1]] == nil {
				compile[m[1]] = map[string]float64{}
				compileLists = append(compileLists, m[1])
			}
			if old, ok := compile[m[1]][m[2]]; !ok || v < old {
				compile[m[1]][m[2]] = v
			}
			continue
		}
		if m := cachedLine.FindStringSubmatch(sc.Text()); m != nil {
			v, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				return err
			}
			if cached == 0 || v < cached {
				cached = v
			}
			continue
		}
		if m := moduleLine.FindStringSubmatch(sc.Text()); m != nil {
			v, err := strconv.ParseFloat(m[1], 64)
			if err != nil {
				return err
			}
			if module == 0 || v < module {
				module = v
			}
			continue
		}
		if m := floorLine.FindStringSubmatch(sc.Text()); m != nil {
			if floor[m[1]] == nil {
				floor[m[1]] = map[string]float64{}
				floorLists = append(floorLists, m[1])
			}
			parts, prefix := [][]string{{"", m[3], "crio"}}, ""
			if m[2] != "crio" {
				parts = floorMetric.FindAllStringSubmatch(m[4], -1)
			}
			if m[2] != "crio" && m[2] != "floor" {
				prefix = m[2] + "-" // an engine's run of the floor without cgo
			}
			for _, part := range parts {
				v, err := strconv.ParseFloat(part[1], 64)
				if err != nil {
					return err
				}
				if old, ok := floor[m[1]][prefix+part[2]]; !ok || v < old {
					floor[m[1]][prefix+part[2]] = v
				}
			}
			continue
		}
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		n := m[2]
		value := m[4]
		if best := bestMetric.FindStringSubmatch(m[5]); best != nil {
			value = best[1]
		}
		v, err := strconv.ParseFloat(value, 64)
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
		if f := floorMetricCall.FindStringSubmatch(m[5]); f != nil {
			fv, err := strconv.ParseFloat(f[1], 64)
			if err != nil {
				return err
			}
			if old, ok := ns[k][m[3]+"-floor"]; !ok || fv < old {
				ns[k][m[3]+"-floor"] = fv
			}
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
	if len(sizes) == 0 && len(floorLists) == 0 && len(compileLists) == 0 && len(first) == 0 && len(memory) == 0 {
		return fmt.Errorf("no benchmark results on standard input")
	}
	slices.SortFunc(sizes, listOrder)

	fmt.Fprintln(out, "CRI-O's Go loop, the library through cgo and the library compiled to WebAssembly, translated to Go")
	fmt.Fprintln(out, "(wasm2go: CGO_ENABLED=0 or -tags criopin_wasm) or run by wazero (-tags criopin_wazero), time per op;")
	fmt.Fprintln(out, "ratio = Go loop / library (above 1: the library is faster); wasm2go/cgo and wazero/cgo = the engine's")
	fmt.Fprintln(out, "time / cgo's. Match: one name; MatchAny: one image (2 names); MatchEach: a")
	fmt.Fprintln(out, "listing of 500 names (600 on openshift). Each time is the fastest round, one whole pass over the")
	fmt.Fprintln(out, "listing (every name, every image, or one MatchEach), of all the runs of a benchmark, divided by its")
	fmt.Fprintln(out, "calls: not a mean, which a busy machine inflates; CRI-O's loop above 100 patterns, where one pass")
	fmt.Fprintln(out, "takes seconds, is its mean per op.")
	fmt.Fprintln(out)
	fmt.Fprintln(out, "| patterns | call | Go loop | library | ratio | target | wasm2go | Go loop / wasm2go | target | wasm2go/cgo | target | wazero | wazero/cgo | target |")
	fmt.Fprintln(out, "| ---: | :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	var missed, reargued []string
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
			row := fmt.Sprintf("| %s | %s | %s | %s | %s | %s ", n, b, duration(g), duration(l), times(ratio), target)
			for i, e := range engines {
				cells, m, a := engineCells(e.backend, e.title, i == 0, fmt.Sprintf("%s on list %s", b, n), r, n, targets)
				row, missed, reargued = row+cells, append(missed, m...), append(reargued, a...)
			}
			fmt.Fprintln(out, row+"|")
		}
	}
	callFloorTable(out, ns, sizes, benches, targets)
	missed = append(missed, floorTable(out, floor, floorLists, targets)...)
	floorMissed, floorReargued := engineFloorTable(out, floor, floorLists, targets)
	missed, reargued = append(missed, floorMissed...), append(reargued, floorReargued...)
	missed = append(missed, compileTable(out, compile, compileLists, module, cached, targets)...)
	missed = append(missed, firstCompileTable(out, first, targets)...)
	missed = append(missed, memoryTable(out, memory, targets)...)
	fmt.Fprintln(out)
	if len(missed) == 0 {
		fmt.Fprintln(out, "Every ratio meets its target.")
	} else {
		fmt.Fprintln(out, "Below target:")
		for _, m := range missed {
			fmt.Fprintln(out, "  "+m)
		}
	}
	if len(reargued) > 0 {
		fmt.Fprintln(out, "Re-argued against a floor measured in this run (missed as measured, met above the call's floor):")
		for _, a := range reargued {
			fmt.Fprintln(out, "  "+a)
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
		if bound, ok := upperBound(targets, "overhead", l); ok {
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

// upperBound is the ≤ target of what on list: its own row, else the
// "all" row.
func upperBound(targets map[key]float64, what, list string) (float64, bool) {
	if bound, ok := targets[key{"≤" + what, list}]; ok {
		return bound, true
	}
	bound, ok := targets[key{"≤" + what, "all"}]
	return bound, ok
}

// lowerBound is the ≥ target of a ratio: its own row, else the "all" row.
func lowerBound(targets map[key]float64, what, list string) (float64, bool) {
	if t, ok := targets[key{what, list}]; ok {
		return t, true
	}
	t, ok := targets[key{what, "all"}]
	return t, ok
}

// engineCells are a row's columns of one engine without cgo (after
// "| target "): its time, for the default engine CRI-O's loop / engine
// against the Wasm target (≥), and engine / cgo against the bound named
// by its backend (≤), judged by engineSlowdown; with the targets missed
// and those re-argued. r is the row's times by backend ("go", "lib", the
// engine's) and their call floors (backend + "-floor"). An engine not
// measured gets dashes.
func engineCells(backend, title string, isDefault bool, what string, r map[string]float64, list string, targets map[key]float64) (cells string, missed, reargued []string) {
	t, crio := r[backend], r["go"]
	if t == 0 {
		if isDefault {
			return "| – | – | | – | ", nil, nil
		}
		return "| – | – | ", nil, nil
	}
	speed := ""
	if isDefault {
		speedup, speedTarget := crio/t, ""
		if want, ok := lowerBound(targets, "Wasm", list); ok {
			speedTarget = atLeast(speedup, want, fmt.Sprintf("%s %s: CRI-O's loop / %s", title, what, title), &missed)
		}
		speed = fmt.Sprintf(" %s | %s |", times(speedup), speedTarget)
	}
	slowdown, slowTarget := t/r["lib"], ""
	if bound, ok := upperBound(targets, backend, list); ok {
		slowTarget = engineSlowdown(backend, title, what, r, bound, &missed, &reargued)
	}
	return fmt.Sprintf("| %s |%s %s | %s ", duration(t), speed, times(slowdown), slowTarget), missed, reargued
}

// aboveFloor is (engine time - its call floor) / (cgo's - its floor): the
// slowdown of what a row does past the calls' fixed cost (the search, the
// names' copy); false where a floor was not measured or leaves nothing.
func aboveFloor(backend string, r map[string]float64) (float64, bool) {
	fe, okE := r[backend+"-floor"]
	fc, okC := r["lib-floor"]
	if !okE || !okC || r[backend] <= fe || r["lib"] <= fc {
		return 0, false
	}
	return (r[backend] - fe) / (r["lib"] - fc), true
}

// engineSlowdown is the cell of engine / cgo against bound: met; else,
// beside the call floors measured in this run, re-argued when the time
// above them is within bound (the miss is the call's fixed cost), or
// MISSED with the slowdown above them (the miss is the search); else
// MISSED.
func engineSlowdown(backend, title, what string, r map[string]float64, bound float64, missed, reargued *[]string) string {
	slowdown := r[backend] / r["lib"]
	label := fmt.Sprintf("%s %s: %s / cgo", title, what, title)
	above, ok := aboveFloor(backend, r)
	if slowdown <= bound || !ok {
		return atMost(slowdown, bound, times(slowdown), "x", label, missed)
	}
	floors := fmt.Sprintf("%s, above the call's floor (%s %s, cgo %s a call) %s", times(slowdown), title,
		duration(r[backend+"-floor"]), duration(r["lib-floor"]), times(above))
	if above <= bound {
		*reargued = append(*reargued, fmt.Sprintf("%s %s <= %gx", label, floors, bound))
		return fmt.Sprintf("<= %gx re-argued (%s above the call)", bound, times(above))
	}
	*missed = append(*missed, fmt.Sprintf("%s %s > %gx", label, floors, bound))
	return fmt.Sprintf("<= %gx MISSED (%s above the call)", bound, times(above))
}

// callFloorTable prints each row wasm2go was measured on beside the call
// floors of the same run: the engine's and cgo's time, the fixed cost of
// their calls, what is left above it, and both slowdowns: how much of a
// miss is the call itself and how much the search.
func callFloorTable(out io.Writer, ns map[key]map[string]float64, sizes, benches []string, targets map[key]float64) {
	e := engines[0]
	var rows []string
	for _, n := range sizes {
		for _, b := range benches {
			r := ns[key{b, n}]
			above, ok := aboveFloor(e.backend, r)
			if !ok {
				continue
			}
			bound := "–"
			if t, ok := upperBound(targets, e.backend, n); ok {
				bound = fmt.Sprintf("<= %gx", t)
			}
			t, c, ft, fc := r[e.backend], r["lib"], r[e.backend+"-floor"], r["lib-floor"]
			rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", n, b,
				duration(t), duration(ft), duration(t-ft), duration(c), duration(fc), duration(c-fc),
				times(t/c), times(above), bound))
		}
	}
	if len(rows) == 0 {
		return
	}
	table(out, "| patterns | call | "+e.title+" | its call floor | above it | cgo | its call floor | above it | "+e.title+
		"/cgo | above the floors | target |",
		"| ---: | :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
		e.title+" beside the call's floor, both measured in this run (floor-ns/call): one empty call into the library,",
		"with the attributes of the backend's calls, for each call the pass makes that the length table does",
		"not answer in Go; above it = the search and the names' copy. A miss whose time above the floors is",
		"within the target is the call's fixed cost (re-argued); one above it is the search (MISSED).",
	)
	for _, row := range rows {
		fmt.Fprintln(out, row)
	}
}

// engineFloorTable prints, per list and engine without cgo, its MatchAny
// per image beside CRI-O's loop, the cgo backend's and an empty call into
// the module, and engine / cgo above the empty calls (engineSlowdown, an
// image's call floor its empty call); it returns the targets missed and
// those re-argued.
func engineFloorTable(out io.Writer, floor map[string]map[string]float64, lists []string, targets map[key]float64) (missed, reargued []string) {
	var rows []string
	for _, l := range lists {
		r := floor[l]
		crio, okC := r["crio"]
		cgo, okG := r["matchany"]
		if !okC || !okG || cgo == 0 {
			continue
		}
		for i, e := range engines {
			t := r[e.backend+"-matchany"]
			if t == 0 {
				continue
			}
			speed, speedTarget := crio/t, ""
			what := fmt.Sprintf("%s MatchAny per image on list %s: ", e.title, l)
			if want, ok := lowerBound(targets, "WasmFloor", l); ok && i == 0 {
				speedTarget = atLeast(speed, want, what+"CRI-O's loop / "+e.title, &missed)
			}
			calls := map[string]float64{e.backend: t, "lib": cgo, e.backend + "-floor": r[e.backend+"-emptycall"], "lib-floor": r["emptycall"]}
			slowTarget, above := "", "–"
			if a, ok := aboveFloor(e.backend, calls); ok {
				above = times(a)
			}
			if bound, ok := upperBound(targets, e.backend, l); ok {
				slowTarget = engineSlowdown(e.backend, e.title, fmt.Sprintf("MatchAny per image on list %s", l), calls, bound, &missed, &reargued)
			}
			rows = append(rows, fmt.Sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", l, e.title, duration(crio),
				duration(cgo), duration(r[e.backend+"-emptycall"]), duration(t), times(speed), speedTarget, times(t/cgo), above, slowTarget))
		}
	}
	if len(rows) == 0 {
		return nil, nil
	}
	table(out, "| list | engine | CRI-O's loop | cgo MatchAny | empty call | MatchAny | CRI-O / engine | target | engine/cgo | above the empty calls | target |",
		"| :--- | :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
		"Each engine's MatchAny per image without cgo (BenchmarkFloor, the same images), beside CRI-O's loop",
		"and the cgo backend's MatchAny; empty call = an instance taken from the set's pool, the name copied",
		"in, crio_pin_match on the empty set, the instance returned. Above the empty calls = (MatchAny - its",
		"empty call) / (cgo's - cgo's empty call, the floor table's): one empty call an image, as many as",
		"images, so where the length table settles some images it takes more than their calls cost.",
	)
	for _, row := range rows {
		fmt.Fprintln(out, row)
	}
	return missed, reargued
}

// compileTable prints each list's Compile with every backend and the
// wazero module's own compile, against their bounds; it returns the
// targets missed.
func compileTable(out io.Writer, compile map[string]map[string]float64, lists []string, module, cached float64, targets map[key]float64) []string {
	var missed []string
	table(out, "| what | cgo | wasm2go | wasm2go/cgo | target | wazero | wazero/cgo | target |",
		"| :--- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
		"Compile of a whole list with each backend (the fastest compile of the runs), and wazero's module",
		"(once per process):",
	)
	for _, l := range lists {
		lib, okL := compile[l]["lib"]
		if !okL || lib == 0 {
			continue
		}
		row := fmt.Sprintf("| Compile %s | %s ", l, duration(lib))
		list := strings.TrimPrefix(l, "patterns=") // the targets name a list by its size
		for _, e := range engines {
			t, ok := compile[l][e.backend]
			if !ok {
				row += "| – | – | "
				continue
			}
			target := ""
			if bound, ok := upperBound(targets, e.backend+"compile", list); ok {
				target = atMost(t/lib, bound, times(t/lib), "x", fmt.Sprintf("Compile of list %s: %s / cgo", l, e.title), &missed)
			}
			row += fmt.Sprintf("| %s | %s | %s ", duration(t), times(t/lib), target)
		}
		fmt.Fprintln(out, row+"|")
	}
	if module > 0 {
		target := ""
		if bound, ok := upperBound(targets, "module", "compile"); ok {
			target = atMost(module/1e6, bound, duration(module), " ms", "wazero's module compile:", &missed)
		}
		fmt.Fprintf(out, "| the module (wazero runtime, compile, first instance) | – | – | – | | %s | – | %s |\n", duration(module), target)
	}
	if cached > 0 {
		fmt.Fprintf(out, "| the module from CRIOPIN_WASM_CACHE (a later process) | – | – | – | | %s | – | |\n", duration(cached))
	}
	return missed
}

// backendTitles are the tables' names of the backends, by criopin.Backend.
var backendTitles = map[string]string{"lib": "cgo", "wasm2go": "wasm2go", "wasm": "wazero"}

// firstCompileTable prints a fresh process's first Compile with each
// backend against its bound (firstcompile, ms); it returns the targets
// missed.
func firstCompileTable(out io.Writer, first map[string][2]float64, targets map[key]float64) []string {
	if len(first) == 0 {
		return nil
	}
	var missed []string
	table(out, "| backend | first Compile | process | target |",
		"| :--- | ---: | ---: | ---: |",
		"A fresh process's first Compile of the hand list (BenchmarkFirstCompile: the test binary run again",
		"for one Compile, the fastest of the runs; process = the child's life, exec to exit, Go's start and",
		"the test framework's included; no CRIOPIN_WASM_CACHE):",
	)
	for _, b := range []string{"lib", "wasm2go", "wasm"} {
		f, ok := first[b]
		if !ok {
			continue
		}
		target := ""
		if bound, ok := upperBound(targets, "firstcompile", b); ok {
			target = atMost(f[0]/1e6, bound, duration(f[0]), " ms", backendTitles[b]+"'s first Compile in a fresh process:", &missed)
		}
		fmt.Fprintf(out, "| %s | %s | %s | %s |\n", backendTitles[b], duration(f[0]), duration(f[1]), target)
	}
	return missed
}

// memoryTable prints a set's memory with 16 callers, before and after a
// 16 MiB name, in copies of its compiled list, against the memory bound;
// it returns the targets missed.
func memoryTable(out io.Writer, memory map[string]map[string]float64, targets map[key]float64) []string {
	if len(memory) == 0 {
		return nil
	}
	var missed []string
	table(out, "| engine | one copy | 16 callers | then a 16 MiB name and 16 callers | target |",
		"| :--- | ---: | ---: | ---: | ---: |",
		"The memory one Set holds (BenchmarkSetMemory: 20,000 digests and the pause image, GOMAXPROCS 16,",
		"the default SetMaxConcurrentCalls), in copies of its compiled list (every instance's linear memory",
		"/ the compile's instance's), the most of the runs; cgo holds one copy whatever the callers:",
	)
	for _, e := range engines {
		m, ok := memory[e.backend]
		if !ok {
			continue
		}
		target := ""
		if bound, ok := upperBound(targets, "memory", e.backend); ok {
			most := max(m["callers-copies"], m["long-copies"])
			target = atMost(most, bound, fmt.Sprintf("%.2f", most), " copies", e.title+"'s set with 16 callers or after a 16 MiB name:", &missed)
		}
		fmt.Fprintf(out, "| %s | %.1f MB | %.2f | %.2f | %s |\n", e.title, m["compiled-bytes"]/1e6, m["callers-copies"], m["long-copies"], target)
	}
	return missed
}

// table starts a table: a blank line, its caption's lines, a blank line,
// its header and its alignment row.
func table(out io.Writer, header, align string, caption ...string) {
	fmt.Fprintln(out)
	for _, line := range caption {
		fmt.Fprintln(out, line)
	}
	fmt.Fprintln(out)
	fmt.Fprintln(out, header)
	fmt.Fprintln(out, align)
}

// atMost is the cell of an upper bound: "<= bound<unit>", MISSED when
// value is above it, and then what, with the value (shown) and the bound,
// added to missed.
func atMost(value, bound float64, shown, unit, what string, missed *[]string) string {
	cell := fmt.Sprintf("<= %g%s", bound, unit)
	if value <= bound {
		return cell
	}
	*missed = append(*missed, fmt.Sprintf("%s %s > %g%s", what, shown, bound, unit))
	return cell + " MISSED"
}

// atLeast is the cell of a ratio's lower bound: ">= want x", MISSED below it.
func atLeast(ratio, want float64, what string, missed *[]string) string {
	cell := fmt.Sprintf(">= %gx", want)
	if ratio >= want {
		return cell
	}
	*missed = append(*missed, fmt.Sprintf("%s %s < %gx", what, times(ratio), want))
	return cell + " MISSED"
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
