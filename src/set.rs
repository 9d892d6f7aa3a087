//! The compiled matcher: where a list of patterns becomes a [`PinSet`].
//!
//! Every pattern is reduced to a canonical needle ([`crate::fold`]) and put
//! in one of two structures, which together answer for all patterns in one
//! pass over the name:
//!
//! - exact patterns: a hash table from needle to the lowest pattern index
//!   ([`exact`]), which an ASCII name is looked up in as it is;
//! - glob and keyword needles: one Aho-Corasick automaton in one of two
//!   tiers ([`Tier`]). The fast tier is a dense DFA of our own ([`dfa`])
//!   whose byte classes (or, up to [`budget::WIDE_MAX_BYTES`], byte
//!   columns) fold ASCII case, so an ASCII name is walked as it is, its
//!   two halves at once: one table entry a byte. A list whose table would
//!   pass [`DENSE_MAX_BYTES`] gets the second tier, a sparse automaton
//!   ([`sparse`], 16 bytes a state), whose cost a name is bounded by the
//!   name's length too (at most 2 states visited a byte): no list is
//!   refused for its size (the shape a list gets: [`Budget`]). Keywords,
//!   and globs as CRI-O has them, match anywhere; anchored globs
//!   ([`Flags::ANCHOR_GLOBS`]) only where the needle starts at 0.
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
//! One file a concern, in layers: each file imports only from the layers
//! below it (and the crate's own modules outside `set`), never sideways
//! into a file that imports it, and directly from the file that defines
//! what it uses.
//!
//! 1. The words every structure speaks, importing nothing of the engine:
//!    [`search`] (what a search is asked, [`search::Query`], and what it
//!    answers, [`search::Found`] or [`search::NeedsCanonical`]; who a
//!    needle belongs to, [`search::Owner`]), [`lengths`] (names turned away
//!    by length, and the ASCII test), [`budget`] (the tiers, their costs,
//!    and which shape a list's automaton gets).
//! 2. What the list is read into, and the structures built from it alone:
//!    [`intake`] (the list read and parsed within the limits, into needle
//!    lists), [`trie`] (the needles' one trie and its failure links),
//!    [`prefilter`] (a SIMD search that answers for a few needles alone).
//! 3. What is built on those: [`exact`] (the exact table, from a needle
//!    list), [`dfa`] (the dense DFA derived from the trie), [`sparse`]
//!    (the sparse automaton the trie is packed into).
//! 4. What gathers them: [`needles`] (glob and keyword needles ordered,
//!    deduplicated, given their tier and searched: prefilter, then
//!    automaton), [`dialect`]
//!    (the other runtimes' name-side work, on an exact table).
//! 5. This file, [`PinSet`] and the order in which a name meets them; and
//!    beside it `shape` (feature `testing`: the tests' knob that builds
//!    every shape of one list, and the counts they read).
//!
//! Nothing is cached or mutated while matching: a `PinSet` is immutable,
//! `Send + Sync`, and shared by reference (or `Arc`) across threads.

mod budget;
mod dfa;
mod dialect;
mod exact;
mod intake;
mod lengths;
mod needles;
mod prefilter;
mod search;
#[cfg(feature = "testing")]
mod shape;
mod sparse;
mod trie;

use crate::fingerprint::{Fingerprint, ListHasher};
use crate::fold;
use crate::normalize::normalize;
use crate::pattern::{CompileError, Flags, Pattern};
use budget::Budget;
use dialect::{repository_of, Dialect};
use exact::ExactTable;
use intake::{each_pattern, NeedleList};
use lengths::Lengths;
use needles::{Automaton, Needles, Ordered};
use prefilter::Prefilter;
use search::{lower, Form, Found, NeedsCanonical, Query, Wanted};

