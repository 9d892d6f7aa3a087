//! The exact patterns: a bucketed hash table over their canonical needles,
//! which an ASCII name is looked up in as it is (no upper-casing copy
//! first), with a bound on the work of every lookup and insert whatever the
//! keys.
//!
//! - **The hash keeps every bit the rule set keeps.** It reads eight bytes
//!   at a time; under case folding it upper-cases an ASCII name's words on
//!   the fly (a raw ASCII name then hashes as its canonical form does),
//!   case-sensitive tables hash the bytes as they are. Nothing else is
//!   folded, so keys that differ in any byte the rules tell apart (`@` and
//!   `` ` ``, `a` and `A` under containerd's rules) hash apart.
//! - **A seed no list's author can predict**: each table draws its two
//!   64-bit keys from the standard library's per-process random source
//!   ([`RandomState`]), so a list cannot be built to collide offline.
//! - **Bounded probing by construction.** Slots come in buckets of 8, one
//!   cache line (8 hash tags, then 8 entry numbers). A key goes to its home
//!   bucket if it has room, else to its alternate bucket (other bits of the
//!   hash), else to a sorted overflow list. A lookup reads the home bucket,
//!   the alternate one only if home is full, and the overflow list only if
//!   both are: at most 16 slots and 16 key comparisons (only where the
//!   32-bit tag agrees) plus a binary search of the overflow list (at most
//!   24 comparisons at [`super::intake::MAX_PATTERNS`]). An insert costs the same,
//!   and the overflow list is sorted once: compile is O(n log n) whatever
//!   the keys, and a lookup O(key length). With a random seed and buckets
//!   at most half full (Poisson(4)), 1 key in about 400 leaves its home
//!   bucket and the overflow list stays empty in practice; keys that share
//!   a full 64-bit hash (only if the hash were broken) cost the binary
//!   search, not a scan.
//! - **Ends-only hashing where the keys allow it.** Image references differ
//!   in their ends (tags and digests): a table whose keys have at most
//!   [`MAX_SHARED`] alike in length, first 8 and last 16 bytes hashes only
//!   those (a 76-byte name then costs 3 hash steps instead of 10); it hashes
//!   whole keys otherwise.
//!
//! Equality is checked word by word, upper-casing the name's words on the
//! fly under folding. The keys are stored back to back in one buffer: the
//! exact patterns' canonical text.
//!
//! **What a name costs (the bound).** A name of `L` bytes: its hash, `L/8`
//! words of the name (3 for ends-only tables); at most 2 bucket lines (the
//! alternate only when home is full); for each of at most 16 slots whose
//! 32-bit tag agrees (about one in 2^32 for a key that differs) an entry
//! and its key (`L/64 + 1` lines); and only when both buckets are full, a
//! binary search of the overflow list (at most 24 probes). So about 4 lines
//! for a name no key equals, whatever the table's size, each of which may
//! be outside any cache (the table grows with the list, 28 bytes a key):
//! one lookup is a few misses, so the table needs no limit of its own
//! beyond [`super::intake::MAX_PATTERNS`] and [`super::intake::MAX_PATTERN_BYTES`]. Compile
//! work per key: its hash (a step a word of the key), one or two bucket
//! probes, and its place in the overflow list's one sort.

use std::cmp::Ordering;
use std::collections::hash_map::RandomState;
use std::hash::BuildHasher;

use super::intake::{Needle, NeedleList};
use super::search::NeedsCanonical;
use crate::fold::{ascii_upper_word, HIGH};

/// An entry: where its key is in `text`, and the lowest pattern index.
#[derive(Debug, Clone, Copy)]
struct Entry {
    offset: u32,
    len: u32,
    index: u32,
}

/// Slots per bucket.
const WIDTH: usize = 8;

/// Eight slots, one cache line: per slot the hash's tag (0: empty; filled
/// from the first slot on) and the entry number.
#[derive(Debug, Clone, Copy, Default)]
#[repr(C, align(64))]
struct Bucket {
    tags: [u32; WIDTH],
    entries: [u32; WIDTH],
}

