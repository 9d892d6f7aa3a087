//! Machines without a vector type of ours (ppc64le, s390x, and any build
//! with `--cfg crio_pin_portable`): names are read in 8-byte words, in the
//! fixed chunks of the other machines' 16-byte vectors, twice as many.

use super::word::Word;
use super::{Pass, Prefilter};

/// Nothing to detect.
#[derive(Debug, Clone, Copy)]
pub(super) struct Simd;

impl Simd {
    pub(super) fn detect() -> Simd {
        Simd
    }

    /// The same (for the tests, which run the narrowest vectors beside
    /// the widest where a machine has two).
    #[cfg(test)]
    pub(super) const NARROWEST: Simd = Simd;

    /// Whether `Prefilter::holds_ascii` sweeps: always.
    #[inline(always)]
    pub(super) fn sweeps(self) -> bool {
        true
    }
}

/// Reads a name with `pass`, in words.
#[inline(always)]
pub(super) fn vectors<P: Pass>(_: Simd, prefilter: &Prefilter, name: &[u8], pass: P) -> P::Out {
    // SAFETY: 8-byte words need nothing of the machine.
    unsafe { super::in_chunks::<Word, P, 4, 8, 16>(prefilter, name, pass) }
}
