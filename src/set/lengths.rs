//! What a name's length alone says: most names of a length no pattern can
//! match are turned away before they are read twice.
//!
//! **What a name costs (the bound).** One word of the length bitmap (32
//! bytes beside the set's other fields: one line) and, for a name of a
//! length nothing matches if it is ASCII, one pass over its `L` bytes, 8 at
//! a time ([`all_ascii`]). Nothing grows with the list; compiling sets a
//! bit per exact pattern.

use crate::fold::all_ascii;

/// Which name lengths can match at all: the lengths of the exact needles,
/// and the shortest substring or prefix needle. An ASCII name's canonical
/// form has its length, so most ASCII names of the wrong length are turned
/// away before canonicalising (a list of exact names, such as CRI-O's
/// default of only the pause image, then costs almost nothing per name).
#[derive(Debug)]
pub(super) struct Lengths {
    /// Bit n: an exact needle of n bytes (n < 256).
    pub(super) exact_short: [u64; 4],
    /// Some exact needle has 256 bytes or more.
    pub(super) exact_long: bool,
    /// The shortest substring or prefix needle, if any.
    pub(super) shortest_needle: Option<usize>,
    /// The span of the exact needles' lengths (empty: MAX and 0).
    pub(super) shortest_exact: usize,
    pub(super) longest_exact: usize,
}

impl Default for Lengths {
    fn default() -> Lengths {
        Lengths {
            exact_short: [0; 4],
            exact_long: false,
            shortest_needle: None,
            shortest_exact: usize::MAX,
            longest_exact: 0,
        }
    }
}

impl Lengths {
    pub(super) fn add_exact(&mut self, len: usize) {
        self.shortest_exact = self.shortest_exact.min(len);
        self.longest_exact = self.longest_exact.max(len);
        match self.exact_short.get_mut(len / 64) {
            Some(word) => *word |= 1 << (len % 64),
            None => self.exact_long = true,
        }
    }

    pub(super) fn add_needle(&mut self, len: usize) {
        self.shortest_needle = Some(self.shortest_needle.map_or(len, |s| s.min(len)));
    }

    /// Lengths that rule nothing out: under the other runtimes' rules a
    /// name is normalised, or its repository looked up, so its own length
    /// says nothing.
    pub(super) fn open() -> Lengths {
        Lengths {
            exact_short: [!0; 4],
            exact_long: true,
            shortest_needle: Some(0),
            shortest_exact: 0,
            longest_exact: usize::MAX,
        }
    }

    /// Whether a name whose canonical form has `len` bytes may match.
    pub(super) fn may_match(&self, len: usize) -> bool {
        self.exact_may_match(len) || self.shortest_needle.is_some_and(|s| len >= s)
    }

    /// Whether `name` certainly matches nothing, known without
    /// canonicalising it. Its own length first; a name of another canonical
    /// length must hold a byte >= 0x80, and its canonical form has at least
    /// a third and at most three times its bytes (folding never lengthens a
    /// valid rune and shortens one at most from 3 bytes to 1, see
    /// `fold::tests`; a bad byte becomes U+FFFD, 3 bytes), so when no length
    /// in that range can match the name is not read at all: at CRI-O's
    /// default (the pause image alone) most names are turned away by their
    /// length alone.
    #[inline(always)]
    pub(super) fn rules_out(&self, name: &[u8]) -> bool {
        let n = name.len();
        !self.may_match(n) && (!self.may_match_within(n.div_ceil(3), n.saturating_mul(3)) || all_ascii(name))
    }

    /// Whether a name whose canonical form has `min..=max` bytes may match
    /// (or may not: the exact lengths are taken as their whole span).
    #[inline(always)]
    pub(super) fn may_match_within(&self, min: usize, max: usize) -> bool {
        self.shortest_needle.is_some_and(|s| s <= max) || (self.shortest_exact <= max && self.longest_exact >= min)
    }

    /// Whether an exact needle has `len` bytes (or may: 256 and more).
    pub(super) fn exact_may_match(&self, len: usize) -> bool {
        match self.exact_short.get(len / 64) {
            Some(word) => word & (1 << (len % 64)) != 0,
            None => self.exact_long,
        }
    }
}
