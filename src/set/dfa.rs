//! A dense Aho-Corasick DFA of the glob and keyword needles, built here
//! rather than taken from the `aho-corasick` crate so that the hot loop is
//! as short as a DFA walk can be:
//!
//! - **byte classes with case folding.** Bytes that occur in no needle
//!   share one class. Under case folding a lower-case ASCII letter is given
//!   its upper-case letter's class, so an ASCII name is walked as it is,
//!   without an upper-casing pass. Every byte >= 0x80 maps to the `bail`
//!   class when walking a raw name: the walk stops and the caller takes the
//!   exact (canonicalising) path, which walks the canonical name with the
//!   canonical classes (where those bytes have their own classes).
//! - **premultiplied state ids.** A state is the index of its row in the
//!   transition table, so one step is `trans[state + class]`.
//! - **special states last.** States where a needle ends, and the `bail`
//!   state, have the highest ids: one comparison per byte tells whether
//!   anything is to be done.
//!
//! Construction is the textbook one (a trie, its failure links, then each
//! state's row in breadth-first order is its failure state's row overridden
//! by its own children), with the states renumbered so that the special
//! ones come last. Every
//! entry of the table is the row start of a state, and every class is below
//! the stride, so a step never leaves the table; [`Dfa::step`] relies on it
//! (checked in debug builds and by a test over every entry).

use super::Owner;

/// No index: a state with no needle of that kind.
const NONE: u32 = u32::MAX;

/// What a special state (one where needles end) pins.
#[derive(Debug, Clone, Copy)]
pub(super) struct Hit {
    /// The lowest index of the needles ending here that match anywhere.
    pub anywhere: u32,
    /// The index of an anchored glob whose needle is this state's whole
    /// path: it matches when the state's depth equals the bytes read.
    pub at_start: u32,
    /// The depth of the state in the trie (the length of its path).
    pub depth: u32,
}

#[derive(Debug)]
pub(super) struct Dfa {
    /// Row-major transitions; every entry is a premultiplied state id.
    trans: Box<[u32]>,
    /// Classes of a raw name's bytes (ASCII folded; >= 0x80: bail).
    raw_classes: [u8; 256],
    /// Classes of a canonical name's bytes.
    canonical_classes: [u8; 256],
    stride: u32,
    start: u32,
    /// The bail state; every state at or after it is special.
    bail: u32,
    /// Per match state (after `bail`, in order).
    hits: Box<[Hit]>,
}

/// A raw walk stopped: the name must be canonicalised first (a byte >= 0x80).
#[derive(Debug)]
pub(super) struct Canonical;

/// Trie node used while building.
struct Node {
    children: Vec<(u8, u32)>,
    hit: Hit,
}

