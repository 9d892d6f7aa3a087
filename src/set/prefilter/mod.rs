//! The search for lists of a few needles: SIMD over the name as it is.
//!
//! For each needle three of its last bytes (the probes: at the same three
//! places in every needle's tail, chosen for all of them as the rarest by
//! `memchr`'s ranking, digits last: see [`probe_offsets`]) are compared at
//! every position, a vector of positions at a time (names of up to 128 bytes past
//! the probes' reach in a fixed number of chunks, the last ending where the
//! name ends, so that their length costs no branch per chunk). A chunk's
//! bytes at the three places are read once, for all needles. When case is folded every byte read has its 0x20 bit
//! set, and so has each probe byte: a letter then equals its other case, and
//! any other byte equals one more byte, the one differing from it in that bit
//! (a control character for a digit or `/`, a backquote for `@`, DEL for
//! `_`), a false candidate at worst. In a name of up to 4 vectors a needle's
//! candidates in all chunks are ORed into one vector, tested once; the first
//! needle with any has them verified against the whole needle, out of line,
//! and the needles after it are searched there one by one. The same pass ORs
//! the name's bytes together: a name that proves all ASCII has no canonical
//! form to build (it would differ only in case), and the search's answer is
//! final (the reads at the last probe cover all but the name's first
//! bytes, which one more vector reads). A name with a byte >= 0x80 is canonicalised and searched again the
//! same way (canonical ASCII letters are upper case; bytes >= 0x80 are
//! verified exactly).
//!
//! It answers alone, without the automaton: a needle found in the name as it
//! is stays in its canonical form (an ASCII byte decodes as itself whatever
//! precedes it, a valid sequence the same, and a canonical needle's runes
//! are their own representatives), at the same place if that is the start.
//! Only a miss needs the whole name to be ASCII.
//!
//! **How the code is laid out** (as `memchr`'s is). The search is written
//! once, here, over the [`Vector`] trait (`vector.rs`), whose every method
//! is an `unsafe fn` under one safety contract stated on the trait. One
//! size ladder ([`Prefilter::size`]) says how a name of
//! each length is read: byte by byte, in 8-byte words (`word.rs`), or in the
//! machine's vectors, in 2 to 8 fixed chunks or a loop. One module an
//! architecture, chosen once by `cfg` (`mod arch`), says which vectors read
//! each size: `x86_64.rs` (SSE2 always, AVX2 where detected),
//! `aarch64.rs` (NEON), `wasm32.rs` (simd128), and `portable.rs` (words, for every
//! other machine and `--cfg crio_pin_portable`). A search or sweep is a
//! [`Pass`] the architecture's function runs in the vector type it picks
//! (told the size inside that function, past any call into code compiled
//! for AVX2, so that the ladder costs no register saved around the call).
//!
//! **What a name costs (the bound).** A name of `L` bytes is read once, a
//! vector at a time (three loads a vector of starts), with three compares
//! a needle per vector (at most 8 needles), its lines in order (the hardware prefetches them); the
//! needles' copies (at most 8 of 4,096 bytes) stay in L1 or L2. Each
//! candidate is then verified from its needle's start, which alone has no
//! bound: a needle whose probe bytes occur everywhere has a candidate at
//! every position, each costing up to its length (issue 36: 4,096 `a`s
//! against 8 KiB of `a…aX`, 1.1 ms). So false candidates are charged
//! against an [`Allowance`] of `2L + 256` needle bytes compared, about what
//! the automaton's walk costs; past it the name is given up to the
//! automaton (one walk, `super::dfa`'s bound). A name then costs at most the
//! sweep, `2L + 256` bytes compared, one needle more and each needle found
//! (under `L` each), and one walk (`tests/bound.rs` counts it, on the named
//! worst cases and on lists a search builds to raise it).
//! Compiling copies the needles: work linear in their bytes.
//!
//! For a list whose needles all match anywhere, under CRI-O's rules,
//! [`Prefilter::holds_ascii`] is `PinSet::is_match`'s first step: one call
//! that sweeps an ASCII name of up to 4 vectors and says whether it holds
//! a needle, after which only the exact table may still pin it. (The
//! probes are held in place, not behind a pointer: the sweep reads them
//! before it can read the name.)

mod vector;
mod word;

// The machine's vectors: one module an architecture, each with the same
// three items (`Simd`, what was detected; `Simd::sweeps`; `vectors`, which
// reads a name of each `Size`), chosen here once.
#[cfg_attr(all(target_arch = "x86_64", not(crio_pin_portable)), path = "x86_64.rs")]
#[cfg_attr(all(target_arch = "aarch64", target_feature = "neon", not(crio_pin_portable)), path = "aarch64.rs")]
#[cfg_attr(all(target_arch = "wasm32", target_feature = "simd128"), path = "wasm32.rs")]
#[cfg_attr(
    not(any(
        all(target_arch = "x86_64", not(crio_pin_portable)),
        all(target_arch = "aarch64", target_feature = "neon", not(crio_pin_portable)),
        all(target_arch = "wasm32", target_feature = "simd128")
    )),
    path = "portable.rs"
)]
mod arch;

/// `arch::Simd` on a machine with one kind of vectors (arm64's NEON,
/// WebAssembly's simd128, the others' words): nothing to detect, and
/// `Prefilter::holds_ascii` always sweeps. (x86-64 detects AVX2.)
#[cfg(not(all(target_arch = "x86_64", not(crio_pin_portable))))]
#[derive(Debug, Clone, Copy)]
struct OneKind;

#[cfg(not(all(target_arch = "x86_64", not(crio_pin_portable))))]
impl OneKind {
    fn detect() -> OneKind {
        OneKind
    }

    /// The same (for the tests, which run the narrowest vectors beside
    /// the widest where a machine has two).
    #[cfg(test)]
    const NARROWEST: OneKind = OneKind;

    #[inline(always)]
    fn sweeps(self) -> bool {
        true
    }
}

use std::cell::Cell;
use std::sync::OnceLock;

use super::search::{Form, Found, NeedsCanonical, Owner, Query, Wanted, NONE};
use crate::fold::all_ascii;
use memchr::arch::all::packedpair::Pair;
use vector::Vector;
use word::Word;

/// Most needles given a prefilter ([`Prefilter`]). Each costs two
/// compares a vector of the name: 8 keywords still take half the walk's
/// time over the corpus names (docs/BENCHMARKS.md); more were not measured.
pub(super) const PREFILTER_MAX_NEEDLES: usize = 8;

/// Longest needle given a prefilter (it keeps a copy of its needles: long
/// ones would cost memory and gain nothing, as no image name holds them).
pub(super) const PREFILTER_MAX_NEEDLE_BYTES: usize = 4096;

