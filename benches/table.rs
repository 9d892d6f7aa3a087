//! `make bench`'s table: every figure of the benchmark, for every list size,
//! for crio-pin and for the reference engine (CRI-O's one-regex-per-pattern
//! loop, `crio_pin::reference::ReferenceSet`), with their ratio.
//!
//! A plain harness (std::time::Instant, medians of many samples) rather than
//! criterion, because it measures what criterion does not: heap held (a
//! counting allocator), allocations on the match path, two threads against
//! one, the first call after compile against the millionth, and callgrind
//! instruction counts. `benches/functions.rs` has the criterion benches.
//!
//! ```text
//! cargo bench --bench table -- [--quick] [--sizes 1,1000] [--out DIR]
//!                              [--no-callgrind] [--write-corpus DIR]
//! ```
//!
//! Writes `DIR/results.tsv` (one figure a line, for the plot) and
//! `DIR/table.md` (the table, with the machine it ran on), and prints the
//! table. DIR defaults to `build/bench`.

mod corpus;

use std::alloc::{GlobalAlloc, Layout, System};
use std::fmt::Write as _;
use std::hint::black_box;
use std::os::raw::c_char;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use crio_pin::ffi;
use crio_pin::reference::ReferenceSet;
use crio_pin::{Flags, PinSet};

// ---------------------------------------------------------------------------
// A counting allocator: bytes live, peak, and how many allocations.

struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static ALLOCS: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    let now = LIVE.fetch_add(by, Relaxed) + by;
    PEAK.fetch_max(now, Relaxed);
}

// SAFETY: forwards to System, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            ALLOCS.fetch_add(1, Relaxed);
            grew(layout.size());
        }
        p
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            ALLOCS.fetch_add(1, Relaxed);
            grew(layout.size());
        }
        p
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Relaxed);
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            ALLOCS.fetch_add(1, Relaxed);
            LIVE.fetch_sub(layout.size(), Relaxed);
            grew(new_size);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Runs `f`; returns its value, the bytes it left allocated, and the peak
/// above the starting point while it ran.
fn counted<T>(f: impl FnOnce() -> T) -> (T, isize, usize) {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let value = f();
    let after = LIVE.load(Relaxed);
    (value, after as isize - before as isize, PEAK.load(Relaxed) - before)
}

// ---------------------------------------------------------------------------
// Options.

struct Options {
    quick: bool,
    sizes: Vec<usize>,
    out: PathBuf,
    callgrind: bool,
}

fn options() -> Options {
    // `cargo bench` passes --bench; `cargo test --benches` runs the binary
    // without it: then only check that the engines agree on small lists.
    if !std::env::args().any(|a| a == "--bench" || a.starts_with("--callgrind-worker") || a == "--write-corpus") {
        smoke_test();
        std::process::exit(0);
    }
    let mut args = std::env::args().skip(1);
    let mut o = Options {
        quick: std::env::var_os("BENCH_QUICK").is_some_and(|v| !v.is_empty() && v != "0"),
        sizes: corpus::SIZES.to_vec(),
        out: Path::new(env!("CARGO_MANIFEST_DIR")).join("build/bench"),
        callgrind: true,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--bench" => {} // passed by `cargo bench`
            "--quick" => o.quick = true,
            "--no-callgrind" => o.callgrind = false,
            "--sizes" => {
                let list = args.next().expect("--sizes needs a list, e.g. 1,1000");
                o.sizes = list.split(',').map(|s| s.trim().parse().expect("a size")).collect();
            }
            "--out" => o.out = PathBuf::from(args.next().expect("--out needs a directory")),
            "--write-corpus" => {
                let dir = PathBuf::from(args.next().expect("--write-corpus needs a directory"));
                write_corpus(&dir);
                std::process::exit(0);
            }
            "--callgrind-worker" => {
                let mut num = || args.next().and_then(|s| s.parse().ok()).expect("a number");
                let (size, probe_rounds, rounds, each_rounds) = (num(), num(), num(), num());
                callgrind_worker(size, probe_rounds, rounds, each_rounds);
                std::process::exit(0);
            }
            other if other.starts_with('-') => panic!("unknown option {other}"),
            _ => {} // a criterion-style filter: ignored
        }
    }
    o
}

fn smoke_test() {
    let names = corpus::names();
    for size in [1, 10, 100] {
        let patterns = corpus::patterns(size);
        let fast = PinSet::compile(&patterns, Flags::DEFAULT).expect("the corpus compiles");
        let slow = ReferenceSet::compile(&patterns, Flags::DEFAULT).expect("the corpus compiles");
        for name in &names {
            assert_eq!(fast.match_index(name.as_bytes()), slow.match_index(name.as_bytes()), "{name}");
        }
    }
    println!("table: the engines agree on the corpus (run `cargo bench --bench table` to measure)");
}

fn write_corpus(dir: &Path) {
    std::fs::create_dir_all(dir).expect("create the corpus directory");
    for size in corpus::SIZES {
        let list = corpus::patterns(size);
        let path = dir.join(format!("patterns-{size}.txt"));
        std::fs::write(&path, list.join("\n") + "\n").expect("write a pattern list");
        println!("{}: {} patterns, fnv64 {:016x}", path.display(), list.len(), corpus::checksum(&list));
    }
}

// ---------------------------------------------------------------------------
// Timing.

/// Measurement effort: how long one figure may take, and how many samples
/// it needs at least.
#[derive(Clone, Copy)]
struct Budget {
    time: Duration,
    min_samples: usize,
}

