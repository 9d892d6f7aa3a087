//! The second tier: the glob and keyword needles as a sparse Aho-Corasick
//! automaton, for the lists whose dense table ([`super::dfa`]) would pass
//! [`super::budget::DENSE_MAX_BYTES`]. No list is refused for its size
//! (issue 55): CRI-O runs any list, so the library compiles any list within
//! [`super::MAX_PATTERNS`] and [`super::MAX_PATTERN_BYTES`], and a list
//! past the fast tier is answered here, at a cost a name that is bounded
//! by the name's length, whatever the list.
//!
//! It is the needles' one trie ([`super::trie`]: needles → numbered trie →
//! failure links), walked as it is: a state is one aligned 16-byte
//! [`Node`] (its first child, failure state, the lowest index ending
//! there, its label and child count), never split across cache lines, and
//! compiling holds one copy of the nodes:
//!
//! - **Children contiguous, ascending by label**, each a node: a state
//!   with one child (nearly every state past the first levels) finds it by
//!   reading that child's node, which is the state the walk goes to next,
//!   so a walk down a needle reads one node a byte, and the nodes of a
//!   needle follow each other (numbered along the needles below the top
//!   levels: [`super::trie::Layout`]). A state with more children finds
//!   the one it needs by a binary search over theirs.
//! - **Rows near the root.** The states at most
//!   [`super::trie::Layout::shallow_depth`] deep (within a budget) have a
//!   row of steps by byte class with failures resolved
//!   ([`super::trie::Trie::shallow`]): a step from them is one read, and a
//!   chain of failure steps ends at the first of them it meets. A step
//!   into a leaf (a state without children: most states of a list of short
//!   needles) leads to the leaf's failure state instead, where the next
//!   step would go anyway, having found what ends at the leaf.
//! - **The lowest index, precomputed**: a node's `anywhere` is the lowest
//!   index of an unanchored needle that is a suffix of its path, so a byte
//!   reads no list of matches. Anchored globs ([`crate::Flags::ANCHOR_GLOBS`])
//!   are found by a second walk from the root along children only, which
//!   looks up the states marked `anchored` in `at_start`.
//!
//! **What a name costs (the bound; docs/reliability.md, "Tiers").** Each
//! byte of a name is one step. A step visits states until one has a row
//! or a child on the byte: a row costs one read; a node costs its own node
//! (already read, as the child found one step before, unless reached by a
//! failure link) and its children's: one for a single child, at most
//! `1 + ⌈log2 c⌉` for `c` children (`c` ≤ 243, the bytes of UTF-8: at most
//! 9). A failure link always leads to a shallower state and a step goes at
//! most one level deeper, so a name of `L` bytes takes at most `L` failure
//! visits in all, whatever the list: at most `2L` visits, and at most `2L ×
//! 10` node or row reads (each one line: nodes are 16-byte aligned, steps 8),
//! plus, with anchored globs, at most `L` more visits of the second walk.
//! On the image names and lists measured a walk reads about 1.1–2 nodes a
//! byte. [`Meter`] counts what a walk reads, and `tests/bound.rs` asserts
//! these bounds on the lists built to make them grow. The dense tier
//! reads one table entry a byte, and its table holds each state's row:
//! here a state costs 16 bytes whatever the list's byte classes, against 4
//! a class (160 to 1,000 bytes) there, which is why the dense tier stops
//! at a size and this one does not.

use super::search::{Form, NeedsCanonical, NONE};
use super::trie::{Node, Step, Trie};

#[derive(Debug)]
pub(super) struct Sparse {
    nodes: Box<[Node]>,
    /// The trie's rows of steps ([`Trie::shallow`]), `stride` a state, for
    /// the first `shallow_states` states.
    shallow: Box<[Step]>,
    shallow_states: u32,
    stride: usize,
    /// Per canonical byte: its class (0: in no needle).
    classes: [u8; 256],
    /// (state, index) of each anchored glob's whole needle, by state.
    at_start: Box<[(u32, u32)]>,
    /// Case folding: a name as given is read with its ASCII letters
    /// upper-cased (their canonical form).
    fold: bool,
}

/// What a walk reads, counted ([`Sparse::walk_metered`]): the units of the
/// bound in the module doc. Matching uses [`Unmetered`], which counts
/// nothing and costs nothing.
pub(super) trait Meter {
    /// A state visited (a row read, or a node whose children are searched).
    fn visit(&mut self);
    /// A node or a row's step read.
    fn read(&mut self, count: usize);
}

/// The meter of matching: nothing counted.
pub(super) struct Unmetered;

impl Meter for Unmetered {
    #[inline(always)]
    fn visit(&mut self) {}
    #[inline(always)]
    fn read(&mut self, _: usize) {}
}

/// Where a step into `t` may as well lead: a leaf (no children) fails on
/// whatever byte comes next, so a step into it leads to its failure state
/// instead (having found what ends at it), which spares the next step a
/// visit, and a read that misses the cache on a list of many leaves
/// (every 4-byte keyword: 1.7 million leaves, a needle ending at every
/// byte of a name).
#[inline(always)]
fn leaf_skipped(nodes: &[Node], t: u32) -> u32 {
    let node = &nodes[t as usize];
    if t != 0 && node.child_count == 0 {
        node.fail
    } else {
        t
    }
}

