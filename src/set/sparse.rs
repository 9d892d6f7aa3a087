//! The glob and keyword needles as a sparse Aho-Corasick automaton: the
//! shape for lists whose dense table ([`super::dfa`]) would outgrow its
//! budget, with memory linear in the needle text and a build linear in it
//! too, laid out so that a walk costs about one cache miss a byte whatever
//! the list (issue 27 measured lists built to make it pay several).
//!
//! - **Children contiguous; the top levels breadth first, the rest along
//!   the needles.** The trie is built from the needles sorted: the needles
//!   under one state are a run of that order, and its children split the
//!   run by the next byte, numbered as one block, ascending by the byte
//!   leading to them (`label`), found by a short search. The first levels
//!   (at least [`Layout::breadth_first`] states) are numbered level by
//!   level, so the states a walk over a name that holds no needle stays in
//!   are packed together; below them each state's block is followed by its
//!   children's subtrees in turn (depth first), so a walk down a long needle
//!   reads consecutive states, which the hardware prefetches, instead of
//!   one level's worth of states apart; past depth 256 (deeper than the
//!   names the budget covers) breadth first again, so that the failure
//!   links, computed level by level, read each level in order.
//! - **Dense rows for the first levels.** States at most
//!   [`Layout::dense_depth`] deep (within a budget) also get a row of
//!   transitions by byte class with failures resolved, each entry with the
//!   lowest index ending where it leads: a step from them is one load. An
//!   entry leading to a leaf (a state without children, most states of a
//!   list of short needles) leads to the leaf's failure state instead,
//!   where the next step would go anyway: a list of every 4-byte keyword
//!   then costs one load a byte, not three dependent misses.
//! - **14 bytes a state, whatever the list**: `first_child`, `fail` and
//!   `anywhere` (4 bytes each), `child_count` and `label` (1 each), plus
//!   the dense rows (at most [`DENSE_BYTES_PER_STATE`] a state and
//!   [`DENSE_MAX_BYTES`] in all). A state is a distinct prefix of a needle,
//!   so a list of `B` bytes of glob and keyword text holds at most about
//!   `14 B` bytes (`B` is at most `MAX_PATTERN_BYTES`).
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
use super::{Found, Owner, NONE};

#[derive(Debug)]
pub(super) struct Sparse {
    /// Per state: where its children start (see the module doc).
    first_child: Box<[u32]>,
    /// Per state: how many children it has (at most 243: the bytes that
    /// occur in UTF-8 text).
    child_count: Box<[u8]>,
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
    /// Per byte: its column in `dense` (0: a byte in no needle).
    classes: [u8; 256],
    /// Columns per dense row.
    stride: usize,
    /// The transitions of the first states (the root and the shallowest,
    /// numbered breadth first), `stride` per state, failures resolved: a
    /// step from one of them is one load. Each entry is the state it leads
    /// to and the lowest index of an unanchored needle ending there
    /// ([`Sparse::anywhere`]); an entry leading to a leaf (a state without
    /// children) leads instead to the leaf's failure state, where the walk
    /// would go next anyway, so that it reads no state of the leaf.
    dense: Box<[(u32, u32)]>,
    /// How many states have a dense row: `dense.len() / stride`.
    dense_states: u32,
    /// How many states are numbered breadth first (the rest along the
    /// needles).
    breadth_first: u32,
    /// Case folding: a raw name's ASCII letters are walked upper-cased.
    fold: bool,
}

/// How the states are numbered, and which get dense rows (see the module
/// doc; the tests build small lists in other layouts to take every path).
#[derive(Debug, Clone, Copy)]
pub(super) struct Layout {
    /// States numbered breadth first before the rest are numbered along
    /// the needles' paths: at least the levels that hold this many states
    /// (the levels a walk over a name that holds no needle stays in).
    breadth_first: usize,
    /// Deepest state given a dense row.
    dense_depth: usize,
    /// Deepest state numbered depth first: past the longest name the
    /// budget covers, a walk gains nothing from it.
    depth_first_depth: usize,
}