/// The median, over samples, of the time of one call of `f` divided by
/// `per_call` (the names one call handles): ns per name. Each sample runs
/// `f` enough times to last at least `sample_floor`.
fn ns_per(budget: Budget, per_call: usize, mut f: impl FnMut()) -> f64 {
    ns_per_interleaved(budget, &mut [(per_call, &mut f)])[0]
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

/// Median wall time of `f` over `runs` runs, in ns.
fn time_runs<T>(runs: usize, mut f: impl FnMut() -> T) -> f64 {
    let mut samples: Vec<f64> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            black_box(f());
            t.elapsed().as_nanos() as f64
        })
        .collect();
    median(&mut samples)
}

// ---------------------------------------------------------------------------
// The two engines behind one face.

/// A compiled set of either engine, with the C handle of the fast one (for
/// `crio_pin_match_each`).
trait Engine: Sync {
    fn is_match(&self, name: &[u8]) -> bool;
    fn match_index(&self, name: &[u8]) -> Option<usize>;
    fn match_any(&self, names: &[String]) -> bool;
    /// The names of a node, packed: how many are pinned.
    fn match_each(&self, node: &Packed, results: &mut [u8]) -> usize;
}

impl Engine for PinSet {
    fn is_match(&self, name: &[u8]) -> bool {
        PinSet::is_match(self, name)
    }
    fn match_index(&self, name: &[u8]) -> Option<usize> {
        PinSet::match_index(self, name)
    }
    fn match_any(&self, names: &[String]) -> bool {
        PinSet::match_any(self, names)
    }
    fn match_each(&self, _: &Packed, _: &mut [u8]) -> usize {
        unreachable!("the fast engine's match_each is measured through the C ABI")
    }
}

impl Engine for ReferenceSet {
    fn is_match(&self, name: &[u8]) -> bool {
        ReferenceSet::is_match(self, name)
    }
    fn match_index(&self, name: &[u8]) -> Option<usize> {
        ReferenceSet::match_index(self, name)
    }
    fn match_any(&self, names: &[String]) -> bool {
        names.iter().any(|n| ReferenceSet::is_match(self, n.as_bytes()))
    }
    /// CRI-O's loop over a node's images, name by name.
    fn match_each(&self, node: &Packed, results: &mut [u8]) -> usize {
        let mut pinned = 0;
        for (r, name) in results.iter_mut().zip(node.names()) {
            *r = u8::from(ReferenceSet::is_match(self, name));
            pinned += usize::from(*r);
        }
        pinned
    }
}

/// Names packed back to back, as `crio_pin_match_each` takes them.
struct Packed {
    bytes: Vec<u8>,
    lengths: Vec<usize>,
}

impl Packed {
    fn new(names: &[&String]) -> Packed {
        Packed {
            bytes: names.iter().flat_map(|n| n.bytes()).collect(),
            lengths: names.iter().map(|n| n.len()).collect(),
        }
    }
    fn names(&self) -> impl Iterator<Item = &[u8]> {
        let mut rest = &self.bytes[..];
        self.lengths.iter().map(move |&l| {
            let (name, tail) = rest.split_at(l);
            rest = tail;
            name
        })
    }
}

/// A set compiled through the C ABI, freed on drop.
struct CSet(*mut ffi::crio_pin_set);

// SAFETY: the C set is thread-safe (an Arc<PinSet>).
unsafe impl Sync for CSet {}

impl CSet {
    fn compile(patterns: &[String], flags: Flags) -> CSet {
        let pointers: Vec<*const c_char> = patterns.iter().map(|p| p.as_ptr().cast()).collect();
        let lengths: Vec<usize> = patterns.iter().map(String::len).collect();
        // SAFETY: count pointers and lengths, valid for the call.
        let set = unsafe {
            ffi::crio_pin_compile(pointers.as_ptr(), lengths.as_ptr(), patterns.len(), flags.bits(), std::ptr::null_mut())
        };
        assert!(!set.is_null(), "the corpus compiles");
        CSet(set)
    }

    fn match_each(&self, node: &Packed, results: &mut [u8]) -> usize {
        // SAFETY: a live set; packed names with their lengths; room for
        // one result per name.
        unsafe {
            ffi::crio_pin_match_each(
                self.0,
                node.bytes.as_ptr().cast(),
                node.lengths.as_ptr(),
                node.lengths.len(),
                results.as_mut_ptr(),
            )
        }
    }
}

impl Drop for CSet {
    fn drop(&mut self) {
        // SAFETY: from crio_pin_compile, freed once.
        unsafe { ffi::crio_pin_free(self.0) }
    }
}

// ---------------------------------------------------------------------------
// Results.

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Unit {
    Ns,
    Bytes,
    Count,
    PerSec,
    Factor,
    Instructions,
}

struct Figure {
    /// Row label.
    name: String,
    /// "crio-pin", "reference" or "ratio".
    engine: &'static str,
    size: usize,
    value: f64,
    unit: Unit,
    /// Measured on a sample of the names (or once), marked in the table.
    sampled: bool,
}

#[derive(Default)]
struct Results {
    figures: Vec<Figure>,
    row_order: Vec<(String, &'static str)>,
}

impl Results {
    fn add(&mut self, name: &str, engine: &'static str, size: usize, value: f64, unit: Unit, sampled: bool) {
        let key = (name.to_owned(), engine);
        if !self.row_order.contains(&key) {
            self.row_order.push(key);
        }
        self.figures.push(Figure { name: name.to_owned(), engine, size, value, unit, sampled });
    }

    /// Adds the two engines' figures and their ratio (reference / fast).
    fn pair(&mut self, name: &str, size: usize, fast: f64, reference: f64, unit: Unit, sampled: bool) {
        self.add(name, "crio-pin", size, fast, unit, false);
        self.add(name, "reference", size, reference, unit, sampled);
        self.add(name, "ratio", size, reference / fast, Unit::Factor, sampled);
    }

