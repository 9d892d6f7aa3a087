//! The compiled matcher: where a list of patterns becomes a [`PinSet`].
//!
//! Every pattern is reduced to a canonical needle ([`crate::fold`]) and put
//! in one of three structures, each answering for all its patterns in one
//! pass over the (canonical) name:
//!
//! - exact patterns: a hash map from needle to the lowest pattern index;
//! - substring patterns (keywords, and globs as CRI-O treats them): one
//!   Aho-Corasick automaton;
//! - anchored globs ([`Flags::ANCHOR_GLOBS`]): one anchored Aho-Corasick
//!   automaton, which finds the longest needle that is a prefix of the name.
//!
//! Duplicate needles collapse into one entry that keeps the lowest index, so
//! [`PinSet::match_index`] equals the index of the first regexp in CRI-O's
//! loop that matches. Substring needles are searched with overlapping
//! matches to find the lowest index among all that occur. For prefixes, each
//! needle carries the lowest index of any needle that is a prefix of it, so
//! the longest prefix found answers for all of them. The empty needle (`**`)
//! matches every name and is kept beside the automaton rather than in it.
//!
//! Nothing is cached or mutated while matching: a `PinSet` is immutable,
//! `Send + Sync`, and shared by reference (or `Arc`) across threads.

use std::collections::HashMap;

use aho_corasick::{AhoCorasick, AhoCorasickKind, Anchored, Input, MatchKind, StartKind};
use foldhash::fast::FixedState;

use crate::fold;
use crate::pattern::{CompileError, ErrorKind, Flags, Pattern};

/// Most patterns one set may hold. Real lists hold up to tens of thousands;
/// the bound keeps a runaway generator from exhausting the node's memory.
pub const MAX_PATTERNS: usize = 10_000_000;

/// Most bytes of pattern text one set may hold, all patterns together. A
/// compiled set needs a small multiple of this: about 14 bytes per byte of
/// keyword or glob text that shares no prefix with another (so under 1 GiB
/// at the bound), far less for real lists.
pub const MAX_PATTERN_BYTES: usize = 64 << 20;

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
    exact: HashMap<Box<[u8]>, u32, FixedState>,
    substrings: Needles,
    prefixes: Needles,
    lengths: Lengths,
}

/// Which name lengths can match at all: the lengths of the exact needles,
/// and the shortest substring or prefix needle. An ASCII name's canonical
/// form has its length, so most ASCII names of the wrong length are turned
/// away before canonicalising (a list of exact names, such as CRI-O's
/// default of only the pause image, then costs almost nothing per name).
#[derive(Debug, Default)]
struct Lengths {
    /// Bit n: an exact needle of n bytes (n < 256).
    exact_short: [u64; 4],
    /// Some exact needle has 256 bytes or more.
    exact_long: bool,
    /// The shortest substring or prefix needle, if any.
    shortest_needle: Option<usize>,
}

impl Lengths {
    fn add_exact(&mut self, len: usize) {
        match self.exact_short.get_mut(len / 64) {
            Some(word) => *word |= 1 << (len % 64),
            None => self.exact_long = true,
        }
    }

    fn add_needle(&mut self, len: usize) {
        self.shortest_needle = Some(self.shortest_needle.map_or(len, |s| s.min(len)));
    }

    /// Whether a name whose canonical form has `len` bytes may match.
    fn may_match(&self, len: usize) -> bool {
        let exact = match self.exact_short.get(len / 64) {
            Some(word) => word & (1 << (len % 64)) != 0,
            None => self.exact_long,
        };
        exact || self.shortest_needle.is_some_and(|s| len >= s)
    }

    /// Whether `name` certainly matches nothing, known without
    /// canonicalising it (checks length first: is_ascii reads the name).
    fn rules_out(&self, name: &[u8]) -> bool {
        !self.may_match(name.len()) && name.is_ascii()
    }
}

/// Needle sets up to this many bytes get a DFA; larger ones a contiguous NFA.
const DFA_MAX_NEEDLE_BYTES: usize = 32 << 10;

/// Needles searched together, each with the lowest index of the patterns
/// that produced it.
#[derive(Debug)]
struct Needles {
    anchored: bool,
    /// The lowest index of a pattern whose needle is empty (it matches
    /// every name).
    empty: Option<u32>,
    automaton: Option<AhoCorasick>,
    /// `lowest_index[pattern id in the automaton]`.
    lowest_index: Vec<u32>,
    /// The lowest of all indexes here: a search can stop once it finds it.
    floor: u32,
}

