//! Canonical form: how a name (any bytes) and a pattern's text are turned
//! into byte strings that compare equal exactly when Go's regexp says they
//! match.
//!
//! Go's regexp reads its input rune by rune; a byte that does not start a
//! valid UTF-8 sequence is read as U+FFFD, one byte at a time. Under `(?i)` a
//! literal rune matches every rune of its `unicode.SimpleFold` orbit. So the
//! canonical form decodes the way Go does (each bad byte becomes U+FFFD) and,
//! when folding, replaces every rune by the smallest rune of its orbit (the
//! table in `fold_table.rs`, generated from Go's own tables). Two canonical
//! strings are equal, or one contains the other, exactly when Go's literal
//! regexp would match; since both are valid UTF-8, a byte-level substring
//! match always falls on rune boundaries.
//!
//! The representative of an ASCII letter is its upper-case form. The set
//! matches an ASCII name (the usual image name) without canonicalising it
//! (its exact table and automaton fold ASCII case themselves); this module
//! canonicalises the other names, and every name for the NFA used for huge
//! lists, upper-casing ASCII ones in a stack buffer. A representative is never longer in UTF-8 than its rune (it is
//! the smallest code point of the orbit); only bad bytes grow, 1 to 3 bytes.

#[path = "fold_table.rs"]
mod table;

pub(crate) use table::UNICODE_VERSION;

/// Names up to this length (the common case) are canonicalised on the stack.
const STACK_NAME: usize = 512;

/// The representative of `c`'s fold orbit under Go's `(?i)`.
pub(crate) fn representative(c: char) -> char {
    if c.is_ascii() {
        return c.to_ascii_uppercase();
    }
    let code = u32::from(c);
    let rep = match code {
        0..0x10000 => u32::from(basic_plane()[code as usize]),
        _ => representative_by_search(code),
    };
    char::from_u32(rep).expect("fold table holds only scalar values")
}

/// The representative of `code` found in the fold table (a binary search of
/// its 1,454 entries, a dozen dependent probes).
fn representative_by_search(code: u32) -> u32 {
    match table::FOLD_REPRESENTATIVE.binary_search_by_key(&code, |&(rune, _)| rune) {
        Ok(i) => table::FOLD_REPRESENTATIVE[i].1,
        Err(_) => code,
    }
}

/// The representative of every rune of the Basic Multilingual Plane, by
/// code point (an orbit's smallest rune is never above the rune, so it is
/// in the plane too; surrogates map to themselves and are never read):
/// built from the fold table the first time a name or pattern needs it
/// (128 KiB), so that a rune costs one load, not a binary search (issue 36:
/// names of k, K, K, s, ſ, ß, ẞ spent half their match there).
fn basic_plane() -> &'static [u16] {
    static TABLE: std::sync::OnceLock<Box<[u16]>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        let mut reps: Box<[u16]> = (0..=u16::MAX).collect();
        for &(rune, rep) in table::FOLD_REPRESENTATIVE.iter().take_while(|&&(rune, _)| rune < 0x10000) {
            reps[rune as usize] = u16::try_from(rep).expect("a representative is below its rune");
        }
        reps
    })
}

/// Appends the canonical form of `bytes` to `out`.
pub(crate) fn canonicalize_into(bytes: &[u8], fold: bool, out: &mut Vec<u8>) {
    // ASCII text (every image reference) differs from its canonical form
    // only in case: copied a word at a time, without the decoding below,
    // which was half of compiling a list of digests.
    if fold && push_ascii_upper(bytes, out) {
        return;
    }
    let start = out.len();
    out.resize(start + MAX_GROWTH * bytes.len(), 0);
    let written = canonicalize_to(bytes, fold, &mut out[start..]);
    out.truncate(start + written);
}

/// The most bytes of canonical form a byte can take: a bad byte becomes
/// U+FFFD's 3 (a representative is never longer than its rune).
const MAX_GROWTH: usize = 3;