    fn get(&self, name: &str, engine: &str, size: usize) -> Option<f64> {
        self.figures
            .iter()
            .find(|f| f.name == name && f.engine == engine && f.size == size)
            .map(|f| f.value)
    }
}

fn fmt_value(value: f64, unit: Unit) -> String {
    if !value.is_finite() {
        return "n/a".into();
    }
    match unit {
        Unit::Ns => {
            if value < 10.0 {
                format!("{value:.2} ns")
            } else if value < 1_000.0 {
                format!("{value:.0} ns")
            } else if value < 1e6 {
                format!("{:.1} µs", value / 1e3)
            } else if value < 1e9 {
                format!("{:.1} ms", value / 1e6)
            } else {
                format!("{:.2} s", value / 1e9)
            }
        }
        Unit::Bytes => {
            if value < 1024.0 {
                format!("{value:.0} B")
            } else if value < 1024.0 * 1024.0 {
                format!("{:.1} KiB", value / 1024.0)
            } else if value < 1024.0 * 1024.0 * 1024.0 {
                format!("{:.2} MiB", value / (1024.0 * 1024.0))
            } else {
                format!("{:.2} GiB", value / (1024.0 * 1024.0 * 1024.0))
            }
        }
        Unit::Count => {
            if value.fract() == 0.0 { group(value as u64) } else { format!("{value:.2}") }
        }
        Unit::PerSec => format!("{:.1} M/s", value / 1e6),
        Unit::Factor => {
            if value >= 100.0 {
                format!("×{}", group(value.round() as u64))
            } else {
                format!("×{value:.2}")
            }
        }
        Unit::Instructions => group(value.round() as u64),
    }
}

/// 1234567 as "1,234,567".
fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn size_label(size: usize) -> String {
    match size {
        s if s >= 1000 && s % 1000 == 0 => format!("{}k", s / 1000),
        s => s.to_string(),
    }
}

// ---------------------------------------------------------------------------
// The measurements.

struct Corpus {
    names: Vec<String>,
    images: Vec<Vec<String>>,
    node: Packed,
}

/// The names the reference engine is timed on at a list size: all of them
/// up to 1,000 patterns, every k-th beyond (its cost is ~0.3 µs per pattern
/// per name: 30 ms a name at 100,000).
fn reference_stride(size: usize, quick: bool) -> usize {
    match (size, quick) {
        (s, false) if s <= 1_000 => 1,
        (s, true) if s <= 100 => 1,
        (s, true) if s <= 1_000 => 5,
        (s, false) if s <= 10_000 => 10,
        (_, false) => 50,
        (s, true) if s <= 10_000 => 25,
        (_, true) => 100,
    }
}

struct Sample<'a> {
    names: Vec<&'a String>,
    images: Vec<&'a Vec<String>>,
    node: Packed,
    /// Sampled (not every name)?
    partial: bool,
}

impl<'a> Sample<'a> {
    fn every(corpus: &'a Corpus, stride: usize) -> Sample<'a> {
        let names: Vec<&String> = corpus.names.iter().step_by(stride).collect();
        let images: Vec<&Vec<String>> = corpus.images.iter().step_by(stride).collect();
        let node = Packed::new(&names);
        Sample { names, images, node, partial: stride > 1 }
    }
    fn image_names(&self) -> usize {
        self.images.iter().map(|i| i.len()).sum()
    }
}

fn run_ops<E: Engine + ?Sized>(e: &E, s: &Sample, budget: Budget, cset: Option<&CSet>) -> [f64; 4] {
    let n = s.names.len();
    let mut is_match = || {
        for name in &s.names {
            black_box(e.is_match(black_box(name.as_bytes())));
        }
    };
    let mut match_index = || {
        for name in &s.names {
            black_box(e.match_index(black_box(name.as_bytes())));
        }
    };
    let mut match_any = || {
        for image in &s.images {
            black_box(e.match_any(black_box(image)));
        }
    };
    let mut results = vec![0u8; n];
    let mut match_each = || {
        let pinned = match cset {
            Some(c) => c.match_each(black_box(&s.node), &mut results),
            None => e.match_each(black_box(&s.node), &mut results),
        };
        black_box(pinned);
    };
    let v = ns_per_interleaved(
        budget,
        &mut [(n, &mut is_match), (n, &mut match_index), (s.image_names(), &mut match_any), (n, &mut match_each)],
    );
    [v[0], v[1], v[2], v[3]]
}

/// As [`ns_per`] for several functions at once, their samples taken in
/// turn, so that a burst of load elsewhere on the machine falls on all of
/// them alike and their ratios stay fair.
fn ns_per_interleaved(budget: Budget, ops: &mut [(usize, &mut dyn FnMut())]) -> Vec<f64> {
    let sample_floor = Duration::from_micros(if budget.time < Duration::from_millis(100) { 200 } else { 1000 });
    let iters: Vec<u64> = ops
        .iter_mut()
        .map(|(_, f)| {
            let t = Instant::now();
            f();
            let mut e = t.elapsed();
            let mut iters: u64 = 1;
            while e < sample_floor && iters < 1 << 30 {
                let scale = (sample_floor.as_nanos() as f64 / e.as_nanos().max(1) as f64).clamp(2.0, 100.0);
                iters = (iters as f64 * scale).ceil() as u64;
                let t = Instant::now();
                for _ in 0..iters {
                    f();
                }
                e = t.elapsed();
            }
            iters
        })
        .collect();
    let total = budget.time * ops.len() as u32;
    let start = Instant::now();
    let mut samples: Vec<Vec<f64>> = vec![Vec::new(); ops.len()];
    while samples[0].len() < budget.min_samples || (start.elapsed() < total && samples[0].len() < 500) {
        for (i, (per_call, f)) in ops.iter_mut().enumerate() {
            let t = Instant::now();
            for _ in 0..iters[i] {
                f();
            }
            samples[i].push(t.elapsed().as_nanos() as f64 / (iters[i] as f64 * *per_call as f64));
        }
    }
    samples.iter_mut().map(|s| median(s)).collect()
}

/// The CPU time this thread has used, in ns (Linux; NaN elsewhere).
fn thread_cpu_ns() -> f64 {
    #[cfg(all(target_os = "linux", target_pointer_width = "64"))]
    {
        #[repr(C)]
        struct Timespec {
            sec: i64,
            nsec: i64,
        }
        extern "C" {
            fn clock_gettime(clock: i32, ts: *mut Timespec) -> i32;
        }
        const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
        let mut ts = Timespec { sec: 0, nsec: 0 };
        // SAFETY: a valid clock id and a valid out-pointer.
        if unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) } == 0 {
            return ts.sec as f64 * 1e9 + ts.nsec as f64;
        }
    }
    f64::NAN
}

