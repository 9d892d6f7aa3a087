//! Machines without a vector type of ours (ppc64le, s390x, and any build
//! with `--cfg crio_pin_portable`): names are read in 8-byte words, in the
//! fixed chunks of the other machines' 16-byte vectors, twice as many.

use super::word::Word;
use super::{Pass, Prefilter};

/// Nothing to detect: words need nothing of the machine.
pub(super) use super::OneKind as Simd;

/// Reads a name with `pass`, in words.
#[inline(always)]
pub(super) fn vectors<P: Pass>(_: Simd, prefilter: &Prefilter, name: &[u8], pass: P) -> P::Out {
    // SAFETY: 8-byte words need nothing of the machine.
    unsafe { super::in_chunks::<Word, P, 4, 8, 16>(prefilter, name, pass) }
}
