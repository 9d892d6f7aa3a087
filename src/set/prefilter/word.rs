//! The 8-byte word as a [`Vector`]: the search of names too short for a
//! machine's vectors, and of every name where there is no SIMD of ours.

use super::vector::Vector;

/// Eight bytes in a `u64`: the search where there is no SIMD of ours, and
/// of names too short for a machine's vector.
#[derive(Clone, Copy)]
pub(super) struct Word(u64);

impl Vector for Word {
    const BYTES: usize = 8;
    const SHIFT: u32 = 3;

    #[inline(always)]
    unsafe fn load(at: *const u8) -> Word {
        // SAFETY: the trait's contract. (Little-endian: byte `i` is the
        // word's byte `i` on every machine, as `high_bits` counts them.)
        Word(u64::from_le_bytes(unsafe { at.cast::<[u8; 8]>().read_unaligned() }))
    }

    #[inline(always)]
    unsafe fn splat(byte: u8) -> Word {
        Word(u64::from(byte) * 0x0101_0101_0101_0101)
    }

    #[inline(always)]
    unsafe fn or(self, other: Word) -> Word {
        Word(self.0 | other.0)
    }

    #[inline(always)]
    unsafe fn and(self, other: Word) -> Word {
        Word(self.0 & other.0)
    }

    #[inline(always)]
    unsafe fn equal(self, other: Word) -> Word {
        // The high bit of a byte of `diff` with its high bit clear, plus
        // 0x7f, is set iff one of its other bits is: no carry leaves a byte.
        const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
        let diff = self.0 ^ other.0;
        Word(!(((diff & LOW) + LOW) | diff | LOW))
    }

    #[inline(always)]
    unsafe fn high_bits(self) -> u64 {
        self.0 & crate::fold::HIGH
    }
}
