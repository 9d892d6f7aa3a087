//! The knob the tests turn to build every shape of one list, and the
//! counts they read: beside [`PinSet`], at the top of the engine.

use super::budget::Budget;
use super::needles::Automaton;
use super::prefilter::Allowance;
use super::search::{Form, Query, Wanted, NONE};
use super::sparse::WalkCount;
use super::PinSet;
use crate::fold;
use crate::pattern::{CompileError, Flags};

/// The shapes a set's glob and keyword automaton can take. Which one a
/// list gets depends on its size; the tests force each in turn
/// ([`PinSet::compile_shaped`], feature `testing`, not a stable API) so
/// that every shape answers the whole test suite.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shape {
    pub automaton: AutomatonShape,
    /// The SIMD prefilter where the list allows one (up to 8 needles), or
    /// none.
    pub prefilter: bool,
}

/// What verifying a name's false prefilter candidates costs
/// ([`PinSet::verification`]), in needle bytes compared.
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AutomatonShape {
    /// The dense DFA with a column per byte value.
    WideTable,
    /// The dense DFA with byte classes.
    ClassTable,
    /// The sparse automaton (the second tier).
    Sparse,
}

impl Shape {
    /// Every shape, each with and without the prefilter.
    pub const ALL: [Shape; 6] = {
        const fn shape(automaton: AutomatonShape, prefilter: bool) -> Shape {
            Shape { automaton, prefilter }
        }
        use AutomatonShape::*;
        [
            shape(WideTable, true),
            shape(WideTable, false),
            shape(ClassTable, true),
            shape(ClassTable, false),
            shape(Sparse, true),
            shape(Sparse, false),
        ]
    };
}

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
            AutomatonShape::Sparse => (0, 0),
        };
        PinSet::compile_with(patterns, flags, Budget { dense_max, wide_max, prefilter: shape.prefilter })
    }

    /// The list compiled in each of [`Shape::ALL`], each beside its shape.
    /// Panics if a set is not of the shape asked for (every shape can
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
            let query = Query { wanted: Wanted::Lowest, form: Form::AsGiven };
            prefilter.search(name, query, self.needles.floor, NONE, allowance).map(|found| found.is_ok())
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

    /// One walk of `name` through the set's automaton, every byte, one
    /// lane, with no exit and nothing else asked: whether it met a special
    /// state (a needle's end, or bail); `None` without an automaton. What
    /// reading the list's own table costs a name, the yardstick of the
    /// speed table's larger lists (benches/peers.rs).
    pub fn automaton_pass(&self, name: &[u8]) -> Option<bool> {
        match self.needles.automaton.as_ref()? {
            Automaton::Dense(dfa) => Some(dfa.meets_special(name)),
            Automaton::Sparse(_) => None,
        }
    }

    /// What the sparse automaton's walk of `name` reads ([`WalkCount`]: the
    /// units of its bound), the name canonicalised first (a walk of the
    /// whole name: nothing found stops it); `None` in another tier. For
    /// the tests of the bound (tests/bound.rs).
    pub fn sparse_walk_count(&self, name: &[u8]) -> Option<WalkCount> {
        let Some(Automaton::Sparse(sparse)) = &self.needles.automaton else { return None };
        let mut count = WalkCount::default();
        fold::with_canonical(name, !self.flags.contains(crate::Flags::CASE_SENSITIVE), |canonical| {
            sparse.walk_metered(canonical, Form::Canonical, |_, _| false, &mut count)
        })
        .expect("a canonical name is walked whole");
        Some(count)
    }

    /// The shape of the set's automaton; `None` when it has none (no glob
    /// or keyword needle).
    pub fn shape(&self) -> Option<Shape> {
        let automaton = match self.needles.automaton.as_ref()? {
            Automaton::Dense(dfa) if dfa.is_wide() => AutomatonShape::WideTable,
            Automaton::Dense(_) => AutomatonShape::ClassTable,
            Automaton::Sparse(_) => AutomatonShape::Sparse,
        };
        Some(Shape { automaton, prefilter: self.needles.prefilter.is_some() })
    }
}
