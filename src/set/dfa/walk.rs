//! Reading the DFA: one step, and the walks over a name built on it (one
//! lane, two lanes, several names at once). Construction is in the parent
//! module; what the walks rely on (ids are row starts, special ids have bit
//! `flag` clear) is its doc.

use super::{Dfa, Hit, Lane, ENTRY, SPLIT_MIN};
use crate::set::search::{Form, NeedsCanonical};

/// Whether the walks read a name's 8-byte pieces as one word, taking the
/// bytes out by shifts. In WebAssembly, yes: the runtime checks every load
/// against the memory's size (in wazero, a compare and a branch), so one
/// load for 8 bytes pays; it took the wasm backend's `MatchEach` of 500
/// names at 100 patterns from 118 to 101 µs, and its `Match` from 270 to
/// 241 ns (docs/BENCHMARKS.md). Natively, no: a byte load folds into the
/// step, and the shifts cost more instructions a name (in the lockstep
/// walk, 966 against 887 at 100 patterns).
pub(in crate::set) const READ_WORDS: bool = cfg!(target_arch = "wasm32");

impl Dfa {
    /// Whether `state` is special (a needle ends there, or bail).
    #[inline(always)]
    pub(super) fn is_special(&self, state: u32) -> bool {
        state & self.flag == 0
    }

    /// The table's address minus `offset` bytes, so that a state's row
    /// starts `id` bytes past `rows()`: each step then adds no offset.
    /// (Out of the allocation itself, hence wrapping; only [`Dfa::step`]
    /// reads through it, always in bounds.)
    #[inline(always)]
    fn rows(&self) -> *const u8 {
        self.trans.as_ptr().cast::<u8>().wrapping_sub(self.offset as usize)
    }

    /// One transition; `rows` is [`Dfa::rows`]. (The walks carry ids as
    /// u64, so that each step's result is used as an index without a
    /// zero-extension.)
    #[inline(always)]
    fn step(&self, rows: *const u8, state: u64, class: u8) -> u64 {
        debug_assert!(
            state >= u64::from(self.offset)
                && (state - u64::from(self.offset)) % ENTRY as u64 == 0
                && (state - u64::from(self.offset)) / ENTRY as u64 + u64::from(class) < self.trans.len() as u64
        );
        // SAFETY: `state` is an id (the start state, or an entry of
        // `trans`, all of which `build` sets to `offset + index * stride *
        // ENTRY` for an index < states, `offset` a multiple of ENTRY), and
        // `class` < stride (every class table entry is at most the bail
        // class, stride - 1; in a wide table the class is the byte and
        // stride is 256), so the entry read, `trans[(state - offset) /
        // ENTRY + class]`, is below `states * stride = trans.len()`, and
        // aligned. The test `every_entry_is_a_row_start` checks this for
        // built tables.
        //
        // On x86-64 the entry is read through the column's address, which
        // does not depend on the state: the chain of dependent steps then
        // holds one load per byte. (Left to itself, the compiler often adds
        // the state to the table's address first, which puts an add on the
        // chain too.) It stays because it pays: without it `match` takes a
        // fifth longer at 100 and 10k patterns (docs/BENCHMARKS.md, "Inline
        // assembly").
        //
        // Elsewhere, under Miri, and in `make test`'s second run of the
        // engine's tests (`--cfg crio_pin_portable`, so that the code other
        // architectures run is tested here too) it is a plain read.
        #[cfg(all(target_arch = "x86_64", not(miri), not(crio_pin_portable)))]
        unsafe {
            let column = rows.wrapping_add(usize::from(class) * ENTRY);
            let next: u64;
            std::arch::asm!(
                "mov {next:e}, dword ptr [{column} + {state}]",
                column = in(reg) column,
                state = in(reg) state,
                next = lateout(reg) next,
                options(pure, readonly, nostack, preserves_flags),
            );
            next
        }
        #[cfg(not(all(target_arch = "x86_64", not(miri), not(crio_pin_portable))))]
        unsafe {
            u64::from(rows.wrapping_add(state as usize + usize::from(class) * ENTRY).cast::<u32>().read())
        }
    }