impl Layout {
    pub(super) const DEFAULT: Layout = Layout { breadth_first: 1 << 20, dense_depth: 3, depth_first_depth: 256 };
}

/// Most bytes of dense rows ([`Sparse::dense`]), and most per state of the automaton: a
/// small share of what the sparse states cost.
const DENSE_MAX_BYTES: usize = 32 << 20;
const DENSE_BYTES_PER_STATE: usize = 12;

/// Most lanes a name is walked in ([`Sparse::search_in_lanes`]), and the
/// fewest bytes a lane gets.
const LANES: usize = 4;
const LANE_MIN_BYTES: usize = 16;

/// Longest name walked in lanes (the states they reach are kept on the
/// stack); longer ones, rare, in one.
const LANED_MAX_BYTES: usize = 512;

/// How many states ahead the failure links' pass fetches.
const PREFETCH_AHEAD: usize = 16;

/// Asks for the cache line holding `value` (a hint: nothing on other
/// architectures).
#[inline(always)]
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is a hint that never faults, here of a reference.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>((value as *const T).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// How many bytes `a` and `b` start with in common.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    a.iter().zip(b).take_while(|(x, y)| x == y).count()
}

/// A state whose children are still to be numbered: its id, the run of
/// needles under it and its depth.
#[derive(Clone, Copy)]
struct Pending {
    state: u32,
    start: usize,
    end: usize,
    depth: usize,
}

/// The trie's shape while it is numbered.
struct Numbering<'n> {
    needles: &'n [&'n [u8]],
    first_child: Vec<u32>,
    child_count: Vec<u8>,
    label: Vec<u8>,
    /// (state, needle) of each needle's last state.
    ends: Vec<(u32, u32)>,
}

impl Numbering<'_> {
    /// Numbers the children of `p` (one block, by their byte), returning
    /// them as pending states.
    fn children_of(&mut self, p: Pending, mut each: impl FnMut(Pending)) {
        let Pending { state, start, end, depth } = p;
        let needles = self.needles;
        let mut k = start;
        // A needle as long as the path sorts first in its run and ends here.
        if k < end && needles[k].len() == depth {
            self.ends.push((state, k as u32));
            k += 1;
        }
        self.first_child[state as usize] = self.label.len() as u32;
        let mut count = 0u8;
        while k < end {
            let byte = needles[k][depth];
            let run = k;
            while k < end && needles[k][depth] == byte {
                k += 1;
            }
            let child = self.label.len() as u32;
            self.label.push(byte);
            self.first_child.push(0);
            self.child_count.push(0);
            count = count.checked_add(1).expect("canonical needles are UTF-8: at most 243 distinct bytes");
            each(Pending { state: child, start: run, end: k, depth: depth + 1 });
        }
        self.child_count[state as usize] = count;
    }
}

impl Sparse {
    /// The automaton of `needles` (canonical, distinct, non-empty, sorted;
    /// `owners[i]` pins for `needles[i]`).
    pub(super) fn build(needles: &[&[u8]], owners: &[Owner], fold: bool) -> Sparse {
        Sparse::build_laid_out(needles, owners, fold, Layout::DEFAULT)
    }

