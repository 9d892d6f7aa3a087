//! x86-64: SSE2, part of every x86-64, and AVX2 where the machine has it
//! (detected once, when a set is built).

use std::arch::x86_64::*;

use super::vector::Vector;
use super::{Pass, Prefilter, Size};

/// Whether AVX2 is available.
#[derive(Debug, Clone, Copy)]
pub(super) struct Simd {
    avx2: bool,
}

impl Simd {
    pub(super) fn detect() -> Simd {
        Simd { avx2: std::arch::is_x86_feature_detected!("avx2") }
    }

    /// SSE2 alone, as a machine without AVX2 has (for the tests).
    #[cfg(test)]
    pub(super) const NARROWEST: Simd = Simd { avx2: false };

    /// Whether `Prefilter::holds_ascii` sweeps: with AVX2 only, for which
    /// its out-of-line verification (`Prefilter::held`) is compiled.
    #[inline(always)]
    pub(super) fn sweeps(self) -> bool {
        self.avx2
    }
}

/// Reads a name with `pass`: in AVX2 vectors where the machine
/// has them, else SSE2's.
#[inline(always)]
pub(super) fn vectors<P: Pass>(simd: Simd, prefilter: &Prefilter, name: &[u8], pass: P) -> P::Out {
    if simd.avx2 {
        // SAFETY: AVX2 is available (`Simd::detect`).
        unsafe { avx2(prefilter, name, pass) }
    } else {
        sse2(prefilter, name, pass)
    }
}

/// A name of up to 32 bytes of starts in 2 SSE2 vectors (one AVX2 vector
/// would not fit it), longer ones in AVX2 vectors. Safety: AVX2 is
/// available.
#[target_feature(enable = "avx2")]
unsafe fn avx2<P: Pass>(prefilter: &Prefilter, name: &[u8], pass: P) -> P::Out {
    // SAFETY (all): SSE2 and AVX2 are available; each size is within
    // the chunks it is read in (`Size`).
    unsafe {
        match prefilter.size(name.len()) {
            Size::Short => pass.short(prefilter, name),
            Size::Up32 => pass.fixed::<Sse2, 2>(prefilter, name),
            Size::Up64 => pass.fixed::<Avx2, 2>(prefilter, name),
            Size::Up128 => pass.fixed::<Avx2, 4>(prefilter, name),
            Size::Longer => pass.longer::<Avx2>(prefilter, name),
        }
    }
}

/// (Out of line: inlined, its stack frame cost every match of a set
/// without needles a tenth more.)
#[inline(never)]
fn sse2<P: Pass>(prefilter: &Prefilter, name: &[u8], pass: P) -> P::Out {
    // SAFETY: SSE2 is part of x86-64.
    unsafe { super::in_chunks::<Sse2, P, 2, 4, 8>(prefilter, name, pass) }
}

#[derive(Clone, Copy)]
struct Sse2(__m128i);

// SAFETY (all methods): SSE2 is part of x86-64; `load`: the trait's
// contract (an unaligned load).
impl Vector for Sse2 {
    const BYTES: usize = 16;
    const SHIFT: u32 = 0;

    #[inline(always)]
    unsafe fn load(at: *const u8) -> Sse2 {
        Sse2(_mm_loadu_si128(at.cast()))
    }

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Sse2 {
        Sse2(_mm_set1_epi8(byte as i8))
    }

    #[inline(always)]
    unsafe fn or(self, other: Sse2) -> Sse2 {
        Sse2(_mm_or_si128(self.0, other.0))
    }

    #[inline(always)]
    unsafe fn and(self, other: Sse2) -> Sse2 {
        Sse2(_mm_and_si128(self.0, other.0))
    }

    #[inline(always)]
    unsafe fn equal(self, other: Sse2) -> Sse2 {
        Sse2(_mm_cmpeq_epi8(self.0, other.0))
    }

    #[inline(always)]
    unsafe fn high_bits(self) -> u64 {
        u64::from(_mm_movemask_epi8(self.0) as u16)
    }
}

#[derive(Clone, Copy)]
struct Avx2(__m256i);

// SAFETY (all methods): the trait's contract, that AVX2 is available
// (only `avx2` names the type); `load`: an unaligned load.
impl Vector for Avx2 {
    const BYTES: usize = 32;
    const SHIFT: u32 = 0;

    #[inline(always)]
    unsafe fn load(at: *const u8) -> Avx2 {
        Avx2(_mm256_loadu_si256(at.cast()))
    }

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Avx2 {
        Avx2(_mm256_set1_epi8(byte as i8))
    }

    #[inline(always)]
    unsafe fn or(self, other: Avx2) -> Avx2 {
        Avx2(_mm256_or_si256(self.0, other.0))
    }

    #[inline(always)]
    unsafe fn and(self, other: Avx2) -> Avx2 {
        Avx2(_mm256_and_si256(self.0, other.0))
    }

    #[inline(always)]
    unsafe fn equal(self, other: Avx2) -> Avx2 {
        Avx2(_mm256_cmpeq_epi8(self.0, other.0))
    }

    #[inline(always)]
    unsafe fn high_bits(self) -> u64 {
        u64::from(_mm256_movemask_epi8(self.0) as u32)
    }
}