impl Dfa {
    /// The DFA of `needles` (canonical, distinct, non-empty; `owners[i]`
    /// pins for `needles[i]`), or `None` if its table would take more than
    /// `max_bytes`.
    pub(super) fn build(needles: &[Vec<u8>], owners: &[Owner], fold: bool, max_bytes: usize) -> Option<Dfa> {
        // Classes: 0 for bytes in no needle, 1.. for each byte that occurs,
        // the last one for bail.
        let mut canonical_classes = [0u8; 256];
        let mut next_class = 1usize;
        for needle in needles {
            for &b in needle {
                if canonical_classes[usize::from(b)] == 0 {
                    canonical_classes[usize::from(b)] = next_class as u8;
                    next_class += 1;
                    // 255 distinct bytes + class 0 + bail need 257: give up
                    // (a list using almost every byte value is not a list
                    // of image names).
                    if next_class > 254 {
                        return None;
                    }
                }
            }
        }
        let bail_class = next_class as u8;
        let stride = next_class + 1;
        let mut raw_classes = [bail_class; 256];
        for b in 0u8..0x80 {
            let c = if fold { b.to_ascii_uppercase() } else { b };
            raw_classes[usize::from(b)] = canonical_classes[usize::from(c)];
        }

        // The trie. Node 0 is the root. Given up as soon as its states'
        // rows would exceed `max_bytes`, before its own memory grows large.
        let max_states = max_bytes / (stride * 4);
        let mut nodes = vec![Node { children: Vec::new(), hit: Hit { anywhere: NONE, at_start: NONE, depth: 0 } }];
        for (needle, owner) in needles.iter().zip(owners) {
            let mut s = 0usize;
            for &b in needle {
                let class = canonical_classes[usize::from(b)];
                s = match nodes[s].children.iter().find(|&&(c, _)| c == class) {
                    Some(&(_, t)) => t as usize,
                    None => {
                        let t = nodes.len();
                        // (+ 1: the bail state.)
                        if t + 1 >= max_states {
                            return None;
                        }
                        let depth = nodes[s].hit.depth + 1;
                        nodes[s].children.push((class, t as u32));
                        nodes.push(Node { children: Vec::new(), hit: Hit { anywhere: NONE, at_start: NONE, depth } });
                        t
                    }
                };
            }
            let hit = &mut nodes[s].hit;
            hit.anywhere = hit.anywhere.min(owner.anywhere.unwrap_or(NONE));
            hit.at_start = hit.at_start.min(owner.at_start.unwrap_or(NONE));
        }
        let states = nodes.len() + 1; // and bail
        if states * stride * 4 > max_bytes || states * stride > u32::MAX as usize {
            return None;
        }

        // Failure links, breadth first, from the trie alone (following
        // failure links until a state has a child on the class); each
        // state inherits the needles of its failure state.
        let n = nodes.len();
        let child = |nodes: &[Node], s: u32, class: u8| {
            nodes[s as usize].children.iter().find(|&&(c, _)| c == class).map(|&(_, t)| t)
        };
        let mut fail = vec![0u32; n];
        let mut order: Vec<u32> = Vec::with_capacity(n);
        order.push(0);
        let mut next_in_order = 0;
        while let Some(&s) = order.get(next_in_order) {
            next_in_order += 1;
            for i in 0..nodes[s as usize].children.len() {
                let (class, t) = nodes[s as usize].children[i];
                let mut f = fail[s as usize];
                let target = loop {
                    if s == 0 {
                        break 0;
                    }
                    if let Some(g) = child(&nodes, f, class) {
                        break g;
                    }
                    if f == 0 {
                        break 0;
                    }
                    f = fail[f as usize];
                };
                fail[t as usize] = target;
                let inherited = nodes[target as usize].hit.anywhere;
                let hit = &mut nodes[t as usize].hit;
                hit.anywhere = hit.anywhere.min(inherited);
                order.push(t);
            }
        }

        // Renumber: ordinary states, then bail, then the special ones.
        let special = |s: usize| nodes[s].hit.anywhere != NONE || nodes[s].hit.at_start != NONE;
        let mut new_id = vec![0u32; n];
        let mut next = 0u32;
        for s in (0..n).filter(|&s| !special(s)) {
            new_id[s] = next;
            next += 1;
        }
        let bail_index = next;
        next += 1;
        let mut hits = Vec::new();
        for s in (0..n).filter(|&s| special(s)) {
            new_id[s] = next;
            next += 1;
            hits.push(nodes[s].hit);
        }

        // Rows, breadth first: a state's row is its failure state's (filled
        // before it), overridden by its own children; the root's leads back
        // to the root. Every entry is a premultiplied id.
        let premul = |index: u32| index * stride as u32;
        let mut trans = vec![0u32; states * stride];
        for &s in &order {
            let row = new_id[s as usize] as usize * stride;
            if s == 0 {
                trans[row..row + stride].fill(premul(new_id[0]));
            } else {
                let from = new_id[fail[s as usize] as usize] as usize * stride;
                trans.copy_within(from..from + stride, row);
            }
            for &(class, t) in &nodes[s as usize].children {
                trans[row + usize::from(class)] = premul(new_id[t as usize]);
            }
            trans[row + stride - 1] = premul(bail_index);
        }
        let bail_row = bail_index as usize * stride;
        trans[bail_row..bail_row + stride].fill(premul(bail_index));
        Some(Dfa {
            trans: trans.into_boxed_slice(),
            raw_classes,
            canonical_classes,
            stride: stride as u32,
            start: premul(new_id[0]),
            bail: premul(bail_index),
            hits: hits.into_boxed_slice(),
        })
    }

    /// One transition.
    #[inline(always)]
    fn step(&self, state: u32, class: u8) -> u32 {
        let i = state as usize + usize::from(class);
        debug_assert!(i < self.trans.len());
        // SAFETY: `state` is a premultiplied id (the start state, or an
        // entry of `trans`, all of which `build` sets to `index * stride`
        // for an index < states), and `class` < stride (every class table
        // entry is at most the bail class, stride - 1), so
        // `i < states * stride = trans.len()`. The test
        // `every_entry_is_a_row_start` checks this for built tables.
        unsafe { *self.trans.get_unchecked(i) }
    }

    /// Walks `name` (raw: an ASCII name as given; else a canonical name),
    /// calling `hit(h, at)` at each byte `at` where needles end; stops when
    /// `hit` returns true. Fails at the first byte >= 0x80 of a raw name.
    /// Says whether it read every byte.
    #[inline(always)]
    pub(super) fn walk(&self, name: &[u8], raw: bool, mut hit: impl FnMut(&Hit, usize) -> bool) -> Result<bool, Canonical> {
        let classes = if raw { &self.raw_classes } else { &self.canonical_classes };
        let class = |byte: u8| classes[usize::from(byte)];
        let bail = self.bail;
        let n = name.len();
        // Rounds of four bytes run while `at < fours`.
        let fours = n.saturating_sub(3);
        let mut state = self.start;
        let mut at = 0;
        loop {
            // Steps until a special state (then `at` is the byte that led
            // there) or the end. Four bytes a round: the loop's own
            // bookkeeping is a quarter of what it is byte by byte.
            loop {
                if at < fours {
                    debug_assert!(at + 4 <= n);
                    // SAFETY: at < fours = n - 3, so at + 4 <= n. (The
                    // checked slice costs a third more instructions.)
                    let four = unsafe { name.get_unchecked(at..at + 4) };
                    let s0 = self.step(state, class(four[0]));
                    if s0 >= bail {
                        state = s0;
                        break;
                    }
                    let s1 = self.step(s0, class(four[1]));
                    if s1 >= bail {
                        (state, at) = (s1, at + 1);
                        break;
                    }
                    let s2 = self.step(s1, class(four[2]));
                    if s2 >= bail {
                        (state, at) = (s2, at + 2);
                        break;
                    }
                    state = self.step(s2, class(four[3]));
                    at += 3;
                    if state >= bail {
                        break;
                    }
                    at += 1;
                } else if at < n {
                    state = self.step(state, class(name[at]));
                    if state >= bail {
                        break;
                    }
                    at += 1;
                } else {
                    return Ok(true);
                }
            }
            if state == bail {
                return Err(Canonical);
            }
            let h = &self.hits[((state - bail) / self.stride - 1) as usize];
            if hit(h, at) {
                return Ok(at + 1 == n);
            }
            at += 1;
        }
    }