    fn build_laid_out(needles: &[&[u8]], owners: &[Owner], fold: bool, layout: Layout) -> Sparse {
        debug_assert!(needles.is_sorted());
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
        let mut numbering = Numbering {
            needles,
            first_child: Vec::with_capacity(states),
            child_count: Vec::with_capacity(states),
            label: Vec::with_capacity(states),
            ends: Vec::with_capacity(needles.len()),
        };
        numbering.first_child.push(0);
        numbering.child_count.push(0);
        numbering.label.push(0);
        // The top levels breadth first: a state's children are a block, and
        // the blocks of one level follow each other.
        let mut level = vec![Pending { state: 0, start: 0, end: needles.len(), depth: 0 }];
        // States at most `dense_depth` deep: the first this many.
        let mut shallow = 1;
        while !level.is_empty() && numbering.label.len() < layout.breadth_first {
            if level[0].depth <= layout.dense_depth {
                shallow = level.last().map_or(0, |p| p.state as usize + 1);
            }
            let mut next_level = Vec::new();
            for &p in &level {
                numbering.children_of(p, |child| next_level.push(child));
            }
            level = next_level;
        }
        let breadth_first = numbering.label.len();
        // Below, depth first: a state's children block, then each child's
        // subtree in turn, so that a walk down a needle reads its states in
        // order (a chain of single children is numbered consecutively), as
        // deep as names go ([`Layout::depth_first_depth`]); deeper, breadth
        // first again, as no budgeted name walks there and the failure
        // links, computed level by level, then read each level in order.
        level.reverse();
        let mut stack = level;
        let mut block = Vec::new();
        let mut deep = Vec::new();
        while let Some(p) = stack.pop() {
            if p.depth >= layout.depth_first_depth {
                deep.push(p);
                continue;
            }
            numbering.children_of(p, |child| block.push(child));
            stack.extend(block.drain(..).rev());
        }
        drop(stack);
        let mut level = deep;
        while !level.is_empty() {
            let mut next_level = Vec::new();
            for &p in &level {
                numbering.children_of(p, |child| next_level.push(child));
            }
            level = next_level;
        }
        let Numbering { first_child, child_count, label, ends, .. } = numbering;
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

        // Byte classes: one column per byte that occurs, and one for all
        // the others.
        let mut classes = [0u8; 256];
        let mut stride = 1;
        for &byte in &label[1..] {
            if classes[usize::from(byte)] == 0 {
                classes[usize::from(byte)] = stride as u8;
                stride += 1;
            }
        }
        // (The breadth-first states are numbered by depth, so a state's
        // failure state comes before it: among the dense ones if it is.)
        let dense_states =
            breadth_first.min(shallow).min(DENSE_MAX_BYTES.min(states * DENSE_BYTES_PER_STATE) / (stride * 8)).max(1);
        let mut sparse = Sparse {
            first_child: first_child.into_boxed_slice(),
            child_count: child_count.into_boxed_slice(),
            label: label.into_boxed_slice(),
            fail: vec![0; states].into_boxed_slice(),
            anywhere: Box::default(),
            at_start: at_start.into_boxed_slice(),
            classes,
            stride,
            dense: vec![(0, NONE); dense_states * stride].into_boxed_slice(),
            dense_states: dense_states as u32,
            breadth_first: breadth_first as u32,
            fold,
        };
        // Failure links level by level: a state's failure state is
        // shallower, so it and its own failure links are set before it.
        // (A level holds at most one state per needle.) A dense state's row
        // is its failure state's, overridden by its own children.
        let mut level = vec![0u32];
        while !level.is_empty() {
            let mut next_level = Vec::new();
            for (i, &s) in level.iter().enumerate() {
                // Past the breadth-first states a level's states lie a
                // subtree apart: fetch those a few steps ahead, so that the
                // cache misses overlap instead of following each other.
                if let Some(&ahead) = level.get(i + PREFETCH_AHEAD) {
                    let ahead = ahead as usize;
                    prefetch(&sparse.first_child[ahead]);
                    prefetch(&sparse.child_count[ahead]);
                    prefetch(&sparse.label[ahead]);
                    prefetch(&sparse.fail[ahead]);
                    prefetch(&anywhere[ahead]);
                }
                if s < sparse.dense_states {
                    let row = s as usize * stride;
                    if s != 0 {
                        let from = sparse.fail[s as usize] as usize * stride;
                        sparse.dense.copy_within(from..from + stride, row);
                    }
                    for t in sparse.children(s) {
                        sparse.dense[row + usize::from(classes[usize::from(sparse.label[t as usize])])].0 = t;
                    }
                }
                for t in sparse.children(s) {
                    let f = if s == 0 { 0 } else { sparse.next(sparse.fail[s as usize], sparse.label[t as usize]) };
                    sparse.fail[t as usize] = f;
                    anywhere[t as usize] = anywhere[t as usize].min(anywhere[f as usize]);
                    next_level.push(t);
                }
            }
            level = next_level;
        }
        // What a walk reads from a dense entry: the needles ending where it
        // leads, and a leaf's failure state in place of the leaf.
        for (to, found) in sparse.dense.iter_mut() {
            let t = *to as usize;
            *found = anywhere[t];
            if t != 0 && sparse.child_count[t] == 0 {
                *to = sparse.fail[t];
            }
        }
        sparse.anywhere = anywhere.into_boxed_slice();
        sparse
    }

