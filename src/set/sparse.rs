//! The glob and keyword needles as a sparse Aho-Corasick automaton: the
//! shape for lists whose dense table ([`super::dfa`]) would outgrow its
//! budget, with memory linear in the needle text and a build linear in it
//! too.
//!
//! - **States in breadth-first order, children contiguous.** The trie is
//!   built level by level from the needles sorted: the needles under one
//!   state are a run of that order, and its children split the run by the
//!   next byte. So the children of state `s` are the states
//!   `first_child[s]..first_child[s + 1]`, ascending by the byte leading to
//!   them (`label`), found by a short search; the root's are also kept in a
//!   256-entry row, since nearly every step of a walk over a name with few
//!   needles in it starts there.
//! - **13 bytes a state, whatever the list**: `first_child`, `fail` and
//!   `anywhere` (4 bytes each) and `label` (1). A state is a distinct
//!   prefix of a needle, so a list of `B` bytes of glob and keyword text
//!   holds at most `13 B` bytes (`B` is at most `MAX_PATTERN_BYTES`).
//! - **The lowest index, precomputed.** `anywhere[s]` is the lowest index
//!   of an unanchored needle that ends at `s` or at any state on its
//!   failure chain (each needle that is a suffix of the state's path), so a
//!   walk reads one entry a byte. Anchored globs match only from the first
//!   byte: a second walk follows children from the root, without failure
//!   links, and looks the states it passes up in `at_start`.
//!
//! A step costs a few dependent loads more than a dense one, and a failure
//! step can repeat, but the failure links only ever shorten the state's
//! path: a walk takes at most two steps a byte, amortised.

use std::ops::Range;

use super::dfa::Canonical;
use super::{Owner, NONE};

#[derive(Debug)]
pub(super) struct Sparse {
    /// Per state and one more: where its children start (see the module
    /// doc).
    first_child: Box<[u32]>,
    /// Per state: the byte leading into it (the root's is unused).
    label: Box<[u8]>,
    /// Per state: its failure state (the longest proper suffix of its path
    /// that is a state).
    fail: Box<[u32]>,
    /// Per state: the lowest index of an unanchored needle that is a suffix
    /// of its path, or [`NONE`].
    anywhere: Box<[u32]>,
    /// (state, index) of each anchored glob's whole needle, by state.
    at_start: Box<[(u32, u32)]>,
    /// The root's transitions by byte (0: back to the root).
    root: Box<[u32; 256]>,
    /// Case folding: a raw name's ASCII letters are walked upper-cased.
    fold: bool,
}

/// How many bytes `a` and `b` start with in common.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

impl Sparse {
    /// The automaton of `needles` (canonical, distinct, non-empty, sorted;
    /// `owners[i]` pins for `needles[i]`).
    pub(super) fn build(needles: &[&[u8]], owners: &[Owner], fold: bool) -> Sparse {
        debug_assert!(needles.is_sorted());

        // The trie, level by level: each state of a level is a run of
        // the needles (those sharing its path), split by the next byte into
        // the runs of its children. A needle as long as the path sorts
        // first in its run and ends at that state.
        // One state per distinct prefix: the root, and each needle's bytes
        // past what it shares with the one before it. (Sized exactly: a
        // growing vector would briefly need twice the memory.)
        let states = 1
            + (0..needles.len())
                .map(|k| {
                    let shared = if k == 0 { 0 } else { common_prefix(needles[k - 1], needles[k]) };
                    needles[k].len() - shared
                })
                .sum::<usize>();
        let mut first_child = Vec::with_capacity(states + 1);
        let mut label = Vec::with_capacity(states);
        label.push(0u8);
        let mut ends: Vec<(u32, u32)> = Vec::with_capacity(needles.len());
        let mut level = vec![(0usize, needles.len())];
        let mut depth = 0;
        let mut state = 0u32;
        while !level.is_empty() {
            let mut next_level = Vec::new();
            for &(start, end) in &level {
                first_child.push(label.len() as u32);
                let mut k = start;
                if k < end && needles[k].len() == depth {
                    ends.push((state, k as u32));
                    k += 1;
                }
                while k < end {
                    let byte = needles[k][depth];
                    let run = k;
                    while k < end && needles[k][depth] == byte {
                        k += 1;
                    }
                    label.push(byte);
                    next_level.push((run, k));
                }
                state += 1;
            }
            level = next_level;
            depth += 1;
        }
        first_child.push(label.len() as u32);
        debug_assert_eq!(label.len(), states);
        let mut anywhere = vec![NONE; states];
        let mut at_start = Vec::new();
        for &(state, n) in &ends {
            let owner = owners[n as usize];
            anywhere[state as usize] = owner.anywhere;
            if owner.at_start != NONE {
                at_start.push((state, owner.at_start));
            }
        }
        drop(ends);
        at_start.sort_unstable();

        let mut sparse = Sparse {
            first_child: first_child.into_boxed_slice(),
            label: label.into_boxed_slice(),
            fail: vec![0; states].into_boxed_slice(),
            anywhere: Box::default(),
            at_start: at_start.into_boxed_slice(),
            root: Box::new([0; 256]),
            fold,
        };
        for t in sparse.children(0) {
            sparse.root[usize::from(sparse.label[t as usize])] = t;
        }
        // Failure links in breadth-first order: a state's failure state is
        // shallower, so it and its own failure links are set before it.
        for s in 0..states as u32 {
            for t in sparse.children(s) {
                let f = if s == 0 { 0 } else { sparse.next(sparse.fail[s as usize], sparse.label[t as usize]) };
                sparse.fail[t as usize] = f;
                anywhere[t as usize] = anywhere[t as usize].min(anywhere[f as usize]);
            }
        }
        sparse.anywhere = anywhere.into_boxed_slice();
        sparse
    }

