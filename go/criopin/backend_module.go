//go:build !cgo || criopin_wasm || criopin_purego || criopin_wazero || criopin_wasm2go

package criopin

// What the two backends without cgo share, whichever engine runs the
// module (wazero, or the Go wasm2go made of it): the engine of the backend
// contract (backend.go), a set's owner and the matching calls, over a
// set's pool of instances (pool_module.go) and the calls through the C ABI
// (instance_module.go). Every rule lives once, in the library; the backend
// moves bytes in and out of the module through the same C ABI the cgo
// backend calls.
//
// Concurrency: a WebAssembly instance runs one call at a time, and its
// linear memory holds all of its state (a compiled set included) whenever
// no call is in progress. So a set is compiled once, in one instance, and
// when goroutines match on it at once each further instance starts as a
// copy of an idle one's memory: a bounded pool of at most
// SetMaxConcurrentCalls's cap instances a set, taken and returned without a
// lock (one compare-and-swap each way), grown only when every instance is
// busy. Why a pool rather than one instance behind a lock or shared memory:
// go/README.md, "The WebAssembly backend".

// Version is the version of the library compiled into the embedded
// module, "MAJOR.MINOR.PATCH".
func Version() string {
	m, err := loadModule()
	if err != nil {
		panic("criopin: " + err.Message)
	}
	return m.version
}

// Engine says what runs the library: "wasm2go" (the module translated to
// Go source, compiled with the program: CGO_ENABLED=0 or build tag
// criopin_wasm), or, with wazero (build tag criopin_wazero),
// "wasm-compiler" (the module compiled to machine code by
// wazero) or "wasm-interpreter" (wazero's interpreter, about 100 times
// slower a name: where wazero has no compiler, where the system refuses
// executable memory, or when CRIOPIN_WASM_ENGINE=interpreter asks for it);
// with cgo, "libcrio_pin". It loads the module, as Version does.
func Engine() string {
	m, err := loadModule()
	if err != nil {
		panic("criopin: " + err.Message)
	}
	return m.engine
}

// engine is one owner of a compiled set's pool; the zero engine is the
// empty set.
type engine struct {
	p *pool
}

func (e engine) isZero() bool { return e.p == nil }

func (e engine) free() {
	if e.p != nil && e.p.owners.Add(-1) == 0 {
		e.p.close()
	}
}

// clone adds an owner: the clones share the instances and the table.
func (e engine) clone() engine {
	if e.p != nil {
		e.p.owners.Add(1)
	}
	return e
}

// settled reports whether the set certainly does not pin name, from the
// library's length table alone (inlined into every matching call).
func (e engine) settled(name string) bool {
	return e.p == nil || e.p.verdicts.settles(name)
}

// compileEngine compiles in the spare instance, or a new one, which
// becomes the first of the set's pool; flags are known bits.
func compileEngine(patterns []string, f Flag) (engine, *CompileError) {
	m, err := loadModule()
	if err != nil {
		return engine{}, err
	}
	in := takeSpare()
	if in == nil {
		var ierr error
		if in, ierr = m.instantiate(); ierr != nil {
			return engine{}, &CompileError{Kind: KindInternal, Index: -1, Message: "the WebAssembly module " +
				"could not start (" + ierr.Error() + ")"}
		}
		// (A spare's allocator holds the memory its last set freed: a
		// list like that one grows it little, and a reserve past its
		// capacity would copy it.)
		in.reserveMemory(compileMemory(patterns))
	}
	set, err := in.compile(patterns, f, false)
	if err != nil {
		// A list the library refused leaves the instance as it was; after
		// an internal error it may not be.
		if err.Kind == KindInternal {
			in.close()
		} else {
			putSpare(in)
		}
		return engine{}, err
	}
	p := newPool(m, in, set)
	// On a failure the table says "ask" for every length: nothing is
	// settled in Go then.
	for i := range p.verdicts {
		p.verdicts[i] = lengthMayMatch
	}
	if in.reserve(verdictLengths) {
		if _, ok := in.call1(exportLengthVerdicts, uint64(set), uint64(in.scratch),
			verdictLengths-1); ok {
			copy(p.verdicts[:verdictLengths-1], in.view(in.scratch, verdictLengths-1))
		}
	}
	return engine{p}, nil
}

// validateEngine checks with the library, building nothing; flags are
// known bits.
func validateEngine(patterns []string, f Flag) *CompileError {
	m, err := loadModule()
	if err != nil {
		return err
	}
	s := m.validators.get()
	if s == nil {
		return trapped("crio_pin_validate")
	}
	_, err = s.in.compile(patterns, f, true)
	if err != nil && err.Kind == KindInternal {
		m.validators.discard(s)
		return err
	}
	m.validators.put(s)
	return err
}