/// Runs `work` on `threads` threads at once; returns the wall time from
/// the first start to the last end and the CPU time of all threads, in ns.
fn parallel(threads: usize, work: &(dyn Fn() + Sync)) -> (f64, f64) {
    let barrier = Barrier::new(threads);
    let spans: Vec<(Instant, Instant, f64)> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    barrier.wait();
                    let cpu = thread_cpu_ns();
                    let t = Instant::now();
                    work();
                    (t, Instant::now(), thread_cpu_ns() - cpu)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("a worker thread")).collect()
    });
    let start = spans.iter().map(|s| s.0).min().expect("threads");
    let end = spans.iter().map(|s| s.1).max().expect("threads");
    (end.duration_since(start).as_nanos() as f64, spans.iter().map(|s| s.2).sum())
}

/// A loop that touches no memory: what two threads can get from this
/// machine at this moment (other load, or vCPUs sharing a core, show here).
fn alu_loop(n: u64) -> u64 {
    let mut x = 1u64;
    for i in 0..n {
        x = black_box(x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(i));
    }
    x
}

struct Scaling {
    one: f64,
    two: f64,
    /// Median over trials of (2-thread throughput / 1-thread throughput).
    wall: f64,
    /// CPU time per name with 2 threads / with 1: 1.0 when the threads do
    /// not slow each other down (no shared writes, no locks).
    cpu: f64,
    /// The same wall ratio for `alu_loop`, measured between the trials.
    control: f64,
}

/// Throughput with 1 and 2 threads matching all names on one shared set,
/// interleaved with the ALU control, `trials` times.
fn scaling(set: &PinSet, names: &[String], rounds: usize, trials: usize) -> Scaling {
    let work = || {
        for _ in 0..rounds {
            for name in names {
                black_box(set.is_match(black_box(name.as_bytes())));
            }
        }
    };
    let per_thread = (rounds * names.len()) as f64;
    // Calibrate the control to last about as long as one trial.
    let (w, _) = parallel(1, &work);
    let t = Instant::now();
    black_box(alu_loop(1_000_000));
    let alu_n = (1_000_000.0 * w / t.elapsed().as_nanos().max(1) as f64) as u64;
    let control = || {
        black_box(alu_loop(alu_n));
    };
    let (mut one, mut two, mut wall, mut cpu, mut ctl) = (vec![], vec![], vec![], vec![], vec![]);
    for _ in 0..trials {
        let (w1, c1) = parallel(1, &work);
        let (w2, c2) = parallel(2, &work);
        let (a1, _) = parallel(1, &control);
        let (a2, _) = parallel(2, &control);
        one.push(per_thread / w1 * 1e9);
        two.push(2.0 * per_thread / w2 * 1e9);
        wall.push(2.0 * w1 / w2);
        cpu.push((c2 / (2.0 * per_thread)) / (c1 / per_thread));
        ctl.push(2.0 * a1 / a2);
    }
    Scaling { one: median(&mut one), two: median(&mut two), wall: median(&mut wall), cpu: median(&mut cpu), control: median(&mut ctl) }
}

/// The names probed for warm-up: near-misses first (they walk every
/// structure), 16 of them.
fn probes(names: &[String]) -> Vec<&String> {
    names.iter().rev().step_by(31).take(16).collect()
}

/// ns per call of the first 16 calls after compiling; of the same 16 names
/// again after a million calls; and after a million calls and evicting the
/// CPU caches (so that the first call's cost can be told apart from cold
/// caches). Medians over `trials` compiles.
fn first_vs_millionth(patterns: &[String], names: &[String], trials: usize) -> (f64, f64, f64) {
    let probes = probes(names);
    let mut evict = vec![0u8; 64 << 20];
    let time_probes = |set: &PinSet| {
        let t = Instant::now();
        for p in &probes {
            black_box(set.is_match(black_box(p.as_bytes())));
        }
        t.elapsed().as_nanos() as f64 / probes.len() as f64
    };
    let (mut first, mut hot, mut cold) = (vec![], vec![], vec![]);
    for trial in 0..trials {
        let set = PinSet::compile(patterns, Flags::DEFAULT).expect("the corpus compiles");
        first.push(time_probes(&set));
        let mut calls = probes.len();
        while calls + 2 * probes.len() < 1_000_000 {
            for name in names {
                black_box(set.is_match(black_box(name.as_bytes())));
            }
            calls += names.len();
        }
        hot.push(time_probes(&set));
        for (i, b) in evict.iter_mut().enumerate().step_by(64) {
            *b = b.wrapping_add((i + trial) as u8);
        }
        black_box(&evict);
        cold.push(time_probes(&set));
    }
    (median(&mut first), median(&mut hot), median(&mut cold))
}

/// Instruction counts from callgrind (exact, unlike time on a shared
/// machine): per `match` over all the names, and per probe call for the
/// first 16 calls after compile against the same calls later. Each is a
/// difference of whole-program counts, so loading and compiling cancel out.
struct Instructions {
    per_name: f64,
    each_per_name: f64,
    first: f64,
    later: f64,
}

