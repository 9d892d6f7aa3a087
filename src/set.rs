//! The compiled matcher: where a list of patterns becomes a [`PinSet`].
//!
//! Every pattern is reduced to a canonical needle ([`crate::fold`]) and put
//! in one of two structures, which together answer for all patterns in one
//! pass over the name:
//!
//! - exact patterns: a hash table from needle to the lowest pattern index
//!   ([`exact`]), which an ASCII name is looked up in as it is;
//! - glob and keyword needles: one Aho-Corasick automaton, a dense DFA of
//!   our own ([`dfa`]) whose byte classes (or, up to [`WIDE_MAX_BYTES`],
//!   byte columns) fold ASCII case, so an ASCII name is walked as it is,
//!   its two halves at once; past [`DENSE_MAX_BYTES`] of table, a sparse
//!   automaton ([`sparse`]) whose memory and build time are linear in the
//!   needle text, which bounds what any accepted list costs to compile
//!   (the shape a list gets: [`Budget`]). Keywords, and globs as CRI-O
//!   has them, match anywhere; anchored globs ([`Flags::ANCHOR_GLOBS`])
//!   only where the needle starts at 0.
//!
//! A name with a byte >= 0x80 (rare: image names are ASCII) is
//! canonicalised first ([`fold::with_canonical`]) and then looked up the
//! same way, with the canonical byte classes.
//!
//! The scan walks the automaton once; every state lists all needles ending
//! there, so the lowest index among everything found is known at the end of
//! the name (and a yes/no answer at the first hit). Duplicate needles
//! collapse into one entry that keeps the lowest index, so
//! [`PinSet::match_index`] equals the index of the first regexp in CRI-O's
//! loop that matches. The empty needle (`**`) matches every name and is kept
//! beside the automaton rather than in it.
//!
//! Nothing is cached or mutated while matching: a `PinSet` is immutable,
//! `Send + Sync`, and shared by reference (or `Arc`) across threads.

mod dfa;
mod exact;
mod sparse;

use crate::fold;
use crate::normalize::normalize;
use crate::pattern::{CompileError, ErrorKind, Flags, Pattern};
use dfa::{Canonical, Dfa};
use exact::ExactTable;
use sparse::Sparse;

/// Most patterns one set may hold. Real lists hold up to tens of thousands;
/// the bound keeps a runaway generator from exhausting the node's memory.
pub const MAX_PATTERNS: usize = 10_000_000;

/// Most bytes of pattern text one set may hold, all patterns together. A
/// compiled set needs a small multiple of this: about 14 bytes per byte of
/// keyword or glob text that shares no prefix with another (so under 1 GiB
/// at the bound), far less for real lists.
pub const MAX_PATTERN_BYTES: usize = 64 << 20;

/// What a name's length alone says about it ([`PinSet::length_verdicts`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum LengthVerdict {
    /// No name of this length is pinned, whatever its bytes.
    NoMatch = 0,
    /// No name of this length is pinned if all its bytes are ASCII (< 0x80);
    /// another may fold to a length that matches.
    NoMatchIfAscii = 1,
    /// A name of this length may be pinned: ask the set.
    MayMatch = 2,
}

/// A compiled, immutable set of pinned-image patterns.
///
/// ```
/// use crio_pin::{Flags, PinSet};
///
/// let set = PinSet::compile(["registry.k8s.io/pause:3.9", "quay.io/*", "*etcd*"], Flags::DEFAULT)?;
/// assert!(set.is_match(b"registry.k8s.io/PAUSE:3.9")); // case-insensitive, like CRI-O
/// assert_eq!(set.match_index(b"evil.example/quay.io/x"), Some(1)); // globs are not anchored
/// assert_eq!(set.match_index(b"docker.io/library/nginx"), None);
/// # Ok::<(), crio_pin::CompileError>(())
/// ```
#[derive(Debug)]
pub struct PinSet {
    flags: Flags,
    len: usize,
    exact: ExactTable,
    needles: Needles,
    lengths: Lengths,
    /// What the other runtimes' rules add ([`Flags::NORMALIZE`], bare
    /// repositories); `None` for CRI-O's, whose path it leaves untouched.
    dialect: Option<Box<Dialect>>,
}

/// The name-side work of the other runtimes' rules: normalising each name
/// first, and looking its repository up among the bare repositories.
#[derive(Debug)]
struct Dialect {
    normalize: bool,
    repositories: ExactTable,
}

/// A name's repository as cri-dockerd takes it: the name without its
/// digest (from the first `@`), then without a tag (a `:` after its last
/// `/`), so that a registry's port stays.
fn repository_of(name: &[u8]) -> &[u8] {
    let name = name.iter().position(|&b| b == b'@').map_or(name, |at| &name[..at]);
    let last = name.iter().rposition(|&b| b == b'/').map_or(0, |slash| slash + 1);
    name[last..].iter().rposition(|&b| b == b':').map_or(name, |colon| &name[..last + colon])
}

/// Which name lengths can match at all: the lengths of the exact needles,
/// and the shortest substring or prefix needle. An ASCII name's canonical
/// form has its length, so most ASCII names of the wrong length are turned
/// away before canonicalising (a list of exact names, such as CRI-O's
/// default of only the pause image, then costs almost nothing per name).
#[derive(Debug)]
struct Lengths {
    /// Bit n: an exact needle of n bytes (n < 256).
    exact_short: [u64; 4],
    /// Some exact needle has 256 bytes or more.
    exact_long: bool,
    /// The shortest substring or prefix needle, if any.
    shortest_needle: Option<usize>,
    /// The span of the exact needles' lengths (empty: MAX and 0).
    shortest_exact: usize,
    longest_exact: usize,
}

impl Default for Lengths {
    fn default() -> Lengths {
        Lengths {
            exact_short: [0; 4],
            exact_long: false,
            shortest_needle: None,
            shortest_exact: usize::MAX,
            longest_exact: 0,
        }
    }
}

impl Lengths {
    fn add_exact(&mut self, len: usize) {
        self.shortest_exact = self.shortest_exact.min(len);
        self.longest_exact = self.longest_exact.max(len);
        match self.exact_short.get_mut(len / 64) {
            Some(word) => *word |= 1 << (len % 64),
            None => self.exact_long = true,
        }
    }

    fn add_needle(&mut self, len: usize) {
        self.shortest_needle = Some(self.shortest_needle.map_or(len, |s| s.min(len)));
    }

