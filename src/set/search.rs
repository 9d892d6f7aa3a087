//! The engine's bottom layer: what a search of a name is asked
//! ([`Query`]), what it answers ([`Found`], or [`NeedsCanonical`]), and
//! who a needle belongs to ([`Owner`]). Every structure that answers for a
//! name speaks these words, so they live below all of them and import
//! nothing of the engine.
//!
//! Indexes combine by the lowest: the first pattern in CRI-O's loop wins.
//! [`NONE`] is the largest index, so it never wins a `min`; [`lower`] is the
//! same rule for `Option`s.

/// No pattern index. The lowest index wins everywhere, so indexes combine
/// with `min` and "none" is the largest value: it never wins.
pub(super) const NONE: u32 = u32::MAX;

/// The lower of two optional indexes.
#[inline(always)]
pub(super) fn lower(a: Option<u32>, b: Option<u32>) -> Option<u32> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// What a search of a name is asked: which index it wants, and in which
/// form the name is. Passed by value and matched where it is read: every
/// caller names both parts as constants, so each inlined search is built
/// for one query and tests nothing of it at run time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Query {
    pub(super) wanted: Wanted,
    pub(super) form: Form,
}

/// Which index a search wants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wanted {
    /// The lowest index that matches (`match_index`).
    Lowest,
    /// Any index that matches, the search stopping at the first
    /// (`is_match`: a yes or no).
    Any,
}

/// The form of the name a search reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Form {
    /// As the caller gave it: read as canonical while its bytes are ASCII,
    /// the search failing with [`NeedsCanonical`] where its answer would
    /// depend on a byte >= 0x80.
    AsGiven,
    /// Canonical already ([`crate::fold`]): every answer is final.
    Canonical,
}

impl Wanted {
    /// Whether a search may stop at `best`, given the lowest index of all
    /// it searches for (`floor`): nothing it could still find would lower
    /// the answer asked for.
    #[inline(always)]
    pub(super) fn done(self, best: u32, floor: u32) -> bool {
        best <= floor || (self == Wanted::Any && best != NONE)
    }
}

/// What a search of the needles found in a name.
#[derive(Debug, Clone, Copy)]
pub(super) struct Found {
    /// The lowest index found (with [`Wanted::Any`], any one), or none.
    pub(super) lowest: Option<u32>,
    /// Whether every byte of the name was read: a name read as given to
    /// its end is all ASCII, so its canonical form has its length.
    pub(super) read_all: bool,
}

/// A search of a name as given stopped: its answer depends on the name's
/// canonical form (a byte >= 0x80), which the caller builds and searches
/// instead.
#[derive(Debug)]
pub(super) struct NeedsCanonical;

/// The patterns behind one distinct needle.
#[derive(Debug, Clone, Copy)]
pub(super) struct Owner {
    /// Lowest index of a pattern matching the needle anywhere (a keyword,
    /// or a glob as CRI-O has it), or [`NONE`].
    pub(super) anywhere: u32,
    /// Lowest index of a pattern matching it only at the start (an anchored
    /// glob), or [`NONE`].
    pub(super) at_start: u32,
}
