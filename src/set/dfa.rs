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
//!   class when walking a name as given: the walk stops and the caller takes the
//!   exact (canonicalising) path, which walks the canonical name with the
//!   canonical classes (where those bytes have their own classes).
//! - **premultiplied state ids.** A state's id is the byte offset of its
//!   row in the transition table plus a fixed offset (below), so one step
//!   reads the entry `class` entries past byte `state` of `rows`, the
//!   table's address less the offset: no multiply of the state by the
//!   entry's size on the chain (free in an x86 address, an instruction a
//!   step in WebAssembly).
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
//! Construction is the textbook one, derived from the one trie of the
//! needles ([`super::trie`]: needles → numbered trie → failure links):
//! [`Dfa::columns_within`] tells from the trie's size, before it is built,
//! whether its table fits; [`Dfa::from_trie`] then renumbers the states so
//! that the special ones come first (each kind depth first, so that a walk
//! down a needle reads rows that follow each other, not rows a level
//! apart), and gives each a row, breadth first:
//! its failure state's row (filled before it) overridden by its own
//! children. Every entry of the table is `offset` plus the row start
//! of a state, and every class is below the stride, so a step never leaves
//! the table; [`Dfa::step`] relies on it (checked in debug builds and by a
//! test over every entry).
//!
//! **What a name costs (the bound; docs/reliability.md, "The bound").** A
//! name of `L` bytes reads at most one table entry a byte a lane: lane B
//! the last half, lane A the first half and then on until its state's path
//! lies in B's half (at most its depth for a state under 255 deep, else to
//! the end: `L` in all). A piece of 8 bytes that met a special state is
//! read again byte by byte, over the same entries (now in L1), and each
//! special state it meets reads its [`Hit`] (12 bytes). So a walk reads at
//! most `2L` lines, `L` of the table and `L` of the hits, and at most that
//! many can be outside a cache of `C` bytes: none once the table and hits
//! fit in `C` and the name has been walked. The chain of dependent loads is
//! about `L/2` steps (two lanes), and the table is at most
//! [`super::DENSE_MAX_BYTES`]; what bounds a name's time is how many of
//! those lines miss the cache: issue 36's failure jumps, which send every
//! byte to a row no other byte reads, cost 0.7–1.2 µs (`match`) and 2.0–2.7
//! µs (`match_index`) a 255-byte name at 11–23 MiB of table
//! (`benches/budget.rs`, rows `fj-*`). Compiling writes the table
//! once, a row a state (its failure state's row copied, its children's
//! entries set): at most [`super::DENSE_MAX_BYTES`] of writes, 4 bytes a byte class (at most
//! 980) per byte of needle text.

use super::search::NONE;
use super::trie::Trie;

mod walk;
pub(super) use walk::READ_WORDS;

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
    /// byte offset of the state's row.
    trans: Box<[u32]>,
    /// What a state's id adds to its row's byte offset (see the module
    /// doc).
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
    /// 2^32 / (the row's bytes), rounded up ([`Dfa::row`]).
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

/// The bytes of a table entry: the unit of the ids.
const ENTRY: usize = size_of::<u32>();

/// How a table's columns are told: one per byte value, or one per byte
/// class of the trie and one for `bail`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Columns {
    PerByte,
    PerClass,
}

/// Where each trie state's row goes: bail first, then the special states,
/// then the ordinary ones, with ids offset so that bit `flag` tells the
/// two kinds apart (module doc).
struct Numbering {
    /// Per trie state: its row number (bail is row 0).
    row: Vec<u32>,
    /// Per special row after bail, in order: its hit (`depth` still unset).
    hits: Vec<Hit>,
    offset: u32,
    flag: u32,
}

