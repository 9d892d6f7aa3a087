//! The trie of the glob and keyword needles, and its failure links: built
//! once per set, in named steps, and then turned into one of the two
//! automata that search the needles (issue 27, "One design"):
//!
//! 1. **needles → size** ([`Extent::of`]): the sorted needles' state count
//!    (the root and each needle's bytes past what it shares with the one
//!    before it) and byte classes, known before anything is allocated, so
//!    that the caller picks the automaton ([`super::dfa::Dfa::columns_within`])
//!    from counts, and every array below is sized exactly (a growing vector
//!    would briefly need twice the memory).
//! 2. **needles → numbered trie** ([`Trie::number`]): children contiguous,
//!    ascending by the byte leading to them (`label`), each state's needles
//!    being a run of the sorted list; the top levels (at least
//!    [`Layout::breadth_first`] states) numbered level by level, so that a
//!    walk over a name that holds no needle stays among packed states; below
//!    them each state's block is followed by its children's subtrees in turn
//!    (depth first), so that a walk down a long needle reads consecutive
//!    states, which the hardware prefetches; past [`Layout::depth_first_depth`]
//!    (deeper than the names the budget covers) breadth first again, so that
//!    the failure links, computed level by level, read each level in order.
//! 3. **failure links** ([`Trie::link_failures`]), level by level: a state's
//!    failure state is the longest proper suffix of its path that is a
//!    state, and it inherits the lowest unanchored needle index of that
//!    state (`anywhere`: every needle that is a suffix of the path). The
//!    states at most [`Layout::shallow_depth`] deep (within a budget) get a
//!    row of steps by byte class with failures resolved ([`Trie::shallow`]),
//!    which makes each failure step of the pass one load from them, and
//!    each walk step from them later.
//! 4. **the automaton**: the dense DFA ([`super::dfa`]) renumbers the
//!    states depth first ([`Trie::depth_first`]: a needle's rows follow
//!    each other) and gives each a full row, its failure state's overridden
//!    by its children, breadth first ([`Trie::levels`]). (Until issue 36 a
//!    sparse automaton walked these arrays as they are for lists past the
//!    DFA's budget; such lists are refused now.)
//!
//! A state is one 16-byte [`Node`] (`first_child`, `fail` and `anywhere`,
//! 4 bytes each, `label` and `child_count`, and the sparse automaton's
//! `anchored`), plus the shallow rows (at most [`SHALLOW_BYTES_PER_STATE`]
//! a state and [`SHALLOW_MAX_BYTES`] in all): the nodes are what the sparse
//! automaton walks as they are, so that compiling holds one copy of them.
//! (Aligned to 16 bytes, a node never spans two cache lines.)

use super::search::{Owner, NONE};

/// How the states are numbered, and which get rows of steps (see the
/// module doc; the tests build small lists in other layouts to take every
/// path).
#[derive(Debug, Clone, Copy)]
pub(super) struct Layout {
    /// States numbered breadth first before the rest are numbered along
    /// the needles' paths: at least the levels that hold this many states
    /// (the levels a walk over a name that holds no needle stays in).
    pub(super) breadth_first: usize,
    /// Deepest state given a row of steps ([`Trie::shallow`]).
    pub(super) shallow_depth: usize,
    /// Deepest state numbered depth first: past the longest name the
    /// budget covers, a walk gains nothing from it.
    pub(super) depth_first_depth: usize,
}

impl Layout {
    pub(super) const DEFAULT: Layout = Layout { breadth_first: 1 << 20, shallow_depth: 3, depth_first_depth: 256 };
}

/// Most bytes of shallow rows ([`Trie::shallow`]), and most per state of
/// the trie: a small share of what the states cost.
const SHALLOW_MAX_BYTES: usize = 32 << 20;
const SHALLOW_BYTES_PER_STATE: usize = 12;

/// How many states ahead the failure links' pass fetches.
const PREFETCH_AHEAD: usize = 16;

/// The byte classes of the needles: 0 for bytes in no needle, then one per
/// byte that occurs, ascending.
#[derive(Debug, Clone, Copy)]
pub(super) struct ByteClasses {
    /// Per byte: its class.
    pub(super) of: [u8; 256],
    /// Classes in all, class 0 included.
    pub(super) count: usize,
}