/// Most bytes at the end of a needle its probes are chosen among.
const PROBE_TAIL: usize = 8;

/// How many bytes of each needle are compared at every position (the
/// probes: [`probe_offsets`]). Over the corpus' 500 names and the
/// 10-pattern list's 5 needles, two probes chosen for each needle alone
/// left 51 names with a candidate to verify (7 of them true); three at the
/// same places for every needle leave 8.
const PROBES: usize = 3;

/// What the false candidates of a name of `L` bytes may cost to verify, in
/// needle bytes compared: `VERIFY_PER_BYTE * L + VERIFY_FLOOR`, about what
/// the automaton's walk of the name costs. An image name's false
/// candidates are few (the probes are its rarest bytes); only those of
/// long needles (every position of `a…a` for `a…ab a…a`) run past it, and
/// then the search gives up and the automaton answers in one pass
/// ([`Allowance`]). A needle found is not charged: it ends that needle's
/// search, and costs its length, under `L`.
const VERIFY_PER_BYTE: usize = 2;
const VERIFY_FLOOR: usize = 256;

/// What verification may still cost for one name (see [`VERIFY_PER_BYTE`]):
/// each false candidate charges its needle's length once compared, and
/// the search is given up once what is left goes below zero, so that it
/// stops and its answer is not used. A name's verification then compares
/// at most the allowance, one needle more, and each needle it finds. (One
/// signed count: a name's quick path pays two instructions for it.)
pub(super) struct Allowance(Cell<isize>);

impl Allowance {
    pub(super) fn for_name(len: usize) -> Allowance {
        // (Wrapping, for a name near the address space's size: giving up
        // is always safe.)
        Allowance::of(len.wrapping_mul(VERIFY_PER_BYTE).wrapping_add(VERIFY_FLOOR))
    }

    /// An allowance of `bytes` (at most `isize::MAX`).
    pub(super) fn of(bytes: usize) -> Allowance {
        Allowance(Cell::new(isize::try_from(bytes).unwrap_or(isize::MAX)))
    }

    /// Charges `bytes` compared for a false candidate.
    #[inline(always)]
    fn charge(&self, bytes: usize) {
        // (A name's bytes: under isize::MAX. The search stops at the first
        // charge past zero, so no count wraps.)
        self.0.set(self.0.get().wrapping_sub(bytes as isize));
    }

    /// Whether the charges passed the allowance: the search's answer may
    /// be wrong.
    #[inline(always)]
    pub(super) fn spent(&self) -> bool {
        self.0.get() < 0
    }

    /// What is left to charge.
    #[cfg(feature = "testing")]
    pub(super) fn left(&self) -> usize {
        self.0.get().max(0) as usize
    }
}

/// A SIMD search for a few needles, which answers for a name without the
/// automaton: see the module doc.
#[derive(Debug)]
pub(super) struct Prefilter {
    /// Needles matching anywhere, lowest index first: the first
    /// `anywhere_count` (in place: see the module doc).
    probes: [Probe; PREFILTER_MAX_NEEDLES],
    anywhere_count: usize,
    /// Needles matching at the start only (anchored globs), lowest index
    /// first: the name's prefix is compared with each.
    at_start: Vec<Prefix>,
    /// Where every needle's probes are, from its tail's start (see
    /// [`Probe`]): the same places for all needles, so that a chunk of the
    /// name is read [`PROBES`] times whatever the number of needles.
    offsets: [usize; PROBES],
    /// The largest of `offsets`: a chunk of starts is read up to this far
    /// past its end.
    reach: usize,
    fold: bool,
    /// 0x20 when folding case (set in every byte read, see the module
    /// doc), else 0.
    fold_bit: u8,
    /// The machine's vectors ([`arch`]).
    simd: arch::Simd,
}

/// One needle searched anywhere, with the two bytes compared at each start.
/// They lie in its tail, its last [`PROBE_TAIL`] bytes or as many as the
/// shortest needle has, and are read at offsets from the tail's start: the scan goes over tail
/// starts, so that the first and the last chunk cover every start of every
/// needle. (The end of a needle is its most telling part: registries and
/// organisations are shared by many names, a repository and tag by few.)
#[derive(Debug, Default)]
struct Probe {
    needle: Box<[u8]>,
    index: u32,
    /// Where its tail starts.
    shift: usize,
    /// Its bytes at the probes ([`Prefilter::offsets`]), with the fold
    /// bit set, each repeated for a vector to load.
    splats: Splats,
}

/// A needle matching at the start only, with its first 8 bytes as a word
/// to compare a name's with.
#[derive(Debug)]
struct Prefix {
    needle: Box<[u8]>,
    index: u32,
    /// The needle's first bytes (up to 8), with 0x20 set where folded.
    head: u64,
    /// 0x20 in each byte of `head` that is a folded ASCII letter.
    folds: u64,
    /// All ones in each byte of `head` that the needle has.
    kept: u64,
}

impl Prefix {
    fn new(needle: &[u8], index: u32, fold: bool) -> Prefix {
        let (mut head, mut folds, mut kept) = ([0u8; 8], [0u8; 8], [0u8; 8]);
        for (i, &b) in needle.iter().take(8).enumerate() {
            folds[i] = if fold && b.is_ascii_alphabetic() { 0x20 } else { 0 };
            head[i] = b | folds[i];
            kept[i] = 0xff;
        }
        let [head, folds, kept] = [head, folds, kept].map(u64::from_le_bytes);
        Prefix { needle: needle.into(), index, head, folds, kept }
    }
}

/// What [`Prefilter::sweep`] found in a name.
struct Sweep<const CHUNKS: usize> {
    ascii: bool,
    /// The first needle searched with a candidate (their count: none),
    /// and its candidate tail starts, a bit each from `at[i]`.
    candidate: usize,
    tails: [u64; CHUNKS],
    /// Where each chunk of tail starts begins.
    at: [usize; CHUNKS],
}

/// See [`Probe::splats`].
#[derive(Debug, Default)]
#[repr(align(32))]
struct Splats([[u8; 32]; PROBES]);

impl Probe {
    /// The probes' bytes as vectors.
    #[inline(always)]
    fn splats<V: Vector>(&self) -> [V; PROBES] {
        let rows = &self.splats.0;
        // SAFETY: each row holds 32 bytes, at least a vector. (No closure:
        // see `sweep`.)
        unsafe { [V::load(rows[0].as_ptr()), V::load(rows[1].as_ptr()), V::load(rows[2].as_ptr())] }
    }