    fn children(&self, s: u32) -> std::ops::Range<u32> {
        let first = self.first_child[s as usize];
        first..first + u32::from(self.child_count[s as usize])
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
            if s < self.dense_states {
                return self.dense[s as usize * self.stride + usize::from(self.classes[usize::from(byte)])].0;
            }
            if let Some(t) = self.child(s, byte) {
                return t;
            }
            s = self.fail[s as usize];
        }
    }

    /// The walk's step from `s` on `byte`: the state it leads to (a leaf's
    /// failure state in place of a leaf reached from a dense state), and
    /// the lowest index of a needle ending there.
    #[inline(always)]
    fn step(&self, mut s: u32, byte: u8) -> (u32, u32) {
        loop {
            if s < self.dense_states {
                let k = s as usize * self.stride + usize::from(self.classes[usize::from(byte)]);
                return self.dense[k];
            }
            if let Some(t) = self.child(s, byte) {
                return (t, self.anywhere[t as usize]);
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

    /// Searches `name` (raw: an ASCII name as given; else a canonical
    /// name) for the lowest index of a needle in it; with `first`, any
    /// index found. Stops early at `floor`, the lowest index of all.
    pub(super) fn search(&self, name: &[u8], raw: bool, first: bool, floor: u32) -> Result<Found, Canonical> {
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
        for (at, &byte) in name[..LANE_MIN_BYTES].iter().enumerate() {
            let index;
            (s, index) = self.step(s, self.read(byte, raw)?);
            if index < best {
                best = index;
                if first || best <= floor {
                    return Ok(Found { lowest: Some(best), read_all: at + 1 == name.len() });
                }
            }
        }
        if s >= self.breadth_first {
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
        for (at, &byte) in name.iter().enumerate().skip(from) {
            let index;
            (s, index) = self.step(s, self.read(byte, raw)?);
            if index < best {
                best = index;
                if first || best <= floor {
                    return Ok(Found { lowest: Some(best), read_all: at + 1 == name.len() });
                }
            }
        }
        Ok(Found { lowest: Some(best).filter(|&b| b != NONE), read_all: true })
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
        self.first_child.len() * 4
            + self.child_count.len()
            + self.label.len()
            + self.fail.len() * 4
            + self.anywhere.len() * 4
            + self.at_start.len() * 8
            + self.dense.len() * 8
    }
}

#[cfg(test)]
mod tests {
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

    /// Every layout answers as the definition does: states numbered
    /// breadth first or along the needles from the root on, dense rows for
    /// none of the levels or for all, over needles that share prefixes
    /// and suffixes (failure links into both regions, leaves reached from
    /// dense rows and from sparse states).
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
            Layout { breadth_first: 1, dense_depth: 0, depth_first_depth: usize::MAX },
            Layout { breadth_first: 1, dense_depth: 5, depth_first_depth: 3 },
            Layout { breadth_first: 4, dense_depth: 1, depth_first_depth: 12 },
            Layout { breadth_first: 30, dense_depth: 2, depth_first_depth: 1 },
            Layout { breadth_first: usize::MAX, dense_depth: 64, depth_first_depth: 256 },
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
            let automata: Vec<Sparse> =
                layouts.iter().map(|&l| Sparse::build_laid_out(&needles, &owners, true, l)).collect();
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
            }
        }
    }
}
