//! The glob and keyword needles as a sparse Aho-Corasick automaton, with
//! memory linear in the needle text and a build linear in it too, laid out
//! so that a walk costs about one cache miss a byte on random lists.
//!
//! **No accepted list gets it** (issue 36): a walk reads up to 2 states a
//! byte, each several dependent lines (`first_child`, `child_count`, its
//! labels, `fail`, `anywhere`), up to about `8L` lines a name of `L` bytes;
//! on a list built so that each is cold (failure jumps) a 255-byte name
//! cost 8.6 µs at 5 MiB and 20–160 µs past it. A list whose dense table
//! would pass [`super::MAX_AUTOMATON_BYTES`] is refused instead; this
//! automaton is built only where the tests force its shape (`Shape`,
//! feature `testing`), the second derivation of the one trie, checked
//! against the first.
//!
//! It is the trie of the needles itself ([`super::trie`]: needles →
//! numbered trie → failure links), its arrays moved in as they are, and
//! walked in place:
//!
//! - **Children contiguous, found by a short search**; the top levels
//!   numbered breadth first, so that a walk over a name that holds no
//!   needle stays among packed states, the rest along the needles, so that
//!   a walk down a long needle reads consecutive states
//!   ([`Layout`](super::trie::Layout)).
//! - **Shallow rows.** States at most
//!   [`Layout::shallow_depth`](super::trie::Layout::shallow_depth) deep
//!   (within a budget) have a row of steps by byte class with failures
//!   resolved ([`Trie::shallow`]), each with the lowest index ending where it leads:
//!   a step from them is one load. [`Sparse::from_trie`] makes a step that
//!   leads to a leaf (a state without children, most states of a list of
//!   short needles) lead to the leaf's failure state instead, where the
//!   next step would go anyway: a list of every 4-byte keyword then costs
//!   one load a byte, not three dependent misses.
//! - **14 bytes a state, whatever the list** (the trie's arrays and its
//!   shallow rows, [`super::trie`]). A state is a distinct prefix of a
//!   needle, so a list of `B` bytes of glob and keyword text holds at most
//!   about `14 B` bytes (`B` is at most `MAX_PATTERN_BYTES`).
//! - **The lowest index, precomputed.** `anywhere[s]` is the lowest index
//!   of an unanchored needle that ends at `s` or at any state on its
//!   failure chain (each needle that is a suffix of the state's path), so a
//!   walk reads one entry a byte. Anchored globs match only from the first
//!   byte: a second walk follows children from the root, without failure
//!   links, and looks the states it passes up in `at_start`.
//!
//! - **Names walked in lanes.** A walk is a chain of dependent loads, so
//!   a name of 32 bytes or more is cut in up to 4 pieces (16 bytes at
//!   least each) walked from the
//!   root at once, their misses overlapping; each lane then walks on into
//!   the next piece until it reaches the state that piece's lane reached at
//!   the same byte. A name still deep in a needle after its first 16 bytes
//!   is walked in one lane: there consecutive states are cheap, and lanes
//!   would each wait on a miss.
//!
//! A sparse step costs a few dependent loads more than a dense one, and a
//! failure step can repeat, but the failure links only ever shorten the
//! state's path: a walk takes at most two steps a byte, amortised.

use std::ops::Range;

use super::dfa::Canonical;
use super::trie::{Step, Trie};
use super::{Found, NONE};

#[derive(Debug)]
pub(super) struct Sparse {
    /// The trie's arrays, as [`Trie::build`] left them, but for the leaf
    /// short-cut in its shallow rows ([`Sparse::from_trie`]).
    trie: Trie,
    /// Case folding: a raw name's ASCII letters are walked upper-cased.
    fold: bool,
}

/// Most lanes a name is walked in ([`Sparse::search_in_lanes`]), and the
/// fewest bytes a lane gets.
const LANES: usize = 4;
const LANE_MIN_BYTES: usize = 16;