    /// Where this needle's probes agree with `probed`, the name's bytes at
    /// the probes of a chunk of tail starts ([`Prefilter::probed`]).
    /// Safety: the machine runs `V`'s instructions.
    #[inline(always)]
    unsafe fn candidates<V: Vector>(&self, probed: &[V; PROBES]) -> V {
        V::all_equal(self.splats::<V>(), probed)
    }

    /// Whether [`Probe::candidates`] has any. Safety: as `candidates`.
    #[inline(always)]
    unsafe fn any_candidate<V: Vector>(&self, probed: &[V; PROBES]) -> bool {
        V::any_all_equal(self.splats::<V>(), probed)
    }
}

/// The sizes of name, in bytes past the reach (the starts of needle
/// tails): the arms of the one size ladder ([`Prefilter::size`]). Every
/// architecture reads each in chunks that fit it (`sweep`'s contract):
/// 16-byte vectors in 2, 4 and 8 fixed chunks and a loop, words in twice
/// as many ([`in_chunks`]); AVX2 in 2 SSE2 vectors, then 2 and 4 of its
/// own, then a loop.
#[derive(Clone, Copy)]
enum Size {
    /// Under 16 bytes: too short for a vector, read by [`Pass::short`].
    Short,
    /// 16 to 32 bytes.
    Up32,
    /// 33 to 64.
    Up64,
    /// 65 to 128.
    Up128,
    /// More: read a vector at a time.
    Longer,
}

/// What is done with a name, in vectors of a type the architecture picks
/// ([`arch::vectors`], which is handed the prefilter and the name beside
/// it: as arguments they stay in registers, where a larger pass is handed
/// over in memory): the search ([`Scan`]) or the quick sweep ([`Holds`]).
trait Pass {
    type Out;
    /// In `CHUNKS` chunks of `V`. Safety: as [`Prefilter::sweep`].
    unsafe fn fixed<V: Vector, const CHUNKS: usize>(self, prefilter: &Prefilter, name: &[u8]) -> Self::Out;
    /// A vector of `V` at a time. Safety: as [`Prefilter::scan_in`].
    unsafe fn longer<V: Vector>(self, prefilter: &Prefilter, name: &[u8]) -> Self::Out;
    /// A name too short for a vector ([`Size::Short`]).
    fn short(self, prefilter: &Prefilter, name: &[u8]) -> Self::Out;
}

/// The sizes of [`Size`] in vectors `V`: fixed chunks, `UP32`, `UP64` and
/// `UP128` of them (each covering its size: checked when it is compiled),
/// then a loop. Safety: the machine runs `V`'s instructions.
#[inline(always)]
unsafe fn in_chunks<V: Vector, P: Pass, const UP32: usize, const UP64: usize, const UP128: usize>(
    prefilter: &Prefilter,
    name: &[u8],
    pass: P,
) -> P::Out {
    const { assert!(V::BYTES <= 16 && UP32 * V::BYTES >= 32 && UP64 * V::BYTES >= 64 && UP128 * V::BYTES >= 128) };
    match prefilter.size(name.len()) {
        Size::Short => pass.short(prefilter, name),
        Size::Up32 => pass.fixed::<V, UP32>(prefilter, name),
        Size::Up64 => pass.fixed::<V, UP64>(prefilter, name),
        Size::Up128 => pass.fixed::<V, UP128>(prefilter, name),
        Size::Longer => pass.longer::<V>(prefilter, name),
    }
}

/// [`Prefilter::scan`] as a [`Pass`].
struct Scan<'a> {
    wanted: Wanted,
    floor: u32,
    best: &'a mut u32,
    allowance: &'a Allowance,
}

impl Pass for Scan<'_> {
    type Out = Option<bool>;

    #[inline(always)]
    unsafe fn fixed<V: Vector, const CHUNKS: usize>(self, prefilter: &Prefilter, name: &[u8]) -> Option<bool> {
        let Scan { wanted, floor, best, allowance } = self;
        prefilter.scan_fixed::<V, CHUNKS>(name, wanted, floor, best, allowance)
    }

    #[inline(always)]
    unsafe fn longer<V: Vector>(self, prefilter: &Prefilter, name: &[u8]) -> Option<bool> {
        let Scan { wanted, floor, best, allowance } = self;
        prefilter.scan_in::<V>(name, wanted, floor, best, allowance)
    }

    #[inline(always)]
    fn short(self, prefilter: &Prefilter, name: &[u8]) -> Option<bool> {
        let Scan { wanted, floor, best, allowance } = self;
        prefilter.scan_short(name, wanted, floor, best, allowance)
    }
}

/// [`Prefilter::holds_ascii`] as a [`Pass`]: a name shorter or longer
/// than the fixed sweeps has no quick answer.
struct Holds;

impl Pass for Holds {
    type Out = Option<bool>;

    #[inline(always)]
    unsafe fn fixed<V: Vector, const CHUNKS: usize>(self, prefilter: &Prefilter, name: &[u8]) -> Option<bool> {
        prefilter.holds_ascii_fixed::<V, CHUNKS>(name)
    }

    #[inline(always)]
    unsafe fn longer<V: Vector>(self, _: &Prefilter, _: &[u8]) -> Option<bool> {
        None
    }

    #[inline(always)]
    fn short(self, _: &Prefilter, _: &[u8]) -> Option<bool> {
        None
    }
}

impl Prefilter {
    /// `None` for no needle, more than [`PREFILTER_MAX_NEEDLES`] or one
    /// longer than [`PREFILTER_MAX_NEEDLE_BYTES`]. `needles`: distinct,
    /// canonical, not empty, each with its owner.
    pub(super) fn build(needles: &[&[u8]], owners: &[Owner], fold: bool) -> Option<Prefilter> {
        if needles.is_empty()
            || needles.len() > PREFILTER_MAX_NEEDLES
            || needles.iter().any(|n| n.len() > PREFILTER_MAX_NEEDLE_BYTES)
        {
            return None;
        }
        let mut at_start: Vec<Prefix> = Vec::new();
        let mut anywhere: Vec<(&[u8], u32)> = Vec::new();
        for (&needle, owner) in needles.iter().zip(owners) {
            // A hit at the start counts for both; `at_start` holds only
            // what such a hit adds.
            if owner.at_start < owner.anywhere {
                at_start.push(Prefix::new(needle, owner.at_start, fold));
            }
            if owner.anywhere != NONE {
                anywhere.push((needle, owner.anywhere));
            }
        }
        at_start.sort_unstable_by_key(|prefix| prefix.index);
        anywhere.sort_unstable_by_key(|&(_, index)| index);
        let tail = anywhere.iter().map(|(n, _)| n.len()).min().unwrap_or(1).min(PROBE_TAIL);
        let fold_bit = if fold { 0x20 } else { 0 };
        let anywhere_count = anywhere.len();
        // Ranked as a name holds them: mostly lower case.
        let tails: Vec<Vec<u8>> = anywhere.iter().map(|(n, _)| n[n.len() - tail..].to_ascii_lowercase()).collect();
        let offsets = if tails.is_empty() { [0; PROBES] } else { probe_offsets(&tails) };
        let probes = std::array::from_fn(|i| {
            anywhere
                .get(i)
                .map_or_else(Probe::default, |&(needle, index)| Probe::new(needle, index, tail, offsets, fold_bit))
        });
        let reach = offsets[PROBES - 1];
        Some(Prefilter { probes, anywhere_count, at_start, offsets, reach, fold, fold_bit, simd: arch::Simd::detect() })
    }