impl Bucket {
    /// Bit `i` set where slot `i`'s tag is `tag`. On x86-64 two SSE2
    /// compares of 4 tags and their sign masks (the compiler made 8 scalar
    /// and vector compares of the loop, 33 instructions a lookup); the loop
    /// elsewhere and under `--cfg crio_pin_portable`.
    #[inline(always)]
    fn matching(&self, tag: u32) -> u32 {
        #[cfg(all(target_arch = "x86_64", not(crio_pin_portable)))]
        // SAFETY: SSE2 is part of x86-64; the bucket is 64-byte aligned
        // and its first 32 bytes are the 8 tags, read as two aligned
        // 16-byte vectors.
        unsafe {
            use std::arch::x86_64::{
                _mm_castsi128_ps, _mm_cmpeq_epi32, _mm_load_si128, _mm_movemask_ps, _mm_set1_epi32,
            };
            let wanted = _mm_set1_epi32(tag as i32);
            let tags = self.tags.as_ptr().cast::<std::arch::x86_64::__m128i>();
            let low = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(_mm_load_si128(tags), wanted)));
            let high = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(_mm_load_si128(tags.add(1)), wanted)));
            (low | high << 4) as u32
        }
        #[cfg(not(all(target_arch = "x86_64", not(crio_pin_portable))))]
        {
            let mut bits = 0;
            for (i, &t) in self.tags.iter().enumerate() {
                bits |= u32::from(t == tag) << i;
            }
            bits
        }
    }

    fn is_full(&self) -> bool {
        self.tags[WIDTH - 1] != 0
    }
}

#[derive(Debug)]
pub(super) struct ExactTable {
    text: Vec<u8>,
    entries: Vec<Entry>,
    buckets: Box<[Bucket]>,
    /// Keys whose home and alternate buckets were both full, sorted by key.
    overflow: Box<[Entry]>,
    seeds: Seeds,
    /// Case folding: compare upper-casing the name.
    fold: bool,
    /// Only the ends are hashed ([`Seeds::hash_ends`]).
    ends: bool,
}

/// Most keys that may share their length, first 8 and last 16 bytes in a
/// table that hashes only those.
const MAX_SHARED: usize = 4;

#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// The last `len % 8` bytes (or fewer than 8 names) as a word, zero-padded.
#[inline(always)]
fn tail(bytes: &[u8]) -> u64 {
    let rest = &bytes[bytes.len() & !7..];
    let mut buf = [0u8; 8];
    buf[..rest.len()].copy_from_slice(rest);
    u64::from_le_bytes(buf)
}

/// Whether [`mix`] folds a 64 × 64-bit product's two halves, which every
/// 64-bit machine computes in one instruction. WebAssembly has no such
/// instruction: LLVM builds the product from four 64-bit multiplies, and
/// that was a fifth of the wasm backend's compile of OpenShift's digests
/// and of its `MatchEach` on their node (docs/BENCHMARKS.md). There a step
/// folds the low product's high half into its low half instead, and each
/// hash ends with one more step ([`Seeds::finish`]), so that the last
/// word's high bits reach the bits that pick a bucket.
const WIDE_PRODUCT: bool = !cfg!(target_arch = "wasm32");

#[inline(always)]
fn mix<const WIDE: bool>(a: u64, b: u64) -> u64 {
    if WIDE {
        let p = u128::from(a) * u128::from(b);
        (p as u64) ^ ((p >> 64) as u64)
    } else {
        let p = a.wrapping_mul(b);
        p ^ (p >> 32)
    }
}

/// A table's random hash keys.
#[derive(Debug, Clone, Copy)]
struct Seeds {
    start: u64,
    /// Odd: the multiplier of every step.
    step: u64,
}

impl Seeds {
    fn random() -> Seeds {
        let state = RandomState::new();
        Seeds { start: state.hash_one(0x5eed_u64), step: state.hash_one(0x57e9_u64) | 1 }
    }

    #[inline(always)]
    fn step<const WIDE: bool>(&self, h: u64, w: u64) -> u64 {
        mix::<WIDE>(h ^ w, self.step)
    }