/// Writes the canonical form of `bytes` at the start of `out`, which has
/// room for [`MAX_GROWTH`] bytes a byte of `bytes`, and returns its length.
/// One pass that decodes and writes each rune (issue 36's case-folding row,
/// names of few ASCII bytes, spent most of its match here when the bytes
/// were validated by one pass, decoded by another and pushed one by one).
fn canonicalize_to(bytes: &[u8], fold: bool, out: &mut [u8]) -> usize {
    assert!(out.len() >= MAX_GROWTH * bytes.len(), "room for the canonical form");
    let (mut at, mut written) = (0, 0);
    while at < bytes.len() {
        // Runs of ASCII (most of any name) eight bytes at a time.
        if let Some(word) = bytes.get(at..at + 8) {
            let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            if w & HIGH == 0 {
                let w = if fold { ascii_upper_word(w) } else { w };
                out[written..written + 8].copy_from_slice(&w.to_le_bytes());
                (at, written) = (at + 8, written + 8);
                continue;
            }
        }
        let b = bytes[at];
        if b.is_ascii() {
            out[written] = if fold { b.to_ascii_uppercase() } else { b };
            (at, written) = (at + 1, written + 1);
            continue;
        }
        match decode(&bytes[at..]) {
            Some((c, width)) => {
                if fold {
                    written += representative(c).encode_utf8(&mut out[written..]).len();
                } else {
                    out[written..written + width].copy_from_slice(&bytes[at..at + width]);
                    written += width;
                }
                at += width;
            }
            // Go reads a byte that starts no valid sequence as U+FFFD and
            // goes on at the next byte (a continuation byte, which starts
            // none either, is then read as U+FFFD too).
            None => {
                out[written..written + 3].copy_from_slice("\u{FFFD}".as_bytes());
                (at, written) = (at + 1, written + 3);
            }
        }
    }
    written
}

/// The rune a non-ASCII byte at the start of `bytes` begins and its width
/// in bytes, or `None` if no valid UTF-8 sequence starts there (an
/// overlong form, a surrogate, past U+10FFFF, or cut short).
#[inline(always)]
fn decode(bytes: &[u8]) -> Option<(char, usize)> {
    let lead = bytes[0];
    let (width, second) = match lead {
        0xC2..=0xDF => (2, 0x80..=0xBF),
        0xE0 => (3, 0xA0..=0xBF),
        0xED => (3, 0x80..=0x9F),
        0xE1..=0xEF => (3, 0x80..=0xBF),
        0xF0 => (4, 0x90..=0xBF),
        0xF4 => (4, 0x80..=0x8F),
        0xF1..=0xF3 => (4, 0x80..=0xBF),
        _ => return None,
    };
    let sequence = bytes.get(..width)?;
    if !second.contains(&sequence[1]) || sequence[2..].iter().any(|&b| b & 0xC0 != 0x80) {
        return None;
    }
    let code = sequence[1..].iter().fold(u32::from(lead) & (0x7F >> width), |code, &b| code << 6 | u32::from(b & 0x3F));
    Some((char::from_u32(code)?, width))
}

/// Appends `bytes` upper-cased, eight at a time, if they are all ASCII;
/// else appends nothing and returns false. (One pass: a test of the bytes
/// before it cost as much as the copy.) The bytes are copied first, in one
/// copy, and upper-cased in place: pushed a word at a time, each push
/// stored the vector's length back to memory and reloaded its pointer,
/// which in WebAssembly (every access bounds-checked) made this a third of
/// compiling a list of digests.
fn push_ascii_upper(bytes: &[u8], out: &mut Vec<u8>) -> bool {
    let start = out.len();
    out.extend_from_slice(bytes);
    let copy = &mut out[start..];
    let mut high = 0;
    let mut words = copy.chunks_exact_mut(8);
    for word in words.by_ref() {
        let w = u64::from_le_bytes((&*word).try_into().expect("8 bytes"));
        high |= w;
        word.copy_from_slice(&ascii_upper_word(w).to_le_bytes());
    }
    for b in words.into_remainder() {
        high |= u64::from(*b);
        b.make_ascii_uppercase();
    }
    if high & HIGH != 0 {
        out.truncate(start);
        return false;
    }
    true
}