    /// The lowest index of a needle found in `name` (or any one, as
    /// `query` wants) and `below` ([`NONE`] for none); `floor` is the
    /// lowest index of all needles. A name as given fails the search if its
    /// answer depends on the canonical form (a byte >= 0x80).
    /// `None` when verifying its candidates would cost more than
    /// `allowance` (see [`VERIFY_PER_BYTE`]): the automaton answers then.
    #[inline(always)]
    pub(super) fn search(
        &self,
        name: &[u8],
        query: Query,
        floor: u32,
        below: u32,
        allowance: &Allowance,
    ) -> Option<Result<Found, NeedsCanonical>> {
        let mut best = below;
        let wanted = query.wanted;
        if let Some(prefix) =
            self.at_start.iter().find(|prefix| prefix.index < best && self.starts(name, prefix, allowance))
        {
            best = prefix.index;
        }
        let ascii = if wanted.done(best, floor) { None } else { self.scan(name, wanted, floor, &mut best, allowance) };
        if allowance.spent() {
            return None;
        }
        let lowest = Some(best).filter(|&b| b != NONE);
        let found = |read_all| Some(Ok(Found { lowest, read_all }));
        match ascii {
            _ if query.form == Form::Canonical => found(false),
            Some(true) => found(true),
            Some(false) => Some(Err(NeedsCanonical)),
            None if wanted.done(best, floor) => found(false),
            None if all_ascii(name) => found(true),
            None => Some(Err(NeedsCanonical)),
        }
    }

    /// The needles matching anywhere, lowest index first.
    #[inline(always)]
    fn anywhere(&self) -> &[Probe] {
        &self.probes[..self.anywhere_count]
    }

    /// Whether every needle matches anywhere (none at the start only).
    pub(super) fn matches_anywhere_only(&self) -> bool {
        self.at_start.is_empty()
    }

    /// Whether `name` holds a needle, in one pass, for a search whose
    /// needles all match anywhere ([`Prefilter::matches_anywhere_only`]):
    /// `None` unless the name is all ASCII and of a length the fixed sweeps
    /// take (16 + reach to 128 + reach bytes), on a machine with vectors of
    /// ours. `is_match`'s quick answer for most names of a small list.
    #[inline(always)]
    pub(super) fn holds_ascii(&self, name: &[u8]) -> Option<bool> {
        // (The size is told inside `arch::vectors`, past the call into
        // AVX2's code: told here, it cost is_match a register spilled
        // around that call, about an instruction a name.)
        match self.simd.sweeps() {
            true => arch::vectors(self.simd, self, name, Holds),
            false => None,
        }
    }

    /// The [`Size`] of a name of `n` bytes: the one size ladder, which
    /// every machine's vectors follow.
    #[inline(always)]
    fn size(&self, n: usize) -> Size {
        if n < 16 + self.reach {
            Size::Short
        } else if n <= 32 + self.reach {
            Size::Up32
        } else if n <= 64 + self.reach {
            Size::Up64
        } else if n <= 128 + self.reach {
            Size::Up128
        } else {
            Size::Longer
        }
    }

    /// [`Prefilter::holds_ascii`] in `CHUNKS` chunks of `V`. Safety: as
    /// [`Prefilter::sweep`].
    #[inline(always)]
    unsafe fn holds_ascii_fixed<V: Vector, const CHUNKS: usize>(&self, name: &[u8]) -> Option<bool> {
        let anywhere = self.anywhere();
        let sweep = self.sweep::<V, CHUNKS>(name, anywhere);
        // (An answer only for an ASCII name: another's canonical form may
        // hold a needle its own bytes do not.)
        match sweep.ascii {
            false => None,
            true if sweep.candidate < anywhere.len() => self.held::<V, CHUNKS>(name, &sweep),
            true => Some(false),
        }
    }

    /// Whether `name` holds one of the needles from its sweep's candidate
    /// on, `None` if verifying them would pass the name's [`Allowance`]
    /// (made here: a name without candidates pays nothing for it). Out of
    /// line: most names have no candidate, and inlined its loops cost every
    /// call a larger stack frame. Safety: as [`Prefilter::sweep`], with
    /// AVX2 on x86-64 (where only a machine with it sweeps:
    /// [`arch::Simd::sweeps`]).
    #[cold]
    #[inline(never)]
    #[cfg_attr(all(target_arch = "x86_64", not(crio_pin_portable)), target_feature(enable = "avx2"))]
    unsafe fn held<V: Vector, const CHUNKS: usize>(&self, name: &[u8], sweep: &Sweep<CHUNKS>) -> Option<bool> {
        let allowance = Allowance::for_name(name.len());
        let held = self.first_held::<V, CHUNKS>(name, &self.anywhere()[sweep.candidate..], sweep, &allowance).is_some();
        (!allowance.spent()).then_some(held)
    }

    /// Whether `name` starts with `prefix`: most names differ in its first
    /// 8 bytes, compared at once.
    fn starts(&self, name: &[u8], prefix: &Prefix, allowance: &Allowance) -> bool {
        if let Some(head) = name.first_chunk::<8>() {
            if (u64::from_le_bytes(*head) | prefix.folds) & prefix.kept != prefix.head {
                return false;
            }
        }
        name.get(..prefix.needle.len()).is_some_and(|text| self.verified(text, &prefix.needle, allowance))
    }

    /// Whether `name` holds `probe`'s needle with its tail starting at
    /// `tail` (a candidate of the scan).
    #[inline(always)]
    fn holds_at(&self, probe: &Probe, name: &[u8], tail: usize, allowance: &Allowance) -> bool {
        let Some(start) = tail.checked_sub(probe.shift) else { return false };
        name.get(start..start + probe.needle.len()).is_some_and(|text| self.verified(text, &probe.needle, allowance))
    }