    /// A hash's last step: none where [`mix`] folds the wide product.
    #[inline(always)]
    fn finish<const WIDE: bool>(&self, h: u64) -> u64 {
        if WIDE {
            h
        } else {
            mix::<WIDE>(h, self.step)
        }
    }

    /// The hash of `bytes` with each word passed through `canon` (ASCII
    /// upper-casing under folding, else nothing), and whether every byte
    /// is ASCII.
    #[inline(always)]
    fn hash(&self, bytes: &[u8], canon: impl Fn(u64) -> u64) -> (u64, bool) {
        self.hash_with::<WIDE_PRODUCT>(bytes, canon)
    }

    /// [`Seeds::hash`], `WIDE` saying how [`mix`] multiplies.
    #[inline(always)]
    fn hash_with<const WIDE: bool>(&self, bytes: &[u8], canon: impl Fn(u64) -> u64) -> (u64, bool) {
        let mut h = self.start ^ bytes.len() as u64;
        let mut high = 0u64;
        let whole = bytes.len() & !7;
        let mut at = 0;
        while at < whole {
            let w = word(bytes, at);
            high |= w;
            h = self.step::<WIDE>(h, canon(w));
            at += 8;
        }
        if whole < bytes.len() {
            let w = tail(bytes);
            high |= w;
            h = self.step::<WIDE>(h, canon(w));
        }
        (self.finish::<WIDE>(h), high & HIGH == 0)
    }

    /// The hash of `bytes`' length, first 8 and last 16 bytes (overlapping
    /// in shorter ones), each word through `canon`.
    #[inline(always)]
    fn hash_ends(&self, bytes: &[u8], canon: impl Fn(u64) -> u64) -> u64 {
        self.hash_ends_with::<WIDE_PRODUCT>(bytes, canon)
    }

    /// [`Seeds::hash_ends`], `WIDE` saying how [`mix`] multiplies.
    #[inline(always)]
    fn hash_ends_with<const WIDE: bool>(&self, bytes: &[u8], canon: impl Fn(u64) -> u64) -> u64 {
        let n = bytes.len();
        let h = self.start ^ n as u64;
        if n < 8 {
            return self.finish::<WIDE>(self.step::<WIDE>(h, canon(tail(bytes))));
        }
        let h = self.step::<WIDE>(h, canon(word(bytes, 0)));
        let h = if n >= 16 { self.step::<WIDE>(h, canon(word(bytes, n - 16))) } else { h };
        self.finish::<WIDE>(self.step::<WIDE>(h, canon(word(bytes, n - 8))))
    }
}

/// What a lookup or insert read: the bound the module doc states, counted
/// (the tests check it on key sets built to collide).
#[cfg(test)]
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
struct Cost {
    slots: usize,
    comparisons: usize,
}

/// Counts a lookup's work where the tests ask for it; nothing otherwise.
trait Tally {
    fn slots(&mut self, n: usize);
    fn comparison(&mut self);
}

impl Tally for () {
    #[inline(always)]
    fn slots(&mut self, _: usize) {}
    #[inline(always)]
    fn comparison(&mut self) {}
}

#[cfg(test)]
impl Tally for Cost {
    fn slots(&mut self, n: usize) {
        self.slots += n;
    }
    fn comparison(&mut self) {
        self.comparisons += 1;
    }
}

/// Where a key goes: its home bucket, and the alternate one.
#[inline(always)]
fn buckets_of(h: u64, mask: usize) -> (usize, usize) {
    (h as usize & mask, h.rotate_left(24) as usize & mask)
}

/// The tag of a hash: its high 32 bits, never 0 (0 marks an empty slot).
#[inline(always)]
fn tag_of(h: u64) -> u32 {
    (h >> 32) as u32 | 1
}

impl ExactTable {
    /// The exact needles of `list` (indexes ascending), whose text the
    /// table keeps.
    pub(super) fn build(list: NeedleList, fold: bool) -> ExactTable {
        ExactTable::build_seeded(list, fold, Seeds::random(), &mut ())
    }