/// Bit 7 of every byte of a word: the bits a byte >= 0x80 sets.
pub(crate) const HIGH: u64 = 0x8080_8080_8080_8080;

/// Whether `bytes` are all ASCII: the OR of their 8-byte words (the last
/// one overlapping the one before) has no high bit set, with no branch per
/// word (the compiler turns the ORs into wider vector ORs). The standard
/// library's `is_ascii` checks 64-byte blocks and then the rest one byte
/// at a time, exiting at the first high byte, which at the corpus' names
/// (76 bytes on average) cost `match_each` 125 of its 887 instructions a
/// name at 100 patterns. (An OR of bytes does not depend on their order:
/// any byte order.)
#[inline(always)]
pub(crate) fn all_ascii(bytes: &[u8]) -> bool {
    let Some(last) = bytes.last_chunk::<8>() else {
        return bytes.iter().fold(0, |high, &b| high | b) < 0x80;
    };
    let mut high = u64::from_ne_bytes(*last);
    for word in bytes.chunks_exact(8) {
        high |= u64::from_ne_bytes(word.try_into().expect("8 bytes"));
    }
    high & HIGH == 0
}

/// [`all_ascii`], out of line: inlined into the lockstep walk it took
/// registers from the walk's lanes (`match_each` ran 785 instructions a
/// name at 100 patterns with it inlined, 706 without, in the same time
/// natively; the module's `MatchEach` took 4 % less time).
#[inline(never)]
pub(crate) fn all_ascii_out_of_line(bytes: &[u8]) -> bool {
    all_ascii(bytes)
}

/// Eight ASCII bytes upper-cased: for bytes below 0x80, adding 0x1f sets a
/// byte's high bit iff it is >= b'a', adding 0x05 iff it is > b'z' (no
/// carry crosses bytes): a lower-case letter has exactly one of them set;
/// its 0x20 bit is flipped.
#[inline(always)]
pub(crate) fn ascii_upper_word(w: u64) -> u64 {
    let ge_a = w.wrapping_add(0x1f1f_1f1f_1f1f_1f1f);
    let gt_z = w.wrapping_add(0x0505_0505_0505_0505);
    w ^ (((ge_a ^ gt_z) & HIGH) >> 2)
}

/// The canonical form of `bytes`, owned (for compiling patterns).
pub(crate) fn canonical(bytes: &[u8], fold: bool) -> Vec<u8> {
    if bytes.is_ascii() {
        let mut out = bytes.to_vec();
        if fold {
            out.make_ascii_uppercase();
        }
        return out;
    }
    let mut out = Vec::with_capacity(bytes.len());
    canonicalize_into(bytes, fold, &mut out);
    out
}

/// Calls `f` with the canonical form of `name`, without allocating for
/// names up to `STACK_NAME` bytes or for any valid UTF-8 name when not
/// folding. Longer ASCII names are upper-cased in one bulk copy.
pub(crate) fn with_canonical<R>(name: &[u8], fold: bool, f: impl FnOnce(&[u8]) -> R) -> R {
    if !fold {
        if std::str::from_utf8(name).is_ok() {
            return f(name);
        }
    } else if name.len() <= STACK_NAME {
        let mut buf = [0u8; STACK_NAME];
        if let Some(upper) = ascii_upper(name, &mut buf) {
            return f(upper);
        }
    } else if all_ascii_out_of_line(name) {
        return f(&name.to_ascii_uppercase());
    }
    if name.len() <= STACK_NAME {
        let mut buf = [0u8; MAX_GROWTH * STACK_NAME];
        let written = canonicalize_to(name, fold, &mut buf);
        return f(&buf[..written]);
    }
    f(&canonical(name, fold))
}