fn callgrind_instructions(size: usize, names: usize) -> Option<Instructions> {
    let exe = std::env::current_exe().ok()?;
    let run = |probe_rounds: usize, rounds: usize, each_rounds: usize| -> Option<f64> {
        let out = Command::new("valgrind")
            .args(["--tool=callgrind", "--callgrind-out-file=/dev/null"])
            .arg(&exe)
            .arg("--callgrind-worker")
            .args([size, probe_rounds, rounds, each_rounds].map(|n| n.to_string()))
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        let stderr = String::from_utf8_lossy(&out.stderr);
        let line = stderr.lines().find(|l| l.contains("Collected :"))?;
        line.rsplit(':').next()?.trim().replace(',', "").parse().ok()
    };
    let base = run(0, 0, 0)?;
    let once = run(1, 0, 0)?;
    let eleven = run(11, 0, 0)?;
    let all = run(0, 10, 0)?;
    let each = run(0, 0, 10)?;
    Some(Instructions {
        per_name: (all - base) / (10 * names) as f64,
        each_per_name: (each - base) / (10 * names) as f64,
        first: (once - base) / 16.0,
        later: (eleven - once) / (10.0 * 16.0),
    })
}

/// Under callgrind: compile, then `probe_rounds` passes over the probes,
/// `rounds` passes of `match` over all the names and `each_rounds` calls of
/// `crio_pin_match_each` over them.
fn callgrind_worker(size: usize, probe_rounds: usize, rounds: usize, each_rounds: usize) {
    let names = corpus::names();
    let patterns = corpus::patterns(size);
    let set = PinSet::compile(&patterns, Flags::DEFAULT).expect("the corpus compiles");
    let cset = CSet::compile(&patterns, Flags::DEFAULT);
    let node = Packed::new(&names.iter().collect::<Vec<_>>());
    let mut results = vec![0u8; names.len()];
    for _ in 0..each_rounds {
        black_box(cset.match_each(black_box(&node), &mut results));
    }
    let probes = probes(&names);
    for _ in 0..probe_rounds {
        for p in &probes {
            black_box(set.is_match(black_box(p.as_bytes())));
        }
    }
    for _ in 0..rounds {
        for name in &names {
            black_box(set.is_match(black_box(name.as_bytes())));
        }
    }
}

fn have_valgrind() -> bool {
    Command::new("valgrind").arg("--version").output().is_ok_and(|o| o.status.success())
}

const MODES: [(Flags, &str); 3] = [
    (Flags::ANCHOR_GLOBS, "ANCHOR_GLOBS"),
    (Flags::CASE_SENSITIVE, "CASE_SENSITIVE"),
    (Flags::STRICT, "STRICT"),
];