    /// `tally` counts each insert's work (a lookup, then at most 16 slots).
    fn build_seeded(list: NeedleList, fold: bool, seeds: Seeds, tally: &mut impl Tally) -> ExactTable {
        let NeedleList { text, entries: needles } = list;
        let key = |n: &Needle| &text[n.offset as usize..][..n.len as usize];
        // At most 4 keys a bucket on average: half full.
        let count = if needles.is_empty() { 0 } else { needles.len().div_ceil(WIDTH / 2).next_power_of_two() };
        // Keys alike at both ends hash alike: counted by sorting those
        // hashes (8 bytes a key; a collision of different ends only makes
        // the count safer).
        let mut ends_hashes: Vec<u64> = needles.iter().map(|n| seeds.hash_ends(key(n), |w| w)).collect();
        ends_hashes.sort_unstable();
        let ends = ends_hashes.chunk_by(|a, b| a == b).all(|run| run.len() <= MAX_SHARED);
        drop(ends_hashes);
        let mut table = ExactTable {
            text: Vec::new(),
            entries: Vec::with_capacity(needles.len()),
            buckets: vec![Bucket::default(); count].into_boxed_slice(),
            overflow: Box::default(),
            seeds,
            fold,
            ends,
        };
        let mut overflow: Vec<Entry> = Vec::new();
        for needle in &needles {
            let bytes = key(needle);
            let h = table.hash_canonical(bytes);
            // A duplicate keeps the first (lowest) index: it was filed first.
            let equal = |e: Entry| Self::key_in(&text, e) == bytes;
            if table.find_in_buckets(h, equal, tally).is_some() {
                continue;
            }
            let entry = Entry { offset: needle.offset, len: needle.len, index: needle.index };
            if !table.place(h, table.entries.len() as u32, tally) {
                // (Duplicates among these are dropped once sorted.)
                overflow.push(entry);
                continue;
            }
            table.entries.push(entry);
        }
        // By key, then index: the first of equal keys is the lowest.
        overflow
            .sort_unstable_by(|a, b| Self::key_in(&text, *a).cmp(Self::key_in(&text, *b)).then(a.index.cmp(&b.index)));
        overflow.dedup_by(|b, a| Self::key_in(&text, *a) == Self::key_in(&text, *b));
        table.overflow = overflow.into_boxed_slice();
        table.text = text;
        table.entries.shrink_to_fit();
        table
    }

    /// Files entry number `entry` under `h` in its home or alternate bucket;
    /// false if both are full.
    fn place(&mut self, h: u64, entry: u32, tally: &mut impl Tally) -> bool {
        let (home, alternate) = buckets_of(h, self.buckets.len() - 1);
        for b in [home, alternate] {
            let bucket = &mut self.buckets[b];
            tally.slots(WIDTH);
            if let Some(free) = bucket.tags.iter().position(|&t| t == 0) {
                bucket.tags[free] = tag_of(h);
                bucket.entries[free] = entry;
                return true;
            }
        }
        false
    }

    fn key_in(text: &[u8], e: Entry) -> &[u8] {
        &text[e.offset as usize..(e.offset + e.len) as usize]
    }

    pub(super) fn is_empty(&self) -> bool {
        // (A table of any key has buckets, and its first key an entry.)
        self.buckets.is_empty()
    }

    /// The hash this table files canonical `bytes` under.
    #[inline(always)]
    fn hash_canonical(&self, bytes: &[u8]) -> u64 {
        if self.ends {
            self.seeds.hash_ends(bytes, |w| w)
        } else {
            self.seeds.hash(bytes, |w| w).0
        }
    }

    /// The index pinning `name`, looked up as it is: `Err` if it is not all
    /// ASCII (then look its canonical form up with [`ExactTable::get`]).
    /// `ascii`: the caller knows `name` is all ASCII. (Always inlined: as
    /// a call it cost 12–22 instructions a name, more than a hash step.)
    #[inline(always)]
    pub(super) fn get_raw(&self, name: &[u8], ascii: bool) -> Result<Option<u32>, NeedsCanonical> {
        self.get_raw_tallied(name, ascii, &mut ())
    }