    /// Whether `text` is `needle`, charging `allowance` if not.
    #[inline(always)]
    fn verified(&self, text: &[u8], needle: &[u8], allowance: &Allowance) -> bool {
        let equal = self.equal(text, needle);
        if !equal {
            allowance.charge(text.len());
        }
        equal
    }

    fn equal(&self, text: &[u8], needle: &[u8]) -> bool {
        if self.fold {
            // (`needle` is canonical: its letters are upper case, its
            // bytes >= 0x80 compare exactly, as here.)
            text.eq_ignore_ascii_case(needle)
        } else {
            text == needle
        }
    }

    /// Searches `name` for the needles matching anywhere whose index is
    /// below `best`, lowering it; stops at the first found, as `wanted`
    /// says, or at `floor`. Says whether the name is all ASCII when it read
    /// every byte, `None` when it stopped early.
    #[inline(always)]
    fn scan(&self, name: &[u8], wanted: Wanted, floor: u32, best: &mut u32, allowance: &Allowance) -> Option<bool> {
        arch::vectors(self.simd, self, name, Scan { wanted, floor, best, allowance })
    }

    /// [`Prefilter::scan`] of names too short for a vector: in words, or
    /// byte by byte if too short for a word. (Out of line: inlined, its
    /// stack frame cost every match of a set without needles a tenth
    /// more.)
    #[inline(never)]
    fn scan_short(
        &self,
        name: &[u8],
        wanted: Wanted,
        floor: u32,
        best: &mut u32,
        allowance: &Allowance,
    ) -> Option<bool> {
        if name.len() < 8 + self.reach {
            return self.scan_bytes(name, wanted, floor, best);
        }
        // SAFETY: 8-byte words need nothing of the machine; the name holds
        // at least 8 + reach bytes.
        unsafe { self.scan_in::<Word>(name, wanted, floor, best, allowance) }
    }

    /// [`Prefilter::scan`] in `CHUNKS` chunks of `V` ([`Prefilter::sweep`]).
    /// Safety: as `sweep`.
    #[inline(always)]
    unsafe fn scan_fixed<V: Vector, const CHUNKS: usize>(
        &self,
        name: &[u8],
        wanted: Wanted,
        floor: u32,
        best: &mut u32,
        allowance: &Allowance,
    ) -> Option<bool> {
        let alive = self.alive(*best);
        let sweep = self.sweep::<V, CHUNKS>(name, alive);
        if sweep.candidate < alive.len() {
            if let Some(probe) = self.first_held::<V, CHUNKS>(name, &alive[sweep.candidate..], &sweep, allowance) {
                *best = probe.index;
                return if wanted.done(*best, floor) { None } else { Some(sweep.ascii) };
            }
        }
        Some(sweep.ascii)
    }

    /// One pass over a name of `CHUNKS` chunks of `V`, the last one ending
    /// where the name does (no branch on the name's length but the choice
    /// of `CHUNKS`): whether it is all ASCII, and the first of `probes`
    /// with a candidate in it, each needle's candidates in all chunks ORed
    /// into one vector and tested once (the needles after it are left to
    /// [`Prefilter::first_held`]). Safety: the machine runs `V`'s
    /// instructions, and `name` holds from `V::BYTES + reach` to
    /// `CHUNKS * V::BYTES + reach` bytes.
    #[inline(always)]
    unsafe fn sweep<V: Vector, const CHUNKS: usize>(&self, name: &[u8], probes: &[Probe]) -> Sweep<CHUNKS> {
        let n = name.len();
        debug_assert!(n >= V::BYTES + self.reach && n <= CHUNKS * V::BYTES + self.reach);
        if V::SWEEPS_BY_CHUNK {
            return self.sweep_by_chunk::<V, CHUNKS>(name, probes);
        }
        let ptr = name.as_ptr();
        let last = n - V::BYTES - self.reach;
        let at: [usize; CHUNKS] = std::array::from_fn(|i| (i * V::BYTES).min(last));
        let fold = V::splat(self.fold_bit);
        // (Loops, not closures: a closure would not inherit the caller's
        // target features, and its intrinsics be calls.)
        // SAFETY (all loads): as in `scan_in`.
        let mut probed = [[V::splat(0); PROBES]; CHUNKS];
        let mut high = V::load(ptr);
        for (probed, &at) in probed.iter_mut().zip(&at) {
            *probed = self.probed(ptr.add(at), fold);
            high = high.or(probed[PROBES - 1]);
        }
        let ascii = !high.any_high();
        for (candidate, probe) in probes.iter().enumerate() {
            let mut each = [V::splat(0); CHUNKS];
            let mut any = V::splat(0);
            for (each, probed) in each.iter_mut().zip(&probed) {
                *each = probe.candidates(probed);
                any = any.or(*each);
            }
            if any.any_high() {
                let mut tails = [0u64; CHUNKS];
                for (tails, each) in tails.iter_mut().zip(&each) {
                    *tails = each.high_bits();
                }
                return Sweep { ascii, candidate, tails, at };
            }
        }
        Sweep { ascii, candidate: probes.len(), tails: [0; CHUNKS], at }
    }

    /// [`Prefilter::sweep`] a chunk at a time ([`Vector::SWEEPS_BY_CHUNK`]):
    /// each chunk's reads compared with every needle, a bit a needle kept
    /// of whether it has a candidate, then the first one's candidates
    /// read again; only the chunks holding the name's tail starts are
    /// read. Safety: as `sweep`.
    #[inline(always)]
    unsafe fn sweep_by_chunk<V: Vector, const CHUNKS: usize>(&self, name: &[u8], probes: &[Probe]) -> Sweep<CHUNKS> {
        let ptr = name.as_ptr();
        let last = name.len() - V::BYTES - self.reach;
        let at: [usize; CHUNKS] = std::array::from_fn(|i| (i * V::BYTES).min(last));
        let used = self.filled::<V, CHUNKS>(name);
        let fold = V::splat(self.fold_bit);
        // SAFETY (all loads): as in `scan_in`.
        let mut high = V::load(ptr);
        let mut held = 0u32; // (At most PREFILTER_MAX_NEEDLES bits.)
        for &at in at.iter().take(used) {
            let probed = self.probed(ptr.add(at), fold);
            high = high.or(probed[PROBES - 1]);
            for (k, probe) in probes.iter().enumerate() {
                held |= u32::from(probe.any_candidate(&probed)) << k;
            }
        }
        let candidate = (held.trailing_zeros() as usize).min(probes.len());
        let mut tails = [0u64; CHUNKS];
        if let Some(probe) = probes.get(candidate) {
            for (tails, &at) in tails.iter_mut().zip(&at).take(used) {
                *tails = probe.candidates(&self.probed(ptr.add(at), fold)).high_bits();
            }
        }
        Sweep { ascii: !high.any_high(), candidate, tails, at }
    }