/// What [`Sparse::walk_metered`] counted (feature `testing`: the bound's
/// tests).
#[cfg(feature = "testing")]
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct WalkCount {
    /// States visited.
    pub visits: usize,
    /// Nodes and row steps read.
    pub reads: usize,
}

#[cfg(feature = "testing")]
impl Meter for WalkCount {
    fn visit(&mut self) {
        self.visits += 1;
    }
    fn read(&mut self, count: usize) {
        self.reads += count;
    }
}

impl Sparse {
    /// The automaton of `trie` (its failure links set): its nodes and rows
    /// moved in, not copied.
    pub(super) fn from_trie(trie: Trie, fold: bool) -> Sparse {
        let Trie { mut nodes, at_start, classes, mut shallow, shallow_states } = trie;
        for &(state, _) in at_start.iter() {
            nodes[state as usize].anchored = true;
        }
        for step in shallow.iter_mut() {
            step.to = leaf_skipped(&nodes, step.to);
        }
        Sparse { nodes, shallow, shallow_states, stride: classes.count, classes: classes.of, at_start, fold }
    }

    pub(super) fn memory_usage(&self) -> usize {
        size_of_val(&*self.nodes) + size_of_val(&*self.shallow) + size_of_val(&*self.at_start)
    }

    /// How many states it has.
    pub(super) fn states(&self) -> usize {
        self.nodes.len()
    }

    /// `byte` as the automaton reads it: `Err` for a byte >= 0x80 of a name
    /// as given (the name must be canonicalised first).
    #[inline(always)]
    fn read(&self, byte: u8, form: Form) -> Result<u8, NeedsCanonical> {
        match form {
            Form::Canonical => Ok(byte),
            Form::AsGiven if byte >= 0x80 => Err(NeedsCanonical),
            Form::AsGiven if self.fold => Ok(byte.to_ascii_uppercase()),
            Form::AsGiven => Ok(byte),
        }
    }

    /// The child of `node` on `byte`, its reads counted.
    #[inline(always)]
    fn child(&self, node: &Node, byte: u8, meter: &mut impl Meter) -> Option<u32> {
        let (child, reads) = node.child(&self.nodes, byte);
        meter.read(reads);
        child
    }

    /// The step from `s` on `byte` (canonical), failures followed: the
    /// state it leads to and the lowest index of an unanchored needle
    /// ending there (or [`NONE`]).
    #[inline(always)]
    fn step(&self, mut s: u32, byte: u8, meter: &mut impl Meter) -> (u32, u32) {
        let class = self.classes[usize::from(byte)];
        if class == 0 {
            // In no needle: no suffix ending with it is a state but the root.
            return (0, NONE);
        }
        loop {
            meter.visit();
            if s < self.shallow_states {
                meter.read(1);
                let Step { to, found } = self.shallow[s as usize * self.stride + usize::from(class)];
                return (to, found);
            }
            // (Its own node: counted at every visit, though one reached as
            // the child found by the step before is read already.)
            meter.read(1);
            let node = &self.nodes[s as usize];
            if let Some(t) = self.child(node, byte, meter) {
                // (The child's node is read: the search compared its label.)
                return (leaf_skipped(&self.nodes, t), self.nodes[t as usize].anywhere);
            }
            s = node.fail;
        }
    }

    /// Walks `name` (in `form`: an ASCII name as given, or a canonical one),
    /// calling `found(index, at)` at each byte `at` where a needle of the
    /// pattern `index` ends (an anchored glob's only when its needle is the
    /// name's first `at + 1` bytes); stops when `found` returns true. Fails
    /// at the first byte >= 0x80 of a name as given. Says whether it read
    /// every byte.
    #[inline(always)]
    pub(super) fn walk(
        &self,
        name: &[u8],
        form: Form,
        found: impl FnMut(u32, usize) -> bool,
    ) -> Result<bool, NeedsCanonical> {
        self.walk_metered(name, form, found, &mut Unmetered)
    }

    /// [`Sparse::walk`], counting what it reads in `meter`.
    #[inline(always)]
    pub(super) fn walk_metered(
        &self,
        name: &[u8],
        form: Form,
        mut found: impl FnMut(u32, usize) -> bool,
        meter: &mut impl Meter,
    ) -> Result<bool, NeedsCanonical> {
        if !self.at_start.is_empty() {
            let mut s = 0u32;
            for (at, &byte) in name.iter().enumerate() {
                meter.visit();
                meter.read(1);
                let Some(t) = self.child(&self.nodes[s as usize], self.read(byte, form)?, meter) else { break };
                s = t;
                if self.nodes[t as usize].anchored && found(self.anchored_index(t), at) {
                    return Ok(false);
                }
            }
        }
        let mut s = 0u32;
        for (at, &byte) in name.iter().enumerate() {
            let index;
            (s, index) = self.step(s, self.read(byte, form)?, meter);
            if index != NONE && found(index, at) {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The index of the anchored glob whose needle is state `t`'s path.
    #[cold]
    fn anchored_index(&self, t: u32) -> u32 {
        let k = self.at_start.binary_search_by_key(&t, |&(state, _)| state).expect("an anchored state is listed");
        self.at_start[k].1
    }
}