/// Longest name walked in lanes (the states they reach are kept on the
/// stack); longer ones, rare, in one.
const LANED_MAX_BYTES: usize = 512;

impl Sparse {
    /// The automaton of `trie` (its arrays moved, not copied). A shallow
    /// row's step leading to a leaf (a state without children) leads
    /// instead to the leaf's failure state, where the walk would go next
    /// anyway (it still finds the leaf's needles), so that a walk reads no
    /// state of the leaf.
    pub(super) fn from_trie(mut trie: Trie, fold: bool) -> Sparse {
        for step in trie.shallow.iter_mut() {
            let t = step.to as usize;
            if t != 0 && trie.child_count[t] == 0 {
                step.to = trie.fail[t];
            }
        }
        Sparse { trie, fold }
    }

    /// The walk's step from `s` on `byte`: the state it leads to (a leaf's
    /// failure state in place of a leaf reached from a shallow state), and
    /// the lowest index of a needle ending there.
    #[inline(always)]
    fn step(&self, mut s: u32, byte: u8) -> (u32, u32) {
        let trie = &self.trie;
        loop {
            if s < trie.shallow_states {
                let k = s as usize * trie.classes.count + usize::from(trie.classes.of[usize::from(byte)]);
                let Step { to, found } = trie.shallow[k];
                return (to, found);
            }
            if let Some(t) = trie.child(s, byte) {
                return (t, trie.anywhere[t as usize]);
            }
            s = trie.fail[s as usize];
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

    /// Searches `name` (raw: an ASCII name as given; else a canonical
    /// name) for the lowest index of a needle in it; with `first`, any
    /// index found. Stops early at `floor`, the lowest index of all.
    pub(super) fn search(&self, name: &[u8], raw: bool, first: bool, floor: u32) -> Result<Found, Canonical> {
        let mut best = NONE;
        let at_start = &self.trie.at_start;
        if !at_start.is_empty() {
            let mut s = 0;
            for &byte in name {
                let Some(t) = self.trie.child(s, self.read(byte, raw)?) else { break };
                s = t;
                if let Ok(k) = at_start.binary_search_by_key(&s, |&(state, _)| state) {
                    best = best.min(at_start[k].1);
                }
            }
            if best != NONE && (first || best <= floor) {
                return Ok(Found { lowest: Some(best), read_all: false });
            }
        }
        let lanes = (name.len() / LANE_MIN_BYTES).clamp(1, LANES);
        if lanes == 1 || name.len() > LANED_MAX_BYTES {
            return self.search_one_lane(name, raw, first, floor, (0, 0), best);
        }
        // The first bytes in one lane: a name then deep in a needle (past
        // the breadth-first states) is walked on in one, as the lanes would
        // each wait on a miss while it reads consecutive states.
        let mut s = 0;
        if let Some(found) = self.walk(name, raw, first, floor, 0..LANE_MIN_BYTES, &mut s, &mut best)? {
            return Ok(found);
        }
        if s >= self.trie.breadth_first {
            return self.search_one_lane(name, raw, first, floor, (LANE_MIN_BYTES, s), best);
        }
        self.search_in_lanes(name, raw, first, floor, (LANE_MIN_BYTES, s), best)
    }

    /// [`Sparse::search`]'s walk in one lane, from `best` and state `s`
    /// after `from` bytes.
    fn search_one_lane(
        &self,
        name: &[u8],
        raw: bool,
        first: bool,
        floor: u32,
        (from, mut s): (usize, u32),
        mut best: u32,
    ) -> Result<Found, Canonical> {
        if let Some(found) = self.walk(name, raw, first, floor, from..name.len(), &mut s, &mut best)? {
            return Ok(found);
        }
        Ok(Found { lowest: Some(best).filter(|&b| b != NONE), read_all: true })
    }

    /// Walks the bytes `span` of `name` from state `s`, lowering `best`:
    /// the answer once a needle found settles it (`first`, or `floor`).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn walk(
        &self,
        name: &[u8],
        raw: bool,
        first: bool,
        floor: u32,
        span: Range<usize>,
        s: &mut u32,
        best: &mut u32,
    ) -> Result<Option<Found>, Canonical> {
        let start = span.start;
        for (at, &byte) in name[span].iter().enumerate().map(|(i, b)| (start + i, b)) {
            let index;
            (*s, index) = self.step(*s, self.read(byte, raw)?);
            if index < *best {
                *best = index;
                if first || *best <= floor {
                    return Ok(Some(Found { lowest: Some(*best), read_all: at + 1 == name.len() }));
                }
            }
        }
        Ok(None)
    }

    /// [`Sparse::search`]'s walk in lanes (one per [`LANE_MIN_BYTES`], at
    /// most [`LANES`]): the name cut in as many pieces, each walked from the root at the same time, so that their
    /// cache misses overlap (a walk is a chain of dependent loads). A lane
    /// then walks on into the next piece until its state is the one that
    /// piece's lane reached at the same byte, from where the two agree:
    /// every lane reports only needles that occur, and the first lane and
    /// those it hands over to read each byte in its true state.
    fn search_in_lanes(
        &self,
        name: &[u8],
        raw: bool,
        first: bool,
        floor: u32,
        (from, from_state): (usize, u32),
        mut best: u32,
    ) -> Result<Found, Canonical> {
        let lanes = (name.len() / LANE_MIN_BYTES).clamp(1, LANES);
        let mut bounds = [name.len(); LANES + 1];
        for (lane, bound) in bounds.iter_mut().enumerate().take(lanes) {
            *bound = name.len() * lane / lanes;
        }
        // (The first lane goes on from where the first bytes left it.)
        bounds[0] = from;
        let start = |lane: usize| bounds[lane];
        // The state of the lane that read each byte, after reading it.
        let mut reached = [0u32; LANED_MAX_BYTES];
        let mut state = [0u32; LANES];
        state[0] = from_state;
        let longest = (0..lanes).map(|lane| start(lane + 1) - start(lane)).max().unwrap_or(0);
        for i in 0..longest {
            for (lane, s) in state.iter_mut().enumerate().take(lanes) {
                let at = start(lane) + i;
                if at >= start(lane + 1) {
                    continue;
                }
                let index;
                (*s, index) = self.step(*s, self.read(name[at], raw)?);
                reached[at] = *s;
                best = best.min(index);
            }
            if best != NONE && (first || best <= floor) {
                return Ok(Found { lowest: Some(best), read_all: false });
            }
        }
        // (Every byte has been read: a raw name is all ASCII.)
        for (lane, &end_state) in state.iter().enumerate().take(lanes - 1) {
            let mut s = end_state;
            for (at, &byte) in name.iter().enumerate().skip(start(lane + 1)) {
                let index;
                (s, index) = self.step(s, self.read(byte, raw)?);
                best = best.min(index);
                if best != NONE && (first || best <= floor) {
                    return Ok(Found { lowest: Some(best), read_all: true });
                }
                if s == reached[at] {
                    break;
                }
            }
        }
        Ok(Found { lowest: Some(best).filter(|&b| b != NONE), read_all: true })
    }

    pub(super) fn memory_usage(&self) -> usize {
        self.trie.memory_usage()
    }
}

#[cfg(test)]
mod tests {
    use super::super::dfa::{Columns, Dfa, Hit};
    use super::super::trie::{Extent, Layout};
    use super::super::Owner;
    use super::*;