fn measure_size(size: usize, corpus: &Corpus, o: &Options, r: &mut Results) {
    let quick = o.quick;
    let budget = if quick {
        Budget { time: Duration::from_millis(60), min_samples: 3 }
    } else {
        Budget { time: Duration::from_millis(400), min_samples: 7 }
    };
    let ref_budget = if quick {
        Budget { time: Duration::from_millis(30), min_samples: 1 }
    } else {
        Budget { time: Duration::from_millis(300), min_samples: 3 }
    };
    let patterns = corpus::patterns(size);
    assert_eq!(patterns.len(), size);
    let progress = |what: &str| eprintln!("  [{:>6}] {what}", size_label(size));

    // Compile: time and memory.
    progress("compile");
    let (set, held, peak) = counted(|| PinSet::compile(&patterns, Flags::DEFAULT).expect("compiles"));
    let runs = if size >= 100_000 { 5 } else if size >= 10_000 { 11 } else { 51 };
    let runs = if quick { runs.min(5) } else { runs };
    let compile_fast = time_runs(runs, || PinSet::compile(&patterns, Flags::DEFAULT).expect("compiles"));
    let ref_runs = if size >= 10_000 || quick { 1 } else { 5 };
    let ((reference, once), ref_held_compiled, ref_peak) = counted(|| {
        let t = Instant::now();
        (ReferenceSet::compile(&patterns, Flags::DEFAULT).expect("compiles"), t.elapsed().as_nanos() as f64)
    });
    let compile_ref = if ref_runs == 1 {
        once
    } else {
        time_runs(ref_runs, || ReferenceSet::compile(&patterns, Flags::DEFAULT).expect("compiles"))
    };
    let cset = CSet::compile(&patterns, Flags::DEFAULT);

    // Both engines agree on the corpus (on the sample the reference is
    // timed on), and how many names it pins.
    let stride = reference_stride(size, quick);
    let all = Sample::every(corpus, 1);
    let sample = Sample::every(corpus, stride);
    let ((), ref_cache, _) = counted(|| {
        for name in &sample.names {
            assert_eq!(
                set.match_index(name.as_bytes()),
                reference.match_index(name.as_bytes()),
                "engines disagree on {name} at {size} patterns"
            );
        }
    });
    let pinned = corpus.names.iter().filter(|n| set.is_match(n.as_bytes())).count();
    r.add("names pinned (of 500)", "crio-pin", size, pinned as f64, Unit::Count, false);

    // Per-name costs.
    progress("match, match_index, match_any, match_each");
    let fast = run_ops(&set, &all, budget, Some(&cset));
    let fast_on_sample = if sample.partial { run_ops(&set, &sample, budget, Some(&cset)) } else { fast };
    progress(&format!("reference engine on {} names", sample.names.len()));
    let slow = run_ops(&reference, &sample, ref_budget, None);
    let labels = ["match ns/name", "match_index ns/name", "match_any ns/name", "match_each ns/name (C ABI)"];
    for i in 0..4 {
        r.add(labels[i], "crio-pin", size, fast[i], Unit::Ns, false);
        r.add(labels[i], "reference", size, slow[i], Unit::Ns, sample.partial);
        r.add(labels[i], "ratio", size, slow[i] / fast_on_sample[i], Unit::Factor, sample.partial);
    }

    // Allocations on the match path.
    let allocs = |e: &dyn Fn(&[u8]) -> bool, names: &[&String]| {
        let before = ALLOCS.load(Relaxed);
        for n in names {
            black_box(e(n.as_bytes()));
        }
        (ALLOCS.load(Relaxed) - before) as f64 / names.len() as f64
    };
    let fast_allocs = allocs(&|n| set.is_match(n), &all.names);
    let ref_allocs = allocs(&|n| reference.is_match(n), &sample.names);
    r.add("heap allocations per match", "crio-pin", size, fast_allocs, Unit::Count, false);
    r.add("heap allocations per match", "reference", size, ref_allocs, Unit::Count, sample.partial);

    r.pair("compile time", size, compile_fast, compile_ref, Unit::Ns, ref_runs == 1);
    r.pair(
        "heap held after compile (counted)",
        size,
        held as f64,
        ref_held_compiled as f64 + ref_cache as f64,
        Unit::Bytes,
        false,
    );
    r.add("heap held, PinSet::memory_usage()", "crio-pin", size, set.memory_usage() as f64, Unit::Bytes, false);
    r.pair("peak heap while compiling", size, peak as f64, ref_peak as f64, Unit::Bytes, false);
    drop(reference);

    // Threads.
    progress("1 and 2 threads");
    let pass = fast[0].max(1.0) * corpus.names.len() as f64;
    let rounds = ((if quick { 30e6 } else { 100e6 }) / pass).max(1.0) as usize;
    let sc = scaling(&set, &corpus.names, rounds, if quick { 3 } else { 9 });
    r.add("throughput, 1 thread (names/s)", "crio-pin", size, sc.one, Unit::PerSec, false);
    r.add("throughput, 2 threads on one set", "crio-pin", size, sc.two, Unit::PerSec, false);
    r.add("2 threads / 1 thread (wall)", "crio-pin", size, sc.wall, Unit::Factor, false);
    r.add("2 threads / 1 thread, CPU time per name", "crio-pin", size, sc.cpu, Unit::Factor, false);
    r.add("control: ALU loop, 2 threads / 1 thread", "machine", size, sc.control, Unit::Factor, false);

    // No warm-up.
    progress("first call after compile vs millionth");
    let trials = if quick { 3 } else if size >= 100_000 { 7 } else { 15 };
    let (first, hot, cold) = first_vs_millionth(&patterns, &corpus.names, trials);
    r.add("first 16 calls after compile, ns/call", "crio-pin", size, first, Unit::Ns, false);
    r.add("same 16 after 1M calls, ns/call", "crio-pin", size, hot, Unit::Ns, false);
    r.add("same 16 after 1M calls + cache flush", "crio-pin", size, cold, Unit::Ns, false);

    // Flag modes.
    for (flags, mode) in MODES {
        progress(&format!("flags {mode}"));
        let set = PinSet::compile(&patterns, flags).expect("the corpus compiles in every mode");
        // The reference at 100k takes ~20 s and 3 GiB to compile: once, in
        // the default mode, is enough.
        let reference =
            (size < 100_000).then(|| ReferenceSet::compile(&patterns, flags).expect("compiles"));
        if let Some(reference) = &reference {
            for name in &sample.names {
                assert_eq!(set.match_index(name.as_bytes()), reference.match_index(name.as_bytes()), "{mode}");
            }
        }
        let per = |e: &dyn Engine, s: &Sample, b: Budget| {
            ns_per(b, s.names.len(), || {
                for name in &s.names {
                    black_box(e.is_match(black_box(name.as_bytes())));
                }
            })
        };
        let fast = per(&set, &all, budget);
        let label = format!("match ns/name, {mode}");
        r.add(&label, "crio-pin", size, fast, Unit::Ns, false);
        if let Some(reference) = &reference {
            let fast_on_sample = if sample.partial { per(&set, &sample, budget) } else { fast };
            let slow = per(reference, &sample, ref_budget);
            r.add(&label, "reference", size, slow, Unit::Ns, sample.partial);
            r.add(&label, "ratio", size, slow / fast_on_sample, Unit::Factor, sample.partial);
        }
        let compile = time_runs(runs, || PinSet::compile(&patterns, flags).expect("compiles"));
        r.add(&format!("compile time, {mode}"), "crio-pin", size, compile, Unit::Ns, false);
    }

    if o.callgrind {
        progress("callgrind");
        if let Some(ir) = callgrind_instructions(size, corpus.names.len()) {
            r.add("match instructions/name (callgrind)", "crio-pin", size, ir.per_name, Unit::Instructions, false);
            r.add("match_each instructions/name (callgrind)", "crio-pin", size, ir.each_per_name, Unit::Instructions, false);
            r.add("first 16 calls after compile, instructions/call", "crio-pin", size, ir.first, Unit::Instructions, false);
            r.add("same 16 later, instructions/call", "crio-pin", size, ir.later, Unit::Instructions, false);
        } else {
            eprintln!("  valgrind --tool=callgrind failed: no instruction counts");
        }
    }
}

// ---------------------------------------------------------------------------
// The machine, the table, the targets.

fn machine() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|s| s.trim().to_owned())
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_owned());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let mem = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("MemTotal"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map_or(String::new(), |kb| format!(", {:.0} GiB", kb / 1024.0 / 1024.0));
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").map_or(String::new(), |s| format!(", Linux {}", s.trim()));
    let rustc = Command::new(std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into()))
        .arg("--version")
        .output()
        .ok()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    format!("{cpu}, {cores} cores{mem}{kernel}; {rustc}")
}

