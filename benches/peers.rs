//! crio-pin beside its peers, in one process on the same names: Intel
//! Hyperscan (the reference multi-pattern engine), two floors, the least
//! work any correct matcher of an exact list must do, one L1 DFA pass, the
//! least a DFA-based matcher costs without skipping, and one pass through
//! the list's own automaton. Times on a shared
//! machine move together, so this bench reports ratios measured in the same
//! run, interleaved, beside the targets of `docs/BENCHMARKS.md`.
//!
//! - **Hyperscan**: Debian's `libhyperscan-dev` (5.4), opened at run time
//!   (`libhs.so.5`); missing, its column is skipped and the bench says so.
//!   Each pattern becomes the regex CRI-O builds (exact `^…$`, which in
//!   Go's syntax ends at the end of the text only: Hyperscan's `\z`, as its
//!   `$` also matches before a final newline; unanchored glob and keyword,
//!   every byte escaped), caseless, single-match, block mode; a name is pinned when the scan reports any match. Its answers are
//!   checked against crio-pin's on every name before anything is timed.
//! - **Simple floor**: lower-case the name (ASCII), FxHash it, probe one
//!   `HashSet` of the lower-cased exact patterns.
//! - **Tight floor**: lower-case eight bytes at a time, hash the length and
//!   the first and last eight bytes with three multiplies, probe one slot of
//!   an open-addressed table, compare on a hit.
//!
//! - **L1 DFA pass**: every byte of the name through the dense DFA of one
//!   short keyword (`*agent*`, case folded: 6 states of 256 columns, 6 KiB,
//!   which stays in L1), premultiplied state ids, one dependent load a byte
//!   (on x86-64 through the column's address, as crio-pin's walk reads it),
//!   no early exit: the keyword's state leads only to itself, so the last
//!   state is the answer.
//!
//! - **Automaton pass**: every byte of the name through the list's own
//!   automaton (crio-pin's table for this list, byte classes and all), one
//!   lane, no early exit, nothing else asked (`PinSet::automaton_pass`,
//!   feature `testing`).
//!
//! The floors know only exact patterns: they are a bound on lists that are
//! all or mostly exact, not an engine. The L1 DFA pass knows one keyword:
//! it is what any walk of a name costs before its table grows past L1 and
//! before it stops early. The automaton pass is what reading this list's
//! table costs on this machine, its misses included: the yardstick of
//! `match` and `match_each` where the list's table is past L1
//! (docs/BENCHMARKS.md, "Targets").
//!
//! `cargo bench --bench peers -- [--out DIR] [--lists 1,openshift]`;
//! `cargo test --bench peers` checks the floors, the two passes and
//! Hyperscan (when present) against crio-pin without timing anything.

mod corpus;
mod harness;

use std::ffi::{c_char, c_int, c_uint, c_ulonglong, c_void, CString};
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::Instant;

use corpus::List;
use crio_pin::{Flags, Pattern, PinSet};
use harness::{machine, target_for, targets, Target};
use rustc_hash::FxHashSet;

/// The exact-heavy lists (nine in ten exact), against the corpus' names.
const EXACT_HEAVY: [(usize, &str); 3] = [(1_000, "x90-1k"), (10_000, "x90-10k"), (100_000, "x90-100k")];

fn lists() -> Vec<List> {
    let mut lists = corpus::lists();
    let names = corpus::names();
    for (size, label) in EXACT_HEAVY {
        lists.push(List { label, patterns: corpus::exact_heavy(size), names: names.clone() });
    }
    lists
}

// ---- Hyperscan, through its C API ----------------------------------------

const HS_SUCCESS: c_int = 0;
const HS_SCAN_TERMINATED: c_int = -3;
const HS_FLAG_CASELESS: c_uint = 1;
const HS_FLAG_DOTALL: c_uint = 2;
const HS_FLAG_SINGLEMATCH: c_uint = 8;
const HS_FLAG_ALLOWEMPTY: c_uint = 16;
const HS_MODE_BLOCK: c_uint = 1;

#[repr(C)]
struct HsCompileError {
    message: *const c_char,
    expression: c_int,
}

