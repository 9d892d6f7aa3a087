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
    const SWEEPS_BY_CHUNK: bool = true;

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
        zero_bytes(self.0 ^ other.0)
    }

    /// The bytes where all three pairs agree are those where their
    /// differences ORed together are zero: one test, not three and two
    /// `and`s (in the Go wasm2go makes of the module, the search's time
    /// went down by a third).
    #[inline(always)]
    unsafe fn all_equal(these: [Word; 3], those: &[Word; 3]) -> Word {
        let [a0, a1, a2] = these;
        let [b0, b1, b2] = those;
        zero_bytes((a0.0 ^ b0.0) | (a1.0 ^ b1.0) | (a2.0 ^ b2.0))
    }

    /// Some byte of the differences ORed together is zero iff one minus
    /// it borrows into its high bit where the byte's own is clear (a
    /// borrow reaches higher bytes only from below a zero byte, so only
    /// where it says which bytes, not whether any, the test errs).
    #[inline(always)]
    unsafe fn any_all_equal(these: [Word; 3], those: &[Word; 3]) -> bool {
        let [a0, a1, a2] = these;
        let [b0, b1, b2] = those;
        let diff = (a0.0 ^ b0.0) | (a1.0 ^ b1.0) | (a2.0 ^ b2.0);
        diff.wrapping_sub(0x0101_0101_0101_0101) & !diff & crate::fold::HIGH != 0
    }

    #[inline(always)]
    unsafe fn high_bits(self) -> u64 {
        self.0 & crate::fold::HIGH
    }
}

/// The high bit of each byte of `diff` that is zero, every other bit clear.
#[inline(always)]
fn zero_bytes(diff: u64) -> Word {
    // The high bit of a byte of `diff` with its high bit clear, plus
    // 0x7f, is set iff one of its other bits is: no carry leaves a byte.
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    Word(!(((diff & LOW) + LOW) | diff | LOW))
}
