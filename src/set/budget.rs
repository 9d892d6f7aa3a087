//! Which tier answers for a set's globs and keywords (the budget), and
//! what each tier may cost a name. (The knob the tests turn to build every
//! shape of one list is `super::shape`, above the matcher it builds.)

/// Largest dense table ([`Tier::Dense`]) the glob and keyword patterns of
/// one set are given: 4 bytes a state and byte class, a state per distinct
/// needle prefix (about 160 bytes per byte of needle text that shares no
/// prefix, for the corpus' 40 classes). A list past it is answered by the
/// sparse automaton ([`Tier::Sparse`]), 16 bytes a state: never refused.
/// The limit is one of memory, not of time: within it a name of `L` bytes
/// reads about `L` entries whatever the table's size, and a larger table
/// only misses the cache more often (docs/reliability.md, "Tiers").
pub const DENSE_MAX_BYTES: usize = 128 << 20;

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
    pub(super) const DEFAULT: Budget = Budget { dense_max: DENSE_MAX_BYTES, wide_max: WIDE_MAX_BYTES, prefilter: true };
}

/// Which structure answers for a list's glob and keyword patterns, and so
/// what matching a name may cost ([`crate::PinSet::tier`],
/// [`crate::PinSet::validate`]). Exact patterns cost one probe of their
/// hash table whatever their number, in every tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Tier {
    /// No glob or keyword needle: the exact table alone (and `**`).
    Exact,
    /// The fast tier: a dense DFA of `table_bytes` (at most
    /// [`DENSE_MAX_BYTES`]), one table entry a byte of the name.
    Dense { table_bytes: usize },
    /// The second tier: a sparse automaton of `states` states (16 bytes
    /// each), for lists whose dense table would pass [`DENSE_MAX_BYTES`].
    Sparse { states: usize },
}

impl Tier {
    /// The most memory reads (table entries, nodes, rows: each within one
    /// cache line) matching a name may cost per byte of its canonical form,
    /// as the tier's module doc argues it and `tests/bound.rs` counts it:
    /// the dense tier reads an entry a byte and a hit where a needle ends;
    /// the sparse one visits at most 2 states a byte (3 with anchored
    /// globs), each at most its node and 9 of its children's.
    pub const fn reads_per_byte(self) -> usize {
        match self {
            Tier::Exact => 0,
            Tier::Dense { .. } => 2,
            Tier::Sparse { .. } => 30,
        }
    }

    /// A short name for messages: `exact`, `dense`, `sparse`.
    pub const fn name(self) -> &'static str {
        match self {
            Tier::Exact => "exact",
            Tier::Dense { .. } => "dense",
            Tier::Sparse { .. } => "sparse",
        }
    }
}