    /// Walks `LANES` raw names at once, one byte of each in turn, so that
    /// their transitions' loads overlap instead of each waiting for the
    /// previous one (a lone walk is bound by that latency). Per name: true
    /// if it reached no special state (no needle, and all ASCII: then its
    /// answer is the exact table's), false if it did (then ask again with
    /// [`Dfa::walk`]).
    #[inline(always)]
    pub(super) fn walk_plain<const LANES: usize>(&self, names: [&[u8]; LANES]) -> [bool; LANES] {
        let class = |byte: u8| self.raw_classes[usize::from(byte)];
        let mut states = [self.start; LANES];
        let mut plain = [true; LANES];
        let common = names.iter().map(|n| n.len()).min().unwrap_or(0);
        for at in 0..common {
            for lane in 0..LANES {
                debug_assert!(at < names[lane].len());
                // SAFETY: at < common, the shortest name's length. (Checked
                // indexing costs a compare per lane and byte here.)
                let byte = unsafe { *names[lane].get_unchecked(at) };
                states[lane] = self.step(states[lane], class(byte));
            }
            // Walking on past a special state is harmless (every state has
            // a full row); only remember it.
            for lane in 0..LANES {
                plain[lane] &= states[lane] < self.bail;
            }
        }
        for lane in 0..LANES {
            for &byte in &names[lane][common..] {
                states[lane] = self.step(states[lane], class(byte));
                plain[lane] &= states[lane] < self.bail;
            }
        }
        plain
    }

    pub(super) fn memory_usage(&self) -> usize {
        self.trans.len() * 4 + self.hits.len() * std::mem::size_of::<Hit>()
    }
}

impl Hit {
    /// The lowest index this state pins after reading `read` bytes.
    #[inline(always)]
    pub(super) fn index(&self, read: usize) -> u32 {
        if self.at_start != NONE && self.depth as usize == read {
            self.anywhere.min(self.at_start)
        } else {
            self.anywhere
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn owners(n: usize) -> Vec<Owner> {
        (0..n).map(|i| Owner { anywhere: Some(i as u32), at_start: None }).collect()
    }

    #[test]
    fn every_entry_is_a_row_start() {
        let needles: Vec<Vec<u8>> = ["QUAY.IO/", "PAUSE", "AUSE:3", "\u{FFFD}X", "E"]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect();
        for fold in [false, true] {
            let dfa = Dfa::build(&needles, &owners(needles.len()), fold, 1 << 20).unwrap();
            let stride = dfa.stride as usize;
            assert_eq!(dfa.trans.len() % stride, 0);
            assert!(dfa.trans.iter().all(|&t| t as usize % stride == 0 && (t as usize) < dfa.trans.len()));
            assert!(dfa.raw_classes.iter().chain(&dfa.canonical_classes).all(|&c| usize::from(c) < stride));
            assert_eq!(dfa.start as usize % stride, 0);
            // Every state after bail has a hit, and only those.
            assert_eq!(dfa.hits.len(), (dfa.trans.len() - dfa.bail as usize) / stride - 1);
        }
    }

    #[test]
    fn walk_reports_every_needle_ending_at_each_byte() {
        let needles: Vec<Vec<u8>> = ["ABCD", "BC", "C", "XYZ"].iter().map(|s| s.as_bytes().to_vec()).collect();
        let dfa = Dfa::build(&needles, &owners(4), true, 1 << 20).unwrap();
        let mut seen = Vec::new();
        dfa.walk(b"zabcdxyz", true, |h, at| {
            seen.push((at, h.anywhere));
            false
        })
        .unwrap();
        // "BC" and "C" end at 3: the lowest is BC (1); "ABCD" at 4; "XYZ" at 7.
        assert_eq!(seen, [(3, 1), (4, 0), (7, 3)]);
        assert!(dfa.walk("a\u{e9}".as_bytes(), true, |_, _| false).is_err());
        assert!(dfa.walk("A\u{e9}".as_bytes(), false, |_, _| false).is_ok());
    }

    #[test]
    fn oversized_tables_are_refused() {
        let needles = vec![b"ABCDEFGH".to_vec()];
        assert!(Dfa::build(&needles, &owners(1), true, 64).is_none());
    }
}