/// What the trie of a list of needles holds, known before it is built.
#[derive(Debug, Clone, Copy)]
pub(super) struct Extent {
    /// The root and one state per distinct prefix.
    pub(super) states: usize,
    pub(super) classes: ByteClasses,
}

impl Extent {
    /// The extent of the trie of `needles` (distinct, sorted, canonical).
    pub(super) fn of(needles: &[&[u8]]) -> Extent {
        debug_assert!(needles.is_sorted());
        let mut states = 1;
        // (A needle's bytes in its shared prefix are the previous one's:
        // its new bytes are its states' labels, and they hold every byte.)
        let mut occurs = [false; 256];
        let mut previous: &[u8] = &[];
        for &needle in needles {
            let new = &needle[common_prefix(previous, needle)..];
            states += new.len();
            for &byte in new {
                occurs[usize::from(byte)] = true;
            }
            previous = needle;
        }
        let mut of = [0u8; 256];
        let mut count = 1;
        for byte in (0..256).filter(|&b| occurs[b]) {
            of[byte] = u8::try_from(count).expect("canonical needles are UTF-8: at most 243 distinct bytes");
            count += 1;
        }
        Extent { states, classes: ByteClasses { of, count } }
    }
}

/// How many bytes `a` and `b` start with in common, compared 8 at a time:
/// sorted needles share long prefixes (registries, organisations), and in
/// the WebAssembly module a byte at a time was a tenth of `validate`.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let mut at = 0;
    while at + 8 <= n {
        let word = |t: &[u8]| u64::from_le_bytes(t[at..at + 8].try_into().expect("8 bytes"));
        let differ = word(a) ^ word(b);
        if differ != 0 {
            // The lowest byte that differs, whatever the machine's byte order.
            return at + (differ.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + a[at..n].iter().zip(&b[at..n]).take_while(|(x, y)| x == y).count()
}

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

/// A step from a state on a byte, failures resolved.
#[derive(Debug, Clone, Copy)]
pub(super) struct Step {
    /// The state it leads to.
    pub(super) to: u32,
    /// The lowest index of an unanchored needle ending there (its
    /// `anywhere`), or [`NONE`].
    pub(super) found: u32,
}

/// One state of the trie.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(16))]
pub(super) struct Node {
    /// Where its children start.
    pub(super) first_child: u32,
    /// Its failure state (the longest proper suffix of its path that is a
    /// state).
    pub(super) fail: u32,
    /// The lowest index of an unanchored needle that is a suffix of its
    /// path, or [`NONE`].
    pub(super) anywhere: u32,
    /// The byte leading into it (the root's is unused).
    pub(super) label: u8,
    /// How many children it has (at most 243: the bytes that occur in
    /// UTF-8 text).
    pub(super) child_count: u8,
    /// Whether an anchored glob's needle is its whole path (set by the
    /// sparse automaton, which walks the nodes).
    pub(super) anchored: bool,
}

impl Node {
    /// Its child on `byte` among `nodes` (this node's trie), and how many
    /// nodes the search read: one for a single child, at most `1 + ⌈log2
    /// c⌉` of `c` children (a binary search by label).
    #[inline(always)]
    pub(super) fn child(&self, nodes: &[Node], byte: u8) -> (Option<u32>, usize) {
        let first = self.first_child as usize;
        let children = &nodes[first..first + usize::from(self.child_count)];
        // Past the first levels nearly every state has one child or none.
        match children {
            [] => (None, 0),
            [only] => ((only.label == byte).then_some(first as u32), 1),
            _ => {
                let mut probes = 0;
                let found = children.binary_search_by(|c| {
                    probes += 1;
                    c.label.cmp(&byte)
                });
                (found.ok().map(|k| (first + k) as u32), probes)
            }
        }
    }
}

/// The numbered trie of the needles with its failure links (module doc).
/// State 0 is the root.
#[derive(Debug)]
pub(super) struct Trie {
    /// Per state, its node.
    pub(super) nodes: Box<[Node]>,
    /// (state, index) of each anchored glob's whole needle, by state.
    pub(super) at_start: Box<[(u32, u32)]>,
    pub(super) classes: ByteClasses,
    /// The steps of the first states (the root and the shallowest,
    /// numbered breadth first), `classes.count` per state.
    pub(super) shallow: Box<[Step]>,
    /// How many states have a row in `shallow`.
    pub(super) shallow_states: u32,
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
    nodes: Vec<Node>,
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
        self.nodes[state as usize].first_child = self.nodes.len() as u32;
        let mut count = 0u8;
        while k < end {
            let byte = needles[k][depth];
            let run = k;
            while k < end && needles[k][depth] == byte {
                k += 1;
            }
            let child = self.nodes.len() as u32;
            self.nodes.push(Node { label: byte, anywhere: NONE, ..Node::default() });
            count = count.checked_add(1).expect("canonical needles are UTF-8: at most 243 distinct bytes");
            each(Pending { state: child, start: run, end: k, depth: depth + 1 });
        }
        self.nodes[state as usize].child_count = count;
    }

    /// Numbers the children of each state of `level`, one level after
    /// another, while `go_on` says so; returns the level left unnumbered.
    fn breadth_first(
        &mut self,
        mut level: Vec<Pending>,
        mut go_on: impl FnMut(&Self, &[Pending]) -> bool,
    ) -> Vec<Pending> {
        while !level.is_empty() && go_on(self, &level) {
            let mut next_level = Vec::new();
            for &p in &level {
                self.children_of(p, |child| next_level.push(child));
            }
            level = next_level;
        }
        level
    }
}

impl Trie {
    /// The trie of `needles` (canonical, distinct, non-empty, sorted, of
    /// extent `extent`; `owners[i]` pins for `needles[i]`), numbered in
    /// `layout`, with its failure links.
    pub(super) fn build(needles: &[&[u8]], owners: &[Owner], extent: &Extent, layout: Layout) -> Trie {
        let mut trie = Trie::number(needles, owners, extent, layout);
        trie.link_failures();
        trie
    }

    /// Step 2 (module doc): the states numbered, each needle's owner at its
    /// last state; no failure links yet.
    fn number(needles: &[&[u8]], owners: &[Owner], extent: &Extent, layout: Layout) -> Trie {
        let states = extent.states;
        let mut numbering =
            Numbering { needles, nodes: Vec::with_capacity(states), ends: Vec::with_capacity(needles.len()) };
        numbering.nodes.push(Node { anywhere: NONE, ..Node::default() });
        // The top levels breadth first: a state's children are a block, and
        // the blocks of one level follow each other.
        let root = vec![Pending { state: 0, start: 0, end: needles.len(), depth: 0 }];
        // States at most `shallow_depth` deep: the first this many.
        let mut shallow = 1;
        let level = numbering.breadth_first(root, |numbering, level| {
            let go_on = numbering.nodes.len() < layout.breadth_first;
            if go_on && level[0].depth <= layout.shallow_depth {
                shallow = level.last().map_or(0, |p| p.state as usize + 1);
            }
            go_on
        });
        let breadth_first = numbering.nodes.len();
        // Below, depth first: a state's children block, then each child's
        // subtree in turn (a chain of single children is numbered
        // consecutively), as deep as names go; deeper, breadth first again.
        let mut stack = level;
        stack.reverse();
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
        numbering.breadth_first(deep, |_, _| true);
        let Numbering { mut nodes, ends, .. } = numbering;
        debug_assert_eq!(nodes.len(), states, "the extent is of these needles");
        let mut at_start = Vec::new();
        for &(state, n) in &ends {
            let owner = owners[n as usize];
            nodes[state as usize].anywhere = owner.anywhere;
            if owner.at_start != NONE {
                at_start.push((state, owner.at_start));
            }
        }
        drop(ends);
        at_start.sort_unstable();
        // (The breadth-first states are numbered by depth, so a state's
        // failure state comes before it: among the shallow ones if it is.)
        let stride = extent.classes.count;
        let shallow_states = breadth_first
            .min(shallow)
            .min(SHALLOW_MAX_BYTES.min(states * SHALLOW_BYTES_PER_STATE) / (stride * size_of::<Step>()))
            .max(1);
        Trie {
            nodes: nodes.into_boxed_slice(),
            at_start: at_start.into_boxed_slice(),
            classes: extent.classes,
            shallow: vec![Step { to: 0, found: NONE }; shallow_states * stride].into_boxed_slice(),
            shallow_states: shallow_states as u32,
        }
    }

    /// Step 3 (module doc): the failure links, level by level (a state's
    /// failure state is shallower, so it and its own failure links are set
    /// before it; a level holds at most one state per needle), each state
    /// inheriting its failure state's `anywhere`; a shallow state's row is
    /// its failure state's, overridden by its own children.
    fn link_failures(&mut self) {
        let stride = self.classes.count;
        let mut level = vec![0u32];
        let mut next_level = Vec::new();
        while !level.is_empty() {
            for (i, &s) in level.iter().enumerate() {
                // Past the breadth-first states a level's states lie a
                // subtree apart: fetch those a few steps ahead, so that the
                // cache misses overlap instead of following each other.
                if let Some(&ahead) = level.get(i + PREFETCH_AHEAD) {
                    let ahead = ahead as usize;
                    prefetch(&self.nodes[ahead]);
                }
                if s < self.shallow_states {
                    let row = s as usize * stride;
                    if s != 0 {
                        let from = self.nodes[s as usize].fail as usize * stride;
                        self.shallow.copy_within(from..from + stride, row);
                    }
                    for t in self.children(s) {
                        self.shallow[row + self.class_of(t)].to = t;
                    }
                }
                for t in self.children(s) {
                    let f =
                        if s == 0 { 0 } else { self.next(self.nodes[s as usize].fail, self.nodes[t as usize].label) };
                    let inherited = self.nodes[f as usize].anywhere;
                    let node = &mut self.nodes[t as usize];
                    node.fail = f;
                    node.anywhere = node.anywhere.min(inherited);
                    next_level.push(t);
                }
            }
            std::mem::swap(&mut level, &mut next_level);
            next_level.clear();
        }
        // What a step from a shallow state finds where it leads (set only
        // now: its `anywhere` is final once its level is linked).
        for step in self.shallow.iter_mut() {
            step.found = self.nodes[step.to as usize].anywhere;
        }
    }

    /// The states, one level after another from the root's: `each(depth,
    /// level)`.
    pub(super) fn levels(&self, mut each: impl FnMut(usize, &[u32])) {
        let mut level = vec![0u32];
        let mut next_level = Vec::new();
        let mut depth = 0;
        while !level.is_empty() {
            each(depth, &level);
            next_level.extend(level.iter().flat_map(|&s| self.children(s)));
            std::mem::swap(&mut level, &mut next_level);
            next_level.clear();
            depth += 1;
        }
    }

    /// The states depth first, each before its children, children by
    /// their byte: the order in which adding the sorted needles one by one
    /// would create them, so that a needle's states follow each other.
    pub(super) fn depth_first(&self, mut each: impl FnMut(u32)) {
        let mut stack = vec![0u32];
        while let Some(s) = stack.pop() {
            each(s);
            stack.extend(self.children(s).rev());
        }
    }

    pub(super) fn states(&self) -> usize {
        self.nodes.len()
    }

    /// The states whose parent is `s`.
    #[inline(always)]
    pub(super) fn children(&self, s: u32) -> std::ops::Range<u32> {
        let node = &self.nodes[s as usize];
        node.first_child..node.first_child + u32::from(node.child_count)
    }

    /// The byte class of the label leading into `t`.
    fn class_of(&self, t: u32) -> usize {
        usize::from(self.classes.of[usize::from(self.nodes[t as usize].label)])
    }

    /// The child of `s` on `byte`.
    #[inline(always)]
    pub(super) fn child(&self, s: u32, byte: u8) -> Option<u32> {
        self.nodes[s as usize].child(&self.nodes, byte).0
    }

    /// The state after `s` on `byte`, failures resolved (those of `s` and
    /// the states it fails to must be linked).
    #[inline(always)]
    fn next(&self, mut s: u32, byte: u8) -> u32 {
        loop {
            if s < self.shallow_states {
                return self.shallow[s as usize * self.classes.count + usize::from(self.classes.of[usize::from(byte)])]
                    .to;
            }
            if let Some(t) = self.child(s, byte) {
                return t;
            }
            s = self.nodes[s as usize].fail;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Word-wise, the common prefix is the byte-wise one: texts equal up to
    /// every position around a word's, of every length, differing in a
    /// high or a low bit.
    #[test]
    fn common_prefix_is_the_bytes_in_common() {
        let base: Vec<u8> = (0..40u8).map(|i| b'A' + i % 26).collect();
        for len in 0..=base.len() {
            let a = &base[..len];
            for at in 0..len {
                for flip in [0x01, 0x80] {
                    let mut b = a.to_vec();
                    b[at] ^= flip;
                    assert_eq!(common_prefix(a, &b), at, "{len} bytes, differing at {at}");
                    assert_eq!(common_prefix(&b, a), at);
                }
            }
            for other in 0..=base.len() {
                assert_eq!(common_prefix(a, &base[..other]), len.min(other));
            }
        }
    }

    /// The longest proper suffix of `path` that is a prefix of a needle.
    fn failure_by_definition<'p>(needles: &[&[u8]], path: &'p [u8]) -> &'p [u8] {
        (1..=path.len()).map(|k| &path[k..]).find(|suffix| needles.iter().any(|n| n.starts_with(suffix))).unwrap()
    }

    /// Every state's path, failure state, `anywhere` and anchored needle
    /// are what the definitions say, in layouts that number the states
    /// breadth first, along the needles, and both, with and without rows.
    #[test]
    fn every_layout_links_failures_as_defined() {
        let needles: Vec<&[u8]> = {
            let mut n: Vec<&[u8]> = vec![b"ABAB", b"BAB", b"AB", b"B", b"CABABX", b"ABC", b"CC", b"X"];
            n.sort();
            n
        };
        let owners: Vec<Owner> = (0..needles.len() as u32)
            .map(|i| Owner {
                anywhere: if i % 3 == 0 { NONE } else { 10 + i },
                at_start: if i % 2 == 0 { i } else { NONE },
            })
            .collect();
        let extent = Extent::of(&needles);
        let distinct: std::collections::BTreeSet<&[u8]> =
            needles.iter().flat_map(|n| (1..=n.len()).map(move |k| &n[..k])).collect();
        assert_eq!(extent.states, 1 + distinct.len());
        assert_eq!(extent.classes.count, 1 + 4, "A, B, C, X");
        assert!(extent.classes.of[usize::from(b'A')] < extent.classes.of[usize::from(b'B')]);
        for layout in [
            Layout::DEFAULT,
            Layout { breadth_first: 1, shallow_depth: 0, depth_first_depth: usize::MAX },
            Layout { breadth_first: 4, shallow_depth: 2, depth_first_depth: 2 },
        ] {
            let trie = Trie::build(&needles, &owners, &extent, layout);
            // Each state's path, from the root down.
            let mut path = vec![Vec::new(); trie.states()];
            let mut depths = Vec::new();
            trie.levels(|depth, level| {
                for &s in level {
                    depths.push((s, depth));
                    for t in trie.children(s) {
                        path[t as usize] = [&path[s as usize][..], &[trie.nodes[t as usize].label]].concat();
                    }
                }
            });
            assert_eq!(depths.len(), trie.states(), "{layout:?}");
            assert!(depths.iter().all(|&(s, depth)| path[s as usize].len() == depth));
            let paths: std::collections::BTreeSet<&[u8]> = path[1..].iter().map(Vec::as_slice).collect();
            assert_eq!(paths, distinct, "{layout:?}");
            for (s, p) in path.iter().enumerate().skip(1) {
                let f = &path[trie.nodes[s].fail as usize];
                assert_eq!(f.as_slice(), failure_by_definition(&needles, p), "{layout:?} {p:?}");
                let anywhere = needles
                    .iter()
                    .zip(&owners)
                    .filter(|(n, _)| p.ends_with(n))
                    .map(|(_, o)| o.anywhere)
                    .fold(NONE, u32::min);
                assert_eq!(trie.nodes[s].anywhere, anywhere, "{layout:?} {p:?}");
                let at_start = needles.iter().zip(&owners).find(|(n, _)| **n == p.as_slice()).map(|(_, o)| o.at_start);
                let listed = trie.at_start.iter().find(|&&(state, _)| state as usize == s).map(|&(_, i)| i);
                assert_eq!(listed, at_start.filter(|&i| i != NONE), "{layout:?} {p:?}");
            }
            // A shallow row's step on each byte is the longest suffix of the
            // path and the byte that is a state.
            for s in 0..trie.shallow_states as usize {
                for byte in [b'A', b'B', b'C', b'X', b'Z'] {
                    let step =
                        trie.shallow[s * extent.classes.count + usize::from(extent.classes.of[usize::from(byte)])];
                    let went = [&path[s][..], &[byte]].concat();
                    let want =
                        (0..=went.len()).map(|k| &went[k..]).find(|w| w.is_empty() || paths.contains(w)).unwrap();
                    assert_eq!(path[step.to as usize], want, "{layout:?} {s} {byte}");
                    assert_eq!(step.found, trie.nodes[step.to as usize].anywhere);
                }
            }
        }
    }
}
