//! WebAssembly's 128-bit SIMD (the module of `make wasm`, built with
//! simd128, which its runtime compiles to the machine's own vector
//! instructions; a runtime without it refuses to load the module).

use std::arch::wasm32::*;

use super::vector::Vector;
use super::{Pass, Prefilter};

/// Nothing to detect: the module was built with simd128.
pub(super) use super::OneKind as Simd;

/// Reads a name with `pass`, in 16-byte vectors.
#[inline(always)]
pub(super) fn vectors<P: Pass>(_: Simd, prefilter: &Prefilter, name: &[u8], pass: P) -> P::Out {
    // SAFETY: the module is built with simd128 (tools/wasm.sh).
    unsafe { super::in_chunks::<Simd128, P, 2, 4, 8>(prefilter, name, pass) }
}

#[derive(Clone, Copy)]
struct Simd128(v128);

// SAFETY (all methods): simd128 is enabled; `load`: the trait's contract
// (wasm loads need no alignment).
impl Vector for Simd128 {
    const BYTES: usize = 16;
    const SHIFT: u32 = 0;

    #[inline(always)]
    unsafe fn load(at: *const u8) -> Simd128 {
        Simd128(v128_load(at.cast()))
    }

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Simd128 {
        Simd128(u8x16_splat(byte))
    }

    #[inline(always)]
    unsafe fn or(self, other: Simd128) -> Simd128 {
        Simd128(v128_or(self.0, other.0))
    }

    #[inline(always)]
    unsafe fn and(self, other: Simd128) -> Simd128 {
        Simd128(v128_and(self.0, other.0))
    }

    #[inline(always)]
    unsafe fn equal(self, other: Simd128) -> Simd128 {
        Simd128(u8x16_eq(self.0, other.0))
    }

    #[inline(always)]
    unsafe fn high_bits(self) -> u64 {
        u64::from(u8x16_bitmask(self.0))
    }
}