pub use budget::{Tier, DENSE_MAX_BYTES};
pub(crate) use intake::{too_many_bytes, too_many_patterns};
pub use intake::{MAX_PATTERNS, MAX_PATTERN_BYTES};
#[cfg(feature = "testing")]
pub use shape::{AutomatonShape, Shape, Verification};
#[cfg(feature = "testing")]
pub use sparse::WalkCount;

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
    /// [`PinSet::is_match`] asks the prefilter first, whose answer for
    /// most names is the needles' ([`Prefilter::holds_ascii`]): CRI-O's
    /// rules, a few needles all matching anywhere, none empty.
    quick: bool,
    /// The fingerprint of the list compiled, hashed as it was read.
    fingerprint: Fingerprint,
}

impl PinSet {
    /// Checks `patterns` as [`PinSet::compile`] does, building no matcher:
    /// `Err` with exactly the error `compile` would give, `Ok` with the
    /// [`Tier`] the set would get ([`PinSet::tier`]) when it would succeed.
    /// For validating a configuration before it is used; one pass over the
    /// patterns, holding the canonical text of the globs and keywords (and
    /// 20 bytes each) to size their automaton, which costs a sort of them.
    ///
    /// ```
    /// use crio_pin::{Flags, PinSet, Tier};
    /// let err = PinSet::validate(["quay.io/*", "*"], Flags::DEFAULT).unwrap_err();
    /// assert_eq!(err.pattern_index(), Some(1));
    /// assert!(matches!(PinSet::validate(["quay.io/*", "**"], Flags::DEFAULT), Ok(Tier::Dense { .. })));
    /// ```
    pub fn validate<I>(patterns: I, flags: Flags) -> Result<Tier, CompileError>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        let fold = !flags.contains(Flags::CASE_SENSITIVE);
        let mut needles = NeedleList::default();
        each_pattern(patterns, flags, |index, pattern| {
            if let Pattern::Glob(text) | Pattern::Keyword(text) = pattern {
                needles.push(text.as_bytes(), fold, index, false);
            }
        })?;
        Ok(Ordered::of(&mut needles).tier(Budget::DEFAULT).0)
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