    fn children(&self, s: u32) -> std::ops::Range<u32> {
        self.first_child[s as usize]..self.first_child[s as usize + 1]
    }

    /// The child of `s` on `byte`.
    #[inline(always)]
    fn child(&self, s: u32, byte: u8) -> Option<u32> {
        let Range { start, end } = self.children(s);
        let labels = &self.label[start as usize..end as usize];
        // Past the first levels nearly every state has one child or none.
        match labels {
            [] => None,
            [only] => (*only == byte).then_some(start),
            _ => labels.binary_search(&byte).ok().map(|k| start + k as u32),
        }
    }

    /// The state after `s` on `byte`.
    #[inline(always)]
    fn next(&self, mut s: u32, byte: u8) -> u32 {
        loop {
            if s == 0 {
                return self.root[usize::from(byte)];
            }
            if let Some(t) = self.child(s, byte) {
                return t;
            }
            s = self.fail[s as usize];
        }
    }

    /// `byte` as the automaton reads it: `Err` for a raw name's byte >=
    /// 0x80 (the name must be canonicalised first).
    #[inline(always)]
    fn read(&self, byte: u8, raw: bool) -> Result<u8, Canonical> {
        if !raw {
            Ok(byte)
        } else if byte >= 0x80 {
            Err(Canonical)
        } else if self.fold {
            Ok(byte.to_ascii_uppercase())
        } else {
            Ok(byte)
        }
    }

    /// The lowest index of a needle in `name` (raw: an ASCII name as
    /// given; else a canonical name); with `first`, any index found. Stops
    /// early at `floor`, the lowest index of all. Also says whether it
    /// read every byte of `name`.
    pub(super) fn lowest(
        &self,
        name: &[u8],
        raw: bool,
        first: bool,
        floor: u32,
    ) -> Result<(Option<u32>, bool), Canonical> {
        let mut best = NONE;
        if !self.at_start.is_empty() {
            let mut s = 0;
            for &byte in name {
                let Some(t) = self.child(s, self.read(byte, raw)?) else { break };
                s = t;
                if let Ok(k) = self.at_start.binary_search_by_key(&s, |&(state, _)| state) {
                    best = best.min(self.at_start[k].1);
                }
            }
            if best != NONE && (first || best <= floor) {
                return Ok((Some(best), false));
            }
        }
        let mut s = 0;
        for (at, &byte) in name.iter().enumerate() {
            s = self.next(s, self.read(byte, raw)?);
            let index = self.anywhere[s as usize];
            if index < best {
                best = index;
                if first || best <= floor {
                    return Ok((Some(best), at + 1 == name.len()));
                }
            }
        }
        Ok((Some(best).filter(|&b| b != NONE), true))
    }

    pub(super) fn memory_usage(&self) -> usize {
        self.first_child.len() * 4
            + self.label.len()
            + self.fail.len() * 4
            + self.anywhere.len() * 4
            + self.at_start.len() * 8
            + 256 * 4
    }
}