    /// The hit of a special state other than bail.
    #[inline(always)]
    fn hit(&self, state: u32) -> &Hit {
        &self.hits[self.row(state) - 1]
    }

    /// The byte classes a name in `form` is read with, and whether its
    /// bytes >= 0x80 must be tested for (a name as given, in a wide table,
    /// where no class catches them).
    #[inline(always)]
    fn classes(&self, form: Form) -> (&[u8; 256], bool) {
        match form {
            Form::AsGiven => (&self.raw_classes, self.wide),
            Form::Canonical => (&self.canonical_classes, false),
        }
    }

    /// Walks `name` (in `form`: an ASCII name as given, or a canonical one),
    /// calling `hit(h, at)` at each byte `at` where needles end; stops when
    /// `hit` returns true. Fails at the first byte >= 0x80 of a name as given.
    /// Says whether it read every byte.
    #[inline(always)]
    pub(in crate::set) fn walk(
        &self,
        name: &[u8],
        form: Form,
        hit: impl FnMut(&Hit, usize) -> bool,
    ) -> Result<bool, NeedsCanonical> {
        self.walk_from(name, form, Lane { state: self.start, at: 0 }, hit)
    }

    /// [`Dfa::walk`] from `lane` on.
    #[inline(always)]
    fn walk_from(
        &self,
        name: &[u8],
        form: Form,
        mut lane: Lane,
        mut hit: impl FnMut(&Hit, usize) -> bool,
    ) -> Result<bool, NeedsCanonical> {
        let (classes, test_ascii) = self.classes(form);
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
    ) -> Result<bool, NeedsCanonical> {
        let rows = self.rows();
        let end = name.len().min(lane.at + count);
        while lane.at < end {
            let byte = name[lane.at];
            if test_ascii && byte >= 0x80 {
                return Err(NeedsCanonical);
            }
            lane.state = self.step(rows, u64::from(lane.state), classes[usize::from(byte)]) as u32;
            lane.at += 1;
            if self.is_special(lane.state) {
                if lane.state == self.bail {
                    return Err(NeedsCanonical);
                }
                if hit(self.hit(lane.state), lane.at - 1) {
                    return Ok(true);
                }
            }
        }
        Ok(false)
    }