/// The git revision measured (as checked out when the run started: `make
/// bench` builds right before running), and whether src/ had changes.
fn revision() -> String {
    let git = |args: &[&str]| {
        Command::new("git")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
    };
    match git(&["log", "-1", "--format=%h %s"]) {
        Some(head) => {
            let dirty = git(&["status", "--porcelain", "--", "src"]).is_some_and(|s| !s.is_empty());
            format!("crio-pin {} at `{head}`{}", env!("CARGO_PKG_VERSION"), if dirty { " with uncommitted changes to src/" } else { "" })
        }
        None => format!("crio-pin {} (not a git checkout)", env!("CARGO_PKG_VERSION")),
    }
}

fn table(r: &Results, o: &Options, corpus: &Corpus, elapsed: Duration) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "## crio-pin benchmark{}\n", if o.quick { " (quick mode: fewer samples, not for publishing)" } else { "" });
    let _ = writeln!(t, "- Machine: {}", machine());
    let _ = writeln!(t, "- Engine: {}", revision());
    let _ = writeln!(
        t,
        "- Corpus: {} names ({} images, fnv64 {:016x}); pattern lists {} (fnv64 of the largest {:016x})",
        corpus.names.len(),
        corpus.images.len(),
        corpus::checksum(&corpus.names),
        o.sizes.iter().map(|s| size_label(*s)).collect::<Vec<_>>().join(", "),
        corpus::checksum(&corpus::patterns(*o.sizes.iter().max().unwrap_or(&1)))
    );
    let _ = writeln!(
        t,
        "- Run: `make bench{}` (this table: {:.0} s{})\n",
        if o.quick { " BENCH_QUICK=1" } else { "" },
        elapsed.as_secs_f64(),
        if o.quick { "" } else { ", after the criterion suite" }
    );
    let _ = write!(t, "| figure | engine |");
    for s in &o.sizes {
        let _ = write!(t, " {} |", size_label(*s));
    }
    let _ = write!(t, "\n|---|---|");
    for _ in &o.sizes {
        let _ = write!(t, "---:|");
    }
    t.push('\n');
    let mut last = String::new();
    for (name, engine) in &r.row_order {
        let label = if *name == last { String::new() } else { name.clone() };
        last = name.clone();
        let _ = write!(t, "| {label} | {engine} |");
        for s in &o.sizes {
            let cell = r
                .figures
                .iter()
                .find(|f| &f.name == name && f.engine == *engine && f.size == *s)
                .map_or(String::from("–"), |f| {
                    format!("{}{}", fmt_value(f.value, f.unit), if f.sampled { "†" } else { "" })
                });
            let _ = write!(t, " {cell} |");
        }
        t.push('\n');
    }
    let stride = |size| reference_stride(size, o.quick);
    let sampled: Vec<String> = o
        .sizes
        .iter()
        .filter(|s| stride(**s) > 1)
        .map(|s| format!("every {}th name at {}", stride(*s), size_label(*s)))
        .collect();
    let _ = writeln!(
        t,
        "\n- ns/name: median over samples of a pass over the {} names (match_any: over the names \
         of the {} images, a repository's tag and digest names paired; match_each: one \
         `crio_pin_match_each` call over the whole node, FFI included). ratio = reference / \
         crio-pin, timed on the same names.\n\
         - † the reference engine timed on a sample ({}; it costs ~0.3 µs per pattern per name), \
         or for compile time from a single run.\n\
         - Heap: bytes requested from the allocator and still held, counted by a counting global \
         allocator; for the reference, after one pass over the names, so that the regex caches \
         it builds lazily count.\n\
         - Threads: names/s with 1 and 2 threads matching on one shared `&PinSet`; CPU time per \
         name with 2 threads / with 1 (1.00: the threads do not slow each other down); the ALU \
         control is what this machine gave two threads at that moment (other load shows there).\n\
         - Warm-up: 16 near-miss names timed right after compile, again after a million calls, \
         and again after evicting the caches; callgrind counts the instructions of the same \
         calls (equal counts: no lazy work on the first call).\n\
         - callgrind: instructions per `match` over all names, whole-program counts of two runs \
         differenced (exact and repeatable, unlike time on a shared machine).",
        corpus.names.len(),
        corpus.images.len(),
        if sampled.is_empty() { "none in this run".to_owned() } else { sampled.join(", ") },
    );
    t
}