/// `name` upper-cased into `buf` eight bytes at a time, or `None` if it is
/// not all ASCII. (The per-byte loop cost a third of a match.)
#[inline]
fn ascii_upper<'b>(name: &[u8], buf: &'b mut [u8; STACK_NAME]) -> Option<&'b [u8]> {
    let upper = ascii_upper_word;
    let n = name.len();
    let mut chunks = name.chunks_exact(8);
    for (i, chunk) in chunks.by_ref().enumerate() {
        let w = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        if w & HIGH != 0 {
            return None;
        }
        buf[i * 8..i * 8 + 8].copy_from_slice(&upper(w).to_le_bytes());
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut tail = [0u8; 8];
        tail[..rest.len()].copy_from_slice(rest);
        let w = u64::from_le_bytes(tail);
        if w & HIGH != 0 {
            return None;
        }
        buf[n - rest.len()..n].copy_from_slice(&upper(w).to_le_bytes()[..rest.len()]);
    }
    Some(&buf[..n])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-wise ASCII test, inlined and out of line, finds one byte of
    /// 0x80 or more at any place of a name of any length up to 99 (past the
    /// standard library's 64-byte block, and every overlap of the last
    /// word), and none in an ASCII one (0x7f, the highest, included).
    #[test]
    fn all_ascii_finds_a_high_byte_anywhere() {
        for n in 0..100 {
            let ascii: Vec<u8> = (0..n).map(|i| if i % 7 == 3 { 0x7f } else { b'a' + (i % 26) as u8 }).collect();
            assert!(all_ascii(&ascii) && all_ascii_out_of_line(&ascii), "{n}");
            for at in 0..n {
                for high in [0x80, 0xff] {
                    let mut name = ascii.clone();
                    name[at] = high;
                    assert!(!all_ascii(&name) && !all_ascii_out_of_line(&name), "{n} {at}");
                }
            }
        }
    }

    /// The one-pass decoding agrees with the standard library's, which
    /// validates first (`utf8_chunks`): each byte of a chunk's invalid
    /// part read as U+FFFD, as Go does.
    #[test]
    fn canonical_form_decodes_as_the_standard_library() {
        fn by_chunks(bytes: &[u8], fold: bool) -> Vec<u8> {
            let mut out = Vec::new();
            for chunk in bytes.utf8_chunks() {
                for c in chunk.valid().chars() {
                    let c = if fold { representative(c) } else { c };
                    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
                }
                out.extend(chunk.invalid().iter().flat_map(|_| "\u{FFFD}".bytes()));
            }
            out
        }
        let edges: [&[u8]; 14] = [
            b"\xff",
            b"\xfe\xff",
            b"\xe2\x82",
            b"\xc0\xaf",
            b"\xc1\xbf",
            b"\xed\xa0\x80",
            b"\xed\x9f\xbf",
            b"\xf4\x90\x80\x80",
            b"\xf4\x8f\xbf\xbf",
            b"\xf0\x8f\xbf\xbf",
            b"\xe0\x9f\xbf",
            b"\x80",
            b"\xef\xbf\xbd",
            "k\u{212A}s\u{17F}\u{DF}\u{1E9E}\u{10400}".as_bytes(),
        ];
        let mut seed = 0x243f_6a88_85a3_08d3_u64;
        let mut draw = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for round in 0..20_000 {
            let mut bytes = Vec::new();
            while bytes.len() < (draw() % 40) as usize {
                match draw() % 4 {
                    0 => bytes.extend_from_slice(edges[(draw() % 14) as usize]),
                    1 => bytes.extend_from_slice(b"quay.io/Org/"),
                    _ => bytes.push(draw() as u8),
                }
            }
            for fold in [true, false] {
                let mut got = Vec::new();
                canonicalize_into(&bytes, fold, &mut got);
                assert_eq!(got, by_chunks(&bytes, fold), "round {round}: {bytes:x?}, fold {fold}");
                assert_eq!(with_canonical(&bytes, fold, <[u8]>::to_vec), got, "{bytes:x?}");
            }
        }
    }

    /// What `Lengths::rules_out` (set/lengths.rs) relies on to turn a name away by
    /// its length alone: folding a rune never lengthens its encoding and
    /// shortens it at most from 3 bytes to 1, so a valid name's canonical
    /// form has between a third of its bytes and all of them.
    #[test]
    fn folding_keeps_a_third_of_the_bytes_at_least() {
        let mut shortest_ratio = (1, 1);
        for &(rune, rep) in table::FOLD_REPRESENTATIVE {
            let rune = char::from_u32(rune).expect("a scalar value");
            let rep = char::from_u32(rep).expect("a scalar value");
            assert!(rep.len_utf8() <= rune.len_utf8(), "{rune:?} folds to the longer {rep:?}");
            assert!(3 * rep.len_utf8() >= rune.len_utf8(), "{rune:?} folds to {rep:?}");
            if rep.len_utf8() * shortest_ratio.1 < shortest_ratio.0 * rune.len_utf8() {
                shortest_ratio = (rep.len_utf8(), rune.len_utf8());
            }
        }
        // The bound is reached (U+212A KELVIN SIGN folds to 'K'): it is tight.
        assert_eq!(shortest_ratio, (1, 3));
        assert_eq!(canonical("\u{212A}".as_bytes(), true), b"K");
    }

    /// The canonical form appended rune by rune, as the decoding path
    /// builds it (every rune its representative, every bad byte U+FFFD).
    fn canonical_by_runes(bytes: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        for chunk in bytes.utf8_chunks() {
            out.extend(chunk.valid().chars().map(representative).collect::<String>().bytes());
            out.extend(chunk.invalid().iter().flat_map(|_| "\u{FFFD}".bytes()));
        }
        out
    }

    /// ASCII text is appended a word at a time; a byte >= 0x80 at any
    /// position of any length sends it down the decoding path, which
    /// appends the same form after what `out` held.
    #[test]
    fn ascii_words_and_decoded_runes_append_alike() {
        let ascii: Vec<u8> = (0u8..0x80).cycle().skip(0x3a).take(41).collect();
        for len in 0..=ascii.len() {
            for odd in [None, Some(&b"\xff"[..]), Some("\u{212A}".as_bytes())] {
                for at in 0..=len {
                    let mut text = ascii[..len].to_vec();
                    if let Some(odd) = odd {
                        text.splice(at..at, odd.iter().copied());
                    } else if at > 0 {
                        break;
                    }
                    let mut out = b"held".to_vec();
                    canonicalize_into(&text, true, &mut out);
                    assert_eq!(out[..4], *b"held");
                    assert_eq!(out[4..], canonical_by_runes(&text), "{text:x?}");
                }
            }
        }
    }

    #[test]
    fn ascii_fast_path_agrees_with_the_table() {
        // The stack path upper-cases ASCII; the table must say the same.
        for b in 0u8..0x80 {
            let c = char::from(b);
            let from_table = table::FOLD_REPRESENTATIVE
                .iter()
                .find(|&&(rune, _)| rune == u32::from(b))
                .map_or(c, |&(_, rep)| char::from_u32(rep).unwrap());
            assert_eq!(representative(c), from_table, "byte {b:#x}");
        }
    }

    /// The plane's table says what the fold table says, rune by rune.
    #[test]
    fn basic_plane_agrees_with_the_table() {
        for c in (0x80..0x10000).filter_map(char::from_u32) {
            assert_eq!(u32::from(representative(c)), representative_by_search(u32::from(c)), "{c:?}");
        }
    }

    #[test]
    fn table_is_sorted_and_maps_to_smaller_runes() {
        let t = table::FOLD_REPRESENTATIVE;
        assert!(t.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(t.iter().all(|&(rune, rep)| rep < rune));
        // A representative represents itself.
        assert!(t.iter().all(|&(_, rep)| t.binary_search_by_key(&rep, |e| e.0).is_err()));
    }

    /// Go's orbits (our table) against regex-syntax's, built from Unicode's
    /// CaseFolding.txt independently: they must agree on every code point
    /// except those whose folding changed in Unicode 16, which Go 1.26 does
    /// not have yet.
    #[test]
    fn table_agrees_with_unicode_data_except_unicode_16_changes() {
        use regex_syntax::hir::{ClassUnicode, ClassUnicodeRange};
        use std::collections::HashMap;

        let mut go_orbits: HashMap<char, Vec<char>> = HashMap::new();
        let chars = || (0..=0x10FFFFu32).filter_map(char::from_u32);
        for c in chars() {
            go_orbits.entry(representative(c)).or_default().push(c);
        }
        let mut differ = Vec::new();
        for c in chars() {
            let mut class = ClassUnicode::new([ClassUnicodeRange::new(c, c)]);
            class.case_fold_simple();
            let unicode: Vec<char> = class.iter().flat_map(|r| r.start()..=r.end()).collect();
            if go_orbits[&representative(c)] != unicode {
                differ.push(c);
            }
        }
        let expected: Vec<char> = chars().filter(|&c| crate::oracle::in_unicode_16_fold_changes(c)).collect();
        assert_eq!(differ, expected);
    }

    #[test]
    fn orbits_fold_together() {
        let cases = [
            ('k', 'K'),
            ('\u{212A}', 'K'), // KELVIN SIGN
            ('s', 'S'),
            ('\u{17F}', 'S'), // LONG S
            ('é', 'É'),
            ('σ', 'Σ'),
            ('ς', 'Σ'),
            ('ϑ', 'Θ'),
            ('\u{1E9E}', 'ß'),
            ('İ', 'İ'), // no simple fold
        ];
        for (c, rep) in cases {
            assert_eq!(representative(c), rep, "{c:?}");
        }
    }

    #[test]
    fn bad_bytes_become_one_replacement_each() {
        let cases: &[(&[u8], &str)] = &[
            (b"a\xffb", "A\u{FFFD}B"),
            (b"\xe2\x82", "\u{FFFD}\u{FFFD}"), // truncated sequence
            (b"\xe2\x82a", "\u{FFFD}\u{FFFD}A"),
            (b"\xed\xa0\x80", "\u{FFFD}\u{FFFD}\u{FFFD}"), // surrogate
            (b"\xc0\xaf", "\u{FFFD}\u{FFFD}"),             // overlong
            (b"\xf4\x90\x80\x80", "\u{FFFD}\u{FFFD}\u{FFFD}\u{FFFD}"), // > U+10FFFF
            ("\u{FFFD}".as_bytes(), "\u{FFFD}"),
        ];
        for (name, want) in cases {
            assert_eq!(canonical(name, true), want.as_bytes(), "{name:x?}");
            with_canonical(name, true, |c| assert_eq!(c, want.as_bytes()));
        }
    }

    #[test]
    fn without_folding_only_bad_bytes_change() {
        assert_eq!(canonical("Kk\u{212A}".as_bytes(), false), "Kk\u{212A}".as_bytes());
        assert_eq!(canonical(b"K\xff", false), "K\u{FFFD}".as_bytes());
        with_canonical(b"K\xff", false, |c| assert_eq!(c, "K\u{FFFD}".as_bytes()));
    }

    #[test]
    fn eight_bytes_at_a_time_upper_cases_every_ascii_byte() {
        let all: Vec<u8> = (0u8..0x80).collect();
        for len in 0..all.len() {
            for start in [0, 3] {
                let name = &all[start.min(len)..len];
                let mut buf = [0u8; STACK_NAME];
                let got = ascii_upper(name, &mut buf).expect("ASCII");
                assert_eq!(got, name.to_ascii_uppercase(), "{name:x?}");
            }
        }
        let mut buf = [0u8; STACK_NAME];
        assert_eq!(ascii_upper(b"abcdefgh\x80", &mut buf), None);
        assert_eq!(ascii_upper("abc\u{e9}".as_bytes(), &mut buf), None);
    }

    #[test]
    fn long_and_non_ascii_names_take_the_heap_path_with_the_same_result() {
        let long = "quay.io/".repeat(100);
        with_canonical(long.as_bytes(), true, |c| assert_eq!(c, long.to_ascii_uppercase().as_bytes()));
        with_canonical("quay.io/\u{212A}".as_bytes(), true, |c| assert_eq!(c, b"QUAY.IO/K"));
    }
}