type OnMatch = unsafe extern "C" fn(c_uint, c_ulonglong, c_ulonglong, c_uint, *mut c_void) -> c_int;

struct Hyperscan {
    compile_multi: unsafe extern "C" fn(
        *const *const c_char,
        *const c_uint,
        *const c_uint,
        c_uint,
        c_uint,
        *const c_void,
        *mut *mut c_void,
        *mut *mut HsCompileError,
    ) -> c_int,
    free_compile_error: unsafe extern "C" fn(*mut HsCompileError) -> c_int,
    alloc_scratch: unsafe extern "C" fn(*const c_void, *mut *mut c_void) -> c_int,
    scan:
        unsafe extern "C" fn(*const c_void, *const c_char, c_uint, c_uint, *mut c_void, OnMatch, *mut c_void) -> c_int,
    free_scratch: unsafe extern "C" fn(*mut c_void) -> c_int,
    free_database: unsafe extern "C" fn(*mut c_void) -> c_int,
    _lib: libloading::Library,
}

impl Hyperscan {
    fn open() -> Result<Hyperscan, String> {
        // SAFETY: loading Hyperscan runs no initialiser with preconditions;
        // each symbol is given the signature of its declaration in hs.h.
        unsafe {
            let lib = libloading::Library::new("libhs.so.5")
                .map_err(|e| format!("{e} (Debian: apt-get install libhyperscan-dev)"))?;
            macro_rules! sym {
                ($name:literal) => {
                    *lib.get($name).map_err(|e| format!("{}: {e}", String::from_utf8_lossy($name)))?
                };
            }
            Ok(Hyperscan {
                compile_multi: sym!(b"hs_compile_multi"),
                free_compile_error: sym!(b"hs_free_compile_error"),
                alloc_scratch: sym!(b"hs_alloc_scratch"),
                scan: sym!(b"hs_scan"),
                free_scratch: sym!(b"hs_free_scratch"),
                free_database: sym!(b"hs_free_database"),
                _lib: lib,
            })
        }
    }

    /// The regex CRI-O builds for `pattern`, every byte but letters and
    /// digits escaped as `\xHH`.
    fn regex(pattern: &str) -> String {
        let escape = |text: &str| {
            text.bytes().fold(String::new(), |mut out, b| {
                if b.is_ascii_alphanumeric() {
                    out.push(char::from(b));
                } else {
                    let _ = write!(out, "\\x{b:02x}");
                }
                out
            })
        };
        match Pattern::parse(pattern, Flags::DEFAULT).expect("the corpus parses") {
            // (Go's `$` without the `m` flag is the end of the text.)
            Pattern::Exact(text) => format!("^{}\\z", escape(text)),
            Pattern::Glob(text) | Pattern::Keyword(text) => escape(text),
            Pattern::Repository(_) | Pattern::Blank => unreachable!("not a pattern of CRI-O's rules"),
        }
    }

    fn compile(&self, patterns: &[String]) -> Result<HsSet<'_>, String> {
        let regexes: Vec<CString> =
            patterns.iter().map(|p| CString::new(Hyperscan::regex(p)).expect("no NUL in the corpus")).collect();
        let pointers: Vec<*const c_char> = regexes.iter().map(|r| r.as_ptr()).collect();
        let flags = vec![HS_FLAG_CASELESS | HS_FLAG_DOTALL | HS_FLAG_SINGLEMATCH | HS_FLAG_ALLOWEMPTY; patterns.len()];
        let ids: Vec<c_uint> = (0..patterns.len() as c_uint).collect();
        let (mut db, mut scratch, mut error) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
        // SAFETY: arrays of `patterns.len()` elements, NUL-terminated
        // expressions that outlive the call, out-pointers to locals.
        unsafe {
            let rc = (self.compile_multi)(
                pointers.as_ptr(),
                flags.as_ptr(),
                ids.as_ptr(),
                patterns.len() as c_uint,
                HS_MODE_BLOCK,
                std::ptr::null(),
                &mut db,
                &mut error,
            );
            if rc != HS_SUCCESS {
                let message = std::ffi::CStr::from_ptr((*error).message).to_string_lossy().into_owned();
                let at = (*error).expression;
                (self.free_compile_error)(error);
                return Err(format!("hs_compile_multi: {message} (expression {at})"));
            }
            if (self.alloc_scratch)(db, &mut scratch) != HS_SUCCESS {
                (self.free_database)(db);
                return Err("hs_alloc_scratch failed".to_owned());
            }
        }
        Ok(HsSet { hs: self, db, scratch })
    }
}