    /// Lengths that rule nothing out: under the other runtimes' rules a
    /// name is normalised, or its repository looked up, so its own length
    /// says nothing.
    fn open() -> Lengths {
        Lengths {
            exact_short: [!0; 4],
            exact_long: true,
            shortest_needle: Some(0),
            shortest_exact: 0,
            longest_exact: usize::MAX,
        }
    }

    /// Whether a name whose canonical form has `len` bytes may match.
    fn may_match(&self, len: usize) -> bool {
        self.exact_may_match(len) || self.shortest_needle.is_some_and(|s| len >= s)
    }

    /// Whether `name` certainly matches nothing, known without
    /// canonicalising it. Its own length first; a name of another canonical
    /// length must hold a byte >= 0x80, and its canonical form has at least
    /// a third and at most three times its bytes (folding never lengthens a
    /// valid rune and shortens one at most from 3 bytes to 1, see
    /// `fold::tests`; a bad byte becomes U+FFFD, 3 bytes), so when no length
    /// in that range can match the name is not read at all: at CRI-O's
    /// default (the pause image alone) most names are turned away by their
    /// length alone.
    #[inline(always)]
    fn rules_out(&self, name: &[u8]) -> bool {
        let n = name.len();
        !self.may_match(n) && (!self.may_match_within(n.div_ceil(3), n.saturating_mul(3)) || all_ascii(name))
    }

    /// Whether a name whose canonical form has `min..=max` bytes may match
    /// (or may not: the exact lengths are taken as their whole span).
    #[inline(always)]
    fn may_match_within(&self, min: usize, max: usize) -> bool {
        self.shortest_needle.is_some_and(|s| s <= max) || (self.shortest_exact <= max && self.longest_exact >= min)
    }

    /// Whether an exact needle has `len` bytes (or may: 256 and more).
    fn exact_may_match(&self, len: usize) -> bool {
        match self.exact_short.get(len / 64) {
            Some(word) => word & (1 << (len % 64)) != 0,
            None => self.exact_long,
        }
    }
}

/// Whether every byte of `bytes` is ASCII: one pass, OR-ing 8 bytes at a
/// time (which the compiler turns into wider vector ORs), with no branch per
/// word: for the lengths of image names, several times fewer instructions
/// than `<[u8]>::is_ascii`, which exits at the first high byte.
#[inline(always)]
fn all_ascii(bytes: &[u8]) -> bool {
    let mut chunks = bytes.chunks_exact(8);
    let mut high = 0u64;
    for chunk in &mut chunks {
        high |= u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
    }
    for &b in chunks.remainder() {
        high |= u64::from(b);
    }
    high & 0x8080_8080_8080_8080 == 0
}

/// The largest dense DFA table built, in bytes (4 bytes per byte class per
/// trie node: about 160 bytes per byte of needle text that shares no
/// prefix, for the corpus' 40 classes); larger needle sets get the sparse
/// automaton (14 bytes per node, several times slower per byte).
pub(crate) const DENSE_MAX_BYTES: usize = 32 << 20;

/// The largest DFA table given a column per byte value (1 KiB a state),
/// which saves reading each byte's class: the corpus' 100 and 1,000
/// patterns (374 and 1,860 states) get one, 10,000 do not.
pub(crate) const WIDE_MAX_BYTES: usize = 2 << 20;

/// What picks a set's shape: the largest dense table, the largest table
/// given a column per byte, and whether a prefilter may be built.
#[derive(Debug, Clone, Copy)]
struct Budget {
    dense_max: usize,
    wide_max: usize,
    prefilter: bool,
}

impl Budget {
    const DEFAULT: Budget = Budget { dense_max: DENSE_MAX_BYTES, wide_max: WIDE_MAX_BYTES, prefilter: true };
}

/// The shapes a set's glob and keyword automaton can take. Which one a
/// list gets depends on its size; the tests force each in turn
/// ([`PinSet::compile_shaped`], feature `testing`, not a stable API) so
/// that every shape answers the whole test suite.
#[cfg(feature = "testing")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub automaton: AutomatonShape,
    /// The SIMD prefilter where the list allows one (up to 8 needles), or
    /// none.
    pub prefilter: bool,
}

/// See [`Shape`].
#[cfg(feature = "testing")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutomatonShape {
    /// The dense DFA with a column per byte value.
    WideTable,
    /// The dense DFA with byte classes.
    ClassTable,
    /// The sparse automaton (`set/sparse.rs`).
    Sparse,
}

#[cfg(feature = "testing")]
impl Shape {
    /// Every shape, each with and without the prefilter.
    pub const ALL: [Shape; 6] = {
        const fn shape(automaton: AutomatonShape, prefilter: bool) -> Shape {
            Shape { automaton, prefilter }
        }
        use AutomatonShape::*;
        [
            shape(WideTable, true),
            shape(WideTable, false),
            shape(ClassTable, true),
            shape(ClassTable, false),
            shape(Sparse, true),
            shape(Sparse, false),
        ]
    };
}

#[cfg(feature = "testing")]
impl PinSet {
    /// As [`PinSet::compile`], in `shape` whatever the list's size (a
    /// dense table still needs the needles to use at most 253 distinct
    /// bytes: [`PinSet::shape`] says what was built).
    pub fn compile_shaped<I>(patterns: I, flags: Flags, shape: Shape) -> Result<PinSet, CompileError>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        let (dense_max, wide_max) = match shape.automaton {
            AutomatonShape::WideTable => (usize::MAX, usize::MAX),
            AutomatonShape::ClassTable => (usize::MAX, 0),
            AutomatonShape::Sparse => (0, 0),
        };
        PinSet::compile_with(patterns, flags, Budget { dense_max, wide_max, prefilter: shape.prefilter })
    }

    /// The list compiled in each of [`Shape::ALL`], each beside its shape.
    /// Panics if a set is not of the shape asked for (the dense shapes can
    /// always be built: canonical needles use fewer byte values than a
    /// table has classes).
    pub fn compile_every_shape<I>(patterns: I, flags: Flags) -> Result<Vec<(Shape, PinSet)>, CompileError>
    where
        I: IntoIterator + Clone,
        I::Item: AsRef<[u8]>,
    {
        Shape::ALL
            .iter()
            .map(|&shape| {
                let set = PinSet::compile_shaped(patterns.clone(), flags, shape)?;
                if let Some(got) = set.shape() {
                    assert_eq!(got.automaton, shape.automaton, "forced {shape:?}");
                    assert!(shape.prefilter || !got.prefilter, "forced {shape:?}");
                }
                Ok((shape, set))
            })
            .collect()
    }

    /// The shape of the set's automaton; `None` when it has none (no glob
    /// or keyword needle).
    pub fn shape(&self) -> Option<Shape> {
        let automaton = match self.needles.automaton.as_ref()? {
            Automaton::Dense(dfa) if dfa.is_wide() => AutomatonShape::WideTable,
            Automaton::Dense(_) => AutomatonShape::ClassTable,
            Automaton::Sparse(_) => AutomatonShape::Sparse,
        };
        Some(Shape { automaton, prefilter: self.needles.prefilter.is_some() })
    }
}