    /// As [`PinSet::compile`], with the list's fingerprint given: its
    /// caller hashed the list (the WebAssembly module's host, whose
    /// SHA-256 runs on the machine's own instructions, where the module's
    /// was the largest part of a large list's compile: `crate::wasm`).
    #[cfg(target_family = "wasm")]
    pub(crate) fn compile_fingerprinted<I>(
        patterns: I,
        flags: Flags,
        fingerprint: Fingerprint,
    ) -> Result<PinSet, CompileError>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        PinSet::build(patterns, flags, Budget::DEFAULT, Some(fingerprint))
    }

    /// As [`PinSet::compile`], within `budget`.
    fn compile_with<I>(patterns: I, flags: Flags, budget: Budget) -> Result<PinSet, CompileError>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        PinSet::build(patterns, flags, budget, None)
    }

    /// As [`PinSet::compile`], within `budget`; the list's fingerprint
    /// `given`, or hashed here as the list is read.
    fn build<I>(patterns: I, flags: Flags, budget: Budget, given: Option<Fingerprint>) -> Result<PinSet, CompileError>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        let fold = !flags.contains(Flags::CASE_SENSITIVE);
        let mut exact = NeedleList::default();
        let mut needles = NeedleList::default();
        let mut repositories = NeedleList::default();
        let mut lengths = Lengths::default();
        // Hashed as each pattern is read, in the one pass over the list
        // (a list refused for size has its first pattern past the limit
        // hashed before the refusal: through the C ABI, none is read).
        // (The fingerprint given, or the hasher making it.)
        let mut fingerprint = given.ok_or_else(|| ListHasher::new(flags.bits()));
        let patterns = patterns.into_iter().inspect(|pattern| {
            if let Err(hasher) = &mut fingerprint {
                hasher.add(pattern.as_ref());
            }
        });
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
        let needles = Needles::build(needles, fold, budget);
        let quick = dialect.is_none()
            && needles.empty.is_none()
            && needles.prefilter.as_ref().is_some_and(Prefilter::matches_anywhere_only);
        let fingerprint = fingerprint.unwrap_or_else(ListHasher::finish);
        Ok(PinSet { flags, len, exact: ExactTable::build(exact, fold), needles, lengths, dialect, quick, fingerprint })
    }

    /// Whether any pattern matches `name`: the image is pinned.
    #[inline]
    pub fn is_match(&self, name: &[u8]) -> bool {
        // (Both paths out of line: either inlined here, its stack frame
        // cost the other every call.)
        if self.quick {
            self.is_match_quick(name)
        } else {
            self.is_match_walked(name)
        }
    }

    /// [`PinSet::is_match`] where the prefilter answers most names alone
    /// ([`PinSet::quick`]), falling back to the whole path.
    #[inline(never)]
    fn is_match_quick(&self, name: &[u8]) -> bool {
        match self.needles.prefilter.as_ref().and_then(|p| p.holds_ascii(name)) {
            Some(true) => true,
            Some(false) => self.exact_pins_ascii(name),
            None => self.is_match_walked(name),
        }
    }

    #[inline(never)]
    fn is_match_walked(&self, name: &[u8]) -> bool {
        self.lowest_pinning(name, Wanted::Any).is_some()
    }

    /// The lowest index of a pattern that matches `name`: the first regexp
    /// in CRI-O's loop that would match it.
    pub fn match_index(&self, name: &[u8]) -> Option<usize> {
        self.lowest_pinning(name, Wanted::Lowest).map(|i| i as usize)
    }

    /// The lowest index pinning `name` (or any, as `wanted`): turns
    /// away names of lengths nothing matches, then applies the set's rules.
    #[inline(always)]
    fn lowest_pinning(&self, name: &[u8], wanted: Wanted) -> Option<u32> {
        // (Under a dialect the lengths are open: its names pass.)
        if self.lengths.rules_out(name) {
            return None;
        }
        match &self.dialect {
            None => self.lowest_canonicalising(name, wanted),
            Some(dialect) => self.lowest_normalized_or_by_repository(dialect, name, wanted),
        }
    }

    /// [`PinSet::lowest_canonicalising`] under the other runtimes' rules,
    /// which add normalising the name first (when it is a reference) and
    /// then looking its repository up among the bare repositories.
    #[cold]
    fn lowest_normalized_or_by_repository(&self, dialect: &Dialect, name: &[u8], wanted: Wanted) -> Option<u32> {
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
        let found = self.lowest_canonicalising(name, wanted);
        if (wanted == Wanted::Any && found.is_some()) || dialect.repositories.is_empty() {
            return found;
        }
        let repository = repository_of(name);
        lower(found, self.with_canonical(repository, |r| dialect.repositories.get(r)))
    }

    /// The lowest index among the exact patterns and the needles pinning
    /// `name`: [`PinSet::lowest_as_given`], which adds canonicalising the
    /// name first when it must be (a byte >= 0x80).
    #[inline(always)]
    fn lowest_canonicalising(&self, name: &[u8], wanted: Wanted) -> Option<u32> {
        self.lowest_as_given(name, wanted).unwrap_or_else(|NeedsCanonical| {
            self.with_canonical(name, |name| {
                let exact = self.exact.get(name);
                let query = Query { wanted, form: Form::Canonical };
                self.needles.search(name, query, exact).expect("a canonical name is searched as it is").lowest
            })
        })
    }

    /// The lowest index among the exact patterns and the needles pinning
    /// `name` read as it is, without canonicalising it: fails if that is
    /// needed (a byte >= 0x80).
    #[inline(always)]
    fn lowest_as_given(&self, name: &[u8], wanted: Wanted) -> Result<Option<u32>, NeedsCanonical> {
        // Needles first: a walk to the end proves the name all ASCII. (A
        // needle found in an ASCII prefix is found at the same place in the
        // canonical name, whatever follows.)
        let Found { lowest: found, read_all } =
            self.needles.search(name, Query { wanted, form: Form::AsGiven }, None)?;
        if (wanted == Wanted::Any && found.is_some())
            || self.exact.is_empty()
            // An ASCII name's canonical form has its length.
            || (!self.lengths.exact_may_match(name.len()) && (read_all || crate::fold::all_ascii(name)))
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
        // (In WebAssembly the walk is bound by its instructions, the
        // runtime's bounds checks among them, more than by the loads'
        // latency: 2 lanes took 4 % less time than 4 at 100 to 10k
        // patterns, 6 lanes 8 to 11 % more.)
        const LANES: usize = if cfg!(target_arch = "wasm32") { 2 } else { 4 };
        if self.dialect.is_some() {
            return self.match_each_one_by_one(names, results);
        }
        let Some(Automaton::Dense(dfa)) = &self.needles.automaton else {
            // (The sparse tier's walks gain little from overlapping: most
            // of a step's reads depend on the one before.)
            return self.match_each_one_by_one(names, results);
        };
        if self.needles.empty.is_some() || self.needles.prefilter.is_some() {
            // (A prefilter makes most walks unnecessary: nothing to overlap.)
            return self.match_each_one_by_one(names, results);
        }
        let mut pinned = 0;
        dfa.walk_plain_each::<LANES, { dfa::READ_WORDS }>(
            names.into_iter().take(results.len()).enumerate(),
            |i, name, plain| {
                let yes = if plain { self.exact_pins_ascii(name) } else { self.is_match(name) };
                results[i] = u8::from(yes);
                pinned += usize::from(yes);
            },
        );
        pinned
    }

    /// Whether the exact table pins an ASCII `name` (`walk_plain_each` or the
    /// prefilter proved it). Most names have no exact pattern's length.
    #[inline(always)]
    fn exact_pins_ascii(&self, name: &[u8]) -> bool {
        self.lengths.exact_may_match(name.len()) && self.exact_table_pins_ascii(name)
    }

    fn exact_table_pins_ascii(&self, name: &[u8]) -> bool {
        !self.exact.is_empty() && self.exact.get_raw(name, true).is_ok_and(|i| i.is_some())
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

    /// Which tier answers for its globs and keywords, and so what a name
    /// may cost ([`Tier::reads_per_byte`]); what [`PinSet::validate`] says
    /// of the same list.
    pub fn tier(&self) -> Tier {
        self.needles.tier()
    }

    /// The fingerprint of the list and flags the set was compiled from:
    /// [`fingerprint()`](crate::fingerprint()) of them, which a reload
    /// compares with the new list's to keep this set when nothing changed.
    pub fn fingerprint(&self) -> Fingerprint {
        self.fingerprint
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
    use crate::pattern::ErrorKind;

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

    /// Needles whose probes are equal, or one's tail the end of another's,
    /// are each verified where their probes are found.
    #[test]
    fn prefilter_candidates_are_checked_against_every_needle() {
        let s = set(&["*axyz*", "*bxyz*", "*xy*", "*qq*"], Flags::DEFAULT);
        assert!(s.needles.prefilter.is_some());
        assert_eq!(s.match_index(b"..BXYZ.."), Some(1));
        assert_eq!(s.match_index(b"..bxy"), Some(2));
        assert_eq!(s.match_index(b"xz"), None);
        assert!(s.is_match(b"-Qq-"));
        assert_eq!(s.match_index(b"cxyz"), Some(2));
        // A candidate that is no needle leaves the name unpinned.
        assert_eq!(set(&["*axyz*", "*qq*"], Flags::DEFAULT).match_index(b"cxyz"), None);
    }

    /// `is_match` asks the prefilter alone first exactly where its answer
    /// is the needles' (CRI-O's rules, no anchored or empty needle), and
    /// what it answers then is the whole path's, `match_index`'s.
    #[test]
    fn is_match_asks_the_prefilter_alone_where_it_may() {
        let hand = ["quay.io/myorg/*", "*monitoring*", "docker.io/library/nginx:latest", "registry.k8s.io/pause:3.10"];
        for (patterns, flags, quick) in [
            (&hand[..], Flags::DEFAULT, true),
            (&hand[..], Flags::CASE_SENSITIVE, true),
            (&hand[..], Flags::ANCHOR_GLOBS, false),
            (&hand[..], Flags::CONTAINERD, false),
            (&["*a*", "**"][..], Flags::DEFAULT, false),
            (&["registry.k8s.io/pause:3.10"][..], Flags::DEFAULT, false),
        ] {
            let s = set(patterns, flags);
            assert_eq!(s.quick, quick, "{patterns:?} {flags:?}");
            for name in [
                "quay.io/myorg/api:v2.3.1",
                "QUAY.IO/MyOrg/web@sha256:5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e",
                "docker.io/grafana/monitoring-agent:1.4",
                "docker.io/library/nginx:latest",
                "DOCKER.IO/library/nginx:LATEST",
                "registry.k8s.io/pause:3.10",
                "registry.example/some/other-image:v1.2.3",
                "registry.example/\u{212A}ube-proxy:v1.30-monitoring-x",
            ] {
                assert_eq!(s.is_match(name.as_bytes()), s.match_index(name.as_bytes()).is_some(), "{name}");
            }
        }
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

    /// A list whose globs and keywords need a table past the budget's
    /// dense limit ([`DENSE_MAX_BYTES`] by default; here 1 MiB, so that the
    /// test stays small: tests/bound.rs checks the default's edge) compiles
    /// into the sparse tier, and `validate`'s tier is the same rule; one
    /// byte of needle less and it gets the dense table. (One keyword of
    /// `A`s: a state a byte, 3 columns of 4 bytes a row.)
    #[test]
    fn lists_past_the_dense_tier_compile_into_the_sparse_one() {
        let budget = Budget { dense_max: 1 << 20, ..Budget::DEFAULT };
        let longest = budget.dense_max / 12 - 2;
        let keyword = |n: usize| format!("*{}*", "a".repeat(n));
        let (fits, over) = (keyword(longest), keyword(longest + 1));
        let dense = Tier::Dense { table_bytes: (longest + 2) * 3 * 4 };
        let set = PinSet::compile_with(["x", fits.as_str()], Flags::DEFAULT, budget).unwrap();
        assert_eq!(set.tier(), dense);
        assert!(set.is_match(&vec![b'A'; longest]) && !set.is_match(&vec![b'a'; longest - 1]));
        for flags in [Flags::DEFAULT, Flags::CASE_SENSITIVE, Flags::ANCHOR_GLOBS] {
            let list = ["quay.io/x", over.as_str(), "x*"];
            let set = PinSet::compile_with(list, flags, budget).unwrap();
            assert_eq!(set.tier(), Tier::Sparse { states: longest + 3 }, "{flags:?}");
            let mut name = vec![b'a'; longest + 1];
            assert_eq!(set.match_index(&name), Some(1), "{flags:?}");
            name.pop();
            let x = if flags.contains(Flags::ANCHOR_GLOBS) { None } else { Some(2) };
            assert_eq!(set.match_index(&[&name[..], b"x"].concat()), x, "{flags:?}");
            assert_eq!(set.match_index(b"xa"), Some(2), "{flags:?}");
            assert_eq!(set.match_index(b"QUAY.IO/X"), (!flags.contains(Flags::CASE_SENSITIVE)).then_some(0));
        }
        // Within the default budget both are dense, and validate says so;
        // exact patterns do not count, whatever their size.
        assert!(matches!(PinSet::validate([&over], Flags::DEFAULT), Ok(Tier::Dense { .. })));
        let exact = "a".repeat(longest + 1);
        assert!(matches!(PinSet::validate([&exact, &fits], Flags::DEFAULT), Ok(Tier::Dense { .. })));
        assert_eq!(PinSet::validate([&exact], Flags::DEFAULT), Ok(Tier::Exact));
    }

    #[test]
    fn memory_usage_grows_with_the_list() {
        let small = set(&["a"], Flags::DEFAULT).memory_usage();
        let many: Vec<String> = (0..1000).map(|i| format!("*word-{i}*")).collect();
        let big = PinSet::compile(&many, Flags::DEFAULT).unwrap().memory_usage();
        assert!(big > small * 10, "{small} {big}");
    }
}