impl Numbering {
    /// Special states are those where a needle ends: unanchored (their
    /// `anywhere`, inherited along failure links) or anchored (`at_start`).
    /// Each kind is numbered depth first, so that a walk down a needle
    /// reads rows that follow each other.
    fn special_first(trie: &Trie, stride: usize) -> Numbering {
        let states = trie.states();
        let at_start =
            |s: u32| trie.at_start.binary_search_by_key(&s, |&(state, _)| state).map_or(NONE, |k| trie.at_start[k].1);
        let mut row = vec![0u32; states];
        let mut hits = Vec::new();
        let mut next = 1u32;
        trie.depth_first(|s| {
            let (anywhere, at_start) = (trie.nodes[s as usize].anywhere, at_start(s));
            if anywhere != NONE || at_start != NONE {
                row[s as usize] = next;
                next += 1;
                hits.push(Hit { anywhere, at_start, depth: 0 });
            }
        });
        let special_size = next as usize * stride;
        trie.depth_first(|s| {
            if row[s as usize] == 0 {
                row[s as usize] = next;
                next += 1;
            }
        });
        let ordinary_size = (states + 1) * stride - special_size;
        // (In bytes, as the ids are.)
        let (special_size, ordinary_size) = (special_size * ENTRY, ordinary_size * ENTRY);
        let flag = special_size.max(ordinary_size).next_power_of_two();
        // Ids run up to 2 * flag ([`Dfa::columns_within`] checked they fit).
        assert!(flag <= 1 << 31, "the ids fit in u32");
        Numbering { row, hits, offset: (flag - special_size) as u32, flag: flag as u32 }
    }

    /// The id of row `index`.
    fn id(&self, index: u32, stride: usize) -> u32 {
        self.offset + index * (stride * ENTRY) as u32
    }
}

impl Dfa {
    /// The bytes of the table of a trie of `states` states with `stride`
    /// columns (one row more than the states: bail's), saturating.
    pub(super) fn table_bytes(states: usize, stride: usize) -> usize {
        (states + 1).saturating_mul(stride).saturating_mul(ENTRY)
    }

    /// The columns of the DFA of a trie of `states` states over
    /// `classes` byte classes if its table takes at most `max_bytes` (one
    /// per byte value if that takes at most `wide_max`), else `None`.
    pub(super) fn columns_within(states: usize, classes: usize, max_bytes: usize, wide_max: usize) -> Option<Columns> {
        // Ids run up to twice the table's bytes, rounded up to a power of
        // two: within u32 if the table has at most 2^31 bytes.
        let fits = |stride: usize, max: usize| {
            let bytes = Self::table_bytes(states, stride);
            bytes <= max && bytes <= 1 << 31
        };
        if fits(256, wide_max.min(max_bytes)) {
            Some(Columns::PerByte)
        } else {
            fits(Self::class_stride(classes), max_bytes).then_some(Columns::PerClass)
        }
    }

    /// The columns of a class table over `classes` byte classes: one more,
    /// bail's.
    pub(super) fn class_stride(classes: usize) -> usize {
        classes + 1
    }

    /// The DFA of `trie` (its failure links set), with `columns` (what
    /// [`Dfa::columns_within`] said for it).
    pub(super) fn from_trie(trie: &Trie, fold: bool, columns: Columns) -> Dfa {
        let wide = columns == Columns::PerByte;
        // Class mode: the trie's classes, then `bail` for a raw name's bytes
        // >= 0x80. Wide: the classes are the bytes.
        let (canonical, raw, stride) = if wide {
            let bytes = std::array::from_fn(|b| b as u8);
            (bytes, bytes, 256)
        } else {
            let canonical = trie.classes.of;
            let bail = u8::try_from(trie.classes.count).expect("canonical needles use at most 243 bytes");
            let mut raw = [bail; 256];
            for b in 0u8..0x80 {
                let c = if fold { b.to_ascii_uppercase() } else { b };
                raw[usize::from(b)] = canonical[usize::from(c)];
            }
            (canonical, raw, Self::class_stride(trie.classes.count))
        };
        let mut numbering = Numbering::special_first(trie, stride);
        let (trans, depths) = Self::rows_of(trie, &mut numbering, &canonical, stride, wide, fold);
        Dfa {
            trans,
            offset: numbering.offset,
            flag: numbering.flag,
            raw_classes: raw,
            canonical_classes: canonical,
            wide,
            start: numbering.id(numbering.row[0], stride),
            bail: numbering.id(0, stride),
            hits: numbering.hits.into_boxed_slice(),
            depths,
            row_reciprocal: (1u64 << 32).div_ceil((stride * ENTRY) as u64),
        }
    }

