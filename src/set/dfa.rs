//! A dense Aho-Corasick DFA of the glob and keyword needles, built here
//! rather than taken from the `aho-corasick` crate so that the hot loop is
//! as short as a DFA walk can be:
//!
//! - **one column per byte value where the table stays small** (up to
//!   `wide_max` bytes: a few hundred states): the walk indexes the row by
//!   the byte itself and reads no class. Lower-case ASCII letters' columns
//!   are copies of the upper-case ones under case folding; a raw name's
//!   bytes >= 0x80 are caught by testing the 8 bytes of each piece at once.
//! - **byte classes with case folding** (larger tables). Bytes that occur
//!   in no needle share one class. Under case folding a lower-case ASCII letter is given
//!   its upper-case letter's class, so an ASCII name is walked as it is,
//!   without an upper-casing pass. Every byte >= 0x80 maps to the `bail`
//!   class when walking a raw name: the walk stops and the caller takes the
//!   exact (canonicalising) path, which walks the canonical name with the
//!   canonical classes (where those bytes have their own classes).
//! - **premultiplied state ids.** A state's id is the index of its row in
//!   the transition table plus a fixed offset (below), so one step is
//!   `rows[state + class]`, `rows` being the table's address less the
//!   offset.
//! - **special states told by one bit.** States where a needle ends, and
//!   the `bail` state, come first, the ordinary ones after, and the ids
//!   start at an offset chosen so that bit `flag` (a power of two) is clear
//!   in every special id and set in every ordinary one: special ids lie in
//!   `[flag - S, flag)`, ordinary ones in `[flag, flag + O)`, with `flag`
//!   at least both sizes. The walk ANDs the ids of 8 steps together and
//!   tests the bit once (one instruction a byte instead of a compare and a
//!   branch), and only a chunk that met a special state is walked again
//!   byte by byte.
//!
//! - **two lanes per name** ([`Dfa::walk_split`]). A walk is a chain of
//!   dependent loads (each step's address needs the previous state), so a
//!   name of 76 bytes costs 76 load latencies however few instructions it
//!   runs. The second half of the name is walked from the start state at
//!   the same time as the first; the first lane walks on past the middle
//!   only until its state's path lies inside the second half (a few bytes,
//!   from the states' depths), from where both lanes agree. On x86-64 each
//!   step reads its entry through the column's address (inline assembly),
//!   which keeps the add of the state off the chain: one load per byte.
//!
//! Construction is the textbook one (a trie, its failure links, then each
//! state's row in breadth-first order is its failure state's row overridden
//! by its own children), with the states renumbered so that the special
//! ones come first. Every entry of the table is `offset` plus the row start
//! of a state, and every class is below the stride, so a step never leaves
//! the table; [`Dfa::step`] relies on it (checked in debug builds and by a
//! test over every entry).

use super::{Owner, NONE};

mod walk;

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
    /// Row-major transitions; every entry is a state id: `offset` plus the
    /// start of the state's row.
    trans: Box<[u32]>,
    /// What a state's id adds to its row start (see the module doc).
    offset: u32,
    /// The bit clear in special ids and set in ordinary ones.
    flag: u32,
    /// Classes of a raw name's bytes (ASCII folded; >= 0x80: bail).
    raw_classes: [u8; 256],
    /// Classes of a canonical name's bytes.
    canonical_classes: [u8; 256],
    /// One column per byte (`stride` 256): the classes are not read, and a
    /// raw name's bytes >= 0x80 are tested for instead.
    wide: bool,
    start: u32,
    /// The bail state, the first special one.
    bail: u32,
    /// Per match state (after `bail`, in order).
    hits: Box<[Hit]>,
    /// Per row: the depth of its state in the trie, `u8::MAX` meaning that
    /// deep or deeper (the split walk's test for when its lanes agree).
    depths: Box<[u8]>,
    /// 2^32 / stride, rounded up ([`Dfa::row`]).
    row_reciprocal: u64,
}

/// Where a walk is: the state after reading `at` bytes.
#[derive(Debug, Clone, Copy)]
struct Lane {
    state: u32,
    at: usize,
}

/// Names shorter than this are walked in one lane by
/// [`Dfa::walk_split`]: the second lane would save too little.
const SPLIT_MIN: usize = 24;

/// A raw walk stopped: the name must be canonicalised first (a byte >= 0x80).
#[derive(Debug)]
pub(super) struct Canonical;

