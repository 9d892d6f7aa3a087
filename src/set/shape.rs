//! Which shape a set's automaton takes (the budget), and the knob the
//! tests turn to build every shape of one list.

#[cfg(feature = "testing")]
use super::{prefilter::Allowance, PinSet, NONE};
#[cfg(feature = "testing")]
use crate::pattern::{CompileError, Flags};

/// The largest DFA table built, in bytes (4 bytes per byte class per trie
/// node: about 160 bytes per byte of needle text that shares no prefix,
/// for the corpus' 40 classes): [`super::MAX_AUTOMATON_BYTES`], past which
/// a list is refused.
pub(super) const DENSE_MAX_BYTES: usize = 32 << 20;

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

/// The shapes a set's glob and keyword automaton can take. Which one a
/// list gets depends on its size; the tests force each in turn
/// ([`PinSet::compile_shaped`], feature `testing`, not a stable API) so
/// that every shape answers the whole test suite.
#[cfg(feature = "testing")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub automaton: AutomatonShape,
    /// The SIMD prefilter where the list allows one (up to 8 needles), or
    /// none.
    pub prefilter: bool,
}

/// What verifying a name's false prefilter candidates costs
/// ([`PinSet::verification`]), in needle bytes compared.
#[cfg(feature = "testing")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verification {
    /// With no allowance: what the search would cost unbounded.
    pub unbounded: usize,
    /// What a search of this name may charge.
    pub allowance: usize,
    /// What it charged.
    pub charged: usize,
    /// Whether it gave the name up to the automaton (a charge refused).
    pub gave_up: bool,
}

/// See [`Shape`].
#[cfg(feature = "testing")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutomatonShape {
    /// The dense DFA with a column per byte value.
    WideTable,
    /// The dense DFA with byte classes.
    ClassTable,
}

#[cfg(feature = "testing")]
impl Shape {
    /// Every shape, each with and without the prefilter.
    pub const ALL: [Shape; 4] = {
        const fn shape(automaton: AutomatonShape, prefilter: bool) -> Shape {
            Shape { automaton, prefilter }
        }
        use AutomatonShape::*;
        [shape(WideTable, true), shape(WideTable, false), shape(ClassTable, true), shape(ClassTable, false)]
    };
}

#[cfg(feature = "testing")]
impl PinSet {
    /// As [`PinSet::compile`], in `shape` whatever the list's size (a
    /// dense table still needs the needles to use at most 253 distinct
    /// bytes: [`PinSet::shape`] says what was built).
    pub fn compile_shaped<I>(patterns: I, flags: Flags, shape: Shape) -> Result<PinSet, CompileError>
    where
        I: IntoIterator,
        I::Item: AsRef<[u8]>,
    {
        let (dense_max, wide_max) = match shape.automaton {
            AutomatonShape::WideTable => (usize::MAX, usize::MAX),
            AutomatonShape::ClassTable => (usize::MAX, 0),
        };
        PinSet::compile_with(patterns, flags, Budget { dense_max, wide_max, prefilter: shape.prefilter })
    }

    /// The list compiled in each of [`Shape::ALL`], each beside its shape.
    /// Panics if a set is not of the shape asked for (the dense shapes can
    /// always be built: canonical needles use fewer byte values than a
    /// table has classes).
    pub fn compile_every_shape<I>(patterns: I, flags: Flags) -> Result<Vec<(Shape, PinSet)>, CompileError>
    where
        I: IntoIterator + Clone,
        I::Item: AsRef<[u8]>,
    {
        Shape::ALL
            .iter()
            .map(|&shape| {
                let set = PinSet::compile_shaped(patterns.clone(), flags, shape)?;
                if let Some(got) = set.shape() {
                    assert_eq!(got.automaton, shape.automaton, "forced {shape:?}");
                    assert!(shape.prefilter || !got.prefilter, "forced {shape:?}");
                }
                Ok((shape, set))
            })
            .collect()
    }

    /// What the prefilter's check of `name`'s candidates costs in needle
    /// bytes compared ([`Verification`]), with no allowance and with the one
    /// a search has; `None` without a prefilter. A count, for the tests of
    /// the bound (tests/bound.rs): the search is the one `match_index` runs.
    pub fn verification(&self, name: &[u8]) -> Option<Verification> {
        let prefilter = self.needles.prefilter.as_ref()?;
        let search = |allowance: &Allowance| {
            prefilter.search(name, true, (false, self.needles.floor, NONE), allowance).map(|found| found.is_ok())
        };
        let charged = |allowance: Allowance| {
            let before = allowance.left();
            let answered = search(&allowance).is_some();
            (before - allowance.left(), answered)
        };
        let (unbounded, _) = charged(Allowance::of(usize::MAX));
        let (charged, answered) = charged(Allowance::for_name(name.len()));
        Some(Verification { unbounded, allowance: Allowance::for_name(name.len()).left(), charged, gave_up: !answered })
    }

    /// The shape of the set's automaton; `None` when it has none (no glob
    /// or keyword needle).
    pub fn shape(&self) -> Option<Shape> {
        let automaton = match self.needles.automaton.as_ref()? {
            dfa if dfa.is_wide() => AutomatonShape::WideTable,
            _ => AutomatonShape::ClassTable,
        };
        Some(Shape { automaton, prefilter: self.needles.prefilter.is_some() })
    }
}