impl Needles {
    fn build(anchored: bool, needles: Vec<(Vec<u8>, u32)>) -> Result<Needles, CompileError> {
        let mut lowest: HashMap<Vec<u8>, u32, FixedState> = HashMap::default();
        let mut ordered: Vec<Vec<u8>> = Vec::new();
        let mut empty = None;
        for (needle, index) in needles {
            if needle.is_empty() {
                empty = empty.or(Some(index));
            } else if !lowest.contains_key(&needle) {
                // Indexes arrive in ascending order: the first one is lowest.
                lowest.insert(needle.clone(), index);
                ordered.push(needle);
            }
        }
        let mut lowest_index: Vec<u32> = ordered.iter().map(|n| lowest[n]).collect();
        if anchored {
            inherit_from_prefixes(&ordered, &mut lowest_index);
        }
        let automaton = if ordered.is_empty() {
            None
        } else {
            let needle_bytes: usize = ordered.iter().map(Vec::len).sum();
            // A DFA is the fastest per byte but costs up to a full transition
            // row per trie node, and its build time grows faster than the
            // text (a single 1 MiB needle takes minutes): use it only for
            // small needle sets, the contiguous NFA otherwise.
            let kind = if needle_bytes <= DFA_MAX_NEEDLE_BYTES {
                AhoCorasickKind::DFA
            } else {
                AhoCorasickKind::ContiguousNFA
            };
            let built = AhoCorasick::builder()
                .kind(Some(kind))
                .match_kind(if anchored { MatchKind::LeftmostLongest } else { MatchKind::Standard })
                .start_kind(if anchored { StartKind::Anchored } else { StartKind::Unanchored })
                .build(&ordered);
            // Only reachable past aho-corasick's own state limits, which
            // MAX_PATTERN_BYTES keeps well away from.
            Some(built.map_err(|_| {
                CompileError::new(
                    None,
                    ErrorKind::TooLarge { what: "the automaton of all patterns", limit: u32::MAX as usize },
                )
            })?)
        };
        let floor = lowest_index.iter().copied().chain(empty).min().unwrap_or(u32::MAX);
        Ok(Needles { anchored, empty, automaton, lowest_index, floor })
    }

    fn input<'h>(&self, name: &'h [u8]) -> Input<'h> {
        Input::new(name).anchored(if self.anchored { Anchored::Yes } else { Anchored::No })
    }

    fn is_match(&self, name: &[u8]) -> bool {
        self.empty.is_some()
            || self.automaton.as_ref().is_some_and(|ac| ac.is_match(self.input(name)))
    }

    /// The lowest index among needles found in `name`, if any is lower than
    /// `below`.
    fn lowest_match(&self, name: &[u8], below: Option<u32>) -> Option<u32> {
        let mut best = below;
        if self.empty.is_some() && (best.is_none() || self.empty < best) {
            best = self.empty;
        }
        let Some(ac) = &self.automaton else { return best };
        if best.is_some_and(|b| b <= self.floor) {
            return best;
        }
        if self.anchored {
            let longest = ac.find(self.input(name));
            let index = longest.map(|m| self.lowest_index[m.pattern().as_usize()]);
            return match (best, index) {
                (Some(b), Some(i)) => Some(b.min(i)),
                (b, i) => b.or(i),
            };
        }
        for found in ac.find_overlapping_iter(self.input(name)) {
            let index = self.lowest_index[found.pattern().as_usize()];
            if best.is_none_or(|b| index < b) {
                best = Some(index);
                if index == self.floor {
                    break;
                }
            }
        }
        best
    }

    fn memory_usage(&self) -> usize {
        self.automaton.as_ref().map_or(0, AhoCorasick::memory_usage)
            + self.lowest_index.capacity() * std::mem::size_of::<u32>()
    }
}

/// Lowers each needle's index to the lowest index of any needle that is a
/// prefix of it, so that the longest needle found at the start of a name
/// carries the lowest index of every needle found there.
fn inherit_from_prefixes(needles: &[Vec<u8>], lowest: &mut [u32]) {
    let mut order: Vec<usize> = (0..needles.len()).collect();
    order.sort_unstable_by(|&a, &b| needles[a].cmp(&needles[b]));
    // In sorted order every needle's prefixes come before it, and every
    // needle between a prefix and it also starts with that prefix: so the
    // longest prefix of the current needle is on this chain.
    let mut chain: Vec<usize> = Vec::new();
    for i in order {
        while chain.last().is_some_and(|&top| !needles[i].starts_with(&needles[top])) {
            chain.pop();
        }
        if let Some(&top) = chain.last() {
            lowest[i] = lowest[i].min(lowest[top]);
        }
        chain.push(i);
    }
}