    /// [`Dfa::walk`] in two lanes, so that their chains of
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
    pub(in crate::set) fn walk_split(
        &self,
        name: &[u8],
        form: Form,
        mut hit: impl FnMut(&Hit, usize) -> bool,
    ) -> Result<bool, NeedsCanonical> {
        let n = name.len();
        if n < SPLIT_MIN {
            return self.walk(name, form, hit);
        }
        let (classes, test_ascii) = self.classes(form);
        let mid = n - 8 * n.div_ceil(16);
        let mut a = Lane { state: self.start, at: 0 };
        let mut b = Lane { state: self.start, at: mid };
        loop {
            let special;
            (a, b, special) = match (self.wide, test_ascii) {
                (false, _) => self.two_to_special::<false, false>(classes, name, a, b, mid),
                (true, false) => self.two_to_special::<true, false>(classes, name, a, b, mid),
                (true, true) => self.two_to_special::<true, true>(classes, name, a, b, mid),
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
            return self.walk_from(name, form, b, hit);
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

    /// The row of a state: `(state - offset) / (stride * ENTRY)`, as a
    /// multiplication (the ids are multiples of a row's bytes above
    /// `offset`, so the rounded up reciprocal is exact below 2^32).
    #[inline(always)]
    pub(super) fn row(&self, state: u32) -> usize {
        ((u64::from(state - self.offset) * self.row_reciprocal) >> 32) as usize
    }

    /// Walks lanes A and B (see [`Dfa::walk_split`]) a piece of 8 bytes
    /// each at a time, until B is at the end of the name or A agrees with
    /// it (returns 0), or until a piece meets a special state or a byte >=
    /// 0x80 (returns bit 0 for A's, bit 1 for B's, each such lane at the
    /// start of that piece, the other one past its own).
    // (Not inlined, as `to_special`.)
    #[inline(never)]
    fn two_to_special<const WIDE: bool, const TEST_ASCII: bool>(
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
            let (state_a, plain_a) = self.piece::<WIDE, TEST_ASCII>(classes, piece_a, u64::from(a.state));
            let (state_b, plain_b) = self.piece::<WIDE, TEST_ASCII>(classes, piece_b, u64::from(b.state));
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
        let eight: &[u8; 8] = piece.try_into().expect("a piece of 8");
        let class = |i: usize| {
            let byte = if READ_WORDS { (u64::from_le_bytes(*eight) >> (8 * i)) as u8 } else { eight[i] };
            if WIDE {
                byte
            } else {
                classes[usize::from(byte)]
            }
        };
        let rows = self.rows();
        // (Written out: the compiler keeps a loop over the 8 bytes.)
        let s0 = self.step(rows, state, class(0));
        let s1 = self.step(rows, s0, class(1));
        let s2 = self.step(rows, s1, class(2));
        let s3 = self.step(rows, s2, class(3));
        let s4 = self.step(rows, s3, class(4));
        let s5 = self.step(rows, s4, class(5));
        let s6 = self.step(rows, s5, class(6));
        let s7 = self.step(rows, s6, class(7));
        let special = (s0 & s1) & (s2 & s3) & (s4 & s5) & (s6 & s7) & u64::from(self.flag) == 0;
        let high = TEST_ASCII && u64::from_ne_bytes(*eight) & crate::fold::HIGH != 0;
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

    /// Walks raw `names` (each with a number of the caller's) `LANES` at
    /// a time, one byte of each lane in turn, so that their transitions'
    /// loads overlap instead of each waiting for the previous one (a lone
    /// walk is bound by that latency); a lane takes the next name as soon
    /// as its own ends, so the lanes stay full whatever the names' lengths
    /// (waiting for the longest of a batch left the rest of each longer
    /// name to one lane: about half of the bytes, walked one load after
    /// another). Calls `walked(number, name, plain)` as each name ends, in
    /// no particular order: `plain` if it reached no special state and is
    /// all ASCII (its answer is then the exact table's); a lane stops at
    /// the first special state (then ask again with [`Dfa::walk`]).
    ///
    /// `WORDS`: each lane reads its name 8 bytes at a time, one load, the
    /// bytes taken out by shifts ([`READ_WORDS`] says where that pays).
    #[inline(always)]
    pub(in crate::set) fn walk_plain_each<'n, const LANES: usize, const WORDS: bool>(
        &self,
        names: impl Iterator<Item = (usize, &'n [u8])>,
        walked: impl FnMut(usize, &'n [u8], bool),
    ) {
        if self.wide {
            self.walk_plain_each_in::<true, LANES, WORDS>(names, walked)
        } else {
            self.walk_plain_each_in::<false, LANES, WORDS>(names, walked)
        }
    }

    /// [`Dfa::walk_plain_each`]; `WIDE`: the table has a column per byte.
    #[inline(always)]
    fn walk_plain_each_in<'n, const WIDE: bool, const LANES: usize, const WORDS: bool>(
        &self,
        mut names: impl Iterator<Item = (usize, &'n [u8])>,
        mut walked: impl FnMut(usize, &'n [u8], bool),
    ) {
        let class = |byte: u8| if WIDE { byte } else { self.raw_classes[usize::from(byte)] };
        let rows = self.rows();
        let (start, flag) = (u64::from(self.start), u64::from(self.flag));
        // (Bytes >= 0x80 have no bail column in a wide table.)
        let plain = |all: u64, name: &[u8]| all & flag != 0 && (!WIDE || crate::fold::all_ascii_out_of_line(name));
        // Per lane: its name and number, the bytes walked, the state, and
        // the AND of every id met (the flag survives only if no state was
        // special; walking on past one is harmless, every state has a full
        // row).
        let mut lanes: [(usize, &[u8]); LANES] = [(0, &[]); LANES];
        let mut at = [0usize; LANES];
        let mut states = [start; LANES];
        let mut all = [u64::MAX; LANES];
        for lane in 0..LANES {
            let Some(first) = names.next() else {
                // Fewer names than lanes: one by one.
                for &(number, name) in &lanes[..lane] {
                    walked(number, name, plain(self.walk_plain_one::<WIDE>(name), name));
                }
                return;
            };
            lanes[lane] = first;
        }
        loop {
            // All lanes walk as far as the one nearest its end.
            let steps = (0..LANES).map(|l| lanes[l].1.len() - at[l]).min().unwrap_or(0);
            let bytes: [*const u8; LANES] = std::array::from_fn(|l| lanes[l].1[at[l]..].as_ptr());
            let mut k = 0;
            while WORDS && k + 8 <= steps {
                // SAFETY: k + 8 <= steps, at most the bytes left in every
                // lane's name. (Little-endian: byte i is bits 8i.., on any
                // machine.)
                let words: [u64; LANES] = std::array::from_fn(|l| {
                    u64::from_le_bytes(unsafe { bytes[l].add(k).cast::<[u8; 8]>().read_unaligned() })
                });
                for i in 0..8 {
                    for lane in 0..LANES {
                        states[lane] = self.step(rows, states[lane], class((words[lane] >> (8 * i)) as u8));
                        all[lane] &= states[lane];
                    }
                }
                k += 8;
            }
            for k in k..steps {
                for lane in 0..LANES {
                    // SAFETY: k < steps, at most the bytes left in every
                    // lane's name. (Checked indexing costs a compare per
                    // lane and byte here.)
                    let byte = unsafe { *bytes[lane].add(k) };
                    states[lane] = self.step(rows, states[lane], class(byte));
                    all[lane] &= states[lane];
                }
            }
            at = at.map(|a| a + steps);
            for lane in 0..LANES {
                let (number, name) = lanes[lane];
                if at[lane] < name.len() && all[lane] & flag != 0 {
                    continue;
                }
                // Ended, or met a special state: its answer, and the next
                // name in its place.
                walked(number, name, at[lane] == name.len() && plain(all[lane], name));
                let Some(next) = names.next() else {
                    // The last names: each on its own to its end.
                    for other in (0..LANES).filter(|&o| o != lane) {
                        let (number, name) = lanes[other];
                        let all = all[other] & self.walk_plain_from::<WIDE>(&name[at[other]..], states[other]);
                        walked(number, name, plain(all, name));
                    }
                    return;
                };
                (lanes[lane], at[lane], states[lane], all[lane]) = (next, 0, start, u64::MAX);
            }
        }
    }

    /// Whether `name`, read raw from the start state to its end, meets a
    /// special state.
    #[cfg(feature = "testing")]
    pub(in crate::set) fn meets_special(&self, name: &[u8]) -> bool {
        let all = if self.wide { self.walk_plain_one::<true>(name) } else { self.walk_plain_one::<false>(name) };
        all & u64::from(self.flag) == 0
    }

    /// The AND of the ids `name` meets from the start state (see
    /// [`Dfa::walk_plain_each`]).
    fn walk_plain_one<const WIDE: bool>(&self, name: &[u8]) -> u64 {
        self.walk_plain_from::<WIDE>(name, u64::from(self.start))
    }

    /// The AND of the ids `bytes` meet from `state`.
    fn walk_plain_from<const WIDE: bool>(&self, bytes: &[u8], mut state: u64) -> u64 {
        let rows = self.rows();
        let mut all = u64::MAX;
        for &byte in bytes {
            state = self.step(rows, state, if WIDE { byte } else { self.raw_classes[usize::from(byte)] });
            all &= state;
        }
        all
    }
}