/// All glob and keyword needles, searched together in one pass.
#[derive(Debug, Default)]
struct Needles {
    /// The lowest index of a pattern whose needle is empty: it matches
    /// every name (`**`).
    empty: Option<u32>,
    automaton: Option<Automaton>,
    /// For a few needles: a SIMD search for a short piece of each (in every
    /// ASCII case), which rules most names out faster than a walk.
    prefilter: Option<Prefilter>,
    /// The lowest index of all: a search can stop once it finds it.
    floor: u32,
}

/// What a search of the needles found in a name.
#[derive(Debug, Clone, Copy)]
struct Found {
    /// The lowest index found (with `first`, any one), or none.
    lowest: Option<u32>,
    /// Whether every byte of the name was read: a raw name read to its end
    /// is all ASCII, so its canonical form has its length.
    read_all: bool,
}

/// No pattern index. The lowest index wins everywhere, so indexes combine
/// with `min` and "none" is the largest value: it never wins. ([`lower`]
/// is the same rule for `Option`s.)
const NONE: u32 = u32::MAX;

/// The patterns behind one distinct needle.
#[derive(Debug, Clone, Copy)]
struct Owner {
    /// Lowest index of a pattern matching the needle anywhere (a keyword,
    /// or a glob as CRI-O has it), or [`NONE`].
    anywhere: u32,
    /// Lowest index of a pattern matching it only at the start (an anchored
    /// glob), or [`NONE`].
    at_start: u32,
}

/// Canonical needles back to back in one buffer, each with the pattern it
/// came from: a list of millions of patterns allocates nothing per pattern.
#[derive(Debug, Default)]
struct NeedleList {
    text: Vec<u8>,
    entries: Vec<Needle>,
}

/// One pattern's needle in a [`NeedleList`].
#[derive(Debug, Clone, Copy)]
struct Needle {
    /// Its first 8 bytes, big-endian, zero-padded: needles sort by it
    /// first, which spares most comparisons a read of the text.
    head: u64,
    offset: u32,
    len: u32,
    index: u32,
    /// An anchored glob ([`Flags::ANCHOR_GLOBS`]).
    anchored: bool,
}

impl NeedleList {
    /// Adds the canonical form of `text`; returns its length.
    fn push(&mut self, text: &[u8], fold: bool, index: u32, anchored: bool) -> usize {
        let offset = self.text.len();
        fold::canonicalize_into(text, fold, &mut self.text);
        self.add(offset, index, anchored)
    }

    /// Adds `needle`, already canonical.
    #[cfg(test)]
    fn push_canonical(&mut self, needle: &[u8], index: u32, anchored: bool) {
        let offset = self.text.len();
        self.text.extend_from_slice(needle);
        self.add(offset, index, anchored);
    }

    fn add(&mut self, offset: usize, index: u32, anchored: bool) -> usize {
        // Canonical text is never longer than the pattern's (folding keeps
        // or shortens a valid UTF-8 encoding), so MAX_PATTERN_BYTES bounds it.
        let as_u32 = |n: usize| u32::try_from(n).expect("MAX_PATTERN_BYTES fits in u32");
        let len = self.text.len() - offset;
        let mut head = [0u8; 8];
        let first = &self.text[offset..][..len.min(8)];
        head[..first.len()].copy_from_slice(first);
        let head = u64::from_be_bytes(head);
        self.entries.push(Needle { head, offset: as_u32(offset), len: as_u32(len), index, anchored });
        len
    }

    fn bytes(&self, needle: &Needle) -> &[u8] {
        &self.text[needle.offset as usize..][..needle.len as usize]
    }
}

/// The automaton of all needles (overlapping, unanchored semantics: every
/// state knows the lowest index of the needles ending there).
#[derive(Debug)]
// (One per set: boxing the DFA would put an indirection on every walk.)
#[allow(clippy::large_enum_variant)]
enum Automaton {
    Dense(Dfa),
    Sparse(Sparse),
}

impl Needles {
    /// The glob and keyword needles of `list`.
    fn build(mut list: NeedleList, fold: bool, budget: Budget) -> Needles {
        // Sorted, equal needles are neighbours, lowest index first.
        let mut entries = std::mem::take(&mut list.entries);
        entries.sort_unstable_by(|a, b| {
            a.head.cmp(&b.head).then_with(|| list.bytes(a).cmp(list.bytes(b))).then(a.index.cmp(&b.index))
        });
        let mut ordered: Vec<&[u8]> = Vec::new();
        let mut owners: Vec<Owner> = Vec::new();
        let mut empty = None;
        for needle in &entries {
            let bytes = list.bytes(needle);
            if bytes.is_empty() {
                // Only keywords can be empty (a lone `*` is an error).
                empty = empty.or(Some(needle.index));
                continue;
            }
            if ordered.last() != Some(&bytes) {
                ordered.push(bytes);
                owners.push(Owner { anywhere: NONE, at_start: NONE });
            }
            let owner = owners.last_mut().expect("pushed above");
            let slot = if needle.anchored { &mut owner.at_start } else { &mut owner.anywhere };
            *slot = (*slot).min(needle.index);
        }
        drop(entries);
        let floor = owners.iter().map(|o| o.anywhere.min(o.at_start)).fold(empty.unwrap_or(NONE), u32::min);
        let automaton = (!ordered.is_empty()).then(|| Automaton::build(&ordered, &owners, fold, budget));
        let prefilter = if budget.prefilter { Prefilter::build(&ordered, fold) } else { None };
        Needles { empty, automaton, prefilter, floor }
    }

