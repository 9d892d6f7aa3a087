//! Pattern intake: the list read, checked against the limits and parsed,
//! one pattern at a time.

use std::cmp::Ordering;

use crate::fold;
use crate::fold::all_ascii;
use crate::normalize::normalize;
use crate::pattern::{CompileError, ErrorKind, Flags, Pattern};

/// Most patterns one set may hold. Real lists hold up to tens of thousands;
/// the bound keeps a runaway generator from exhausting the node's memory.
pub const MAX_PATTERNS: usize = 10_000_000;

/// Most bytes of pattern text one set may hold, all patterns together. A
/// compiled set needs a small multiple of this: about 14 bytes per byte of
/// keyword or glob text that shares no prefix with another (so under 1 GiB
/// at the bound), far less for real lists.
pub const MAX_PATTERN_BYTES: usize = 64 << 20;

/// Parses every pattern of the list as [`super::PinSet::compile`] does, in order,
/// handing each to `each` with its index; fails at the first bad one, and
/// at the first over the limits before reading it (so an oversized list
/// costs nothing to refuse). Returns the number of patterns.
pub(super) fn each_pattern<I>(
    patterns: I,
    flags: Flags,
    mut each: impl FnMut(u32, Pattern<'_>),
) -> Result<usize, CompileError>
where
    I: IntoIterator,
    I::Item: AsRef<[u8]>,
{
    flags.check()?;
    let mut len = 0;
    let mut total_bytes = 0usize;
    let mut normalized_text = Vec::new();
    for (i, raw) in patterns.into_iter().enumerate() {
        let raw = raw.as_ref();
        if i >= MAX_PATTERNS {
            return Err(too_many_patterns(i));
        }
        total_bytes = total_bytes.saturating_add(raw.len());
        if total_bytes > MAX_PATTERN_BYTES {
            return Err(too_many_bytes(i));
        }
        let index = u32::try_from(i).expect("MAX_PATTERNS fits in u32");
        // An ASCII pattern (the usual one) is tested eight bytes at a time;
        // `from_utf8` reads a `usize` at a time, four bytes in WebAssembly.
        let text = if all_ascii(raw) {
            // SAFETY: ASCII is UTF-8.
            unsafe { std::str::from_utf8_unchecked(raw) }
        } else {
            std::str::from_utf8(raw)
                .map_err(|e| CompileError::at(i, raw, ErrorKind::NotUtf8 { valid_up_to: e.valid_up_to() }))?
        };
        let pattern = Pattern::parse(text, flags).map_err(|kind| CompileError::at(i, raw, kind))?;
        match pattern {
            Pattern::Exact(text) | Pattern::Repository(text) if flags.contains(Flags::NORMALIZE) => {
                let normalized = normalize(text.as_bytes())
                    .map_err(|why| CompileError::at(i, raw, ErrorKind::InvalidReference { why }))?;
                normalized_text.clear();
                normalized.write_to(&mut normalized_text);
                // (ASCII: the grammar admits nothing else.)
                let text = std::str::from_utf8(&normalized_text).expect("a reference is ASCII");
                each(
                    index,
                    match pattern {
                        // A bare repository gained `:latest`, which its
                        // repository does not have.
                        Pattern::Repository(_) => Pattern::Repository(&text[..text.len() - ":latest".len()]),
                        _ => Pattern::Exact(text),
                    },
                );
            }
            _ => each(index, pattern),
        }
        len = i + 1;
    }
    Ok(len)
}

/// Pattern `index` is one more than [`MAX_PATTERNS`] allows.
pub(crate) fn too_many_patterns(index: usize) -> CompileError {
    CompileError::new(Some(index), ErrorKind::TooLarge { what: "the number of patterns", limit: MAX_PATTERNS })
}

/// Pattern `index` takes the list past [`MAX_PATTERN_BYTES`]. (The error
/// does not quote it: through the C ABI, a length over the limit may lie,
/// and is never read through.)
pub(crate) fn too_many_bytes(index: usize) -> CompileError {
    CompileError::new(
        Some(index),
        ErrorKind::TooLarge { what: "the total size of all patterns in bytes", limit: MAX_PATTERN_BYTES },
    )
}

/// Canonical needles back to back in one buffer, each with the pattern it
/// came from: a list of millions of patterns allocates nothing per pattern.
#[derive(Debug, Default)]
pub(super) struct NeedleList {
    pub(super) text: Vec<u8>,
    pub(super) entries: Vec<Needle>,
}

/// One pattern's needle in a [`NeedleList`].
#[derive(Debug, Clone, Copy)]
pub(super) struct Needle {
    /// Its first 8 bytes, big-endian, zero-padded: needles sort by it
    /// first, which spares most comparisons a read of the text.
    pub(super) head: u64,
    pub(super) offset: u32,
    pub(super) len: u32,
    pub(super) index: u32,
    /// An anchored glob ([`Flags::ANCHOR_GLOBS`]).
    pub(super) anchored: bool,
}

impl NeedleList {
    /// Adds the canonical form of `text`; returns its length.
    pub(super) fn push(&mut self, text: &[u8], fold: bool, index: u32, anchored: bool) -> usize {
        let offset = self.text.len();
        fold::canonicalize_into(text, fold, &mut self.text);
        self.add(offset, index, anchored)
    }

    /// Adds `needle`, already canonical.
    #[cfg(test)]
    pub(super) fn push_canonical(&mut self, needle: &[u8], index: u32, anchored: bool) {
        let offset = self.text.len();
        self.text.extend_from_slice(needle);
        self.add(offset, index, anchored);
    }

    pub(super) fn add(&mut self, offset: usize, index: u32, anchored: bool) -> usize {
        // Canonical text is never longer than the pattern's (folding keeps
        // or shortens a valid UTF-8 encoding), so MAX_PATTERN_BYTES bounds it.
        let as_u32 = |n: usize| u32::try_from(n).expect("MAX_PATTERN_BYTES fits in u32");
        let len = self.text.len() - offset;
        let mut head = [0u8; 8];
        let first = &self.text[offset..][..len.min(8)];
        head[..first.len()].copy_from_slice(first);
        let head = u64::from_be_bytes(head);
        self.entries.push(Needle { head, offset: as_u32(offset), len: as_u32(len), index, anchored });
        len
    }

    pub(super) fn bytes(&self, needle: &Needle) -> &[u8] {
        &self.text[needle.offset as usize..][..needle.len as usize]
    }

    /// The order of two needles' texts (`<[u8]>::cmp`'s): their heads,
    /// then eight bytes at a time. (Sorting a list's needles called
    /// `memcmp` for every pair with equal heads, most pairs: in the
    /// WebAssembly module a loop of a byte a step, which made the sort a
    /// quarter of compiling 1,000 patterns there.)
    pub(super) fn order(&self, a: &Needle, b: &Needle) -> Ordering {
        a.head.cmp(&b.head).then_with(|| {
            let (x, y) = (self.bytes(a), self.bytes(b));
            let common = x.len().min(y.len());
            // Equal heads of 8 bytes or more: the first 8 are equal.
            let mut at = if common >= 8 { 8 } else { 0 };
            while at + 8 <= common {
                let word = |t: &[u8]| u64::from_be_bytes(t[at..at + 8].try_into().expect("8 bytes"));
                match word(x).cmp(&word(y)) {
                    Ordering::Equal => at += 8,
                    unequal => return unequal,
                }
            }
            x[at..common]
                .iter()
                .zip(&y[at..common])
                .map(|(p, q)| p.cmp(q))
                .find(|o| o.is_ne())
                .unwrap_or(x.len().cmp(&y.len()))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Needles equal in their first 0 to 20 bytes, of every length around
    /// a word's, some holding NUL (which pads a short head), order as
    /// their bytes do.
    #[test]
    fn needles_order_as_their_bytes() {
        let mut texts: Vec<Vec<u8>> = Vec::new();
        for len in 0..20 {
            for last in [0u8, b'A', b'B', 0xff] {
                let mut text = b"QUAY.IO/OPENSHIFT/X".to_vec();
                text.truncate(len);
                text.push(last);
                texts.push(text.clone());
                text.extend_from_slice(b"\0Z");
                texts.push(text);
            }
        }
        let mut list = NeedleList::default();
        for (i, text) in texts.iter().enumerate() {
            list.push_canonical(text, i as u32, false);
        }
        for a in &list.entries {
            for b in &list.entries {
                assert_eq!(
                    list.order(a, b),
                    list.bytes(a).cmp(list.bytes(b)),
                    "{:x?} {:x?}",
                    list.bytes(a),
                    list.bytes(b)
                );
            }
        }
    }
}