    /// How many chunks of `V` a sweep of `name` reads: those holding its
    /// tail starts where `V` reads no more ([`Vector::SWEEPS_BY_CHUNK`]),
    /// else all `CHUNKS`. Chunk `i` begins at `i * V::BYTES`, the last at
    /// `last = name.len() - V::BYTES - reach` (where the chunks after it
    /// begin too), and each holds `V::BYTES` starts: `last` rounded up to
    /// chunks, and the one at `last`.
    #[inline(always)]
    fn filled<V: Vector, const CHUNKS: usize>(&self, name: &[u8]) -> usize {
        if V::SWEEPS_BY_CHUNK {
            (name.len() - V::BYTES - self.reach).div_ceil(V::BYTES) + 1
        } else {
            CHUNKS
        }
    }

    /// The first of `probes` whose needle `name` holds, given its
    /// [`Prefilter::sweep`]: `probes` start with the sweep's candidate,
    /// whose tails it found; the others' are found here. Safety: as
    /// `sweep`.
    #[inline(always)]
    unsafe fn first_held<'p, V: Vector, const CHUNKS: usize>(
        &self,
        name: &[u8],
        probes: &'p [Probe],
        sweep: &Sweep<CHUNKS>,
        allowance: &Allowance,
    ) -> Option<&'p Probe> {
        let (first, rest) = probes.split_first()?;
        if self.verify::<V>(first, name, &sweep.at, &sweep.tails, allowance) {
            return Some(first);
        }
        let fold = V::splat(self.fold_bit);
        let ptr = name.as_ptr();
        // The sweep's reads again, here, where a false candidate sent us:
        // kept in `Sweep`, they would be returned by every sweep. (Loops,
        // not closures: see `sweep`.)
        let used = self.filled::<V, CHUNKS>(name);
        let mut probed = [[V::splat(0); PROBES]; CHUNKS];
        for (probed, &at) in probed.iter_mut().zip(&sweep.at).take(used) {
            *probed = self.probed(ptr.add(at), fold);
        }
        for probe in rest {
            let mut tails = [0u64; CHUNKS];
            let mut any = 0;
            for (tails, probed) in tails.iter_mut().zip(&probed).take(used) {
                *tails = probe.candidates(probed).high_bits();
                any |= *tails;
            }
            if any != 0 && self.verify::<V>(probe, name, &sweep.at, &tails, allowance) {
                return Some(probe);
            }
            if allowance.spent() {
                return None;
            }
        }
        None
    }

    /// [`Prefilter::scan`] a vector of `V` starts at a time. Safety: the
    /// machine runs `V`'s instructions, and `name` holds at least
    /// `V::BYTES + reach` bytes.
    #[inline(always)]
    unsafe fn scan_in<V: Vector>(
        &self,
        name: &[u8],
        wanted: Wanted,
        floor: u32,
        best: &mut u32,
        allowance: &Allowance,
    ) -> Option<bool> {
        let n = name.len();
        debug_assert!(n >= V::BYTES + self.reach);
        let mut alive = (1u32 << self.alive(*best).len()) - 1;
        let fold = V::splat(self.fold_bit);
        let ptr = name.as_ptr();
        let last = n - V::BYTES - self.reach;
        // (The name's first vector, then each chunk's last probe: see
        // `Prefilter::probed`.)
        let mut high = V::load(ptr);
        let mut at = 0;
        // Starts below `at + skip` were covered by the chunk before.
        let mut skip = 0;
        loop {
            // SAFETY (all loads): `at <= last`, so `at + offset + V::BYTES
            // <= last + reach + V::BYTES = n`.
            let probed = self.probed(ptr.add(at), fold);
            high = high.or(probed[PROBES - 1]);
            let mut each = alive;
            while each != 0 {
                let k = each.trailing_zeros() as usize;
                each &= each - 1;
                let probe = &self.anywhere()[k];
                let candidates = probe.candidates(&probed).high_bits();
                let mut tails = (candidates >> (skip << V::SHIFT)) << (skip << V::SHIFT);
                while tails != 0 {
                    let tail = at + (tails.trailing_zeros() >> V::SHIFT) as usize;
                    tails &= tails - 1;
                    if self.holds_at(probe, name, tail, allowance) {
                        *best = probe.index;
                        if wanted.done(*best, floor) {
                            return None;
                        }
                        // Needles of higher indexes no longer matter.
                        alive &= (1 << k) - 1;
                        if alive == 0 {
                            return None;
                        }
                        each &= alive;
                        break;
                    }
                    if allowance.spent() {
                        // (Given up: the automaton answers.)
                        return None;
                    }
                }
            }
            if at == last {
                break;
            }
            let next = at + V::BYTES;
            (at, skip) = if next > last { (last, next - last) } else { (next, 0) };
        }
        Some(!high.any_high())
    }

    /// The name's bytes at the probes ([`Prefilter::offsets`]) of the
    /// chunk of tail starts from `at`, with the fold bit set: what every
    /// needle's [`Probe::candidates`] compares. The last is read at the
    /// reach, so that over chunks of starts from 0 to the last, `n - reach
    /// - V::BYTES`, those reads cover every byte of the name from the reach
    /// on; the name's first vector covers the bytes before it, and the
    /// fold bit leaves the high bit alone: the ASCII test of a name reads
    /// nothing more. Safety: as [`Vector::load`] at `at` plus each offset.
    #[inline(always)]
    unsafe fn probed<V: Vector>(&self, at: *const u8, fold: V) -> [V; PROBES] {
        // (No closure: see `sweep`.)
        let [o0, o1, o2] = self.offsets;
        [V::load(at.add(o0)).or(fold), V::load(at.add(o1)).or(fold), V::load(at.add(o2)).or(fold)]
    }

    /// The needles matching anywhere whose index is below `best` (they are
    /// in index order).
    #[inline(always)]
    fn alive(&self, best: u32) -> &[Probe] {
        if best == NONE {
            self.anywhere()
        } else {
            let anywhere = self.anywhere();
            &anywhere[..anywhere.partition_point(|probe| probe.index < best)]
        }
    }

    /// Whether `probe`'s needle starts at one of the candidate tail starts
    /// `tails[i]` (a bit per start from `at[i]`).
    #[cold]
    #[inline(never)]
    fn verify<V: Vector>(
        &self,
        probe: &Probe,
        name: &[u8],
        at: &[usize],
        tails: &[u64],
        allowance: &Allowance,
    ) -> bool {
        at.iter().zip(tails).any(|(&at, &tails)| {
            let mut tails = tails;
            while tails != 0 {
                let tail = at + (tails.trailing_zeros() >> V::SHIFT) as usize;
                tails &= tails - 1;
                if self.holds_at(probe, name, tail, allowance) {
                    return true;
                }
                if allowance.spent() {
                    return false;
                }
            }
            false
        })
    }

    /// [`Prefilter::scan`] a byte at a time, for names too short for a word.
    #[cold]
    fn scan_bytes(&self, name: &[u8], wanted: Wanted, floor: u32, best: &mut u32) -> Option<bool> {
        for probe in self.anywhere().iter().take_while(|p| p.index < *best) {
            if name.windows(probe.needle.len()).any(|text| self.equal(text, &probe.needle)) {
                // (In index order: the first found is the lowest.)
                *best = probe.index;
                if wanted.done(*best, floor) {
                    return None;
                }
                break;
            }
        }
        Some(all_ascii(name))
    }

    pub(super) fn memory_usage(&self) -> usize {
        self.anywhere().iter().map(|p| p.needle.len()).sum::<usize>()
            + self.at_start.capacity() * size_of::<Prefix>()
            + self.at_start.iter().map(|p| p.needle.len()).sum::<usize>()
    }
}