struct HsSet<'h> {
    hs: &'h Hyperscan,
    db: *mut c_void,
    scratch: *mut c_void,
}

unsafe extern "C" fn stop_at_first(_: c_uint, _: c_ulonglong, _: c_ulonglong, _: c_uint, _: *mut c_void) -> c_int {
    1
}

impl HsSet<'_> {
    fn is_match(&self, name: &[u8]) -> bool {
        // SAFETY: a live database and its scratch, used by this thread only;
        // the name outlives the call.
        let rc = unsafe {
            (self.hs.scan)(
                self.db,
                name.as_ptr().cast(),
                name.len() as c_uint,
                0,
                self.scratch,
                stop_at_first,
                std::ptr::null_mut(),
            )
        };
        assert!(rc == HS_SUCCESS || rc == HS_SCAN_TERMINATED, "hs_scan: {rc}");
        rc == HS_SCAN_TERMINATED
    }
}

impl Drop for HsSet<'_> {
    fn drop(&mut self) {
        // SAFETY: allocated by this set, freed once.
        unsafe {
            (self.hs.free_scratch)(self.scratch);
            (self.hs.free_database)(self.db);
        }
    }
}

// ---- The floors ------------------------------------------------------------

fn exact_patterns(patterns: &[String]) -> impl Iterator<Item = Vec<u8>> + '_ {
    patterns.iter().filter_map(|p| match Pattern::parse(p, Flags::DEFAULT) {
        Ok(Pattern::Exact(text)) => Some(text.to_ascii_lowercase().into_bytes()),
        _ => None,
    })
}

/// Lower-case, FxHash, one probe.
struct SimpleFloor {
    set: FxHashSet<Vec<u8>>,
    buf: Vec<u8>,
}

impl SimpleFloor {
    fn new(patterns: &[String]) -> SimpleFloor {
        SimpleFloor { set: exact_patterns(patterns).collect(), buf: Vec::with_capacity(256) }
    }

    fn is_match(&mut self, name: &[u8]) -> bool {
        self.buf.clear();
        self.buf.extend(name.iter().map(u8::to_ascii_lowercase));
        self.set.contains(self.buf.as_slice())
    }
}

/// Eight bytes lower-cased at once: 0x20 added to every byte in `A..=Z`.
fn lower8(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let high = ONES * 0x80;
    let ascii = !word & high;
    let above_at = (word | high).wrapping_sub(ONES * u64::from(b'A')) & ascii;
    let above_z = (word | high).wrapping_sub(ONES * u64::from(b'Z' + 1)) & ascii;
    word | ((above_at & !above_z) >> 2)
}

/// The name's first and last eight bytes (overlapping when shorter than
/// 16; zero-padded when shorter than 8), lower-cased.
fn ends(name: &[u8]) -> (u64, u64) {
    if name.len() >= 8 {
        let first = u64::from_le_bytes(name[..8].try_into().expect("8 bytes"));
        let last = u64::from_le_bytes(name[name.len() - 8..].try_into().expect("8 bytes"));
        (lower8(first), lower8(last))
    } else {
        let mut padded = [0u8; 8];
        padded[..name.len()].copy_from_slice(name);
        let word = lower8(u64::from_le_bytes(padded));
        (word, word)
    }
}

fn hash_ends(len: usize, (first, last): (u64, u64)) -> u64 {
    (first.wrapping_mul(0x9e37_79b9_7f4a_7c15)
        ^ last.wrapping_mul(0xc2b2_ae3d_27d4_eb4f)
        ^ (len as u64).wrapping_mul(0x1656_67b1_9e37_79f9))
    .rotate_left(29)
}