/// The byte classes: 0 for bytes in no needle, 1.. for each byte that
/// occurs, the last one (`bail`) for a raw name's bytes >= 0x80.
struct Classes {
    canonical: [u8; 256],
    raw: [u8; 256],
    /// Classes in all, bail included: the row width of a class table.
    count: usize,
}

impl Classes {
    /// `None` when the needles use too many distinct bytes for a class to
    /// fit a byte (never for canonical needles: see `compile_every_shape`).
    fn of(needles: &[&[u8]], fold: bool) -> Option<Classes> {
        let mut canonical = [0u8; 256];
        let mut next = 1usize;
        for &b in needles.iter().flat_map(|n| n.iter()) {
            if canonical[usize::from(b)] == 0 {
                // 255 distinct bytes + class 0 + bail need 257.
                if next > 253 {
                    return None;
                }
                canonical[usize::from(b)] = next as u8;
                next += 1;
            }
        }
        let bail = next as u8;
        let mut raw = [bail; 256];
        for b in 0u8..0x80 {
            let c = if fold { b.to_ascii_uppercase() } else { b };
            raw[usize::from(b)] = canonical[usize::from(c)];
        }
        Some(Classes { canonical, raw, count: next + 1 })
    }
}

/// Trie node used while building.
struct Node {
    children: Vec<(u8, u32)>,
    hit: Hit,
}

/// The trie of the needles over their classes (node 0 is the root), each
/// node's hit set for the needle that ends there.
struct Trie {
    nodes: Vec<Node>,
}

impl Trie {
    /// `None` as soon as it holds `max_nodes` nodes, before its own memory
    /// grows large.
    fn build(needles: &[&[u8]], owners: &[Owner], classes: &[u8; 256], max_nodes: usize) -> Option<Trie> {
        let empty = |depth| Node { children: Vec::new(), hit: Hit { anywhere: NONE, at_start: NONE, depth } };
        let mut nodes = vec![empty(0)];
        for (needle, owner) in needles.iter().zip(owners) {
            let mut s = 0usize;
            for &b in *needle {
                let class = classes[usize::from(b)];
                s = match nodes[s].children.iter().find(|&&(c, _)| c == class) {
                    Some(&(_, t)) => t as usize,
                    None => {
                        let t = nodes.len();
                        if t >= max_nodes {
                            return None;
                        }
                        let depth = nodes[s].hit.depth + 1;
                        nodes[s].children.push((class, t as u32));
                        nodes.push(empty(depth));
                        t
                    }
                };
            }
            let hit = &mut nodes[s].hit;
            hit.anywhere = hit.anywhere.min(owner.anywhere);
            hit.at_start = hit.at_start.min(owner.at_start);
        }
        Some(Trie { nodes })
    }

    fn child(&self, s: u32, class: u8) -> Option<u32> {
        self.nodes[s as usize].children.iter().find(|&&(c, _)| c == class).map(|&(_, t)| t)
    }

    /// Failure links, breadth first, from the trie alone (following failure
    /// links until a state has a child on the class); each node inherits
    /// the unanchored needles of its failure node. Returns the links and the
    /// breadth-first order.
    fn failure_links(&mut self) -> (Vec<u32>, Vec<u32>) {
        let n = self.nodes.len();
        let mut fail = vec![0u32; n];
        let mut order: Vec<u32> = Vec::with_capacity(n);
        order.push(0);
        let mut next_in_order = 0;
        while let Some(&s) = order.get(next_in_order) {
            next_in_order += 1;
            for i in 0..self.nodes[s as usize].children.len() {
                let (class, t) = self.nodes[s as usize].children[i];
                let mut f = fail[s as usize];
                let target = loop {
                    if s == 0 {
                        break 0;
                    }
                    if let Some(g) = self.child(f, class) {
                        break g;
                    }
                    if f == 0 {
                        break 0;
                    }
                    f = fail[f as usize];
                };
                fail[t as usize] = target;
                let inherited = self.nodes[target as usize].hit.anywhere;
                let hit = &mut self.nodes[t as usize].hit;
                hit.anywhere = hit.anywhere.min(inherited);
                order.push(t);
            }
        }
        (fail, order)
    }
}

/// Where each trie node's row goes: bail first, then the special nodes,
/// then the ordinary ones, with ids offset so that bit `flag` tells the
/// two kinds apart (module doc).
struct Numbering {
    /// Per trie node: its row number (bail is row 0).
    row: Vec<u32>,
    /// Per special row after bail, in order: its hit.
    hits: Vec<Hit>,
    offset: u32,
    flag: u32,
}