impl Probe {
    /// The probes of `needle` lie within its last `tail` bytes, at
    /// `offsets` from their start; `fold_bit` as [`Prefilter::fold_bit`].
    fn new(needle: &[u8], index: u32, tail: usize, offsets: [usize; PROBES], fold_bit: u8) -> Probe {
        let shift = needle.len() - tail;
        let tail = &needle[shift..];
        let splats = Splats(offsets.map(|at| [tail[at] | fold_bit; 32]));
        Probe { needle: needle.into(), index, shift, splats }
    }
}

/// Where in the needles' tails (lower case, all as long, at least one)
/// the probes are, the same [`PROBES`] places for every needle: those
/// whose bytes, summed over the needles, rank rarest by `memchr`'s
/// ranking, digits last, a place repeating another's byte counting as
/// worse than any digit. For one needle that is its
/// rarest distinct bytes. Image names are full of digits (versions, tags,
/// digests) where general text has few: `8` and `4` of `ocp-release:4.18`
/// stand in every `v4.18` tag and a fifth of all digests, where `:` and
/// `.` stand in none of them. (The same places for all: a chunk of the
/// name is loaded and folded once a probe, not once a probe and needle,
/// which in WebAssembly, whose runtime checks every load, costs as much
/// as the compares: docs/BENCHMARKS.md.) In increasing order; a tail
/// shorter than `PROBES` repeats its last place.
fn probe_offsets(tails: &[Vec<u8>]) -> [usize; PROBES] {
    let len = tails[0].len();
    debug_assert!(len > 0 && tails.iter().all(|tail| tail.len() == len));
    if len < PROBES {
        // Every place, the last repeated.
        return std::array::from_fn(|i| i.min(len - 1));
    }
    let ranks = byte_ranks();
    let place = |i: usize| tails.iter().map(|tail| usize::from(ranks[usize::from(tail[i])])).sum::<usize>();
    let places: Vec<usize> = (0..len).map(place).collect();
    // A byte repeated among a needle's probes tells it apart no better
    // than the other: worse than any byte.
    let repeats = |[i, j, k]: [usize; PROBES]| {
        tails.iter().map(|t| usize::from(t[j] == t[i]) + usize::from(t[k] == t[i] || t[k] == t[j])).sum::<usize>()
    };
    let cost = |p: [usize; PROBES]| places[p[0]] + places[p[1]] + places[p[2]] + 256 * repeats(p);
    let mut best = ([0, 1, 2], cost([0, 1, 2]));
    for i in 0..len {
        for j in i + 1..len {
            for k in j + 1..len {
                // (The places' ranks alone bound the cost from below: most
                // choices end there, without reading the tails again.)
                if places[i] + places[j] + places[k] < best.1 {
                    let c = cost([i, j, k]);
                    if c < best.1 {
                        best = ([i, j, k], c);
                    }
                }
            }
        }
    }
    best.0
}

/// Each byte's rank among all 256 in `memchr`'s ranking, rarest first,
/// digits after every other byte. (`memchr` shows its ranking only
/// through a pair of two bytes, which starts with the rarer: the 256
/// bytes are sorted by that once, for the process.)
fn byte_ranks() -> &'static [u8; 256] {
    static RANKS: OnceLock<[u8; 256]> = OnceLock::new();
    RANKS.get_or_init(|| {
        let rarer = |a: u8, b: u8| Pair::new(&[b, a]).is_some_and(|pair| pair.index1() == 1);
        let mut bytes: [u8; 256] = std::array::from_fn(|b| b as u8);
        bytes.sort_by(|&a, &b| a.is_ascii_digit().cmp(&b.is_ascii_digit()).then(rarer(b, a).cmp(&rarer(a, b))));
        let mut ranks = [0u8; 256];
        for (rank, &byte) in (0u8..=255).zip(&bytes) {
            ranks[usize::from(byte)] = rank;
        }
        ranks
    })
}

#[cfg(test)]
mod tests {
    use crate::oracle::ReferenceSet;
    use crate::set::{PinSet, Shape};
    use crate::Flags;

