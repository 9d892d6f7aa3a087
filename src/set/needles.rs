//! The glob and keyword needles: gathered canonical, deduplicated to their
//! lowest indexes, and searched together in one pass.

use super::budget::{Budget, Tier};
use super::dfa::{self, Columns, Dfa};
use super::intake::{Needle, NeedleList};
use super::prefilter::{Allowance, Prefilter};
use super::search::{lower, Found, NeedsCanonical, Owner, Query, Wanted, NONE};
use super::sparse::Sparse;
use super::trie::{Extent, Layout, Trie};

/// All glob and keyword needles, searched together in one pass.
#[derive(Debug, Default)]
pub(super) struct Needles {
    /// The lowest index of a pattern whose needle is empty: it matches
    /// every name (`**`).
    pub(super) empty: Option<u32>,
    /// The automaton of all needles (overlapping, unanchored semantics:
    /// every state knows the lowest index of the needles ending there).
    pub(super) automaton: Option<Automaton>,
    /// For a few needles: a SIMD search of the name as it is, which answers
    /// without the automaton.
    pub(super) prefilter: Option<Prefilter>,
    /// The lowest index of all: a search can stop once it finds it.
    pub(super) floor: u32,
}

/// The automaton of a list's needles, in the tier its size picks
/// ([`Ordered::tier`]).
#[derive(Debug)]
// (One a set: the dense DFA, which every walk of the fast tier reads, stays
// inline rather than behind a pointer.)
#[allow(clippy::large_enum_variant)]
pub(super) enum Automaton {
    Dense(Dfa),
    Sparse(Sparse),
}

/// The distinct needles of a list, sorted, each with the patterns behind
/// it, and the lowest index of an empty one: what the automaton is built
/// from, and what its size is judged by.
pub(super) struct Ordered<'l> {
    pub(super) needles: Vec<&'l [u8]>,
    pub(super) owners: Vec<Owner>,
    pub(super) empty: Option<u32>,
}

impl<'l> Ordered<'l> {
    /// The needles of `list` (whose entries it takes), in order.
    pub(super) fn of(list: &'l mut NeedleList) -> Ordered<'l> {
        // Sorted, equal needles are neighbours, lowest index first.
        let mut entries = std::mem::take(&mut list.entries);
        let list = &*list;
        entries.sort_unstable_by(|a, b| list.order(a, b).then(a.index.cmp(&b.index)));
        let mut ordered = Ordered { needles: Vec::new(), owners: Vec::new(), empty: None };
        let mut previous: Option<&Needle> = None;
        for needle in &entries {
            let bytes = list.bytes(needle);
            if bytes.is_empty() {
                // Only keywords can be empty (a lone `*` is an error).
                ordered.empty = ordered.empty.or(Some(needle.index));
                continue;
            }
            // (The sort's own comparison, a word at a time: `!=` on the
            // slices is a `memcmp`, in the WebAssembly module a byte at a
            // time over the long prefixes that sorted neighbours share.)
            if previous.is_none_or(|p| list.order(p, needle).is_ne()) {
                previous = Some(needle);
                ordered.needles.push(bytes);
                ordered.owners.push(Owner { anywhere: NONE, at_start: NONE });
            }
            let owner = ordered.owners.last_mut().expect("pushed above");
            let slot = if needle.anchored { &mut owner.at_start } else { &mut owner.anywhere };
            *slot = (*slot).min(needle.index);
        }
        ordered
    }

    /// The tier the needles get within `budget`, the extent of their trie,
    /// and the dense table's columns if they get one.
    pub(super) fn tier(&self, budget: Budget) -> (Tier, Extent, Option<Columns>) {
        let extent = Extent::of(&self.needles);
        if self.needles.is_empty() {
            return (Tier::Exact, extent, None);
        }
        match Dfa::columns_within(extent.states, extent.classes.count, budget.dense_max, budget.wide_max) {
            Some(columns) => {
                let stride = if columns == Columns::PerByte { 256 } else { Dfa::class_stride(extent.classes.count) };
                (Tier::Dense { table_bytes: Dfa::table_bytes(extent.states, stride) }, extent, Some(columns))
            }
            None => (Tier::Sparse { states: extent.states }, extent, None),
        }
    }
}

impl Needles {
    /// The glob and keyword needles of `list`, in the tier `budget` gives
    /// them.
    pub(super) fn build(mut list: NeedleList, fold: bool, budget: Budget) -> Needles {
        let ordered = Ordered::of(&mut list);
        let Ordered { needles, owners, empty } = &ordered;
        let floor = owners.iter().map(|o| o.anywhere.min(o.at_start)).fold(empty.unwrap_or(NONE), u32::min);
        let (_, extent, columns) = ordered.tier(budget);
        let automaton = (!needles.is_empty()).then(|| {
            let trie = Trie::build(needles, owners, &extent, Layout::DEFAULT);
            match columns {
                Some(columns) => Automaton::Dense(Dfa::from_trie(&trie, fold, columns)),
                None => Automaton::Sparse(Sparse::from_trie(trie, fold)),
            }
        });
        let prefilter = if budget.prefilter { Prefilter::build(needles, owners, fold) } else { None };
        Needles { empty: *empty, automaton, prefilter, floor }
    }

    /// The tier of the needles' automaton.
    pub(super) fn tier(&self) -> Tier {
        match &self.automaton {
            None => Tier::Exact,
            Some(Automaton::Dense(dfa)) => Tier::Dense { table_bytes: dfa.table_bytes_held() },
            Some(Automaton::Sparse(sparse)) => Tier::Sparse { states: sparse.states() },
        }
    }

    /// Searches `name` for the needles: the lowest index among those found
    /// and `below` (or any one index found, as `query` wants), the name
    /// read in the form `query` says.
    #[inline(always)]
    pub(super) fn search(&self, name: &[u8], query: Query, below: Option<u32>) -> Result<Found, NeedsCanonical> {
        let best = lower(below, self.empty);
        // (Not `Wanted::done`: an index found is never NONE.)
        if best.is_some_and(|b| query.wanted == Wanted::Any || b <= self.floor) {
            return Ok(Found { lowest: best, read_all: false });
        }
        if let Some(prefilter) = &self.prefilter {
            let allowance = Allowance::for_name(name.len());
            if let Some(found) = prefilter.search(name, query, self.floor, best.unwrap_or(NONE), &allowance) {
                return found;
            }
            // (Its candidates would cost more to verify than the walk.)
        }
        let Some(automaton) = &self.automaton else { return Ok(Found { lowest: best, read_all: false }) };
        let mut best = best.unwrap_or(NONE);
        let read_all = match automaton {
            Automaton::Dense(dfa) => dfa.walk_split(name, query.form, |hit: &dfa::Hit, at: usize| {
                best = best.min(hit.index(at + 1));
                query.wanted.done(best, self.floor)
            })?,
            Automaton::Sparse(sparse) => sparse.walk(name, query.form, |index, _| {
                best = best.min(index);
                query.wanted.done(best, self.floor)
            })?,
        };
        Ok(Found { lowest: Some(best).filter(|&b| b != NONE), read_all })
    }

    pub(super) fn memory_usage(&self) -> usize {
        let automaton = match &self.automaton {
            None => 0,
            Some(Automaton::Dense(dfa)) => dfa.memory_usage(),
            Some(Automaton::Sparse(sparse)) => sparse.memory_usage(),
        };
        automaton + self.prefilter.as_ref().map_or(0, Prefilter::memory_usage)
    }
}