impl PinSet {
    /// Compiles `patterns` (each any bytes; it must be UTF-8 text) under
    /// `flags`. Fails with the index of the first bad pattern.
    pub fn compile<I>(patterns: I, flags: Flags) -> Result<PinSet, CompileError>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        let fold = !flags.contains(Flags::CASE_SENSITIVE);
        let mut exact: HashMap<Box<[u8]>, u32, FixedState> = HashMap::default();
        let mut substrings = Vec::new();
        let mut prefixes = Vec::new();
        let mut lengths = Lengths::default();
        let mut len = 0;
        let mut total_bytes = 0usize;
        for (i, raw) in patterns.into_iter().enumerate() {
            let raw = raw.as_ref();
            if i >= MAX_PATTERNS {
                return Err(CompileError::new(
                    Some(i),
                    ErrorKind::TooLarge { what: "the number of patterns", limit: MAX_PATTERNS },
                ));
            }
            total_bytes = total_bytes.saturating_add(raw.len());
            if total_bytes > MAX_PATTERN_BYTES {
                return Err(CompileError::at(
                    i,
                    raw,
                    ErrorKind::TooLarge {
                        what: "the total size of all patterns in bytes",
                        limit: MAX_PATTERN_BYTES,
                    },
                ));
            }
            let index = u32::try_from(i).expect("MAX_PATTERNS fits in u32");
            let text = std::str::from_utf8(raw).map_err(|e| {
                CompileError::at(i, raw, ErrorKind::NotUtf8 { valid_up_to: e.valid_up_to() })
            })?;
            let pattern =
                Pattern::parse(text, flags).map_err(|kind| CompileError::at(i, raw, kind))?;
            let needle = fold::canonical(pattern.text().as_bytes(), fold);
            match pattern {
                Pattern::Exact(_) => lengths.add_exact(needle.len()),
                Pattern::Glob(_) | Pattern::Keyword(_) => lengths.add_needle(needle.len()),
            }
            match pattern {
                Pattern::Exact(_) => {
                    exact.entry(needle.into_boxed_slice()).or_insert(index);
                }
                Pattern::Glob(_) if flags.contains(Flags::ANCHOR_GLOBS) => {
                    prefixes.push((needle, index))
                }
                Pattern::Glob(_) | Pattern::Keyword(_) => substrings.push((needle, index)),
            }
            len = i + 1;
        }
        exact.shrink_to_fit();
        Ok(PinSet {
            flags,
            len,
            exact,
            substrings: Needles::build(false, substrings)?,
            prefixes: Needles::build(true, prefixes)?,
            lengths,
        })
    }

    /// Whether any pattern matches `name`: the image is pinned.
    pub fn is_match(&self, name: &[u8]) -> bool {
        if self.lengths.rules_out(name) {
            return false;
        }
        fold::with_canonical(name, self.folds(), |name| {
            (!self.exact.is_empty() && self.exact.contains_key(name))
                || self.substrings.is_match(name)
                || self.prefixes.is_match(name)
        })
    }

    /// The lowest index of a pattern that matches `name`: the first regexp
    /// in CRI-O's loop that would match it.
    pub fn match_index(&self, name: &[u8]) -> Option<usize> {
        if self.lengths.rules_out(name) {
            return None;
        }
        fold::with_canonical(name, self.folds(), |name| {
            let exact = if self.exact.is_empty() { None } else { self.exact.get(name).copied() };
            let best = self.substrings.lowest_match(name, exact);
            self.prefixes.lowest_match(name, best).map(|i| i as usize)
        })
    }

    /// Whether any of `names` (all the names of one image) is pinned.
    pub fn match_any<I>(&self, names: I) -> bool
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        names.into_iter().any(|name| self.is_match(name.as_ref()))
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
        let slot = std::mem::size_of::<(Box<[u8]>, u32)>() + 1;
        let exact: usize = self.exact.keys().map(|k| k.len()).sum::<usize>()
            + self.exact.capacity() * slot;
        exact + self.substrings.memory_usage() + self.prefixes.memory_usage()
    }

    fn folds(&self) -> bool {
        !self.flags.contains(Flags::CASE_SENSITIVE)
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
        let g = set(&["abc*", "x"], Flags::DEFAULT);
        assert!(g.lengths.rules_out(b"ab"));
        assert!(!g.lengths.rules_out(b"a"), "an exact length");
        assert!(!g.lengths.rules_out(b"abcd"));
        assert!(!set(&["**"], Flags::DEFAULT).lengths.rules_out(b""));
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