    #[inline(always)]
    fn get_raw_tallied(&self, name: &[u8], ascii: bool, tally: &mut impl Tally) -> Result<Option<u32>, NeedsCanonical> {
        if self.buckets.is_empty() {
            return Ok(None);
        }
        let fold = self.fold;
        let canon = |w: u64| if fold { ascii_upper_word(w) } else { w };
        let h = if self.ends {
            if !ascii && !crate::fold::all_ascii_out_of_line(name) {
                return Err(NeedsCanonical);
            }
            self.seeds.hash_ends(name, canon)
        } else {
            let (h, is_ascii) = self.seeds.hash(name, canon);
            if !is_ascii {
                return Err(NeedsCanonical);
            }
            h
        };
        Ok(self.find(
            h,
            |key| self.equal_raw(key, name),
            |key| {
                if fold {
                    key.iter().copied().cmp(name.iter().map(u8::to_ascii_uppercase))
                } else {
                    key.cmp(name)
                }
            },
            tally,
        ))
    }

    /// The index pinning a canonical name.
    pub(super) fn get(&self, canonical: &[u8]) -> Option<u32> {
        self.get_tallied(canonical, &mut ())
    }

    fn get_tallied(&self, canonical: &[u8], tally: &mut impl Tally) -> Option<u32> {
        if self.buckets.is_empty() {
            return None;
        }
        self.find(self.hash_canonical(canonical), |key| key == canonical, |key| key.cmp(canonical), tally)
    }

    /// The entry filed under `h` whose key is `equal`: home bucket,
    /// alternate bucket if home is full, then the overflow list (by
    /// `order`, the key's order against the name's) if both are.
    #[inline(always)]
    fn find(
        &self,
        h: u64,
        equal: impl Fn(&[u8]) -> bool,
        order: impl Fn(&[u8]) -> Ordering,
        tally: &mut impl Tally,
    ) -> Option<u32> {
        // Most names equal no key: their home bucket has room and no slot
        // of their tag, answered here; the rest out of line, so that the
        // caller keeps no registers for it (as one inlined search it cost
        // 20-30 instructions a name, most of them spills).
        let home = &self.buckets[buckets_of(h, self.buckets.len() - 1).0];
        if home.matching(tag_of(h)) == 0 && !home.is_full() {
            tally.slots(WIDTH);
            return None;
        }
        self.find_beyond_home(h, equal, order, tally)
    }

    /// [`ExactTable::find`] past a home bucket that is full or holds the
    /// tag.
    #[inline(never)]
    fn find_beyond_home(
        &self,
        h: u64,
        equal: impl Fn(&[u8]) -> bool,
        order: impl Fn(&[u8]) -> Ordering,
        tally: &mut impl Tally,
    ) -> Option<u32> {
        let equal = |e: Entry| equal(Self::key_in(&self.text, e));
        match self.find_in_buckets(h, equal, tally) {
            Some(entry) => Some(self.entries[entry as usize].index),
            None if self.overflow.is_empty() => None,
            None => {
                let (home, alternate) = buckets_of(h, self.buckets.len() - 1);
                if !self.buckets[home].is_full() || !self.buckets[alternate].is_full() {
                    return None;
                }
                self.overflow
                    .binary_search_by(|&e| {
                        tally.comparison();
                        order(Self::key_in(&self.text, e))
                    })
                    .ok()
                    .map(|k| self.overflow[k].index)
            }
        }
    }

    /// The entry number filed under `h` in its buckets whose entry is
    /// `equal`.
    #[inline(always)]
    fn find_in_buckets(&self, h: u64, equal: impl Fn(Entry) -> bool, tally: &mut impl Tally) -> Option<u32> {
        let (home, alternate) = buckets_of(h, self.buckets.len() - 1);
        let tag = tag_of(h);
        for b in [home, alternate] {
            let bucket = &self.buckets[b];
            tally.slots(WIDTH);
            let mut hits = bucket.matching(tag);
            while hits != 0 {
                let entry = bucket.entries[hits.trailing_zeros() as usize];
                tally.comparison();
                if equal(self.entries[entry as usize]) {
                    return Some(entry);
                }
                hits &= hits - 1;
            }
            if !bucket.is_full() {
                return None;
            }
        }
        None
    }

