//! What the bench harnesses share: a counting allocator (heap held, its
//! peak, allocations), the targets of `docs/BENCHMARKS.md`, and a set
//! compiled through the C ABI. Each bench uses part of it.

#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::os::raw::c_char;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use crio_pin::ffi;

/// Counts live bytes, their peak, and allocations.
struct Counting;
pub static LIVE: AtomicUsize = AtomicUsize::new(0);
pub static PEAK: AtomicUsize = AtomicUsize::new(0);
pub static ALLOCS: AtomicUsize = AtomicUsize::new(0);

fn grew(by: usize) {
    ALLOCS.fetch_add(1, Relaxed);
    PEAK.fetch_max(LIVE.fetch_add(by, Relaxed) + by, Relaxed);
}

// SAFETY: forwards every call to System, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        grew(layout.size());
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LIVE.fetch_sub(layout.size(), Relaxed);
        grew(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A target from docs/BENCHMARKS.md: `figure`, on `lists` ("all" or labels
/// separated by commas), at most or at least `bound`.
pub struct Target {
    pub figure: String,
    pub lists: Vec<String>,
    pub at_most: bool,
    pub bound: f64,
}

pub fn targets_file() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/BENCHMARKS.md")
}

/// The rows of the table under "## Targets": `| figure | lists | ≤ 80 |`.
pub fn targets() -> Vec<Target> {
    let path = targets_file();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let section =
        text.split("\n## Targets\n").nth(1).unwrap_or_else(|| panic!("{}: no '## Targets' section", path.display()));
    let rows = section.lines().skip_while(|l| !l.starts_with('|')).take_while(|l| l.starts_with('|')).skip(2);
    rows.map(|row| {
        let cells: Vec<&str> = row.trim_matches('|').split('|').map(str::trim).collect();
        let bad = || panic!("{}: target row {row:?}: want | figure | lists | ≤ or ≥ number |", path.display());
        let [figure, lists, bound] = cells[..] else { bad() };
        let (at_most, number) = match bound.split_once(' ') {
            Some(("≤", n)) => (true, n),
            Some(("≥", n)) => (false, n),
            _ => bad(),
        };
        Target {
            figure: figure.trim_matches('`').to_owned(),
            lists: lists.split(',').map(|l| l.trim().to_owned()).collect(),
            at_most,
            bound: number.replace(',', "").parse().unwrap_or_else(|_| bad()),
        }
    })
    .collect()
}

/// The target for `figure` on `list`: one naming the list beats "all".
pub fn target_for<'t>(targets: &'t [Target], figure: &str, list: &str) -> Option<&'t Target> {
    let of = |named: bool| {
        targets
            .iter()
            .find(|t| t.figure == figure && t.lists.iter().any(|l| if named { l == list } else { l == "all" }))
    };
    of(true).or_else(|| of(false))
}

/// What crio_pin_compile() takes: a pointer and a length per pattern
/// (borrowing the patterns).
pub struct CArgs(Vec<*const c_char>, Vec<usize>);

impl CArgs {
    pub fn new(patterns: &[String]) -> CArgs {
        CArgs(patterns.iter().map(|p| p.as_ptr().cast()).collect(), patterns.iter().map(String::len).collect())
    }

    /// crio_pin_validate() of the patterns.
    pub fn validate(&self) -> bool {
        self.validate_flagged(0)
    }

    /// crio_pin_validate() of the patterns under `flags`.
    pub fn validate_flagged(&self, flags: u32) -> bool {
        self.refusal(flags).is_none()
    }

    /// Why crio_pin_validate() refuses the patterns under `flags` (its
    /// error's message), or `None` if it accepts them.
    pub fn refusal(&self, flags: u32) -> Option<String> {
        let mut error = std::ptr::null_mut();
        // SAFETY: count pointers and lengths, valid for the call; the error
        // is read once and freed once.
        unsafe {
            if ffi::crio_pin_validate(self.0.as_ptr(), self.1.as_ptr(), self.0.len(), flags, &mut error) {
                return None;
            }
            let message = std::ffi::CStr::from_ptr(ffi::crio_pin_error_message(error)).to_string_lossy().into_owned();
            ffi::crio_pin_error_free(error);
            Some(message)
        }
    }
}

impl CSet {
    /// crio_pin_tier() of the set: its `CRIO_PIN_TIER_*` name.
    pub fn tier(&self) -> &'static str {
        // SAFETY: a live set.
        match unsafe { ffi::crio_pin_tier(self.0) } {
            ffi::CRIO_PIN_TIER_EXACT => "exact",
            ffi::CRIO_PIN_TIER_DENSE => "dense",
            ffi::CRIO_PIN_TIER_SPARSE => "sparse",
            other => panic!("crio_pin_tier: {other}"),
        }
    }
}

/// A set compiled through the C ABI, freed on drop.
pub struct CSet(pub *mut ffi::crio_pin_set);

impl CSet {
    pub fn compile(patterns: &[String]) -> CSet {
        CSet::compile_args(&CArgs::new(patterns))
    }

    pub fn compile_args(args: &CArgs) -> CSet {
        CSet::compile_flagged(args, 0)
    }

    /// crio_pin_compile() under `flags` (CRIO_PIN_* bits).
    pub fn compile_flagged(args: &CArgs, flags: u32) -> CSet {
        // SAFETY: count pointers and lengths, valid for the call.
        let set = unsafe {
            ffi::crio_pin_compile(args.0.as_ptr(), args.1.as_ptr(), args.0.len(), flags, std::ptr::null_mut())
        };
        assert!(!set.is_null(), "the list compiles");
        CSet(set)
    }

    pub fn match_each(&self, packed: &[u8], lengths: &[usize], results: &mut [u8]) -> usize {
        // SAFETY: a live set; the names packed with their lengths; one
        // result byte per name.
        unsafe {
            ffi::crio_pin_match_each(
                self.0,
                packed.as_ptr().cast(),
                lengths.as_ptr(),
                lengths.len(),
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

/// The machine and the code measured, for the table's header.
pub fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let cpu = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name"))
        .map_or("?", |m| m.trim_start_matches([' ', '\t', ':']));
    let run = |cmd: &str, args: &[&str]| {
        Command::new(cmd)
            .args(args)
            .output()
            .ok()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
            .unwrap_or_default()
    };
    let threads = std::thread::available_parallelism().map_or(0, |n| n.get());
    format!(
        "{cpu}, {threads} CPUs; {}; crio-pin at {}",
        run("rustc", &["--version"]),
        run("git", &["-C", env!("CARGO_MANIFEST_DIR"), "describe", "--always", "--dirty"])
    )
}

impl CSet {
    /// crio_pin_match() of `name`.
    pub fn is_match(&self, name: &[u8]) -> bool {
        // SAFETY: a live set; `name` is valid for its length.
        unsafe { ffi::crio_pin_match(self.0, name.as_ptr().cast(), name.len()) }
    }

    /// crio_pin_match_index() of `name`.
    pub fn match_index(&self, name: &[u8]) -> isize {
        // SAFETY: a live set; `name` is valid for its length.
        unsafe { ffi::crio_pin_match_index(self.0, name.as_ptr().cast(), name.len()) }
    }
}