    /// The lowest index pinning `name` by the definition: an unanchored
    /// needle anywhere in it, an anchored one at its start.
    fn by_definition(needles: &[&[u8]], owners: &[Owner], name: &[u8]) -> Option<u32> {
        let mut best = NONE;
        for (needle, owner) in needles.iter().zip(owners) {
            if name.windows(needle.len()).any(|w| w == *needle) {
                best = best.min(owner.anywhere);
            }
            if name.starts_with(needle) {
                best = best.min(owner.at_start);
            }
        }
        Some(best).filter(|&b| b != NONE)
    }

    /// Every layout answers as the definition does, the sparse automaton
    /// and the dense DFA derived from its trie alike: states numbered
    /// breadth first or along the needles from the root on, shallow rows
    /// for none of the levels or for all, over needles that share prefixes
    /// and suffixes (failure links into both regions, leaves reached from
    /// shallow rows and from sparse states).
    #[test]
    fn every_layout_answers_as_the_definition() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let layouts = [
            Layout::DEFAULT,
            Layout { breadth_first: 1, shallow_depth: 0, depth_first_depth: usize::MAX },
            Layout { breadth_first: 1, shallow_depth: 5, depth_first_depth: 3 },
            Layout { breadth_first: 4, shallow_depth: 1, depth_first_depth: 12 },
            Layout { breadth_first: 30, shallow_depth: 2, depth_first_depth: 1 },
            Layout { breadth_first: usize::MAX, shallow_depth: 64, depth_first_depth: 256 },
        ];
        for round in 0..200 {
            let count = 1 + next(12) as usize;
            let mut needles: Vec<Vec<u8>> = (0..count)
                .map(|_| {
                    let len = if next(4) == 0 { 8 + next(24) } else { 1 + next(5) };
                    (0..len).map(|_| b'A' + next(3) as u8).collect()
                })
                .collect();
            needles.sort();
            needles.dedup();
            let owners: Vec<Owner> = needles
                .iter()
                .map(|_| {
                    let (a, b) = (next(50) as u32, next(50) as u32);
                    match next(3) {
                        0 => Owner { anywhere: a, at_start: NONE },
                        1 => Owner { anywhere: NONE, at_start: b },
                        _ => Owner { anywhere: a, at_start: b },
                    }
                })
                .collect();
            let needles: Vec<&[u8]> = needles.iter().map(Vec::as_slice).collect();
            let extent = Extent::of(&needles);
            let trie = |layout| Trie::build(&needles, &owners, &extent, layout);
            let automata: Vec<Sparse> = layouts.iter().map(|&l| Sparse::from_trie(trie(l), true)).collect();
            // The dense DFA of each layout's trie, in both column kinds.
            let dfas: Vec<(Layout, Dfa)> = layouts
                .iter()
                .flat_map(|&l| [Columns::PerByte, Columns::PerClass].map(|c| (l, Dfa::from_trie(&trie(l), true, c))))
                .collect();
            for _ in 0..50 {
                let name: Vec<u8> = (0..next(100)).map(|_| b'A' + next(4) as u8).collect();
                let want = by_definition(&needles, &owners, &name);
                for (layout, sparse) in layouts.iter().zip(&automata) {
                    let ctx = || format!("round {round}, {layout:?}, {needles:?}, {name:?}");
                    let got = sparse.search(&name, false, false, 0).unwrap().lowest;
                    assert_eq!(got, want, "{}", ctx());
                    let raw = sparse.search(&name.to_ascii_lowercase(), true, false, 0).unwrap().lowest;
                    assert_eq!(raw, want, "raw: {}", ctx());
                    let any = sparse.search(&name, false, true, 0).unwrap().lowest;
                    assert_eq!(any.is_some(), want.is_some(), "first: {}", ctx());
                }
                for (layout, dfa) in &dfas {
                    let ctx = || format!("dense: round {round}, {layout:?}, {needles:?}, {name:?}");
                    let mut got = NONE;
                    let lowered = name.to_ascii_lowercase();
                    dfa.walk(&lowered, true, |hit: &Hit, at| {
                        got = got.min(hit.index(at + 1));
                        false
                    })
                    .unwrap();
                    assert_eq!(Some(got).filter(|&g| g != NONE), want, "{}", ctx());
                }
            }
        }
    }
}