    /// Searches `name` for the needles: the lowest index among those found
    /// and `below`; with `first`, any one index found (a yes/no answer).
    /// `raw`: `name` is as given (fails if it must be canonicalised first),
    /// else canonical.
    #[inline(always)]
    fn search(&self, name: &[u8], raw: bool, first: bool, below: Option<u32>) -> Result<Found, Canonical> {
        let best = lower(below, self.empty);
        if best.is_some_and(|b| first || b <= self.floor) {
            return Ok(Found { lowest: best, read_all: false });
        }
        let Some(automaton) = &self.automaton else { return Ok(Found { lowest: best, read_all: false }) };
        if raw && self.prefilter.as_ref().is_some_and(|p| !p.may_occur(name)) {
            // No needle in the name as it is; in its canonical form neither,
            // if it is all ASCII.
            return if name.is_ascii() { Ok(Found { lowest: best, read_all: true }) } else { Err(Canonical) };
        }
        match automaton {
            Automaton::Dense(dfa) => {
                let mut best = best.unwrap_or(u32::MAX);
                let found = |hit: &dfa::Hit, at: usize| {
                    best = best.min(hit.index(at + 1));
                    best <= self.floor || (first && best != u32::MAX)
                };
                let read_all = if raw { dfa.walk_split(name, found) } else { dfa.walk(name, false, found) }?;
                Ok(Found { lowest: Some(best).filter(|&b| b != u32::MAX), read_all })
            }
            Automaton::Sparse(sparse) => {
                let found = sparse.search(name, raw, first, self.floor)?;
                Ok(Found { lowest: lower(best, found.lowest), ..found })
            }
        }
    }

    fn memory_usage(&self) -> usize {
        let automaton = match &self.automaton {
            Some(Automaton::Dense(a)) => a.memory_usage(),
            Some(Automaton::Sparse(a)) => a.memory_usage(),
            None => 0,
        };
        automaton + self.prefilter.as_ref().map_or(0, Prefilter::memory_usage)
    }
}

impl Automaton {
    /// The dense DFA if its table fits in the budget, else the sparse
    /// automaton (linear in the needle text). `needles`: distinct, sorted.
    fn build(needles: &[&[u8]], owners: &[Owner], fold: bool, budget: Budget) -> Automaton {
        match Dfa::build(needles, owners, fold, budget.dense_max, budget.wide_max) {
            Some(dfa) => Automaton::Dense(dfa),
            None => Automaton::Sparse(Sparse::build(needles, owners, fold)),
        }
    }
}

/// Most needles given a prefilter ([`Prefilter`]): each takes up to 8 of
/// Teddy's 64 patterns (a 3-byte piece in every ASCII case; 4 bytes, 16
/// patterns, for up to 4 needles).
const PREFILTER_MAX_NEEDLES: usize = 8;

/// Longest needle given a prefilter.
const PREFILTER_MAX_NEEDLE_BYTES: usize = 4096;

/// A packed (Teddy) searcher for the last 3 or 4 bytes of each needle, in
/// every ASCII case, and the needles to verify its candidates with: a name
/// in which no candidate is a whole needle (compared ASCII case-insensitively)
/// contains no needle, if it is all ASCII (its canonical form then differs
/// only in case). The end of a needle is its most telling part: registries
/// and organisations are shared by many names, a repository and tag by few.
/// (Longer pieces, with their many case variants, made Teddy slower than the
/// walk it saves.)
#[derive(Debug)]
struct Prefilter {
    searcher: aho_corasick::packed::Searcher,
    /// The canonical needles.
    needles: Vec<Vec<u8>>,
    /// The pieces' length (shorter needles are their own piece).
    width: usize,
    fold: bool,
}

impl Prefilter {
    /// `None` for more than [`PREFILTER_MAX_NEEDLES`] needles, or where
    /// Teddy is not available (no SIMD).
    fn build(needles: &[&[u8]], fold: bool) -> Option<Prefilter> {
        // (It keeps a copy of its needles: long ones would cost memory
        // and gain nothing, as no image name holds them.)
        if needles.len() > PREFILTER_MAX_NEEDLES || needles.iter().any(|n| n.len() > PREFILTER_MAX_NEEDLE_BYTES) {
            return None;
        }
        let width = if needles.len() <= 4 { 4 } else { 3 };
        let mut builder = aho_corasick::packed::Config::new().builder();
        for needle in needles {
            let piece = &needle[needle.len().saturating_sub(width)..];
            let letters: Vec<usize> = (0..piece.len()).filter(|&i| fold && piece[i].is_ascii_alphabetic()).collect();
            for mask in 0..1u32 << letters.len() {
                let mut variant = piece.to_vec();
                for (bit, &i) in letters.iter().enumerate() {
                    if mask & (1 << bit) != 0 {
                        variant[i] = variant[i].to_ascii_lowercase();
                    }
                }
                builder.add(variant);
            }
        }
        let searcher = builder.build()?;
        Some(Prefilter { searcher, needles: needles.iter().map(|n| n.to_vec()).collect(), width, fold })
    }

    /// Whether some needle occurs in `name` as it is (ASCII case folded);
    /// false says nothing about a name that is not all ASCII.
    fn may_occur(&self, name: &[u8]) -> bool {
        let mut from = 0;
        while let Some(m) = self.searcher.find_in(name, aho_corasick::Span::from(from..name.len())) {
            // Teddy reports one piece per start; pieces of several needles
            // may start here (equal, or one a prefix of another): try all.
            let at = m.start();
            if self.needles.iter().any(|needle| self.ends_at(name, needle, at)) {
                return true;
            }
            from = at + 1;
        }
        false
    }

    /// Whether `needle`'s piece starts at `at` in `name` and the whole
    /// needle ends with it.
    fn ends_at(&self, name: &[u8], needle: &[u8], at: usize) -> bool {
        let piece = needle.len().min(self.width);
        let end = at + piece;
        let Some(start) = end.checked_sub(needle.len()) else { return false };
        let Some(text) = name.get(start..end) else { return false };
        if self.fold {
            text.iter().zip(needle).all(|(&t, &n)| t.to_ascii_uppercase() == n)
        } else {
            text == needle
        }
    }

    fn memory_usage(&self) -> usize {
        self.searcher.memory_usage() + self.needles.iter().map(Vec::capacity).sum::<usize>()
    }
}