/// The issue's targets, checked against the results: (holds, text).
fn targets(r: &Results) -> Vec<(Option<bool>, String)> {
    let m = |s| r.get("match ns/name", "crio-pin", s);
    let mut out = Vec::new();
    let check = |ok: bool| Some(ok);
    if let (Some(a), Some(b)) = (m(1_000), m(100_000)) {
        let ir = |s| r.get("match instructions/name (callgrind)", "crio-pin", s);
        let instr = match (ir(1_000), ir(100_000)) {
            (Some(x), Some(y)) => format!("; instructions {y:.0} vs {x:.0} (×{:.2})", y / x),
            _ => String::new(),
        };
        out.push((
            check(b <= 2.0 * a),
            format!("match at 100k ≤ 2× match at 1k: {b:.0} ns vs {a:.0} ns (×{:.2}){instr}", b / a),
        ));
    }
    if let Some(a) = m(1_000) {
        out.push((check(a <= 150.0), format!("match at 1k ≤ 150 ns/name: {a:.0} ns")));
    }
    if let Some(x) = r.get("match ns/name", "ratio", 1_000) {
        out.push((check(x >= 1_000.0), format!("match at 1k ≥ 1,000× the reference: ×{x:.0}")));
    }
    if let Some(c) = r.get("compile time", "crio-pin", 10_000) {
        out.push((check(c < 10e6), format!("compile 10k < 10 ms: {:.2} ms", c / 1e6)));
    }
    if let Some(h) = r.get("heap held after compile (counted)", "crio-pin", 10_000) {
        out.push((check(h < 4e6), format!("hold 10k < 4 MB: {:.2} MB", h / 1e6)));
    }
    if let Some(c) = r.get("compile time", "crio-pin", 100_000) {
        out.push((check(c < 150e6), format!("compile 100k < 150 ms: {:.1} ms", c / 1e6)));
    }
    let by_size = |name: &str, engine: &str| -> Vec<(usize, f64)> {
        r.figures.iter().filter(|f| f.name == name && f.engine == engine).map(|f| (f.size, f.value)).collect()
    };
    let scaling = by_size("2 threads / 1 thread (wall)", "crio-pin");
    if !scaling.is_empty() {
        let worst = scaling.iter().map(|s| s.1).fold(f64::INFINITY, f64::min);
        let list = scaling
            .iter()
            .map(|(s, v)| {
                let cpu = r.get("2 threads / 1 thread, CPU time per name", "crio-pin", *s).unwrap_or(f64::NAN);
                let ctl = r.get("control: ALU loop, 2 threads / 1 thread", "machine", *s).unwrap_or(f64::NAN);
                format!("{} ×{v:.2} (CPU/name ×{cpu:.2}, ALU control ×{ctl:.2})", size_label(*s))
            })
            .collect::<Vec<_>>()
            .join(", ");
        out.push((check(worst >= 1.8), format!("2 threads ≥ 1.8× 1 thread: {list}")));
    }
    let firsts = by_size("first 16 calls after compile, ns/call", "crio-pin");
    if !firsts.is_empty() {
        let list = firsts
            .iter()
            .map(|(s, first)| {
                let hot = r.get("same 16 after 1M calls, ns/call", "crio-pin", *s).unwrap_or(f64::NAN);
                let cold = r.get("same 16 after 1M calls + cache flush", "crio-pin", *s).unwrap_or(f64::NAN);
                format!("{} {first:.0}/{hot:.0}/{cold:.0} ns", size_label(*s))
            })
            .collect::<Vec<_>>()
            .join(", ");
        // No warm-up work: the first call costs no more instructions than
        // later ones (exact), and no more time than a later call on cold
        // caches.
        let instr = by_size("first 16 calls after compile, instructions/call", "crio-pin");
        let same_work = instr.iter().all(|(s, first)| {
            r.get("same 16 later, instructions/call", "crio-pin", *s).is_some_and(|later| *first <= later * 1.05)
        });
        let time_ok = firsts.iter().all(|(s, first)| {
            r.get("same 16 after 1M calls + cache flush", "crio-pin", *s).is_some_and(|cold| *first <= cold * 1.25)
        });
        let how = if instr.is_empty() { "time only" } else { "instructions equal" };
        out.push((
            check(same_work && time_ok),
            format!("no warm-up ({how}; first/millionth/millionth on cold caches): {list}"),
        ));
    }
    let each: Vec<(usize, f64)> = by_size("match_each ns/name (C ABI)", "crio-pin")
        .into_iter()
        .filter_map(|(s, v)| Some((s, v / m(s)?)))
        .collect();
    if !each.is_empty() {
        let instr: Vec<(usize, f64)> = by_size("match_each instructions/name (callgrind)", "crio-pin")
            .into_iter()
            .filter_map(|(s, v)| Some((s, v / r.get("match instructions/name (callgrind)", "crio-pin", s)?)))
            .collect();
        let time = each.iter().map(|(s, v)| format!("{} ×{v:.2}", size_label(*s))).collect::<Vec<_>>().join(", ");
        let (ok, how) = if instr.is_empty() {
            (each.iter().all(|e| e.1 <= 1.05), format!("time {time}"))
        } else {
            let list = instr.iter().map(|(s, v)| format!("{} ×{v:.3}", size_label(*s))).collect::<Vec<_>>().join(", ");
            (instr.iter().all(|e| e.1 <= 1.05), format!("instructions {list}; time {time}"))
        };
        // The C call walks a packed buffer and writes a result a name: a
        // few instructions a name on top of `match`, allowed up to 5%.
        out.push((check(ok), format!("match_each ≈ match per name (within 5%): {how}")));
    }
    out
}

fn main() {
    let o = options();
    let started = Instant::now();
    let names = corpus::names();
    let images = corpus::images(&names);
    let node = Packed::new(&names.iter().collect::<Vec<_>>());
    let corpus = Corpus { names, images, node };
    assert_eq!(corpus.node.lengths.len(), corpus.names.len());
    let mut o = o;
    if o.callgrind && !have_valgrind() {
        eprintln!("note: valgrind not found (apt-get install valgrind): no instruction counts");
        o.callgrind = false;
    }
    eprintln!(
        "crio-pin table benchmark{}: sizes {:?}",
        if o.quick { " (quick)" } else { "" },
        o.sizes
    );
    let mut results = Results::default();
    for &size in &o.sizes {
        measure_size(size, &corpus, &o, &mut results);
    }
    let elapsed = started.elapsed();
    let table = table(&results, &o, &corpus, elapsed);
    let mut checks = String::from("\n### Targets\n\n");
    for (ok, text) in targets(&results) {
        let mark = match ok {
            Some(true) => "holds",
            Some(false) => "MISSED",
            None => "n/a",
        };
        let _ = writeln!(checks, "- {mark}: {text}");
    }
    std::fs::create_dir_all(&o.out).expect("create the output directory");
    let mut tsv = String::from("figure\tengine\tsize\tvalue\tunit\tsampled\n");
    for f in &results.figures {
        let _ = writeln!(tsv, "{}\t{}\t{}\t{}\t{:?}\t{}", f.name, f.engine, f.size, f.value, f.unit, f.sampled);
    }
    std::fs::write(o.out.join("results.tsv"), tsv).expect("write results.tsv");
    std::fs::write(o.out.join("table.md"), format!("{table}{checks}")).expect("write table.md");
    // Targets first, the table last: `make bench` ends with the table.
    eprint!("{checks}");
    println!("\n{table}");
}
