//go:build !cgo || criopin_wasm || criopin_purego || criopin_wazero || criopin_wasm2go

package criopin

// EmptyCall is the floor of a matching call into s's module instance
// (BenchmarkFloor): an instance taken from the pool, name copied in,
// crio_pin_match on the empty set (which reads nothing), the instance
// returned.
func EmptyCall(s *Set, name string) {
	slot := s.eng.p.get()
	in := slot.in
	in.put(name)
	in.call(exportMatch, 0, uint64(in.scratch), uint64(len(name)))
	s.eng.p.put(slot)
}
