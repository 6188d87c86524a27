//! The one-token-at-a-time loop compiled for AVX2: a block classified in
//! two 32-byte vectors, and each token's value converted in one 16-byte
//! vector. The whole loop is compiled for AVX2, so that the kernels
//! inline into it.

use super::{fill_any, low_bits, Blocks, Marks, ShortHeaps, Stopped, Syntax, BLOCK};
use crate::arch::dec_tokens::avx2::space_lanes;
use crate::arch::token_end::avx2::{binary_lanes, hex_lanes};
use std::arch::x86_64::*;

/// [`super::ShortKernel::fill`] with AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
pub(super) unsafe fn fill(
    syntax: Syntax,
    data: &[u8],
    from: usize,
    base: u64,
    heaps: &mut ShortHeaps,
) -> Stopped {
    fill_any(&Avx2, syntax, data, from, base, heaps)
}

/// The AVX2 build of the kernels: made only in [`fill`], whose caller
/// guarantees AVX2.
struct Avx2;

impl Blocks for Avx2 {
    #[inline(always)]
    fn marks(&self, syntax: Syntax, block: &[u8; BLOCK]) -> Option<Marks> {
        // SAFETY: an `Avx2` exists only inside `fill`, on a CPU with AVX2.
        unsafe { marks(syntax, block) }
    }

    #[inline(always)]
    fn hex_value(&self, bytes: &[u8; 16], len: usize) -> u64 {
        // SAFETY: as in `digit_mask`.
        unsafe { hex_value(bytes, len) }
    }
}

/// [`Blocks::marks`] with AVX2: each half's digit lanes, whitespace
/// lanes (and `1` lanes for `bits`), a movemask each.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn marks(syntax: Syntax, block: &[u8; BLOCK]) -> Option<Marks> {
    let ptr = block.as_ptr();
    // SAFETY: `block` holds 64 bytes, two unaligned loads of 32.
    let halves = unsafe {
        [
            _mm256_loadu_si256(ptr.cast()),
            _mm256_loadu_si256(ptr.add(32).cast()),
        ]
    };
    let (mut marks, mut valid) = (Marks::default(), u64::MAX);
    for (i, bytes) in halves.into_iter().enumerate() {
        // SAFETY: this function's caller guarantees AVX2.
        let (digit, space) = unsafe {
            let is = |byte: u8| _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(byte as i8));
            match syntax {
                Syntax::Bits => (binary_lanes(bytes), space_lanes(bytes)),
                Syntax::Hex => (hex_lanes(bytes), space_lanes(bytes)),
                Syntax::Unary => (is(b'1'), is(b'\n')),
            }
        };
        let lanes = |mask: __m256i| u64::from(_mm256_movemask_epi8(mask) as u32) << (32 * i);
        marks.digits |= lanes(digit);
        valid &= lanes(_mm256_or_si256(digit, space)) | !(u64::from(u32::MAX) << (32 * i));
        if syntax == Syntax::Bits {
            marks.ones |= lanes(_mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(b'1' as i8)));
        }
    }
    (valid == u64::MAX).then_some(marks)
}

/// [`Blocks::hex_value`] with AVX2's 16-byte instructions: each digit's
/// value (its low nibble, plus 9 for a letter), pairs merged by one
/// multiply-add (`16 · first + second`), packed to eight bytes, and
/// their order reversed (the first pair is the most significant).
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn hex_value(bytes: &[u8; 16], len: usize) -> u64 {
    // SAFETY: `bytes` holds 16 bytes; an unaligned load.
    let bytes = unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) };
    let letters = _mm_cmpgt_epi8(bytes, _mm_set1_epi8(0x40));
    let nine = _mm_and_si128(letters, _mm_set1_epi8(9));
    let values = _mm_and_si128(_mm_add_epi8(bytes, nine), _mm_set1_epi8(0x0f));
    let pairs = _mm_maddubs_epi16(values, _mm_set1_epi16(0x0110));
    let packed = _mm_packus_epi16(pairs, pairs);
    let value = (_mm_cvtsi128_si64(packed) as u64).swap_bytes();
    value & low_bits(4 * len)
}
