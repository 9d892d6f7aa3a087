//! The exact patterns: an open-addressing hash table over their canonical
//! needles, which an ASCII name is looked up in as it is (no upper-casing
//! copy first).
//!
//! The hash reads eight bytes at a time with bit 0x20 set in every byte, so
//! an ASCII letter hashes the same in either case: a raw ASCII name hashes
//! as its canonical (upper-case) form does. Where the keys allow it, only
//! the length, the first 8 and the last 16 bytes are hashed (image
//! references differ in their ends: tags and digests; a 76-byte name then
//! costs 3 hash steps instead of 10): a table takes that short hash only if
//! at most [`MAX_SHARED`] keys share those bytes, so that a list of keys
//! alike at both ends (hostile or not) cannot make the probe chains long;
//! it hashes whole keys otherwise. Equality is then checked word by
//! word, upper-casing the name's words on the fly. Slots hold 32 bits of the
//! hash beside the entry number, so a name that matches nothing (the usual
//! case) rarely reads past the slot array. The keys are stored back to back
//! in one buffer: the exact patterns' canonical text.

use super::{Needle, NeedleList};

/// An entry: where its key is in `text`, and the lowest pattern index.
#[derive(Debug, Clone, Copy)]
struct Entry {
    offset: u32,
    len: u32,
    index: u32,
}

#[derive(Debug, Default)]
pub(super) struct ExactTable {
    text: Vec<u8>,
    entries: Vec<Entry>,
    /// Per slot: hash's high 32 bits << 32 | entry number + 1 (0: empty).
    slots: Box<[u64]>,
    /// Case folding: compare upper-casing the name.
    fold: bool,
    /// Only the ends are hashed ([`hash_ends`]).
    ends: bool,
}

/// Most keys that may share their length, first 8 and last 16 bytes in a
/// table that hashes only those.
const MAX_SHARED: usize = 4;

/// Bit 0x20 of every byte.
const CASE_BITS: u64 = 0x2020_2020_2020_2020;
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

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

#[inline(always)]
fn mix(a: u64, b: u64) -> u64 {
    let p = u128::from(a) * u128::from(b);
    (p as u64) ^ ((p >> 64) as u64)
}

const SEED: u64 = 0x243f_6a88_85a3_08d3;
const K: u64 = 0x9e37_79b9_7f4a_7c15;

/// The hash of `bytes` (case-insensitive for ASCII letters), and whether
/// every byte is ASCII.
#[inline(always)]
fn hash(bytes: &[u8]) -> (u64, bool) {
    let mut h = SEED ^ bytes.len() as u64;
    let mut high = 0u64;
    let whole = bytes.len() & !7;
    let mut at = 0;
    while at < whole {
        let w = word(bytes, at);
        high |= w;
        h = mix(h ^ (w | CASE_BITS), K);
        at += 8;
    }
    if whole < bytes.len() {
        let w = tail(bytes);
        high |= w;
        h = mix(h ^ (w | CASE_BITS), K);
    }
    (h, high & HIGH_BITS == 0)
}

/// The hash of `bytes`' length, first 8 and last 16 bytes (overlapping in
/// shorter ones), case-insensitive for ASCII letters.
#[inline(always)]
fn hash_ends(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let h = SEED ^ n as u64;
    if n < 8 {
        return mix(h ^ (tail(bytes) | CASE_BITS), K);
    }
    let h = mix(h ^ (word(bytes, 0) | CASE_BITS), K);
    let h = if n >= 16 { mix(h ^ (word(bytes, n - 16) | CASE_BITS), K) } else { h };
    mix(h ^ (word(bytes, n - 8) | CASE_BITS), K)
}

/// The upper-case form of 8 ASCII bytes (see `fold::ascii_upper`).
#[inline(always)]
fn upper(w: u64) -> u64 {
    let ge_a = w.wrapping_add(0x1f1f_1f1f_1f1f_1f1f);
    let gt_z = w.wrapping_add(0x0505_0505_0505_0505);
    w ^ (((ge_a ^ gt_z) & HIGH_BITS) >> 2)
}