    /// Names around each needle of `patterns`: at the start, the end and
    /// in between, of every length from shorter than the needle to past
    /// every chunk shape (16- and 32-byte vectors, 2 and 4 of them, the
    /// loop beyond), in both cases, beside a byte >= 0x80, and runs of a
    /// needle's bytes that make overlapping candidates.
    fn names_around(patterns: &[&str]) -> Vec<Vec<u8>> {
        let needles: Vec<&str> = patterns.iter().map(|p| p.trim_matches('*')).filter(|n| !n.is_empty()).collect();
        let lengths =
            (0..48usize).chain([63, 64, 65, 70, 71, 72, 73, 80, 96, 127, 128, 135, 136, 137, 140, 200, 255, 256, 300]);
        let mut names = Vec::new();
        for needle in &needles {
            let cases = [needle.to_string(), needle.to_ascii_uppercase(), needle.to_ascii_lowercase()];
            for len in lengths.clone() {
                for case in &cases {
                    let filler = |n: usize| "xy/.-".bytes().cycle().take(n).collect::<Vec<u8>>();
                    let Some(rest) = len.checked_sub(case.len()) else {
                        // Shorter than the needle: a piece of it.
                        names.push(case.as_bytes()[..len].to_vec());
                        continue;
                    };
                    for before in [0, rest / 2, rest] {
                        let mut name = filler(before);
                        name.extend_from_slice(case.as_bytes());
                        name.extend(filler(rest - before));
                        names.push(name.clone());
                        // A byte >= 0x80 before, in, and after the needle.
                        for at in [0, before, before + case.len() / 2, len.saturating_sub(1)] {
                            if let Some(b) = name.get_mut(at) {
                                let was = std::mem::replace(b, 0xff);
                                names.push(name.clone());
                                name[at] = was;
                            }
                        }
                        // The needle with its last byte cut, and doubled:
                        // candidates that fail, and ones that overlap.
                        if let Some((_, head)) = case.as_bytes().split_last() {
                            let mut cut = filler(before);
                            cut.extend_from_slice(head);
                            cut.extend_from_slice(head);
                            cut.extend(filler(rest));
                            names.push(cut);
                        }
                    }
                }
            }
        }
        // Folding that only the canonical form sees: Kelvin sign for K,
        // long s for S.
        for needle in &needles {
            let kin = needle.to_ascii_uppercase().replace('K', "\u{212A}").replace('S', "\u{17F}");
            names.push(format!("some.registry.example/{kin}/x").into_bytes());
            names.push(format!("{kin}{}", "z".repeat(150)).into_bytes());
        }
        names
    }

    /// The probes skip digits where a tail has other bytes: `4` and `8` of
    /// `ocp-release:4.18` stand in every `v4.18` tag. And they are the same
    /// places for every needle, chosen for all of them.
    #[test]
    fn probes_are_bytes_that_tell_image_names_apart() {
        let of =
            |tails: &[&str]| super::probe_offsets(&tails.iter().map(|t| t.as_bytes().to_vec()).collect::<Vec<_>>());
        let probes = |tail: &str| of(&[tail]).map(|at| tail.as_bytes()[at]);
        for tail in ["ase:4.18", "v1.2.3-r1", "nitoring", "o/myorg/", "sidecar"] {
            let [a, b, c] = probes(tail);
            let show = format!("{tail}: {:?}", [a, b, c].map(char::from));
            assert!(a != b && b != c && a != c, "{show}");
            assert!(![a, b, c].iter().any(u8::is_ascii_digit), "{show}");
        }
        // One byte that is not a digit, then the rarest digits.
        let [a, b, c] = probes("1.234567");
        assert_eq!((a, b.is_ascii_digit(), c.is_ascii_digit(), b != c), (b'.', true, true, true));
        // In increasing order, the last at the reach.
        for tails in [&["ase:4.18"][..], &["1.234567"], &["oject-0/", "io/pause", "y/nginx:"]] {
            let offsets = of(tails);
            assert!(offsets.is_sorted(), "{tails:?} {offsets:?}");
        }
        // Nothing but digits: three distinct ones.
        let [a, b, c] = probes("20261201");
        assert!(a != b && b != c && a != c, "{:?}", [a, b, c].map(char::from));
        // A tail shorter than the probes repeats its last place.
        assert_eq!(of(&["a"]), [0, 0, 0]);
        assert_eq!(of(&["7"]), [0, 0, 0]);
        assert_eq!(of(&["ab"]).iter().filter(|&&at| at == 1).count(), 2);
        // Several needles: places where none of them has a digit, where
        // each has one.
        let tails = ["oject-0/", "oject-1/", "io/pause", "y/nginx:", "idecar-0"];
        for at in of(&tails) {
            assert!(tails.iter().all(|tail| !tail.as_bytes()[at].is_ascii_digit()), "{tails:?} {at}");
        }
    }

    #[test]
    fn the_prefilter_agrees_with_the_walk_and_the_oracle_at_its_edges() {
        let lists: &[&[&str]] = &[
            &["*monitoring*"],
            &["quay.io/myorg/*", "*monitoring*", "docker.io/library/nginx:latest", "registry.k8s.io/pause:3.10"],
            &["*a*"],
            &["*ab*", "*aab*", "aaab*"],
            &["*kube*", "*Sidecar-0*", "k8s.io/*", "*kubE*"],
            &["x*", "*y*"],
            &["*\u{e9}t\u{e9}*", "*caf\u{c9}*"],
            &["*long-tail.example/v1.2.3-and-more-bytes-than-any-vector*", "*zq*"],
            &["*p1*", "*p2*", "*p3*", "*p4*", "*p5*", "*p6*", "*p7*", "*p8*"],
        ];
        let flag_sets = [
            Flags::DEFAULT,
            Flags::ANCHOR_GLOBS,
            Flags::CASE_SENSITIVE,
            Flags::CASE_SENSITIVE | Flags::ANCHOR_GLOBS,
            Flags::CONTAINERD,
            Flags::CRI_DOCKERD,
        ];
        for patterns in lists {
            let names = names_around(patterns);
            for flags in flag_sets {
                let mut sets = PinSet::compile_every_shape(*patterns, flags).unwrap();
                // The search in the machine's narrowest vectors (SSE2 on
                // x86-64), beside the widest, which this machine runs.
                let narrowest = sets
                    .iter()
                    .filter(|(shape, _)| shape.prefilter)
                    .map(|&(shape, _)| {
                        let mut set = PinSet::compile_shaped(*patterns, flags, shape).unwrap();
                        if let Some(prefilter) = &mut set.needles.prefilter {
                            prefilter.simd = super::arch::Simd::NARROWEST;
                        }
                        (shape, set)
                    })
                    .collect::<Vec<_>>();
                sets.extend(narrowest);
                let oracle =
                    Flags::CRIO_OPTIONS.contains(flags).then(|| ReferenceSet::compile(*patterns, flags).unwrap());
                let walked = sets.iter().find(|(shape, _)| !shape.prefilter).map(|(_, set)| set).unwrap();
                let with: Vec<&(Shape, PinSet)> = sets.iter().filter(|(shape, _)| shape.prefilter).collect();
                let has_needles = walked.shape().is_some();
                assert!(
                    with.iter().all(|(_, set)| set.needles.prefilter.is_some() == has_needles),
                    "{patterns:?} {flags:?}"
                );
                for name in &names {
                    let want = match &oracle {
                        Some(oracle) => oracle.match_index(name),
                        None => walked.match_index(name),
                    };
                    for (shape, set) in &sets {
                        let show = String::from_utf8_lossy(name);
                        assert_eq!(set.match_index(name), want, "{patterns:?} {flags:?} {shape:?} {show:?}");
                        assert_eq!(set.is_match(name), want.is_some(), "{patterns:?} {flags:?} {shape:?} {show:?}");
                    }
                }
            }
        }
    }
}