/// The lower of two optional indexes.
fn lower(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Parses every pattern of the list as [`PinSet::compile`] does, in order,
/// handing each to `each` with its index; fails at the first bad one, and
/// at the first over the limits before reading it (so an oversized list
/// costs nothing to refuse). Returns the number of patterns.
fn each_pattern<I>(patterns: I, flags: Flags, mut each: impl FnMut(u32, Pattern<'_>)) -> Result<usize, CompileError>
where
    I: IntoIterator,
    I::Item: AsRef<[u8]>,
{
    flags.check()?;
    let mut len = 0;
    let mut total_bytes = 0usize;
    let mut normalized_text = Vec::new();
    for (i, raw) in patterns.into_iter().enumerate() {
        let raw = raw.as_ref();
        if i >= MAX_PATTERNS {
            return Err(too_many_patterns(i));
        }
        total_bytes = total_bytes.saturating_add(raw.len());
        if total_bytes > MAX_PATTERN_BYTES {
            return Err(too_many_bytes(i));
        }
        let index = u32::try_from(i).expect("MAX_PATTERNS fits in u32");
        let text = std::str::from_utf8(raw)
            .map_err(|e| CompileError::at(i, raw, ErrorKind::NotUtf8 { valid_up_to: e.valid_up_to() }))?;
        let pattern = Pattern::parse(text, flags).map_err(|kind| CompileError::at(i, raw, kind))?;
        match pattern {
            Pattern::Exact(text) | Pattern::Repository(text) if flags.contains(Flags::NORMALIZE) => {
                let normalized = normalize(text.as_bytes())
                    .map_err(|why| CompileError::at(i, raw, ErrorKind::InvalidReference { why }))?;
                normalized_text.clear();
                normalized.write_to(&mut normalized_text);
                // (ASCII: the grammar admits nothing else.)
                let text = std::str::from_utf8(&normalized_text).expect("a reference is ASCII");
                each(
                    index,
                    match pattern {
                        // A bare repository gained `:latest`, which its
                        // repository does not have.
                        Pattern::Repository(_) => Pattern::Repository(&text[..text.len() - ":latest".len()]),
                        _ => Pattern::Exact(text),
                    },
                );
            }
            _ => each(index, pattern),
        }
        len = i + 1;
    }
    Ok(len)
}

/// Pattern `index` is one more than [`MAX_PATTERNS`] allows.
pub(crate) fn too_many_patterns(index: usize) -> CompileError {
    CompileError::new(Some(index), ErrorKind::TooLarge { what: "the number of patterns", limit: MAX_PATTERNS })
}

/// Pattern `index` takes the list past [`MAX_PATTERN_BYTES`]. (The error
/// does not quote it: through the C ABI, a length over the limit may lie,
/// and is never read through.)
pub(crate) fn too_many_bytes(index: usize) -> CompileError {
    CompileError::new(
        Some(index),
        ErrorKind::TooLarge { what: "the total size of all patterns in bytes", limit: MAX_PATTERN_BYTES },
    )
}

impl PinSet {
    /// Checks `patterns` as [`PinSet::compile`] does, building nothing:
    /// `Err` with exactly the error `compile` would give, `Ok` when it would
    /// succeed. For validating a configuration before it is used; one pass
    /// over the patterns, no allocation but the error.
    ///
    /// ```
    /// use crio_pin::{Flags, PinSet};
    /// let err = PinSet::validate(["quay.io/*", "*"], Flags::DEFAULT).unwrap_err();
    /// assert_eq!(err.pattern_index(), Some(1));
    /// assert!(PinSet::validate(["quay.io/*", "**"], Flags::DEFAULT).is_ok());
    /// ```
    pub fn validate<I>(patterns: I, flags: Flags) -> Result<(), CompileError>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        each_pattern(patterns, flags, |_, _| ()).map(drop)
    }

    /// Compiles `patterns` (each any bytes; it must be UTF-8 text) under
    /// `flags`. Fails with the index of the first bad pattern.
    pub fn compile<I>(patterns: I, flags: Flags) -> Result<PinSet, CompileError>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        PinSet::compile_with(patterns, flags, Budget::DEFAULT)
    }

    /// As [`PinSet::compile`], within `budget`.
    fn compile_with<I>(patterns: I, flags: Flags, budget: Budget) -> Result<PinSet, CompileError>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        let fold = !flags.contains(Flags::CASE_SENSITIVE);
        let mut exact = NeedleList::default();
        let mut needles = NeedleList::default();
        let mut repositories = NeedleList::default();
        let mut lengths = Lengths::default();
        let len = each_pattern(patterns, flags, |index, pattern| {
            let text = pattern.text().as_bytes();
            match pattern {
                Pattern::Exact(_) => lengths.add_exact(exact.push(text, fold, index, false)),
                Pattern::Glob(_) | Pattern::Keyword(_) => {
                    let anchored = matches!(pattern, Pattern::Glob(_)) && flags.contains(Flags::ANCHOR_GLOBS);
                    lengths.add_needle(needles.push(text, fold, index, anchored));
                }
                Pattern::Repository(_) => {
                    repositories.push(text, fold, index, false);
                }
                Pattern::Blank => {}
            }
        })?;
        let dialect = (flags.contains(Flags::NORMALIZE) || !repositories.entries.is_empty()).then(|| {
            Box::new(Dialect {
                normalize: flags.contains(Flags::NORMALIZE),
                repositories: ExactTable::build(repositories, fold),
            })
        });
        let lengths = if dialect.is_some() { Lengths::open() } else { lengths };
        Ok(PinSet {
            flags,
            len,
            exact: ExactTable::build(exact, fold),
            needles: Needles::build(needles, fold, budget),
            lengths,
            dialect,
        })
    }

    /// Whether any pattern matches `name`: the image is pinned.
    pub fn is_match(&self, name: &[u8]) -> bool {
        self.lowest_pinning(name, true).is_some()
    }

    /// The lowest index of a pattern that matches `name`: the first regexp
    /// in CRI-O's loop that would match it.
    pub fn match_index(&self, name: &[u8]) -> Option<usize> {
        self.lowest_pinning(name, false).map(|i| i as usize)
    }

    /// The lowest index pinning `name` (any index, with `first`): turns
    /// away names of lengths nothing matches, then applies the set's rules.
    #[inline(always)]
    fn lowest_pinning(&self, name: &[u8], first: bool) -> Option<u32> {
        // (Under a dialect the lengths are open: its names pass.)
        if self.lengths.rules_out(name) {
            return None;
        }
        match &self.dialect {
            None => self.lowest_canonicalising(name, first),
            Some(dialect) => self.lowest_normalized_or_by_repository(dialect, name, first),
        }
    }

    /// [`PinSet::lowest_canonicalising`] under the other runtimes' rules,
    /// which add normalising the name first (when it is a reference) and
    /// then looking its repository up among the bare repositories.
    #[cold]
    fn lowest_normalized_or_by_repository(&self, dialect: &Dialect, name: &[u8], first: bool) -> Option<u32> {
        let mut buffer = [0u8; 512];
        let mut spilled = Vec::new();
        let name = match dialect.normalize.then(|| normalize(name).ok()).flatten() {
            Some(normalized) if normalized.len() <= buffer.len() => {
                let mut at = 0;
                for part in normalized.parts() {
                    buffer[at..at + part.len()].copy_from_slice(part);
                    at += part.len();
                }
                &buffer[..at]
            }
            Some(normalized) => {
                normalized.write_to(&mut spilled);
                &spilled[..]
            }
            None => name,
        };
        let found = self.lowest_canonicalising(name, first);
        if (first && found.is_some()) || dialect.repositories.is_empty() {
            return found;
        }
        let repository = repository_of(name);
        lower(found, self.with_canonical(repository, |r| dialect.repositories.get(r)))
    }

    /// The lowest index among the exact patterns and the needles pinning
    /// `name`: [`PinSet::lowest_as_given`], which adds canonicalising the
    /// name first when it must be (a byte >= 0x80).
    #[inline(always)]
    fn lowest_canonicalising(&self, name: &[u8], first: bool) -> Option<u32> {
        self.lowest_as_given(name, first).unwrap_or_else(|Canonical| {
            self.with_canonical(name, |name| {
                let exact = self.exact.get(name);
                self.needles.search(name, false, first, exact).expect("a canonical name is walked as it is").lowest
            })
        })
    }

    /// The lowest index among the exact patterns and the needles pinning
    /// `name` read as it is, without canonicalising it: fails if that is
    /// needed (a byte >= 0x80).
    #[inline(always)]
    fn lowest_as_given(&self, name: &[u8], first: bool) -> Result<Option<u32>, Canonical> {
        // Needles first: a walk to the end proves the name all ASCII. (A
        // needle found in an ASCII prefix is found at the same place in the
        // canonical name, whatever follows.)
        let Found { lowest: found, read_all } = self.needles.search(name, true, first, None)?;
        if (first && found.is_some())
            || self.exact.is_empty()
            // An ASCII name's canonical form has its length.
            || (!self.lengths.exact_may_match(name.len()) && (read_all || name.is_ascii()))
        {
            return Ok(found);
        }
        Ok(lower(found, self.exact.get_raw(name, read_all)?))
    }

    /// Whether any of `names` (all the names of one image) is pinned.
    pub fn match_any<I>(&self, names: I) -> bool
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        names.into_iter().any(|name| self.is_match(name.as_ref()))
    }

    /// [`PinSet::is_match`] of each of `names`, written to `results` (1:
    /// pinned, 0: not; as many as there are names and room for), returning
    /// how many are pinned: the shape of `crio_pin_match_each`. Several
    /// names are walked at once, which hides most of the memory latency of
    /// a walk; the answers are those of `is_match`, name by name.
    pub fn match_each<'n, I>(&self, names: I, results: &mut [u8]) -> usize
    where
        I: IntoIterator<Item = &'n [u8]>,
    {
        const LANES: usize = 4;
        if self.dialect.is_some() {
            return self.match_each_one_by_one(names, results);
        }
        let Some(Automaton::Dense(dfa)) = &self.needles.automaton else {
            return self.match_each_one_by_one(names, results);
        };
        if self.needles.empty.is_some() || self.needles.prefilter.is_some() {
            // (A prefilter makes most walks unnecessary: nothing to overlap.)
            return self.match_each_one_by_one(names, results);
        }
        let mut pinned = 0;
        let mut batch: [(&[u8], usize); LANES] = [(&[], 0); LANES];
        let mut filled = 0;
        for (i, name) in names.into_iter().take(results.len()).enumerate() {
            if !self.lengths.may_match(name.len()) {
                // Turned away at once (or not ASCII): nothing to overlap.
                results[i] = u8::from(self.is_match(name));
                pinned += usize::from(results[i]);
                continue;
            }
            batch[filled] = (name, i);
            filled += 1;
            if filled == LANES {
                filled = 0;
                let plain = dfa.walk_plain(batch.map(|(name, _)| name));
                for (&(name, i), plain) in batch.iter().zip(plain) {
                    let yes = if plain { self.exact_pins_ascii(name) } else { self.is_match(name) };
                    results[i] = u8::from(yes);
                    pinned += usize::from(yes);
                }
            }
        }
        for &(name, i) in &batch[..filled] {
            results[i] = u8::from(self.is_match(name));
            pinned += usize::from(results[i]);
        }
        pinned
    }

    /// Whether the exact table pins an ASCII `name` (`walk_plain` proved it).
    fn exact_pins_ascii(&self, name: &[u8]) -> bool {
        !self.exact.is_empty()
            && self.lengths.exact_may_match(name.len())
            && self.exact.get_raw(name, true).is_ok_and(|i| i.is_some())
    }

    fn match_each_one_by_one<'n>(&self, names: impl IntoIterator<Item = &'n [u8]>, results: &mut [u8]) -> usize {
        let mut pinned = 0;
        for (name, result) in names.into_iter().zip(results) {
            *result = u8::from(self.is_match(name));
            pinned += usize::from(*result);
        }
        pinned
    }

    /// What the length of a name alone says, for each length `n` below
    /// `out.len()`: [`LengthVerdict`] as a byte. A caller that crosses into
    /// the library at a cost (cgo) keeps this table and calls only for
    /// names it cannot settle; the rule stays here.
    pub fn length_verdicts(&self, out: &mut [u8]) {
        for (n, verdict) in out.iter_mut().enumerate() {
            // (Under a dialect the lengths are open: every entry is "ask".)
            *verdict = if self.lengths.may_match(n) {
                LengthVerdict::MayMatch
            } else if self.lengths.may_match_within(n.div_ceil(3), n.saturating_mul(3)) {
                LengthVerdict::NoMatchIfAscii
            } else {
                LengthVerdict::NoMatch
            } as u8;
        }
    }

    /// How many patterns were compiled (duplicates included).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the set was compiled from no patterns.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The flags the set was compiled with.
    pub fn flags(&self) -> Flags {
        self.flags
    }

    /// Heap bytes held by the compiled set (an estimate: hash-map slots are
    /// counted, allocator overhead is not).
    pub fn memory_usage(&self) -> usize {
        self.exact.memory_usage()
            + self.needles.memory_usage()
            + self.dialect.as_ref().map_or(0, |d| size_of::<Dialect>() + d.repositories.memory_usage())
    }

    fn folds(&self) -> bool {
        !self.flags.contains(Flags::CASE_SENSITIVE)
    }

    /// Calls `f` with `name` as the set compares it: canonical under
    /// CRI-O's regexps (Go reads each bad byte as U+FFFD), as it is where
    /// the runtime compares bytes (containerd's `==`, cri-dockerd's
    /// `strings.HasPrefix` and `==`: [`Flags::LITERAL`] or
    /// [`Flags::CRI_DOCKERD_SYNTAX`] without case folding), so that pattern
    /// `a\u{FFFD}` does not pin name `a\xff` there.
    fn with_canonical<R>(&self, name: &[u8], f: impl FnOnce(&[u8]) -> R) -> R {
        let compares_bytes = self.flags.contains(Flags::CASE_SENSITIVE)
            && (self.flags.contains(Flags::LITERAL) || self.flags.contains(Flags::CRI_DOCKERD_SYNTAX));
        if compares_bytes {
            f(name)
        } else {
            fold::with_canonical(name, self.folds(), f)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(patterns: &[&str], flags: Flags) -> PinSet {
        PinSet::compile(patterns, flags).unwrap()
    }

    #[test]
    fn pinset_is_shareable_across_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<PinSet>();
    }

    #[test]
    fn duplicates_keep_the_lowest_index() {
        let s = set(&["*Pause*", "a", "*pause*", "A", "x*", "X*"], Flags::DEFAULT);
        assert_eq!(s.match_index(b"pause"), Some(0));
        assert_eq!(s.match_index(b"a"), Some(1));
        assert_eq!(s.match_index(b"xy"), Some(4));
        assert_eq!(s.len(), 6);
    }

    #[test]
    fn lowest_index_wins_across_kinds() {
        let s = set(&["*io*", "quay.io/x", "quay*"], Flags::DEFAULT);
        assert_eq!(s.match_index(b"quay.io/x"), Some(0));
        let s = set(&["quay.io/x", "*io*", "quay*"], Flags::DEFAULT);
        assert_eq!(s.match_index(b"quay.io/x"), Some(0));
        let s = set(&["other", "quay*", "*io*"], Flags::ANCHOR_GLOBS);
        assert_eq!(s.match_index(b"quay.io/x"), Some(1));
        assert_eq!(s.match_index(b"x.quay.io/x"), Some(2));
    }

    #[test]
    fn anchored_globs_report_the_lowest_index_of_all_prefixes() {
        let s = set(&["quay.io/a/b*", "zzz", "quay.io/*", "quay.io/a/*", "q*"], Flags::ANCHOR_GLOBS);
        assert_eq!(s.match_index(b"quay.io/a/b/c"), Some(0));
        assert_eq!(s.match_index(b"quay.io/a/x"), Some(2));
        assert_eq!(s.match_index(b"quay.io/x"), Some(2));
        assert_eq!(s.match_index(b"qx"), Some(4));
        assert_eq!(s.match_index(b"x/quay.io/a/b"), None);
    }

    #[test]
    fn names_of_impossible_lengths_are_turned_away_early() {
        let long = "x".repeat(300);
        let s = set(&["pause:3.9", long.as_str()], Flags::DEFAULT);
        assert!(s.lengths.rules_out(b"pause:3.10"));
        assert!(!s.lengths.rules_out(b"PAUSE:3.9"));
        assert!(!s.lengths.rules_out("x".repeat(301).as_bytes()), "long lengths are not tracked");
        // Non-ASCII names may fold to another length: never turned away.
        assert!(!s.lengths.rules_out("pause:3.\u{212A}".as_bytes()));
        assert_eq!(s.match_index(b"PAUSE:3.9"), Some(0));
        let k = set(&["k"], Flags::DEFAULT);
        assert_eq!(k.match_index("\u{212A}".as_bytes()), Some(0), "3 bytes folding to 1");
        // A needle found early must not skip the exact lookup of a name
        // whose canonical form has another length.
        let s = set(&["XK", "*x*"], Flags::DEFAULT);
        assert_eq!(s.match_index("x\u{212A}".as_bytes()), Some(0));
        let g = set(&["abc*", "x"], Flags::DEFAULT);
        assert!(g.lengths.rules_out(b"ab"));
        assert!(!g.lengths.rules_out(b"a"), "an exact length");
        assert!(!g.lengths.rules_out(b"abcd"));
        assert!(!set(&["**"], Flags::DEFAULT).lengths.rules_out(b""));
        // The extremes of a canonical length: 3 bytes folding to 1, and a
        // bad byte reading as U+FFFD (3 bytes); one byte past either is
        // turned away unread.
        let k9 = set(&["kkkkkkkkk"], Flags::DEFAULT);
        assert_eq!(k9.match_index("\u{212A}".repeat(9).as_bytes()), Some(0));
        assert!(k9.lengths.rules_out(&[0xe2; 28]), "28 bytes fold to 10 at the least");
        let fffd = set(&["\u{FFFD}\u{FFFD}\u{FFFD}"], Flags::DEFAULT);
        assert_eq!(fffd.match_index(b"\xff\xff\xff"), Some(0));
        assert!(fffd.lengths.rules_out(b"\xff\xff"), "2 bytes read as 6 at the most");
        let pause = set(&["registry.k8s.io/pause:3.9"], Flags::DEFAULT);
        assert!(pause.lengths.rules_out(&[0xff; 76]), "76 bytes cannot fold to 25");
    }

    /// The length verdicts agree with the matcher: a name they settle is
    /// never pinned.
    #[test]
    fn length_verdicts_never_rule_out_a_pinned_name() {
        for patterns in [&["registry.k8s.io/pause:3.9"][..], &["kkk", "x*"], &["\u{FFFD}"], &[], &["**"]] {
            let s = set(patterns, Flags::DEFAULT);
            let mut verdicts = [9u8; 64];
            s.length_verdicts(&mut verdicts);
            for name in [&b"registry.k8s.io/pause:3.9"[..], b"REGISTRY.K8S.IO/PAUSE:3.9", b"kkk", b"\xff", b"", b"xyz"]
                .into_iter()
                .chain(["\u{212A}\u{212A}\u{212A}".as_bytes(), "\u{FFFD}".as_bytes()])
            {
                let settled = match verdicts[name.len()] {
                    0 => true,
                    1 => name.is_ascii(),
                    2 => false,
                    v => panic!("verdict {v}"),
                };
                assert!(!(settled && s.is_match(name)), "{patterns:?} {name:x?}");
            }
        }
        let pause = set(&["registry.k8s.io/pause:3.9"], Flags::DEFAULT);
        let mut verdicts = [9u8; 80];
        pause.length_verdicts(&mut verdicts);
        assert_eq!(verdicts[25], LengthVerdict::MayMatch as u8);
        assert_eq!(verdicts[24], LengthVerdict::NoMatchIfAscii as u8);
        assert_eq!(verdicts[76], LengthVerdict::NoMatch as u8);
        assert_eq!(verdicts[8], LengthVerdict::NoMatch as u8, "3 x 8 < 25");
    }

    /// Needles whose prefilter pieces are equal, or one a prefix of the
    /// other, are each verified where a piece is found.
    #[test]
    fn prefilter_candidates_are_checked_against_every_needle() {
        let s = set(&["*axyz*", "*bxyz*", "*xy*", "*qq*"], Flags::DEFAULT);
        if s.needles.prefilter.is_none() {
            eprintln!("no Teddy on this machine: only the walk is checked");
        }
        assert_eq!(s.match_index(b"..BXYZ.."), Some(1));
        assert_eq!(s.match_index(b"..bxy"), Some(2));
        assert_eq!(s.match_index(b"xz"), None);
        assert!(s.is_match(b"-Qq-"));
        assert_eq!(s.match_index(b"cxyz"), Some(2));
        // A candidate that is no needle leaves the name unpinned.
        assert_eq!(set(&["*axyz*", "*qq*"], Flags::DEFAULT).match_index(b"cxyz"), None);
    }

    /// Every shape answers alike, with every flag, on names that take each
    /// path: raw and canonical, prefiltered and walked, anchored and not.
    #[test]
    fn every_shape_agrees() {
        let patterns = [
            "quay.io/*",
            "*pause*",
            "PAUSE:3.9",
            "*\u{212A}ube*",
            "k8s.io/*",
            "*a*",
            "x\u{FFFD}*",
            "**x*",
            "*-zq1*",
            "*-zq2*",
            "*long-tail.example/v1.2.3*",
        ];
        let names: [&[u8]; 14] = [
            b"quay.io/a",
            b"registry.k8s.io/pause:3.9",
            b"pause:3.9",
            "\u{212A}UBE".as_bytes(),
            b"kube",
            b"x\xff",
            b"zzz",
            b"a\xffquay.io/",
            b"**xy",
            b"some.registry.example/org/app-zq2:v1",
            "some.registry.example/\u{e9}/long-tail.example/v1.2.3".as_bytes(),
            b"some.registry.example/org/long-tail.example/V1.2.3",
            b"some.registry.example/org/long-tail.example/v1.2.4-zq",
            "some.registry.example/org/long-tail.example/v1.2.4-\u{212A}UBE".as_bytes(),
        ];
        // All the needles, then few enough for the prefilter.
        for patterns in [&patterns[..], &patterns[..4], &patterns[7..]] {
            for flags in [Flags::DEFAULT, Flags::ANCHOR_GLOBS, Flags::CASE_SENSITIVE] {
                let sets = PinSet::compile_every_shape(patterns, flags).unwrap();
                let (_, first) = &sets[0];
                for (shape, set) in &sets {
                    for name in names {
                        let want = first.match_index(name);
                        assert_eq!(set.match_index(name), want, "{shape:?} {flags:?} {name:x?}");
                        assert_eq!(set.is_match(name), want.is_some(), "{shape:?} {flags:?} {name:x?}");
                        let mut results = [9u8; 5];
                        set.match_each([name; 5], &mut results);
                        assert_eq!(results, [u8::from(want.is_some()); 5], "{shape:?} {flags:?} {name:x?}");
                    }
                }
                assert!(sets.iter().any(|(_, s)| s.shape().is_some_and(|s| s.prefilter)) == (patterns.len() <= 4));
            }
        }
    }

    #[test]
    fn empty_needle_pins_everything_including_the_empty_name() {
        let s = set(&["a", "**"], Flags::DEFAULT);
        assert_eq!(s.match_index(b""), Some(1));
        assert_eq!(s.match_index(b"\xff"), Some(1));
        assert_eq!(s.match_index(b"a"), Some(0));
    }

    #[test]
    fn empty_set_matches_nothing() {
        let s = set(&[], Flags::DEFAULT);
        assert!(s.is_empty());
        assert!(!s.is_match(b""));
        assert_eq!(s.match_index(b"anything"), None);
        assert!(!s.match_any([b"a", b"b"]));
    }

    #[test]
    fn oversized_lists_are_rejected_before_exhausting_memory() {
        let big = vec![b'a'; MAX_PATTERN_BYTES / 2 + 1];
        let err = PinSet::compile([&big[..], &big[..]], Flags::DEFAULT).unwrap_err();
        assert_eq!(err.pattern_index(), Some(1));
        assert!(matches!(err.kind(), ErrorKind::TooLarge { limit: MAX_PATTERN_BYTES, .. }));
        assert!(err.to_string().contains("may be at most 67108864"), "{err}");
        let err = PinSet::compile(std::iter::repeat_n("", MAX_PATTERNS + 1), Flags::DEFAULT).unwrap_err();
        assert_eq!(err.pattern_index(), Some(MAX_PATTERNS));
        assert!(err.to_string().contains("the number of patterns may be at most 10000000"), "{err}");
    }

    #[test]
    fn memory_usage_grows_with_the_list() {
        let small = set(&["a"], Flags::DEFAULT).memory_usage();
        let many: Vec<String> = (0..1000).map(|i| format!("*word-{i}*")).collect();
        let big = PinSet::compile(&many, Flags::DEFAULT).unwrap().memory_usage();
        assert!(big > small * 10, "{small} {big}");
    }
}