impl ExactTable {
    /// The exact needles of `list` (indexes ascending), whose text the
    /// table keeps.
    pub(super) fn build(list: NeedleList, fold: bool) -> ExactTable {
        let NeedleList { text, entries: needles } = list;
        let key = |n: &Needle| &text[n.offset as usize..][..n.len as usize];
        // Load at most 3/4 (linear probing stays short), at least 1 empty slot.
        let capacity = if needles.is_empty() { 0 } else { (needles.len() * 4 / 3 + 1).next_power_of_two() };
        // Keys alike at both ends hash alike: counted by sorting those
        // hashes (8 bytes a key; a collision of different ends only makes
        // the count safer).
        let mut ends_hashes: Vec<u64> = needles.iter().map(|n| hash_ends(key(n))).collect();
        ends_hashes.sort_unstable();
        let ends = ends_hashes.chunk_by(|a, b| a == b).all(|run| run.len() <= MAX_SHARED);
        drop(ends_hashes);
        let mut table = ExactTable {
            text: Vec::new(),
            entries: Vec::with_capacity(needles.len()),
            slots: vec![0; capacity].into_boxed_slice(),
            fold,
            ends,
        };
        for needle in &needles {
            let bytes = key(needle);
            let h = table.hash(bytes);
            let mask = capacity - 1;
            let mut slot = (h as usize) & mask;
            loop {
                let s = table.slots[slot];
                if s == 0 {
                    table.entries.push(Entry { offset: needle.offset, len: needle.len, index: needle.index });
                    table.slots[slot] = (h >> 32) << 32 | table.entries.len() as u64;
                    break;
                }
                // A duplicate keeps the first (lowest) index.
                if s >> 32 == h >> 32 && Self::key_in(&text, table.entry(s)) == bytes {
                    break;
                }
                slot = (slot + 1) & mask;
            }
        }
        table.text = text;
        table.entries.shrink_to_fit();
        table
    }

    fn key_in(text: &[u8], e: Entry) -> &[u8] {
        &text[e.offset as usize..(e.offset + e.len) as usize]
    }

    fn entry(&self, slot: u64) -> Entry {
        self.entries[(slot as u32 - 1) as usize]
    }

    fn key(&self, slot: u64) -> &[u8] {
        Self::key_in(&self.text, self.entry(slot))
    }

    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The hash this table files `bytes` under.
    #[inline(always)]
    fn hash(&self, bytes: &[u8]) -> u64 {
        if self.ends {
            hash_ends(bytes)
        } else {
            hash(bytes).0
        }
    }

    /// The index pinning `name`, looked up as it is: `Err` if it is not all
    /// ASCII (then look its canonical form up with [`ExactTable::get`]).
    /// `ascii`: the caller knows `name` is all ASCII. (Always inlined: as
    /// a call it cost 12–22 instructions a name, more than a hash step.)
    #[inline(always)]
    pub(super) fn get_raw(&self, name: &[u8], ascii: bool) -> Result<Option<u32>, super::dfa::Canonical> {
        let h = if self.ends {
            if !ascii && !name.is_ascii() {
                return Err(super::dfa::Canonical);
            }
            hash_ends(name)
        } else {
            let (h, is_ascii) = hash(name);
            if !is_ascii {
                return Err(super::dfa::Canonical);
            }
            h
        };
        Ok(self.find(h, |key| self.equal_raw(key, name)))
    }

    /// The index pinning a canonical name.
    pub(super) fn get(&self, canonical: &[u8]) -> Option<u32> {
        if self.is_empty() {
            return None;
        }
        self.find(self.hash(canonical), |key| key == canonical)
    }

    #[inline(always)]
    fn find(&self, h: u64, equal: impl Fn(&[u8]) -> bool) -> Option<u32> {
        let mask = self.slots.len().wrapping_sub(1);
        if self.slots.is_empty() {
            return None;
        }
        let mut slot = (h as usize) & mask;
        loop {
            let s = self.slots[slot];
            if s == 0 {
                return None;
            }
            if s >> 32 == h >> 32 && equal(self.key(s)) {
                return Some(self.entry(s).index);
            }
            slot = (slot + 1) & mask;
        }
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
            if upper(word(name, at)) != word(key, at) {
                return false;
            }
            at += 8;
        }
        whole == name.len() || upper(tail(name)) == tail(key)
    }

    pub(super) fn memory_usage(&self) -> usize {
        self.text.capacity() + self.entries.capacity() * std::mem::size_of::<Entry>() + self.slots.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table of canonical `keys` (indexes ascending).
    fn table(keys: Vec<(Vec<u8>, u32)>, fold: bool) -> ExactTable {
        let mut list = NeedleList::default();
        for (key, index) in keys {
            list.push_canonical(&key, index, false);
        }
        ExactTable::build(list, fold)
    }

    #[test]
    fn ascii_names_hash_and_compare_as_their_canonical_form() {
        let all: Vec<u8> = (0u8..0x80).collect();
        for len in 0..all.len() {
            let name = &all[..len];
            let canonical = name.to_ascii_uppercase();
            assert_eq!(hash(name), hash(&canonical), "{name:x?}");
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

    /// Keys alike in length, first 8 and last 16 bytes would share one
    /// probe chain under the short hash: such a table hashes whole keys.
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
}
