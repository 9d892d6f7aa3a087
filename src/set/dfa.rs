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

/// Trie node used while building.
struct Node {
    children: Vec<(u8, u32)>,
    hit: Hit,
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
        // Classes: 0 for bytes in no needle, 1.. for each byte that occurs,
        // the last one for bail.
        let mut canonical_classes = [0u8; 256];
        let mut next_class = 1usize;
        for needle in needles {
            for &b in *needle {
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
            for &b in *needle {
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
            hit.anywhere = hit.anywhere.min(owner.anywhere);
            hit.at_start = hit.at_start.min(owner.at_start);
        }
        let states = nodes.len() + 1; // and bail
        if states * stride * 4 > max_bytes || states * stride > u32::MAX as usize {
            return None;
        }
        // The column of each class: itself, or in a wide table its byte
        // (the class map is one to one on the needles' bytes).
        let wide = states * 256 * 4 <= wide_max.min(max_bytes);
        let mut column: [u8; 256] = std::array::from_fn(|c| c as u8);
        if wide {
            for b in 0..=255u8 {
                column[usize::from(canonical_classes[usize::from(b)])] = b;
            }
            canonical_classes = std::array::from_fn(|b| b as u8);
            raw_classes = canonical_classes;
        }
        let stride = if wide { 256 } else { stride };

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

        // Renumber: bail, then the special states, then the ordinary ones;
        // ids are offset so that `flag` tells the two kinds apart.
        let special = |s: usize| nodes[s].hit.anywhere != NONE || nodes[s].hit.at_start != NONE;
        let mut new_id = vec![0u32; n];
        let mut hits = Vec::new();
        let bail_index = 0u32;
        let mut next = 1u32;
        for s in (0..n).filter(|&s| special(s)) {
            new_id[s] = next;
            next += 1;
            hits.push(nodes[s].hit);
        }
        let special_size = next as usize * stride;
        for s in (0..n).filter(|&s| !special(s)) {
            new_id[s] = next;
            next += 1;
        }
        let ordinary_size = states * stride - special_size;
        let flag = special_size.max(ordinary_size).next_power_of_two();
        // Ids run up to 2 * flag: they must fit in u32.
        if flag > 1 << 31 {
            return None;
        }
        let offset = (flag - special_size) as u32;

        // Rows, breadth first: a state's row is its failure state's (filled
        // before it), overridden by its own children; the root's leads back
        // to the root. Every entry is an id.
        let id = |index: u32| offset + index * stride as u32;
        let mut trans = vec![0u32; states * stride];
        for &s in &order {
            let row = new_id[s as usize] as usize * stride;
            if s == 0 {
                trans[row..row + stride].fill(id(new_id[0]));
            } else {
                let from = new_id[fail[s as usize] as usize] as usize * stride;
                trans.copy_within(from..from + stride, row);
            }
            for &(class, t) in &nodes[s as usize].children {
                trans[row + usize::from(column[usize::from(class)])] = id(new_id[t as usize]);
            }
            if !wide {
                trans[row + stride - 1] = id(bail_index);
            }
        }
        let bail_row = bail_index as usize * stride;
        trans[bail_row..bail_row + stride].fill(id(bail_index));
        let mut depths = vec![u8::MAX; states];
        for (s, node) in nodes.iter().enumerate() {
            depths[new_id[s] as usize] = u8::try_from(node.hit.depth).unwrap_or(u8::MAX);
        }
        if wide && fold {
            // A raw ASCII name walks as its upper-case form; canonical
            // names hold no lower-case ASCII letters.
            for row in trans.chunks_exact_mut(256) {
                row.copy_within(usize::from(b'A')..=usize::from(b'Z'), usize::from(b'a'));
            }
        }
        Some(Dfa {
            trans: trans.into_boxed_slice(),
            offset,
            flag: flag as u32,
            raw_classes,
            canonical_classes,
            wide,
            start: id(new_id[0]),
            bail: id(bail_index),
            hits: hits.into_boxed_slice(),
            depths: depths.into_boxed_slice(),
            row_reciprocal: (1u64 << 32).div_ceil(stride as u64),
        })
    }

    /// Whether `state` is special (a needle ends there, or bail).
    #[inline(always)]
    fn is_special(&self, state: u32) -> bool {
        state & self.flag == 0
    }

    /// The table's address minus `offset` entries, so that a state's row
    /// starts at `rows() + id`: each step then adds no offset. (Out of the
    /// allocation itself, hence wrapping; only [`Dfa::step`] reads through
    /// it, always in bounds.)
    #[inline(always)]
    fn rows(&self) -> *const u32 {
        self.trans.as_ptr().wrapping_sub(self.offset as usize)
    }

    /// One transition; `rows` is [`Dfa::rows`]. (The walks carry ids as
    /// u64, so that each step's result is used as an index without a
    /// zero-extension.)
    #[inline(always)]
    fn step(&self, rows: *const u32, state: u64, class: u8) -> u64 {
        debug_assert!(
            state >= u64::from(self.offset)
                && (state - u64::from(self.offset)) + u64::from(class) < self.trans.len() as u64
        );
        // SAFETY: `state` is an id (the start state, or an entry of
        // `trans`, all of which `build` sets to `offset + index * stride`
        // for an index < states), and `class` < stride (every class table
        // entry is at most the bail class, stride - 1; in a wide table the
        // class is the byte and stride is 256), so the entry read,
        // `trans[state - offset + class]`, is below `states * stride =
        // trans.len()`. The test `every_entry_is_a_row_start` checks this
        // for built tables.
        //
        // On x86-64 the entry is read through the column's address, which
        // does not depend on the state: the chain of dependent steps then
        // holds one load per byte. (Left to itself, the compiler often adds
        // the state to the table's address first, which puts an add on the
        // chain too: a fifth of a walk's time.)
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        unsafe {
            let column = rows.wrapping_add(usize::from(class));
            let next: u64;
            std::arch::asm!(
                "mov {next:e}, dword ptr [{column} + {state} * 4]",
                column = in(reg) column,
                state = in(reg) state,
                next = lateout(reg) next,
                options(pure, readonly, nostack, preserves_flags),
            );
            next
        }
        #[cfg(not(all(target_arch = "x86_64", not(miri))))]
        unsafe {
            u64::from(*rows.wrapping_add(state as usize + usize::from(class)))
        }
    }

    /// The hit of a special state other than bail.
    #[inline(always)]
    fn hit(&self, state: u32) -> &Hit {
        &self.hits[self.row(state) - 1]
    }

    /// Walks `name` (raw: an ASCII name as given; else a canonical name),
    /// calling `hit(h, at)` at each byte `at` where needles end; stops when
    /// `hit` returns true. Fails at the first byte >= 0x80 of a raw name.
    /// Says whether it read every byte.
    #[inline(always)]
    pub(super) fn walk(&self, name: &[u8], raw: bool, hit: impl FnMut(&Hit, usize) -> bool) -> Result<bool, Canonical> {
        self.walk_from(name, raw, Lane { state: self.start, at: 0 }, hit)
    }

    /// [`Dfa::walk`] from `lane` on.
    #[inline(always)]
    fn walk_from(
        &self,
        name: &[u8],
        raw: bool,
        mut lane: Lane,
        mut hit: impl FnMut(&Hit, usize) -> bool,
    ) -> Result<bool, Canonical> {
        let classes = if raw { &self.raw_classes } else { &self.canonical_classes };
        // (A raw name's bytes >= 0x80 in a wide table: tested for.)
        let test_ascii = raw && self.wide;
        loop {
            let piece = match (self.wide, test_ascii) {
                (false, _) => self.to_special::<false, false>(classes, name, lane.state, lane.at),
                (true, false) => self.to_special::<true, false>(classes, name, lane.state, lane.at),
                (true, true) => self.to_special::<true, true>(classes, name, lane.state, lane.at),
            };
            let Some((state, at)) = piece else {
                return Ok(true);
            };
            // Byte by byte through the piece that met a special state (or
            // a byte >= 0x80).
            lane = Lane { state, at };
            if self.bytes(name, classes, test_ascii, &mut lane, 8, &mut hit)? {
                return Ok(lane.at == name.len());
            }
        }
    }

    /// Walks `lane` byte by byte through its next `count` bytes (or up to
    /// the end of the name), reporting hits: true if `hit` asked to stop
    /// (then `lane.at` is past the byte of that hit).
    #[inline(always)]
    fn bytes(
        &self,
        name: &[u8],
        classes: &[u8; 256],
        test_ascii: bool,
        lane: &mut Lane,
        count: usize,
        hit: &mut impl FnMut(&Hit, usize) -> bool,
    ) -> Result<bool, Canonical> {
        let rows = self.rows();
        let end = name.len().min(lane.at + count);
        while lane.at < end {
            let byte = name[lane.at];
            if test_ascii && byte >= 0x80 {
                return Err(Canonical);
            }
            lane.state = self.step(rows, u64::from(lane.state), classes[usize::from(byte)]) as u32;
            lane.at += 1;
            if self.is_special(lane.state) {
                if lane.state == self.bail {
                    return Err(Canonical);
                }
                if hit(self.hit(lane.state), lane.at - 1) {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// [`Dfa::walk`] of a raw name in two lanes, so that their chains of
    /// dependent loads overlap (one walk is bound by that latency): lane A
    /// from the start; lane B from `mid`, at the start state, over the last
    /// whole pieces (half the name or a little more). Hits arrive out of
    /// order.
    ///
    /// B's state after byte `at` is the longest suffix of `name[mid..=at]`
    /// that is a path of the trie, a suffix of the true state's path (the
    /// longest suffix of `name[..=at]`): every needle it reports is in the
    /// name, but it misses those that begin before `mid`. A therefore walks
    /// on past `mid` until its state's path begins at `mid` or later (its
    /// depth at most the bytes read since `mid`): from that byte on, B's
    /// state is the true one, and A stops.
    #[inline(always)]
    pub(super) fn walk_split(&self, name: &[u8], mut hit: impl FnMut(&Hit, usize) -> bool) -> Result<bool, Canonical> {
        let n = name.len();
        if n < SPLIT_MIN {
            return self.walk(name, true, hit);
        }
        let classes = &self.raw_classes;
        let test_ascii = self.wide;
        let mid = n - 8 * n.div_ceil(16);
        let mut a = Lane { state: self.start, at: 0 };
        let mut b = Lane { state: self.start, at: mid };
        loop {
            let special;
            (a, b, special) = if self.wide {
                self.two_to_special::<true>(classes, name, a, b, mid)
            } else {
                self.two_to_special::<false>(classes, name, a, b, mid)
            };
            if special == 0 {
                break;
            }
            if special & 1 != 0 && self.bytes(name, classes, test_ascii, &mut a, 8, &mut hit)? {
                return Ok(false);
            }
            if special & 2 != 0 && self.bytes(name, classes, test_ascii, &mut b, 8, &mut hit)? {
                return Ok(false);
            }
        }
        if b.at < n {
            // A agrees with B: B walks on alone.
            return self.walk_from(name, true, b, hit);
        }
        // B is done: A walks on alone until it agrees (a long needle across
        // `mid`; rare).
        while a.at < n && !self.synced(a, mid) {
            if self.bytes(name, classes, test_ascii, &mut a, 1, &mut hit)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Whether lane A's state has a path that begins at `mid` or later.
    #[inline(always)]
    fn synced(&self, a: Lane, mid: usize) -> bool {
        if a.at < mid {
            return false;
        }
        let depth = self.depths[self.row(a.state)];
        depth != u8::MAX && usize::from(depth) <= a.at - mid
    }

    /// The row of a state: `(state - offset) / stride`, as a multiplication
    /// (the ids are multiples of the stride above `offset`, so the rounded
    /// up reciprocal is exact while the table has under 2^32 entries).
    #[inline(always)]
    fn row(&self, state: u32) -> usize {
        ((u64::from(state - self.offset) * self.row_reciprocal) >> 32) as usize
    }

    /// Walks lanes A and B (see [`Dfa::walk_split`]) a piece of 8 bytes
    /// each at a time, until B is at the end of the name or A agrees with
    /// it (returns 0), or until a piece meets a special state or a byte >=
    /// 0x80 (returns bit 0 for A's, bit 1 for B's, each such lane at the
    /// start of that piece, the other one past its own).
    // (Not inlined, as `to_special`.)
    #[inline(never)]
    fn two_to_special<const WIDE: bool>(
        &self,
        classes: &[u8; 256],
        name: &[u8],
        mut a: Lane,
        mut b: Lane,
        mid: usize,
    ) -> (Lane, Lane, u8) {
        // B's part is whole pieces, and A is `mid` bytes behind it: A has a
        // piece wherever B has.
        let pieces_a = name[a.at..].chunks_exact(8);
        let pieces_b = name[b.at..].chunks_exact(8);
        for (piece_a, piece_b) in pieces_a.zip(pieces_b) {
            if self.synced(a, mid) {
                break;
            }
            let (state_a, plain_a) = self.piece::<WIDE, WIDE>(classes, piece_a, u64::from(a.state));
            let (state_b, plain_b) = self.piece::<WIDE, WIDE>(classes, piece_b, u64::from(b.state));
            let (next_a, next_b) =
                (Lane { state: state_a as u32, at: a.at + 8 }, Lane { state: state_b as u32, at: b.at + 8 });
            if !(plain_a && plain_b) {
                let mut special = 0;
                if plain_a {
                    a = next_a
                } else {
                    special |= 1
                }
                if plain_b {
                    b = next_b
                } else {
                    special |= 2
                }
                return (a, b, special);
            }
            (a, b) = (next_a, next_b);
        }
        (a, b, 0)
    }

    /// Walks a piece of 8 bytes from `state`: the state after them, and
    /// whether none led to a special state nor (with `TEST_ASCII`) was >=
    /// 0x80. `WIDE`: the table has a column per byte (`classes` is not
    /// read).
    #[inline(always)]
    fn piece<const WIDE: bool, const TEST_ASCII: bool>(
        &self,
        classes: &[u8; 256],
        piece: &[u8],
        state: u64,
    ) -> (u64, bool) {
        const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
        let eight: &[u8; 8] = piece.try_into().expect("a piece of 8");
        let class = |byte: u8| if WIDE { byte } else { classes[usize::from(byte)] };
        let rows = self.rows();
        // (Written out: the compiler keeps a loop over the 8 bytes.)
        let s0 = self.step(rows, state, class(eight[0]));
        let s1 = self.step(rows, s0, class(eight[1]));
        let s2 = self.step(rows, s1, class(eight[2]));
        let s3 = self.step(rows, s2, class(eight[3]));
        let s4 = self.step(rows, s3, class(eight[4]));
        let s5 = self.step(rows, s4, class(eight[5]));
        let s6 = self.step(rows, s5, class(eight[6]));
        let s7 = self.step(rows, s6, class(eight[7]));
        let special = (s0 & s1) & (s2 & s3) & (s4 & s5) & (s6 & s7) & u64::from(self.flag) == 0;
        let high = TEST_ASCII && u64::from_ne_bytes(*eight) & HIGH_BITS != 0;
        (s7, !(special || high))
    }

    /// Walks `name` from `state` at byte `at` up to 8 bytes at a time while
    /// none of them leads to a special state (the ids met, ANDed, keep the
    /// flag), nor, with `TEST_ASCII`, is >= 0x80: `None` at the end of the
    /// name, else the state and byte where a piece of at most 8 bytes that
    /// does begins. `WIDE`: the table has a column per byte (`classes` is
    /// not read).
    // (Not inlined: inside the caller's loop the compiler spills the
    // table, name and class pointers to the stack, a load each per byte.)
    #[inline(never)]
    fn to_special<const WIDE: bool, const TEST_ASCII: bool>(
        &self,
        classes: &[u8; 256],
        name: &[u8],
        state: u32,
        mut at: usize,
    ) -> Option<(u32, usize)> {
        let class = |byte: u8| if WIDE { byte } else { classes[usize::from(byte)] };
        let rows = self.rows();
        let flag = u64::from(self.flag);
        let mut state = u64::from(state);
        let mut pieces = name[at..].chunks_exact(8);
        for piece in &mut pieces {
            let (next, plain) = self.piece::<WIDE, TEST_ASCII>(classes, piece, state);
            if !plain {
                return Some((state as u32, at));
            }
            state = next;
            at += 8;
        }
        // The last 0 to 7 bytes: 4, 2 and 1 at a time.
        let rest = pieces.remainder();
        let mut s = state;
        let mut all = u64::MAX;
        let mut high = 0;
        let mut i = 0;
        if rest.len() & 4 != 0 {
            let s0 = self.step(rows, s, class(rest[0]));
            let s1 = self.step(rows, s0, class(rest[1]));
            let s2 = self.step(rows, s1, class(rest[2]));
            s = self.step(rows, s2, class(rest[3]));
            all &= s0 & s1 & s2 & s;
            high |= rest[0] | rest[1] | rest[2] | rest[3];
            i = 4;
        }
        if rest.len() & 2 != 0 {
            let s0 = self.step(rows, s, class(rest[i]));
            s = self.step(rows, s0, class(rest[i + 1]));
            all &= s0 & s;
            high |= rest[i] | rest[i + 1];
            i += 2;
        }
        if rest.len() & 1 != 0 {
            s = self.step(rows, s, class(rest[i]));
            all &= s;
            high |= rest[i];
        }
        if all & flag == 0 || (TEST_ASCII && high >= 0x80) {
            Some((state as u32, at))
        } else {
            None
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
        if self.wide {
            self.walk_plain_in::<true, LANES>(names)
        } else {
            self.walk_plain_in::<false, LANES>(names)
        }
    }

    /// [`Dfa::walk_plain`]; `WIDE`: the table has a column per byte.
    #[inline(always)]
    fn walk_plain_in<const WIDE: bool, const LANES: usize>(&self, names: [&[u8]; LANES]) -> [bool; LANES] {
        let class = |byte: u8| if WIDE { byte } else { self.raw_classes[usize::from(byte)] };
        let rows = self.rows();
        let mut states = [u64::from(self.start); LANES];
        // Per lane, the AND of every id met: the flag survives only if no
        // state was special.
        let mut all = [u64::MAX; LANES];
        let common = names.iter().map(|n| n.len()).min().unwrap_or(0);
        for at in 0..common {
            for lane in 0..LANES {
                debug_assert!(at < names[lane].len());
                // SAFETY: at < common, the shortest name's length. (Checked
                // indexing costs a compare per lane and byte here.)
                let byte = unsafe { *names[lane].get_unchecked(at) };
                // Walking on past a special state is harmless (every state
                // has a full row); only remember it.
                states[lane] = self.step(rows, states[lane], class(byte));
                all[lane] &= states[lane];
            }
        }
        for lane in 0..LANES {
            for &byte in &names[lane][common..] {
                states[lane] = self.step(rows, states[lane], class(byte));
                all[lane] &= states[lane];
            }
        }
        let mut plain = all.map(|a| a & u64::from(self.flag) != 0);
        if WIDE {
            // (Bytes >= 0x80 have no bail column to lead to.)
            for lane in 0..LANES {
                plain[lane] &= names[lane].is_ascii();
            }
        }
        plain
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
