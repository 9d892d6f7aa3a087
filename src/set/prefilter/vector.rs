//! What the search needs of a vector of bytes.
//!
//! The search (`super`) is written once over [`Vector`]; each
//! architecture's module implements it for its vector registers (and `super::word` for the
//! 8-byte word every machine has) and says
//! which vectors read a name of each size ([`super::Size`]).

/// A vector of [`Vector::BYTES`] bytes, as the search uses one.
///
/// # Safety
///
/// Every method is an `unsafe fn` with one contract: the machine running
/// it has the instructions of the implementing type (SSE2 and NEON, part
/// of x86-64 and arm64, always; AVX2 where detected; simd128 where the
/// WebAssembly module was built with it), which its architecture's module
/// checks before it names the type; and [`Vector::load`] also needs `at`
/// to point at `BYTES` readable bytes. Each method is inlined into a
/// function compiled for those instructions, so that an intrinsic is one
/// instruction, not a call.
pub(super) trait Vector: Copy {
    const BYTES: usize;
    /// [`Vector::high_bits`] gives a bit per byte every `1 << SHIFT` bits.
    const SHIFT: u32;
    /// Whether a sweep reads a name chunk by chunk, each compared with
    /// every needle before the next is read, and only the chunks the name
    /// fills (`Prefilter::sweep_by_chunk`), rather than all its chunks
    /// first, the last ones again at the name's end, then each needle
    /// against them all (no branch on the length: the machines' vectors,
    /// whose chunks are unrolled into registers). Words: twice as many
    /// chunks, which WebAssembly without SIMD holds in its memory, not in
    /// registers, to store and load again for each needle; and 9 of 16
    /// read a corpus name of 76 bytes.
    const SWEEPS_BY_CHUNK: bool = false;
    /// The `BYTES` bytes at `at`, unaligned.
    unsafe fn load(at: *const u8) -> Self;
    unsafe fn splat(byte: u8) -> Self;
    unsafe fn or(self, other: Self) -> Self;
    unsafe fn and(self, other: Self) -> Self;
    /// Each byte all ones where they are equal (at least its high bit),
    /// else zero.
    unsafe fn equal(self, other: Self) -> Self;
    /// Each byte all ones (at least its high bit) where every vector of
    /// `these` equals its own of `those`, else zero: what a needle's three
    /// probes compare. The `and` of three `equal`s, which words do in one
    /// test (`super::word`).
    #[inline(always)]
    unsafe fn all_equal(these: [Self; 3], those: &[Self; 3]) -> Self {
        let [b0, b1, b2] = these;
        those[0].equal(b0).and(those[1].equal(b1)).and(those[2].equal(b2))
    }
    /// Whether any byte of [`Vector::all_equal`] is set: a needle's
    /// candidate in a chunk, which words tell in fewer steps than where.
    #[inline(always)]
    unsafe fn any_all_equal(these: [Self; 3], those: &[Self; 3]) -> bool {
        Self::all_equal(these, those).any_high()
    }
    /// A bit for each byte of a vector [`Vector::equal`] made (or `and`
    /// and `or` of such): byte `i`'s at bit `i << SHIFT` or above it, below
    /// `(i + 1) << SHIFT`, set if the byte is.
    unsafe fn high_bits(self) -> u64;
    /// Whether any byte of any vector has its high bit set (a byte >=
    /// 0x80): the ASCII test of a name's bytes ORed together.
    #[inline(always)]
    unsafe fn any_high(self) -> bool {
        self.high_bits() != 0
    }
}