impl Numbering {
    /// `None` when the ids would not fit in u32.
    fn special_first(trie: &Trie, stride: usize) -> Option<Numbering> {
        let nodes = &trie.nodes;
        let special = |s: &usize| nodes[*s].hit.anywhere != NONE || nodes[*s].hit.at_start != NONE;
        let mut row = vec![0u32; nodes.len()];
        let mut hits = Vec::new();
        let mut next = 1u32;
        for s in (0..nodes.len()).filter(special) {
            row[s] = next;
            next += 1;
            hits.push(nodes[s].hit);
        }
        let special_size = next as usize * stride;
        for s in (0..nodes.len()).filter(|s| !special(s)) {
            row[s] = next;
            next += 1;
        }
        let ordinary_size = (nodes.len() + 1) * stride - special_size;
        let flag = special_size.max(ordinary_size).next_power_of_two();
        // Ids run up to 2 * flag: they must fit in u32.
        if flag > 1 << 31 {
            return None;
        }
        Some(Numbering { row, hits, offset: (flag - special_size) as u32, flag: flag as u32 })
    }

    /// The id of row `index`.
    fn id(&self, index: u32, stride: usize) -> u32 {
        self.offset + index * stride as u32
    }
}

impl Dfa {
    /// The DFA of `needles` (canonical, distinct, non-empty; `owners[i]`
    /// pins for `needles[i]`), or `None` if its table would take more than
    /// `max_bytes`; with a column per byte if that takes at most `wide_max`.
    pub(super) fn build(
        needles: &[&[u8]],
        owners: &[Owner],
        fold: bool,
        max_bytes: usize,
        wide_max: usize,
    ) -> Option<Dfa> {
        let Classes { mut canonical, mut raw, count } = Classes::of(needles, fold)?;
        // (One node fewer than rows: the bail state has no node.)
        let mut trie = Trie::build(needles, owners, &canonical, (max_bytes / (count * 4)).saturating_sub(1))?;
        let states = trie.nodes.len() + 1;
        if states * count * 4 > max_bytes || states * count > u32::MAX as usize {
            return None;
        }
        // A wide table's column of each class is its byte (the class map is
        // one to one on the needles' bytes); the classes are then the bytes.
        let wide = states * 256 * 4 <= wide_max.min(max_bytes);
        let mut column: [u8; 256] = std::array::from_fn(|c| c as u8);
        if wide {
            for b in 0..=255u8 {
                column[usize::from(canonical[usize::from(b)])] = b;
            }
            canonical = std::array::from_fn(|b| b as u8);
            raw = canonical;
        }
        let stride = if wide { 256 } else { count };
        let (fail, order) = trie.failure_links();
        let numbering = Numbering::special_first(&trie, stride)?;
        let trans = Self::rows_of(&trie, &fail, &order, &numbering, &column, stride, wide, fold);
        let mut depths = vec![u8::MAX; states];
        for (s, node) in trie.nodes.iter().enumerate() {
            depths[numbering.row[s] as usize] = u8::try_from(node.hit.depth).unwrap_or(u8::MAX);
        }
        Some(Dfa {
            trans,
            offset: numbering.offset,
            flag: numbering.flag,
            raw_classes: raw,
            canonical_classes: canonical,
            wide,
            start: numbering.id(numbering.row[0], stride),
            bail: numbering.id(0, stride),
            hits: numbering.hits.into_boxed_slice(),
            depths: depths.into_boxed_slice(),
            row_reciprocal: (1u64 << 32).div_ceil(stride as u64),
        })
    }

    /// The transition table, breadth first: a state's row is its failure
    /// state's (filled before it), overridden by its own children; the
    /// root's leads back to the root, bail's to bail. Every entry is an id.
    #[allow(clippy::too_many_arguments)]
    fn rows_of(
        trie: &Trie,
        fail: &[u32],
        order: &[u32],
        numbering: &Numbering,
        column: &[u8; 256],
        stride: usize,
        wide: bool,
        fold: bool,
    ) -> Box<[u32]> {
        let id = |row: u32| numbering.id(row, stride);
        let mut trans = vec![0u32; (trie.nodes.len() + 1) * stride];
        for &s in order {
            let row = numbering.row[s as usize] as usize * stride;
            if s == 0 {
                trans[row..row + stride].fill(id(numbering.row[0]));
            } else {
                let from = numbering.row[fail[s as usize] as usize] as usize * stride;
                trans.copy_within(from..from + stride, row);
            }
            for &(class, t) in &trie.nodes[s as usize].children {
                trans[row + usize::from(column[usize::from(class)])] = id(numbering.row[t as usize]);
            }
            if !wide {
                trans[row + stride - 1] = id(0);
            }
        }
        trans[..stride].fill(id(0));
        if wide && fold {
            // A raw ASCII name walks as its upper-case form; canonical
            // names hold no lower-case ASCII letters.
            for row in trans.chunks_exact_mut(256) {
                row.copy_within(usize::from(b'A')..=usize::from(b'Z'), usize::from(b'a'));
            }
        }
        trans.into_boxed_slice()
    }

