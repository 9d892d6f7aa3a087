//! What compiling costs in memory, counted by the allocator (counts, not
//! times: they do not depend on how busy the machine is). Its own test
//! binary, one test, so that no other test's allocations are counted.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use crio_pin::{AutomatonShape, ErrorKind, Flags, PinSet, Tier, MAX_PATTERN_BYTES};

struct Counting;
static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to System, only counting.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        PEAK.fetch_max(LIVE.fetch_add(layout.size(), Relaxed) + layout.size(), Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Heap bytes at the peak of `f`, above what was live before it, and what
/// it left live.
fn counted<R>(f: impl FnOnce() -> R) -> (R, usize, usize) {
    let before = LIVE.load(Relaxed);
    PEAK.store(before, Relaxed);
    let r = f();
    (r, PEAK.load(Relaxed) - before, LIVE.load(Relaxed).saturating_sub(before))
}

#[test]
fn compile_memory_is_bounded_by_the_pattern_text() {
    // Over the limit: refused without a copy of the pattern.
    let big = vec![b'a'; MAX_PATTERN_BYTES + 1];
    let (err, peak, _) = counted(|| PinSet::compile([&big[..]], Flags::DEFAULT).unwrap_err());
    assert!(matches!(err.kind(), ErrorKind::TooLarge { .. }));
    assert!(peak < 4096, "refusing a {} byte pattern allocated {peak} bytes", big.len());
    drop(big);

    // Keywords and globs of random letters: a state per byte of text.
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut text = || -> String {
        (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                char::from(b'a' + (x % 26) as u8)
            })
            .collect()
    };
    let patterns: Vec<String> =
        (0..16).map(|i| if i % 2 == 0 { format!("*{}*", text()) } else { format!("{}*", text()) }).collect();
    let bytes: usize = patterns.iter().map(String::len).sum();
    // The dense table: 4 bytes a state and column (28 here: 26 letters,
    // the class of every other byte, bail's), and under 2 more a state (its
    // depth, the hits); the compile's peak adds the trie (14 bytes a state,
    // up to 12 of shallow rows), the canonical text and a few bytes a
    // pattern.
    let (set, peak, held) = counted(|| PinSet::compile(&patterns, Flags::DEFAULT).unwrap());
    assert_eq!(set.shape().map(|s| s.automaton), Some(AutomatonShape::ClassTable));
    assert!(held <= (4 * 28 + 2) * bytes, "held {held} bytes for {bytes} bytes of patterns");
    assert!(peak <= held + 32 * bytes, "peaked at {peak} bytes for {bytes} bytes of patterns");
    // And it answers.
    let name = format!("x/{}/y", patterns[10].trim_end_matches('*'));
    assert_eq!(set.match_index(name.as_bytes()), Some(10));

    // Past the dense tier (1.3 M states of 112 bytes: 147 MB), the sparse
    // automaton: 16 bytes a state, and up to 12 of shallow rows; compiling
    // adds the trie (14 bytes a state), the canonical text and a few bytes
    // a pattern. Validating holds the canonical needles, 20 bytes each and
    // a sorted list of them (the text in a growing buffer, which while it
    // grows holds its old capacity and twice that: up to 3 bytes a byte).
    let patterns: Vec<String> = (0..320).map(|_| format!("*{}*", text())).collect();
    let bytes: usize = patterns.iter().map(String::len).sum();
    let (tier, peak, _) = counted(|| PinSet::validate(&patterns, Flags::DEFAULT).unwrap());
    assert!(matches!(tier, Tier::Sparse { .. }), "{tier:?}");
    assert!(peak <= 3 * bytes, "validating {bytes} bytes of patterns peaked at {peak} bytes");
    let (set, peak, held) = counted(|| PinSet::compile(&patterns, Flags::DEFAULT).unwrap());
    assert_eq!(set.shape().map(|s| s.automaton), Some(AutomatonShape::Sparse));
    assert!(held <= 30 * bytes, "held {held} bytes for {bytes} bytes of patterns");
    assert!(peak <= held + 32 * bytes, "peaked at {peak} bytes for {bytes} bytes of patterns");
    let name = format!("x/{}/y", patterns[10].trim_matches('*'));
    assert_eq!(set.match_index(name.as_bytes()), Some(10));
}
