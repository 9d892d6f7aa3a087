package main

import (
	"strings"
	"testing"
)

// A wasm2go miss is split at the call's floor measured in the same run:
// re-argued when the time above the floors is within the bound (the call
// is the miss), MISSED with the split when it is not (the search is).
func TestCallFloorVerdicts(t *testing.T) {
	in := strings.Join([]string{
		// Match on 10: 3x cgo, of which 60 of wasm2go's 90 ns and 20 of cgo's 30 are the call: 3x above it.
		"BenchmarkMatch/n=10/go-2 100 1000 ns/op",
		"BenchmarkMatch/n=10/lib-2 100 40 ns/op 30 best-ns/call 20 floor-ns/call",
		"BenchmarkMatch/n=10/wasm2go-2 100 100 ns/op 90 best-ns/call 60 floor-ns/call",
		// MatchAny on 10: 3x cgo, of which the call is all but 10 ns of each: 1x above it.
		"BenchmarkMatchAny/n=10/go-2 100 2000 ns/op",
		"BenchmarkMatchAny/n=10/lib-2 100 40 ns/op 30 best-ns/call 20 floor-ns/call",
		"BenchmarkMatchAny/n=10/wasm2go-2 100 100 ns/op 90 best-ns/call 80 floor-ns/call",
		// MatchEach on 10: within 2x, whatever the floors.
		"BenchmarkMatchEach/n=10/go-2 100 90000 ns/op",
		"BenchmarkMatchEach/n=10/lib-2 100 9000 ns/op 9000 best-ns/call 50 floor-ns/call",
		"BenchmarkMatchEach/n=10/wasm2go-2 100 9000 ns/op 9000 best-ns/call 50 floor-ns/call",
		// MatchAny per image on the hand list: 2x cgo and 1 ns more, 3.5x above the empty calls.
		"BenchmarkFloor/list=hand/crio-2 100 2000 ns/op",
		"BenchmarkFloor/list=hand/floor-2 100 50 ns/op 47 matchany-ns/image 10 native-ns/image 25 emptycall-ns/image",
		"BenchmarkFloor/list=hand/wasm2go-2 100 99 ns/op 95 matchany-ns/image 18 emptycall-ns/image",
	}, "\n")
	targets := map[key]float64{{"≤wasm2go", "all"}: 2}
	var out strings.Builder
	if err := run(strings.NewReader(in), &out, targets); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	for _, want := range []string{
		"| 10 | Match | 90 ns | 60 ns | 30 ns | 30 ns | 20 ns | 10 ns | 3.00x | 3.00x | <= 2x |",
		"| 3.00x | <= 2x MISSED (3.00x above the call) ",
		"| 3.00x | <= 2x re-argued (1.00x above the call) ",
		"  wasm2go Match on list 10: wasm2go / cgo 3.00x, above the call's floor (wasm2go 60 ns, cgo 20 ns a call) 3.00x > 2x",
		"| hand | wasm2go | 2 µs | 47 ns | 18 ns | 95 ns | 21.1x |  | 2.02x | 3.50x | <= 2x MISSED (3.50x above the call) |",
		"  wasm2go MatchAny per image on list hand: wasm2go / cgo 2.02x, above the call's floor (wasm2go 18 ns, cgo 25 ns a call) 3.50x > 2x",
		"Re-argued against a floor measured in this run",
		"  wasm2go MatchAny on list 10: wasm2go / cgo 3.00x, above the call's floor (wasm2go 80 ns, cgo 20 ns a call) 1.00x <= 2x",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "MatchEach on list 10: wasm2go") {
		t.Errorf("MatchEach within its bound reported:\n%s", got)
	}
}
