//! Which shape a set's automaton takes (the budget), and the largest it
//! may take. (The knob the tests turn to build every shape of one list is
//! `super::shape`, above the matcher it builds.)

/// Largest automaton the glob and keyword patterns of one set may need:
/// the bytes of their dense DFA's table (4 a state and byte class, a state
/// per distinct needle prefix: about 160 bytes per byte of needle text that
/// shares no prefix, for the corpus' 40 classes). Within it a name of `L`
/// bytes reads at most about `L` lines of the table, one dependent load a
/// byte, which bounds what matching it costs; past it no structure here
/// keeps that bound, so the list is refused
/// ([`crate::ErrorKind::AutomatonTooLarge`]): see docs/reliability.md, "The
/// bound". Exact patterns do not count (a name costs one probe of their
/// hash table whatever their number).
pub const MAX_AUTOMATON_BYTES: usize = 32 << 20;

/// The largest DFA table given a column per byte value (1 KiB a state),
/// which saves reading each byte's class: the corpus' 100 and 1,000
/// patterns (374 and 1,860 states) get one, 10,000 do not.
pub(super) const WIDE_MAX_BYTES: usize = 2 << 20;

/// What picks a set's shape: the largest dense table, the largest table
/// given a column per byte, and whether a prefilter may be built.
#[derive(Debug, Clone, Copy)]
pub(super) struct Budget {
    pub(super) dense_max: usize,
    pub(super) wide_max: usize,
    pub(super) prefilter: bool,
}

impl Budget {
    pub(super) const DEFAULT: Budget =
        Budget { dense_max: MAX_AUTOMATON_BYTES, wide_max: WIDE_MAX_BYTES, prefilter: true };
}