// unsettled counts the names the length table does not settle, and their
// bytes; last is the last of them.
func (e engine) unsettled(names []string) (count, total int, last string) {
	for _, n := range names {
		if !e.settled(n) {
			count, total, last = count+1, total+len(n), n
		}
	}
	return count, total, last
}

// callBytes is the module memory a call's count names of total bytes take
// (names writes them so; one name alone takes less).
func callBytes(count, total int) uint64 { return 5*uint64(count) + uint64(total) }

// A matching call that cannot answer (no instance left, memory exhausted,
// a trap) answers "pinned", as the library's crio_pin_match does, or
// panics where no answer can be made up (MatchIndex, MatchEach).

func (e engine) match(name string) bool {
	return e.matchAny([]string{name})
}

// chunk is how many of names, one at least, one call takes when they do
// not all fit longCallBytes: as many as fit. A batch is answered in such
// calls in pooled instances; only a single name past it needs a copy.
func (e engine) chunk(names []string) int {
	var size uint64
	for i, n := range names {
		if !e.settled(n) {
			if size += callBytes(1, len(n)); size > longCallBytes && i > 0 {
				return i
			}
		}
	}
	return len(names)
}

func (e engine) matchAny(names []string) bool {
	count, total, last := e.unsettled(names)
	if count == 0 {
		return false
	}
	if count > 1 && callBytes(count, total) > longCallBytes {
		for len(names) > 0 {
			n := e.chunk(names) // fits, or is one name: not split again
			if e.matchAny(names[:n]) {
				return true
			}
			names = names[n:]
		}
		return false
	}
	s, in := e.p.take(callBytes(count, total))
	if in == nil {
		return true
	}
	var ok bool
	if count == 1 { // most images: one stored name
		ok = in.put(last) && in.call(exportMatch, uint64(e.p.set), uint64(in.scratch), uint64(len(last)))
	} else {
		ok = in.names(e, names, count, total) && in.call(exportMatchAny, uint64(e.p.set),
			uint64(in.scratch)+5*uint64(count), uint64(in.scratch), uint64(count))
	}
	if !ok {
		e.p.failed(s, in)
		return true
	}
	pinned := uint32(in.stack[0]) != 0
	e.p.done(s, in)
	return pinned
}

func (e engine) matchIndex(name string) int {
	if e.settled(name) {
		return -1
	}
	s, in := e.p.take(callBytes(1, len(name)))
	if in == nil {
		panic(internalError("crio_pin_match_index", "no instance of the WebAssembly module to run it in"))
	}
	if !in.put(name) {
		e.p.done(s, in)
		panic(internalError("crio_pin_match_index", "no module memory for the name"))
	}
	if !in.call(exportMatchIndex, uint64(e.p.set), uint64(in.scratch), uint64(len(name))) {
		e.p.failed(s, in)
		panic(internalError("crio_pin_match_index", "a trap in the WebAssembly module"))
	}
	r := int64(int32(uint32(in.stack[0])))
	e.p.done(s, in)
	return indexResult(r)
}

// matchEach writes into results (len(names) of them, at least one). The
// names the length table settles are not sent: their result stays false
// (grow cleared it), and the module walks only the others.
func (e engine) matchEach(results []bool, names []string) {
	if e.p == nil {
		return
	}
	count, total, _ := e.unsettled(names)
	if count == 0 {
		return
	}
	if count > 1 && callBytes(count, total) > longCallBytes {
		for len(names) > 0 {
			n := e.chunk(names) // fits, or is one name: not split again
			e.matchEach(results[:n], names[:n])
			results, names = results[n:], names[n:]
		}
		return
	}
	s, in := e.p.take(callBytes(count, total))
	if in == nil {
		panic(internalError("crio_pin_match_each", "no instance of the WebAssembly module to run it in"))
	}
	if !in.names(e, names, count, total) {
		e.p.done(s, in)
		panic(internalError("crio_pin_match_each", "no module memory for the names"))
	}
	out := uint64(in.scratch) + 4*uint64(count)
	if !in.call(exportMatchEach, uint64(e.p.set), out+uint64(count), uint64(in.scratch), uint64(count), out) {
		e.p.failed(s, in)
		panic(internalError("crio_pin_match_each", "a trap in the WebAssembly module"))
	}
	r := uint64(uint32(in.stack[0]))
	answers := in.view(uint32(out), uint32(count))
	if count == len(names) {
		for i, b := range answers {
			results[i] = b != 0
		}
	} else {
		j := 0
		for i, n := range names {
			if !e.settled(n) {
				results[i] = answers[j] != 0
				j++
			}
		}
	}
	e.p.done(s, in)
	eachResult(r, count)
}