    /// The transition table, breadth first: a state's row is its failure
    /// state's (filled before it), overridden by its own children; the
    /// root's leads back to the root, bail's to bail. Every entry is an id.
    /// Also each row's depth (and each hit's).
    fn rows_of(
        trie: &Trie,
        numbering: &mut Numbering,
        column: &[u8; 256],
        stride: usize,
        wide: bool,
        fold: bool,
    ) -> (Box<[u32]>, Box<[u8]>) {
        let rows = trie.states() + 1;
        let mut trans = vec![0u32; rows * stride];
        let mut depths = vec![u8::MAX; rows];
        let numbering = &mut *numbering;
        trie.levels(|depth, level| {
            for &s in level {
                let at = numbering.row[s as usize];
                let row = at as usize * stride;
                if s == 0 {
                    trans[row..row + stride].fill(numbering.id(at, stride));
                } else {
                    let from = numbering.row[trie.nodes[s as usize].fail as usize] as usize * stride;
                    trans.copy_within(from..from + stride, row);
                }
                for t in trie.children(s) {
                    let to = numbering.id(numbering.row[t as usize], stride);
                    let label = trie.nodes[t as usize].label;
                    trans[row + usize::from(column[usize::from(label)])] = to;
                    if wide && fold {
                        // A raw ASCII name walks as its upper-case form
                        // (canonical needles hold no lower-case ASCII
                        // letters): a row copied from its failure state's
                        // has that already, so its own children keep it.
                        debug_assert!(!label.is_ascii_lowercase());
                        trans[row + usize::from(label.to_ascii_lowercase())] = to;
                    }
                }
                if !wide {
                    trans[row + stride - 1] = numbering.id(0, stride);
                }
                depths[at as usize] = u8::try_from(depth).unwrap_or(u8::MAX);
                if let Some(hit) = (at as usize).checked_sub(1).and_then(|h| numbering.hits.get_mut(h)) {
                    hit.depth = depth as u32;
                }
            }
        });
        trans[..stride].fill(numbering.id(0, stride));
        (trans.into_boxed_slice(), depths.into_boxed_slice())
    }

    /// Whether the table has a column per byte value.
    #[cfg(feature = "testing")]
    pub(super) fn is_wide(&self) -> bool {
        self.wide
    }