/// Three multiplies of the ends, one slot, one comparison on a hit.
struct TightFloor {
    /// (hash, key index + 1), 0 for empty; a power of two, at most half full.
    slots: Vec<(u64, u32)>,
    keys: Vec<Vec<u8>>,
    buf: Vec<u8>,
}

impl TightFloor {
    fn new(patterns: &[String]) -> TightFloor {
        let mut keys: Vec<Vec<u8>> = exact_patterns(patterns).collect();
        keys.sort_unstable();
        keys.dedup();
        let mut slots = vec![(0, 0); (keys.len() * 2).next_power_of_two().max(2)];
        let mask = slots.len() - 1;
        for (i, key) in keys.iter().enumerate() {
            let hash = hash_ends(key.len(), ends(key));
            let mut at = hash as usize & mask;
            while slots[at].1 != 0 {
                at = (at + 1) & mask;
            }
            slots[at] = (hash, i as u32 + 1);
        }
        TightFloor { slots, keys, buf: Vec::with_capacity(256) }
    }

    fn is_match(&mut self, name: &[u8]) -> bool {
        let hash = hash_ends(name.len(), ends(name));
        let mask = self.slots.len() - 1;
        let mut at = hash as usize & mask;
        loop {
            let (slot_hash, key) = self.slots[at];
            if key == 0 {
                return false;
            }
            if slot_hash == hash {
                self.buf.clear();
                for chunk in name.chunks(8) {
                    let mut word = [0u8; 8];
                    word[..chunk.len()].copy_from_slice(chunk);
                    self.buf.extend_from_slice(&lower8(u64::from_le_bytes(word)).to_le_bytes()[..chunk.len()]);
                }
                if self.buf == self.keys[key as usize - 1] {
                    return true;
                }
            }
            at = (at + 1) & mask;
        }
    }
}

// ---- The L1 DFA pass --------------------------------------------------------

/// The L1 DFA pass's keyword: one of the corpus' (some of its names hold
/// it), short enough for its table to stay in L1.
const L1_KEYWORD: &[u8] = b"agent";

/// The DFA of one keyword, case folded, walked over every byte of a name.
struct L1DfaPass {
    /// Row-major, 256 columns a state; each entry is a row start (a
    /// premultiplied state id).
    table: Box<[u32]>,
    /// The row of the state where the keyword has been read (which leads
    /// only to itself).
    found: u32,
}

impl L1DfaPass {
    fn new(keyword: &[u8]) -> L1DfaPass {
        let keyword = keyword.to_ascii_lowercase();
        let states = keyword.len() + 1;
        let mut table = vec![0u32; states * 256];
        for state in 0..states {
            for byte in 0..=255u8 {
                // The longest prefix of the keyword that ends the text read
                // so far (its first `state` bytes, then `byte`).
                let next = if state == keyword.len() {
                    state
                } else {
                    let mut read = keyword[..state].to_vec();
                    read.push(byte.to_ascii_lowercase());
                    (0..=read.len().min(keyword.len())).rev().find(|&k| read.ends_with(&keyword[..k])).unwrap_or(0)
                };
                table[state * 256 + usize::from(byte)] = (next * 256) as u32;
            }
        }
        L1DfaPass { table: table.into_boxed_slice(), found: (keyword.len() * 256) as u32 }
    }

    fn is_match(&self, name: &[u8]) -> bool {
        let mut state = 0u64;
        for &byte in name {
            // SAFETY: `state` is a row start below `table.len()` (every
            // entry is one) and `byte` < 256, the row's width.
            state = unsafe { Self::step(self.table.as_ptr().add(usize::from(byte)), state) };
        }
        state == u64::from(self.found)
    }

    /// The entry of row `state` in the column `column` points at: one load,
    /// whose address adds nothing to `state` but the addressing itself.
    ///
    /// # Safety
    ///
    /// `column + state` is inside the table.
    #[inline(always)]
    unsafe fn step(column: *const u32, state: u64) -> u64 {
        #[cfg(target_arch = "x86_64")]
        {
            let next: u64;
            std::arch::asm!(
                "mov {next:e}, dword ptr [{column} + {state} * 4]",
                column = in(reg) column,
                state = in(reg) state,
                next = lateout(reg) next,
                options(pure, readonly, nostack, preserves_flags),
            );
            next
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            u64::from(*column.add(state as usize))
        }
    }
}