    /// Whether the table has a column per byte value.
    #[cfg(feature = "testing")]
    pub(super) fn is_wide(&self) -> bool {
        self.wide
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

    fn build(needles: &[Vec<u8>], owners: &[Owner], fold: bool, max: usize, wide_max: usize) -> Option<Dfa> {
        let needles: Vec<&[u8]> = needles.iter().map(Vec::as_slice).collect();
        Dfa::build(&needles, owners, fold, max, wide_max)
    }

    fn owners(n: usize) -> Vec<Owner> {
        (0..n).map(|i| Owner { anywhere: i as u32, at_start: NONE }).collect()
    }

    #[test]
    fn every_entry_is_a_row_start() {
        let needles: Vec<Vec<u8>> =
            ["QUAY.IO/", "PAUSE", "AUSE:3", "\u{FFFD}X", "E"].iter().map(|s| s.as_bytes().to_vec()).collect();
        for (fold, wide_max) in [(false, 0), (true, 0), (false, 1 << 20), (true, 1 << 20)] {
            let dfa = build(&needles, &owners(needles.len()), fold, 1 << 20, wide_max).unwrap();
            assert_eq!(dfa.wide, wide_max > 0);
            let stride = dfa.trans.len() / dfa.depths.len();
            let row = |id: u32| {
                id.checked_sub(dfa.offset).map(|r| r as usize).filter(|r| r % stride == 0 && *r < dfa.trans.len())
            };
            assert_eq!(dfa.trans.len() % stride, 0);
            assert!(dfa.trans.iter().all(|&t| row(t).is_some()), "an entry is no row start");
            assert!(dfa.raw_classes.iter().chain(&dfa.canonical_classes).all(|&c| usize::from(c) < stride));
            assert!(row(dfa.start).is_some() && row(dfa.bail) == Some(0));
            // The flag is clear in bail and the hits' ids, set in all others
            // (which include the start: no needle is empty).
            assert!(dfa.flag.is_power_of_two());
            let ids = (0..dfa.trans.len() / stride).map(|r| dfa.offset + (r * stride) as u32);
            for (r, id) in ids.enumerate() {
                assert_eq!(dfa.row(id), r, "the reciprocal divides exactly");
                assert_eq!(dfa.is_special(id), r <= dfa.hits.len(), "row {r}");
            }
            assert!(!dfa.is_special(dfa.start));
            if dfa.wide {
                for row in dfa.trans.chunks_exact(256) {
                    let folded = |b: u8| if fold { b.to_ascii_uppercase() } else { b };
                    assert!((b'a'..=b'z').all(|b| row[usize::from(b)] == row[usize::from(folded(b))]));
                }
            }
        }
    }

    #[test]
    fn walk_reports_every_needle_ending_at_each_byte() {
        let needles: Vec<Vec<u8>> = ["ABCD", "BC", "C", "XYZ"].iter().map(|s| s.as_bytes().to_vec()).collect();
        for wide_max in [0, 1 << 20] {
            let dfa = build(&needles, &owners(4), true, 1 << 20, wide_max).unwrap();
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
    }

    /// Needles ending at every offset of the 8-byte pieces and the 4, 2
    /// and 1-byte tail, and a byte >= 0x80 at every offset, are each seen
    /// by the piecewise walk, and by the lockstep one.
    #[test]
    fn walk_finds_needles_and_bails_at_every_offset() {
        let needles: Vec<Vec<u8>> = ["QX", "Z"].iter().map(|s| s.as_bytes().to_vec()).collect();
        for wide_max in [0, 1 << 20] {
            walk_finds_needles_and_bails_at_every_offset_in(
                &build(&needles, &owners(2), true, 1 << 20, wide_max).unwrap(),
            );
        }
    }

    fn walk_finds_needles_and_bails_at_every_offset_in(dfa: &Dfa) {
        for len in 0..40 {
            for at in 0..len {
                for (piece, index) in [(&b"qx"[..], 0), (b"z", 1)] {
                    if at + piece.len() > len {
                        continue;
                    }
                    let mut name = vec![b'a'; len];
                    name[at..at + piece.len()].copy_from_slice(piece);
                    let mut seen = Vec::new();
                    let read_all = dfa.walk(&name, true, |h, end| {
                        seen.push((end, h.anywhere));
                        false
                    });
                    assert!(read_all.unwrap(), "{len} {at}");
                    assert_eq!(seen, [(at + piece.len() - 1, index)], "{len} {at}");
                    assert_eq!(dfa.walk_plain([&name[..], &b"aaaa"[..]]), [false, true], "{len} {at}");
                }
                let mut name = vec![b'a'; len];
                name[at] = 0xc3;
                assert!(dfa.walk(&name, true, |_, _| false).is_err(), "{len} {at}");
                assert!(dfa.walk(&name, false, |_, _| false).is_ok(), "{len} {at}");
                assert_eq!(dfa.walk_plain([&name[..]]), [false], "{len} {at}");
            }
            assert_eq!(dfa.walk_plain([&vec![b'a'; len][..]]), [true]);
        }
    }

    /// The lowest index reported at each byte, and whether the walk read
    /// every byte (or where it failed).
    fn hits_by_byte(
        walked: impl FnOnce(&mut dyn FnMut(&Hit, usize) -> bool) -> Result<bool, Canonical>,
    ) -> Result<(Vec<(usize, u32)>, bool), ()> {
        let mut seen = std::collections::BTreeMap::new();
        let read_all = walked(&mut |h, at| {
            let index = seen.entry(at).or_insert(u32::MAX);
            *index = (*index).min(h.index(at + 1));
            false
        })
        .map_err(|Canonical| ())?;
        Ok((seen.into_iter().collect(), read_all))
    }

    /// The two-lane walk reports at every byte what the one-lane walk
    /// does: needles ending in either lane, across the split, and long
    /// ones that keep lane A walking past the end of lane B's part; bytes
    /// >= 0x80 in either lane; anchored needles (seen only by lane A).
    #[test]
    fn split_walk_agrees_with_one_lane_at_every_offset() {
        let long = "QUAY.IO/OPENSHIFT-RELEASE-DEV/OCP@SHA256:0123456789";
        let needles: Vec<Vec<u8>> = [long, "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "XY", "Z", "DEV/OCP", "RELEASE"]
            .iter()
            .map(|s| s.as_bytes().to_vec())
            .collect();
        let mut owners = owners(needles.len());
        owners[3].at_start = 0;
        for wide_max in [0, 1 << 20] {
            let dfa = build(&needles, &owners, true, 1 << 20, wide_max).unwrap();
            for len in SPLIT_MIN - 1..90 {
                let mut names = Vec::new();
                for needle in &needles {
                    for at in 0..len.saturating_sub(needle.len() - 1) {
                        let mut name = vec![b'a'; len];
                        name[at..at + needle.len()].copy_from_slice(&needle.to_ascii_lowercase());
                        names.push(name);
                    }
                }
                // A needle's prefix running up to every byte, then another
                // byte (no needle ends; lane A has to walk on).
                for cut in 1..long.len().min(len) {
                    let mut name = vec![b'z'; len];
                    name[..cut].copy_from_slice(&long.as_bytes()[..cut]);
                    name[cut] = b'!';
                    names.push(name.clone());
                    name.rotate_right(len - cut - 1);
                    names.push(name);
                }
                for at in 0..len {
                    let mut name = b"xyz".repeat(len)[..len].to_vec();
                    name[at] = 0xc3;
                    names.push(name);
                }
                for name in &names {
                    let one = hits_by_byte(|hit| dfa.walk(name, true, hit));
                    let two = hits_by_byte(|hit| dfa.walk_split(name, hit));
                    assert_eq!(one, two, "{wide_max} {:?}", String::from_utf8_lossy(name));
                }
            }
        }
    }

    #[test]
    fn oversized_tables_are_refused() {
        let needles = vec![b"ABCDEFGH".to_vec()];
        assert!(build(&needles, &owners(1), true, 64, 64).is_none());
        let classes = build(&needles, &owners(1), true, 1 << 20, 10 * 1024 - 1).unwrap();
        assert!(!classes.wide, "10 states (the trie's 9 and bail) need 10 KiB");
        assert!(build(&needles, &owners(1), true, 1 << 20, 10 * 1024).unwrap().wide);
    }
}