    /// The bytes of its transition table.
    pub(super) fn table_bytes_held(&self) -> usize {
        self.trans.len() * ENTRY
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
    use super::super::search::{Form, NeedsCanonical, Owner};
    use super::super::trie::{Extent, Layout};
    use super::*;

    /// The DFA of `needles` (in any order; `owners[i]` pins for
    /// `needles[i]`) if its table takes at most `max` bytes.
    fn build(needles: &[Vec<u8>], owners: &[Owner], fold: bool, max: usize, wide_max: usize) -> Option<Dfa> {
        let mut sorted: Vec<(&[u8], Owner)> = needles.iter().map(Vec::as_slice).zip(owners.iter().copied()).collect();
        sorted.sort_by_key(|&(needle, _)| needle);
        let (needles, owners): (Vec<&[u8]>, Vec<Owner>) = sorted.into_iter().unzip();
        let extent = Extent::of(&needles);
        let columns = Dfa::columns_within(extent.states, extent.classes.count, max, wide_max)?;
        Some(Dfa::from_trie(&Trie::build(&needles, &owners, &extent, Layout::DEFAULT), fold, columns))
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
                id.checked_sub(dfa.offset)
                    .map(|r| r as usize)
                    .filter(|r| r % (stride * ENTRY) == 0 && r / ENTRY < dfa.trans.len())
            };
            assert_eq!(dfa.trans.len() % stride, 0);
            // (So that every id, and the entry it reads, is aligned.)
            assert_eq!(dfa.offset as usize % ENTRY, 0);
            assert!(dfa.trans.iter().all(|&t| row(t).is_some()), "an entry is no row start");
            assert!(dfa.raw_classes.iter().chain(&dfa.canonical_classes).all(|&c| usize::from(c) < stride));
            assert!(row(dfa.start).is_some() && row(dfa.bail) == Some(0));
            // The flag is clear in bail and the hits' ids, set in all others
            // (which include the start: no needle is empty).
            assert!(dfa.flag.is_power_of_two());
            let ids = (0..dfa.trans.len() / stride).map(|r| dfa.offset + (r * stride * ENTRY) as u32);
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
            dfa.walk(b"zabcdxyz", Form::AsGiven, |h, at| {
                seen.push((at, h.anywhere));
                false
            })
            .unwrap();
            // "BC" and "C" end at 3: the lowest is BC (1); "ABCD" at 4; "XYZ" at 7.
            assert_eq!(seen, [(3, 1), (4, 0), (7, 3)]);
            assert!(dfa.walk("a\u{e9}".as_bytes(), Form::AsGiven, |_, _| false).is_err());
            assert!(dfa.walk("A\u{e9}".as_bytes(), Form::Canonical, |_, _| false).is_ok());
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

    /// Whether [`Dfa::walk_plain_each`] found each of `names` plain, in
    /// their order; each is reported once, and reading the names a word
    /// at a time gives the same answers as reading them byte by byte.
    fn plain(dfa: &Dfa, names: &[&[u8]]) -> Vec<bool> {
        let bytes = plain_reading::<false>(dfa, names);
        assert_eq!(plain_reading::<true>(dfa, names), bytes, "read a word at a time");
        bytes
    }

    fn plain_reading<const WORDS: bool>(dfa: &Dfa, names: &[&[u8]]) -> Vec<bool> {
        let mut seen = vec![None; names.len()];
        dfa.walk_plain_each::<4, WORDS>(names.iter().copied().enumerate(), |i, name, plain| {
            assert_eq!(name, names[i]);
            assert!(seen[i].replace(plain).is_none(), "name {i} reported twice");
        });
        seen.into_iter().map(|p| p.expect("every name reported")).collect()
    }

    /// Lanes that end at different bytes, and the names left when the
    /// list runs out, each walked on from where it was: a needle from the
    /// start of a name is found whichever name ends first.
    #[test]
    fn walk_plain_each_answers_each_name_as_its_own_walk() {
        let needles = vec![b"ABCDEFGH".to_vec()];
        for wide_max in [0, 1 << 20] {
            let dfa = build(&needles, &owners(1), true, 1 << 20, wide_max).unwrap();
            let mut names: Vec<Vec<u8>> = Vec::new();
            for len in 0..30 {
                names.push(vec![b'a'; len]);
                names.push([&b"abcdefgh"[..], &vec![b'a'; len]].concat());
            }
            for count in 1..names.len() {
                for names in [&names[..count], &names[names.len() - count..]] {
                    let want: Vec<bool> = names.iter().map(|n| !n.starts_with(b"abcdefgh")).collect();
                    let names: Vec<&[u8]> = names.iter().map(Vec::as_slice).collect();
                    assert_eq!(plain(&dfa, &names), want, "{wide_max} {count}");
                }
            }
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
                    let read_all = dfa.walk(&name, Form::AsGiven, |h, end| {
                        seen.push((end, h.anywhere));
                        false
                    });
                    assert!(read_all.unwrap(), "{len} {at}");
                    assert_eq!(seen, [(at + piece.len() - 1, index)], "{len} {at}");
                    assert_eq!(
                        plain(dfa, &[&name, b"aaaa", &name, &name, b"aaaa", b""]),
                        [false, true, false, false, true, true]
                    );
                }
                let mut name = vec![b'a'; len];
                name[at] = 0xc3;
                assert!(dfa.walk(&name, Form::AsGiven, |_, _| false).is_err(), "{len} {at}");
                assert!(dfa.walk(&name, Form::Canonical, |_, _| false).is_ok(), "{len} {at}");
                assert_eq!(plain(dfa, &[&name]), [false], "{len} {at}");
            }
            assert_eq!(plain(dfa, &[&vec![b'a'; len]]), [true]);
        }
        // More names than lanes, of every length, so that lanes end and
        // take the next name at different bytes, and the last ones end
        // alone: each answer is its own name's.
        let names: Vec<Vec<u8>> = (0..40)
            .map(|len| {
                let mut name = vec![b'a'; len];
                if len % 3 == 1 {
                    name[len / 2] = b'z';
                }
                name
            })
            .collect();
        for names in [names.clone(), names.into_iter().rev().collect()] {
            let want: Vec<bool> = names.iter().map(|n| !n.contains(&b'z')).collect();
            assert_eq!(plain(dfa, &names.iter().map(Vec::as_slice).collect::<Vec<_>>()), want);
        }
    }

    /// The lowest index reported at each byte, and whether the walk read
    /// every byte (or where it failed).
    fn hits_by_byte(
        walked: impl FnOnce(&mut dyn FnMut(&Hit, usize) -> bool) -> Result<bool, NeedsCanonical>,
    ) -> Result<(Vec<(usize, u32)>, bool), ()> {
        let mut seen = std::collections::BTreeMap::new();
        let read_all = walked(&mut |h, at| {
            let index = seen.entry(at).or_insert(u32::MAX);
            *index = (*index).min(h.index(at + 1));
            false
        })
        .map_err(|NeedsCanonical| ())?;
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
                    let one = hits_by_byte(|hit| dfa.walk(name, Form::AsGiven, hit));
                    let two = hits_by_byte(|hit| dfa.walk_split(name, Form::AsGiven, hit));
                    assert_eq!(one, two, "{wide_max} {:?}", String::from_utf8_lossy(name));
                    // The canonical name (upper case; its bytes >= 0x80 walked).
                    let canonical = name.to_ascii_uppercase();
                    let one = hits_by_byte(|hit| dfa.walk(&canonical, Form::Canonical, hit));
                    let two = hits_by_byte(|hit| dfa.walk_split(&canonical, Form::Canonical, hit));
                    assert_eq!(one, two, "canonical {wide_max} {:?}", String::from_utf8_lossy(name));
                }
            }
        }
    }

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

    /// The DFA of every layout of the trie answers as the definition does,
    /// in both column kinds: states numbered breadth first or along the
    /// needles from the root on, shallow rows for none of the levels or for
    /// all, over needles that share prefixes and suffixes.
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
            let dfas: Vec<(Layout, Dfa)> = layouts
                .iter()
                .flat_map(|&l| {
                    let trie = Trie::build(&needles, &owners, &extent, l);
                    [Columns::PerByte, Columns::PerClass].map(|c| (l, Dfa::from_trie(&trie, true, c)))
                })
                .collect();
            for _ in 0..50 {
                let name: Vec<u8> = (0..next(100)).map(|_| b'A' + next(4) as u8).collect();
                let want = by_definition(&needles, &owners, &name);
                let lowered = name.to_ascii_lowercase();
                for (layout, dfa) in &dfas {
                    let ctx = || format!("round {round}, {layout:?}, {needles:?}, {name:?}");
                    for (name, form) in [(&lowered, Form::AsGiven), (&name, Form::Canonical)] {
                        let mut got = NONE;
                        dfa.walk_split(name, form, |hit: &Hit, at| {
                            got = got.min(hit.index(at + 1));
                            false
                        })
                        .unwrap();
                        assert_eq!(Some(got).filter(|&g| g != NONE), want, "{form:?}: {}", ctx());
                    }
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