// ---- Measuring -------------------------------------------------------------

/// Nanoseconds per name of `rounds` passes over `names`.
fn sample(names: &[&[u8]], rounds: usize, mut is_match: impl FnMut(&[u8]) -> bool) -> f64 {
    let start = Instant::now();
    let mut pinned = 0usize;
    for _ in 0..rounds {
        for name in names {
            pinned += usize::from(is_match(black_box(name)));
        }
    }
    black_box(pinned);
    start.elapsed().as_nanos() as f64 / (rounds * names.len()) as f64
}

/// Nanoseconds per name of `rounds` calls of `match_each` over `names`.
fn sample_each(set: &PinSet, names: &[&[u8]], rounds: usize, results: &mut [u8]) -> f64 {
    let start = Instant::now();
    for _ in 0..rounds {
        black_box(set.match_each(names.iter().map(|n| black_box(*n)), results));
    }
    start.elapsed().as_nanos() as f64 / (rounds * names.len()) as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One list's figures: (row, value).
fn measure(list: &List, hs: Option<&Hyperscan>) -> Vec<(&'static str, f64)> {
    let names: Vec<&[u8]> = list.names.iter().map(|n| n.as_bytes()).collect();
    let started = Instant::now();
    let set = PinSet::compile(&list.patterns, Flags::DEFAULT).expect("the corpus compiles");
    let crio_pin_compile = started.elapsed().as_secs_f64();
    let mut simple = SimpleFloor::new(&list.patterns);
    let mut tight = TightFloor::new(&list.patterns);
    let l1 = L1DfaPass::new(L1_KEYWORD);
    let started = Instant::now();
    let hs_set = hs.map(|hs| hs.compile(&list.patterns)).transpose().unwrap_or_else(|e| panic!("{}: {e}", list.label));
    let hs_compile = started.elapsed().as_secs_f64();

    if let Some(hs_set) = &hs_set {
        let disagree = names.iter().filter(|n| hs_set.is_match(n) != set.is_match(n)).count();
        assert_eq!(disagree, 0, "{}: Hyperscan and crio-pin disagree on {disagree} names", list.label);
    }

    // About 2 ms a sample; 15 samples of each engine, interleaved.
    let rounds = (2_000_000 / (names.len() * 100)).max(1);
    let (mut ours, mut theirs, mut floor, mut tight_floor, mut l1_pass) = (vec![], vec![], vec![], vec![], vec![]);
    let (mut each, mut own_pass, mut results) = (vec![], vec![], vec![0u8; names.len()]);
    let automaton = set.automaton_pass(b"").is_some();
    for _ in 0..15 {
        ours.push(sample(&names, rounds, |n| set.is_match(n)));
        each.push(sample_each(&set, &names, rounds, &mut results));
        if automaton {
            own_pass.push(sample(&names, rounds, |n| set.automaton_pass(n) == Some(true)));
        }
        if let Some(hs_set) = &hs_set {
            theirs.push(sample(&names, rounds, |n| hs_set.is_match(n)));
        }
        floor.push(sample(&names, rounds, |n| simple.is_match(n)));
        tight_floor.push(sample(&names, rounds, |n| tight.is_match(n)));
        l1_pass.push(sample(&names, rounds, |n| l1.is_match(n)));
    }
    let (ours, floor, tight_floor, l1_pass) = (median(ours), median(floor), median(tight_floor), median(l1_pass));
    let each = median(each);
    let mut rows = vec![("crio-pin match ns/name", ours), ("crio-pin match_each ns/name", each)];
    if !theirs.is_empty() {
        let theirs = median(theirs);
        rows.extend([
            ("Hyperscan ns/name", theirs),
            ("match / Hyperscan", ours / theirs),
            ("Hyperscan compile / ours", hs_compile / crio_pin_compile),
        ]);
    }
    rows.extend([
        ("simple floor ns/name", floor),
        ("tight floor ns/name", tight_floor),
        ("match / simple floor", ours / floor),
        ("match / tight floor", ours / tight_floor),
        ("L1 DFA pass ns/name", l1_pass),
        ("match / L1 DFA pass", ours / l1_pass),
    ]);
    if automaton {
        let own_pass = median(own_pass);
        rows.extend([
            ("automaton pass ns/name", own_pass),
            ("match / automaton pass", ours / own_pass),
            ("match_each / automaton pass", each / own_pass),
        ]);
    }
    rows
}

/// The figures as a table, each beside its target; and how many missed.
fn table(
    rows: &[&'static str],
    figures: &[Vec<(&'static str, f64)>],
    lists: &[List],
    targets: &[Target],
) -> (String, usize) {
    let mut missed = 0;
    let mut out = String::from("| figure |");
    for list in lists {
        let _ = write!(out, " {} |", list.label);
    }
    let _ = write!(out, "\n|---|{}", "---:|".repeat(lists.len()));
    for &row in rows {
        let _ = write!(out, "\n| {row} |");
        for (list, values) in lists.iter().zip(figures) {
            let shown = |v: f64| if row.ends_with("ns/name") { format!("{v:.1}") } else { format!("{v:.2}") };
            let cell = match (values.iter().find(|(r, _)| *r == row), target_for(targets, row, list.label)) {
                (None, _) => "–".to_owned(),
                (Some(&(_, v)), None) => shown(v),
                (Some(&(_, v)), Some(t)) => {
                    let met = if t.at_most { v <= t.bound } else { v >= t.bound };
                    missed += usize::from(!met);
                    let sign = if t.at_most { "≤" } else { "≥" };
                    format!("{}{} ({sign} {})", shown(v), if met { "" } else { " **MISSED**" }, t.bound)
                }
            };
            let _ = write!(out, " {cell} |");
        }
    }
    out.push('\n');
    (out, missed)
}

/// `cargo test --bench peers`: on lists whose patterns are all exact, each
/// floor answers as crio-pin; the L1 DFA pass answers as crio-pin's set of
/// its one keyword; the automaton pass as the list's globs and keywords;
/// Hyperscan, where installed, answers as crio-pin on the
/// corpus lists up to 1,000 patterns.
fn check() {
    let (openshift, names) = corpus::openshift();
    let exact: Vec<String> = openshift.into_iter().filter(|p| !p.contains('*')).collect();
    let set = PinSet::compile(&exact, Flags::DEFAULT).expect("compiles");
    let (mut simple, mut tight) = (SimpleFloor::new(&exact), TightFloor::new(&exact));
    let mut probes: Vec<String> = names.iter().flat_map(|n| [n.clone(), n.to_uppercase()]).collect();
    probes.extend(exact.iter().take(100).map(|p| format!("{p}x")));
    probes.extend(["", "a", "ABCDEFG", "registry.k8s.io/pause:3.10"].map(str::to_owned));
    let mut pinned = 0;
    for name in &probes {
        let want = set.is_match(name.as_bytes());
        pinned += usize::from(want);
        assert_eq!(simple.is_match(name.as_bytes()), want, "simple floor: {name}");
        assert_eq!(tight.is_match(name.as_bytes()), want, "tight floor: {name}");
    }
    assert!(pinned > 100, "the probes pin too few names ({pinned}) to test the floors");
    let keyword = format!("*{}*", String::from_utf8_lossy(L1_KEYWORD));
    let set = PinSet::compile([&keyword], Flags::DEFAULT).expect("compiles");
    let l1 = L1DfaPass::new(L1_KEYWORD);
    let mut probes: Vec<String> =
        corpus::names().into_iter().chain(names).flat_map(|n| [n.to_uppercase(), n]).collect();
    probes.extend(
        ["", "a", "agen", "AGENT", "agagent", "aagent", "agenagent", "xagentx", "ag\u{e9}nt"].map(str::to_owned),
    );
    let pinned = probes.iter().filter(|name| set.is_match(name.as_bytes())).count();
    for name in &probes {
        assert_eq!(l1.is_match(name.as_bytes()), set.is_match(name.as_bytes()), "L1 DFA pass: {name}");
    }
    assert!(pinned > 10 && pinned < probes.len() - 10, "the probes test both answers of the L1 DFA pass ({pinned})");
    // The automaton pass meets a needle where a glob or keyword of the
    // list pins the name (ASCII names: it reads raw bytes), with a wide
    // table (up to 1,000 patterns) and with byte classes.
    for list in &corpus::lists() {
        let set = PinSet::compile(&list.patterns, Flags::DEFAULT).expect("compiles");
        if set.automaton_pass(b"").is_none() {
            assert!(!list.patterns.iter().any(|p| p.ends_with('*')), "{}: globs and no automaton", list.label);
            continue;
        }
        let needles =
            PinSet::compile(list.patterns.iter().filter(|p| p.ends_with('*')), Flags::DEFAULT).expect("compiles");
        let mut met = 0;
        for name in list.names.iter().filter(|n| n.is_ascii()) {
            let pinned = needles.is_match(name.as_bytes());
            met += usize::from(pinned);
            assert_eq!(set.automaton_pass(name.as_bytes()), Some(pinned), "{}: automaton pass: {name}", list.label);
        }
        // (OpenShift's three globs pin none of its node's names.)
        assert!(met > 0 || list.label == "openshift", "{}: the names meet no needle", list.label);
    }
    match Hyperscan::open() {
        Ok(hs) => {
            for list in corpus::lists().iter().filter(|l| l.patterns.len() <= 1_000) {
                let ours = PinSet::compile(&list.patterns, Flags::DEFAULT).expect("compiles");
                let theirs = hs.compile(&list.patterns).expect("Hyperscan compiles the corpus");
                for name in &list.names {
                    assert_eq!(theirs.is_match(name.as_bytes()), ours.is_match(name.as_bytes()), "{name}");
                }
            }
            println!("peers: the floors, the two passes and Hyperscan answer as crio-pin");
        }
        Err(e) => println!("peers: the floors and the two passes answer as crio-pin; Hyperscan NOT compared: {e}"),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if !args.iter().any(|a| a == "--bench") {
        return check();
    }
    let hs = match Hyperscan::open() {
        Ok(hs) => Some(hs),
        Err(e) => {
            eprintln!("peers: no Hyperscan column: {e}");
            None
        }
    };
    let out = args
        .iter()
        .position(|a| a == "--out")
        .and_then(|i| args.get(i + 1))
        .map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("build/bench"), PathBuf::from);
    let mut lists = lists();
    if let Some(only) = args.iter().position(|a| a == "--lists").and_then(|i| args.get(i + 1)) {
        lists.retain(|l| only.split(',').any(|o| o == l.label));
    }
    let figures: Vec<_> = lists
        .iter()
        .map(|list| {
            eprintln!("[{}]", list.label);
            measure(list, hs.as_ref())
        })
        .collect();
    let rows = [
        "crio-pin match ns/name",
        "crio-pin match_each ns/name",
        "Hyperscan ns/name",
        "simple floor ns/name",
        "tight floor ns/name",
        "L1 DFA pass ns/name",
        "automaton pass ns/name",
        "match / Hyperscan",
        "match / simple floor",
        "match / tight floor",
        "match / L1 DFA pass",
        "match / automaton pass",
        "match_each / automaton pass",
        "Hyperscan compile / ours",
    ];
    let (body, missed) = table(&rows, &figures, &lists, &targets());
    let text = format!(
        "### Beside Hyperscan and the hash floor (benches/peers.rs)\n\n- Machine: {}\n- Hyperscan: {}\n\n{body}\n{}\n",
        machine(),
        if hs.is_some() { "libhs.so.5" } else { "not installed (apt-get install libhyperscan-dev): no column" },
        if missed == 0 { "Every target met.".to_owned() } else { format!("{missed} figures MISSED their target.") }
    );
    std::fs::create_dir_all(&out).expect("create the output directory");
    std::fs::write(out.join("peers.md"), &text).expect("write peers.md");
    print!("{text}");
}
