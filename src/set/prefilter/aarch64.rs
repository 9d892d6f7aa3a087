//! arm64: NEON, part of every arm64 (the target enables it).
//!
//! NEON has no instruction that gathers a bit from each byte, as x86's
//! `movemask` does. A comparison's result (each byte 0 or 0xff) is
//! narrowed instead: shifting each 16-bit lane right by 4 and keeping its
//! low byte (`vshrn_n_u16`) leaves 4 bits of each byte, a 64-bit mask with
//! a nibble a byte ([`Vector::SHIFT`] 2), of which one bit is kept so that
//! a candidate is visited once. Whether any byte has its high bit set (the
//! ASCII test, and "any candidate") is one horizontal maximum
//! (`vmaxvq_u8`), which reads every bit of every byte.

use std::arch::aarch64::*;

use super::vector::Vector;
use super::{Pass, Prefilter};

/// Nothing to detect: NEON is part of arm64.
pub(super) use super::OneKind as Simd;

/// Reads a name with `pass`, in NEON vectors.
#[inline(always)]
pub(super) fn vectors<P: Pass>(_: Simd, prefilter: &Prefilter, name: &[u8], pass: P) -> P::Out {
    // SAFETY: NEON is enabled (the module's cfg).
    unsafe { super::in_chunks::<Neon, P, 2, 4, 8>(prefilter, name, pass) }
}

#[derive(Clone, Copy)]
struct Neon(uint8x16_t);

// SAFETY (all methods): NEON is enabled; `load`: the trait's contract
// (NEON loads need no alignment).
impl Vector for Neon {
    const BYTES: usize = 16;
    const SHIFT: u32 = 2;

    #[inline(always)]
    unsafe fn load(at: *const u8) -> Neon {
        Neon(vld1q_u8(at))
    }

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Neon {
        Neon(vdupq_n_u8(byte))
    }

    #[inline(always)]
    unsafe fn or(self, other: Neon) -> Neon {
        Neon(vorrq_u8(self.0, other.0))
    }

    #[inline(always)]
    unsafe fn and(self, other: Neon) -> Neon {
        Neon(vandq_u8(self.0, other.0))
    }

    #[inline(always)]
    unsafe fn equal(self, other: Neon) -> Neon {
        Neon(vceqq_u8(self.0, other.0))
    }

    #[inline(always)]
    unsafe fn high_bits(self) -> u64 {
        // Byte `i` of a comparison lands in bits 4i..4i+3: the high nibble
        // of an even byte and the low one of an odd byte, all ones or all
        // zeros either way. (arm64 Linux is little-endian: byte `j` of
        // the narrowed vector is bits 8j.. of the lane.)
        let nibbles = vshrn_n_u16::<4>(vreinterpretq_u16_u8(self.0));
        vget_lane_u64::<0>(vreinterpret_u64_u8(nibbles)) & 0x8888_8888_8888_8888
    }

    #[inline(always)]
    unsafe fn any_high(self) -> bool {
        vmaxvq_u8(self.0) >= 0x80
    }
}