    /// Whether an ASCII `name` equals `key` after canonicalising.
    #[inline(always)]
    fn equal_raw(&self, key: &[u8], name: &[u8]) -> bool {
        if key.len() != name.len() {
            return false;
        }
        if !self.fold {
            return key == name;
        }
        let whole = name.len() & !7;
        let mut at = 0;
        while at < whole {
            if ascii_upper_word(word(name, at)) != word(key, at) {
                return false;
            }
            at += 8;
        }
        whole == name.len() || ascii_upper_word(tail(name)) == tail(key)
    }

    pub(super) fn memory_usage(&self) -> usize {
        self.text.capacity()
            + (self.entries.capacity() + self.overflow.len()) * size_of::<Entry>()
            + self.buckets.len() * size_of::<Bucket>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list of canonical `keys` (indexes ascending).
    fn list(keys: &[(Vec<u8>, u32)]) -> NeedleList {
        let mut list = NeedleList::default();
        for (key, index) in keys {
            list.push_canonical(key, *index, false);
        }
        list
    }

    fn table(keys: Vec<(Vec<u8>, u32)>, fold: bool) -> ExactTable {
        ExactTable::build(list(&keys), fold)
    }

    #[test]
    fn ascii_names_hash_and_compare_as_their_canonical_form() {
        let seeds = Seeds::random();
        let all: Vec<u8> = (0u8..0x80).collect();
        for len in 0..all.len() {
            let name = &all[..len];
            let canonical = name.to_ascii_uppercase();
            assert_eq!(seeds.hash(name, ascii_upper_word), seeds.hash(&canonical, |w| w), "{name:x?}");
            assert_eq!(seeds.hash_ends(name, ascii_upper_word), seeds.hash_ends(&canonical, |w| w), "{name:x?}");
            let t = table(vec![(canonical.clone(), 7)], true);
            assert_eq!(t.get_raw(name, false).unwrap(), Some(7), "{name:x?}");
            assert_eq!(t.get(&canonical), Some(7));
            let mut other = name.to_vec();
            if let Some(last) = other.last_mut() {
                *last ^= 1;
                assert_eq!(t.get_raw(&other, false).unwrap(), None, "{other:x?}");
            }
        }
    }

    #[test]
    fn duplicates_and_collisions_keep_each_key_apart() {
        let keys: Vec<(Vec<u8>, u32)> = (0..1000u32).map(|i| (format!("K{i}").into_bytes(), i)).collect();
        let mut with_dupes = keys.clone();
        with_dupes.push((b"K5".to_vec(), 2000));
        let t = table(with_dupes, true);
        for (k, i) in &keys {
            assert_eq!(t.get(k), Some(*i));
        }
        assert_eq!(t.get_raw(b"k5", false).unwrap(), Some(5));
        assert_eq!(t.get(b"K1000"), None);
        assert!(t.get_raw("k\u{e9}".as_bytes(), false).is_err());
    }

    /// The narrow product ([`WIDE_PRODUCT`] false, WebAssembly's) spreads
    /// keys that differ in one bit: for every bit of keys of up to 24
    /// bytes, of 200 random keys and their copies with that bit flipped at
    /// most three in four share a home bucket, an alternate bucket or a
    /// tag in a table of 1,024 buckets, in the whole hash and in the hash
    /// of the ends (by chance about 1 in 1,024 do; the most seen in 200
    /// seeds was 108). Without its last step the narrow product leaves a
    /// last word's high bits out of the bits that pick the buckets: all
    /// 200 share one. (The wide product does not pass this for every
    /// seed: one round of it can leave a bit that keeps the home bucket
    /// for 190 of 200 keys; the bound holds all the same, see
    /// `keys_built_to_collide_cost_a_bounded_lookup`.)
    #[test]
    fn keys_one_bit_apart_land_apart_in_the_narrow_hash() {
        const KEYS: usize = 200;
        fn check(what: &str, hash: impl Fn(&[u8]) -> u64) {
            let mask = 1023;
            let mut random = 0x9e37_79b9_7f4a_7c15_u64;
            let mut next = move || {
                random ^= random << 13;
                random ^= random >> 7;
                random ^= random << 17;
                random
            };
            for len in 1..=24 {
                let keys: Vec<Vec<u8>> = (0..KEYS).map(|_| (0..len).map(|_| next() as u8).collect()).collect();
                for bit in 0..8 * len {
                    let mut shared = [0; 3];
                    for key in &keys {
                        let mut other = key.clone();
                        other[bit / 8] ^= 1 << (bit % 8);
                        let (a, b) = (hash(key), hash(&other));
                        shared[0] += usize::from(buckets_of(a, mask).0 == buckets_of(b, mask).0);
                        shared[1] += usize::from(buckets_of(a, mask).1 == buckets_of(b, mask).1);
                        shared[2] += usize::from(tag_of(a) == tag_of(b));
                    }
                    assert!(
                        shared.iter().all(|&n| n <= 3 * KEYS / 4),
                        "{what}: {len}-byte keys and their copies with bit {bit} flipped share \
                         (home bucket, alternate bucket, tag) {shared:?} times of {KEYS}"
                    );
                }
            }
        }
        let seeds = Seeds::random();
        check("whole", |k| seeds.hash_with::<false>(k, |w| w).0);
        check("ends", |k| seeds.hash_ends_with::<false>(k, |w| w));
    }

    /// Keys alike in length, first 8 and last 16 bytes would share one
    /// hash under the short hash: such a table hashes whole keys.
    #[test]
    fn keys_alike_at_both_ends_get_the_whole_hash() {
        let digests: Vec<(Vec<u8>, u32)> =
            (0..1000u32).map(|i| (format!("QUAY.IO/ORG/APP@SHA256:{:064X}", i * 7919).into_bytes(), i)).collect();
        let t = table(digests.clone(), true);
        assert!(t.ends, "digest references differ in their last bytes");
        let alike: Vec<(Vec<u8>, u32)> =
            (0..1000u32).map(|i| (format!("REGISTRY/{i:05}/THE-SAME-LAST-16-BYTES").into_bytes(), i)).collect();
        let u = table(alike.clone(), true);
        assert!(!u.ends);
        for (table, keys) in [(&t, &digests), (&u, &alike)] {
            for (k, i) in keys {
                assert_eq!(table.get(k), Some(*i));
                assert_eq!(table.get_raw(&k.to_ascii_lowercase(), true).unwrap(), Some(*i));
            }
            assert_eq!(table.get_raw(b"REGISTRY/01000/THE-SAME-LAST-16-BYTES", true).unwrap(), None);
            assert!(table.get_raw("REGISTRY/\u{e9}".as_bytes(), false).is_err());
        }
        // Up to MAX_SHARED alike keys keep the short hash.
        assert!(table(alike[..MAX_SHARED].to_vec(), true).ends);
    }

    #[test]
    fn case_sensitive_tables_compare_bytes() {
        let t = table(vec![(b"Quay".to_vec(), 0)], false);
        assert_eq!(t.get_raw(b"Quay", false).unwrap(), Some(0));
        assert_eq!(t.get_raw(b"QUAY", false).unwrap(), None);
    }

    /// The most a lookup of a name reads in a table of `n` keys: two
    /// buckets, a comparison per tag that agrees, then a binary search of
    /// the overflow list.
    fn lookup_bound(t: &ExactTable) -> Cost {
        // (`binary_search_by` compares up to once more than log2(n), rounded up.)
        let search = (usize::BITS - t.overflow.len().leading_zeros()) as usize + 1;
        Cost { slots: 2 * WIDTH, comparisons: 2 * WIDTH + search }
    }

    /// Looks every key up (and a miss beside each), checking the answer and
    /// that no lookup costs more than [`lookup_bound`]; returns the most
    /// any lookup cost.
    fn check_bounded(t: &ExactTable, keys: &[(Vec<u8>, u32)], fold: bool) -> Cost {
        let bound = lookup_bound(t);
        let mut most = Cost::default();
        for (key, index) in keys {
            let mut miss = key.clone();
            miss.push(b'#');
            let raw = if fold { key.to_ascii_lowercase() } else { key.clone() };
            for (name, want, raw) in [(key, Some(*index), false), (&raw, Some(*index), true), (&miss, None, false)] {
                let mut cost = Cost::default();
                let got = if raw {
                    t.get_raw_tallied(name, false, &mut cost).unwrap()
                } else {
                    t.get_tallied(name, &mut cost)
                };
                assert_eq!(got, want, "{name:x?}");
                assert!(cost.slots <= bound.slots && cost.comparisons <= bound.comparisons, "{name:x?}: {cost:?}");
                most = Cost { slots: most.slots.max(cost.slots), comparisons: most.comparisons.max(cost.comparisons) };
            }
        }
        most
    }

    /// `bits` positions, each one of a pair of bytes; `pick` chooses.
    fn pair_keys(prefix: &[u8], bits: u32, pair: impl Fn(u32, bool) -> u8) -> Vec<(Vec<u8>, u32)> {
        (0..1u32 << bits)
            .map(|i| {
                let mut key = prefix.to_vec();
                key.extend((0..bits).map(|bit| pair(bit, i >> bit & 1 == 1)));
                (key, i)
            })
            .collect()
    }

    /// Keys that differ only in bit 0x20 of some bytes (`@`/`` ` ``,
    /// `[`/`{`, `\`/`|`, `]`/`}`, `^`/`~`, all distinct under folding), and
    /// tag-case variants in a case-sensitive table (containerd's rules):
    /// the hash tells them apart, every lookup and insert stays within the
    /// bound, and compile does too.
    #[test]
    fn keys_built_to_collide_cost_a_bounded_lookup() {
        const PAIRS: [(u8, u8); 5] = [(b'@', b'`'), (b'[', b'{'), (b'\\', b'|'), (b']', b'}'), (b'^', b'~')];
        let case_bits = pair_keys(b"REGISTRY.EXAMPLE/A", 14, |bit, odd| {
            let (a, b) = PAIRS[bit as usize % PAIRS.len()];
            if odd {
                b
            } else {
                a
            }
        });
        let tag_case = pair_keys(b"docker.io/library/nginx:v", 14, |bit, upper| {
            let c = b'a' + (bit % 3) as u8;
            if upper {
                c.to_ascii_uppercase()
            } else {
                c
            }
        });
        for (keys, fold) in [(&case_bits, true), (&tag_case, false)] {
            let mut build = Cost::default();
            let t = ExactTable::build_seeded(list(keys), fold, Seeds::random(), &mut build);
            // Each insert: a lookup in two buckets, then a free slot in one.
            let n = keys.len();
            assert!(build.slots <= n * 4 * WIDTH && build.comparisons <= n * 2 * WIDTH, "{build:?}");
            // A random hash spreads them: hardly any shares a tag.
            assert!(build.comparisons <= n / 100, "{build:?} for {n} keys");
            let most = check_bounded(&t, keys, fold);
            assert!(most.comparisons <= 2 + lookup_bound(&t).comparisons - 2 * WIDTH, "{most:?}");
        }
    }

    /// The bound holds whatever the hash does: with a hash that files
    /// every key under one value (as if its seed had been guessed and
    /// broken), every key but 8 goes to the overflow list, and every
    /// lookup still costs at most 16 slots and 8 + log2(n) comparisons.
    #[test]
    fn a_broken_hash_costs_a_binary_search_not_a_scan() {
        let keys: Vec<(Vec<u8>, u32)> = (0..5000u32).map(|i| (format!("QUAY.IO/{i}").into_bytes(), i)).collect();
        let mut with_dupes = keys.clone();
        with_dupes.push((b"QUAY.IO/4999".to_vec(), 9000));
        let constant = Seeds { start: 0, step: 0 };
        assert_eq!(constant.hash(b"A", |w| w).0, constant.hash(b"B", |w| w).0);
        let mut build = Cost::default();
        let t = ExactTable::build_seeded(list(&with_dupes), true, constant, &mut build);
        assert_eq!(t.overflow.len(), keys.len() - WIDTH, "one bucket full, the rest overflow, duplicate dropped");
        assert!(build.slots <= with_dupes.len() * 4 * WIDTH && build.comparisons <= with_dupes.len() * 2 * WIDTH);
        check_bounded(&t, &keys, true);
    }
}
