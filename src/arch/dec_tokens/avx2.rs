//! The `dec` block kernels with AVX2, 32 bytes per instruction:
//! whitespace found with one byte shuffle, digit pairs with one byte
//! multiply-add. They inline only into code compiled for AVX2: the
//! scanner's block loop, which parses a block of heaps into a buffer, is
//! compiled for AVX2 as a whole (`input/dec/`).

use super::{from_halves, BLOCK, SHORT_DIGITS};
use std::arch::x86_64::*;

/// [`super::DecKernel::digit_mask`] with AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn digit_mask(block: &[u8; BLOCK]) -> Option<u64> {
    let ptr = block.as_ptr();
    // SAFETY: `block` holds 64 bytes, two unaligned loads of 32.
    let (first, second) = unsafe {
        (
            _mm256_loadu_si256(ptr.cast()),
            _mm256_loadu_si256(ptr.add(32).cast()),
        )
    };
    let (first_digits, second_digits) = (digit_lanes(first), digit_lanes(second));
    let valid = _mm256_and_si256(
        _mm256_or_si256(first_digits, space_lanes(first)),
        _mm256_or_si256(second_digits, space_lanes(second)),
    );
    let digits = u64::from(_mm256_movemask_epi8(first_digits) as u32)
        | u64::from(_mm256_movemask_epi8(second_digits) as u32) << 32;
    (_mm256_movemask_epi8(valid) == -1).then_some(digits)
}

/// All ones in each lane of `bytes` that holds `0`-`9` (as in `sse2.rs`).
#[inline]
#[target_feature(enable = "avx2")]
fn digit_lanes(bytes: __m256i) -> __m256i {
    let moved = _mm256_add_epi8(bytes, _mm256_set1_epi8(0x50));
    _mm256_cmpgt_epi8(_mm256_set1_epi8(-118), moved)
}

/// All ones in each lane of `bytes` that holds a space, tab, LF or CR: the
/// byte equals the entry of a table indexed by its low nibble (`' '` at 0,
/// each of the others at its own value, 0 elsewhere, which no byte with
/// that nibble equals; bytes from `0x80` look up 0).
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::arch) fn space_lanes(bytes: __m256i) -> __m256i {
    let table = _mm256_setr_epi8(
        0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0x09, 0x0a, 0, 0, 0x0d, 0, 0, //
        0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0x09, 0x0a, 0, 0, 0x0d, 0, 0,
    );
    _mm256_cmpeq_epi8(_mm256_shuffle_epi8(table, bytes), bytes)
}

/// [`super::DecKernel::short_value`] with AVX2: the digits' values with
/// the lanes before them cleared, then pairs (`pmaddubsw` by 10 and 1),
/// quads (`pmaddwd` by 100 and 1), eights (packed to 16 bits, `pmaddwd`
/// by 10^4 and 1), one half of 16 digits in each 128-bit lane.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn short_value(bytes: &[u8; SHORT_DIGITS], len: usize) -> u128 {
    // SAFETY: `bytes` holds 32 bytes; an unaligned load.
    let bytes = unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) };
    // Lane `i` is kept if `i >= 32 - len`, that is `i > 31 - len`.
    let lanes = _mm256_setr_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, //
        16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
    );
    let kept = _mm256_cmpgt_epi8(lanes, _mm256_set1_epi8(SHORT_DIGITS as i8 - 1 - len as i8));
    let digits = _mm256_and_si256(_mm256_xor_si256(bytes, _mm256_set1_epi8(b'0' as i8)), kept);
    let pairs = _mm256_maddubs_epi16(digits, _mm256_set1_epi16(10 + (1 << 8)));
    let quads = _mm256_madd_epi16(pairs, _mm256_set1_epi32(100 + (1 << 16)));
    let quads = _mm256_packus_epi32(quads, quads);
    let eights = _mm256_madd_epi16(quads, _mm256_set1_epi32(10_000 + (1 << 16)));
    let sixteens = _mm256_add_epi64(
        _mm256_mul_epu32(eights, _mm256_set1_epi32(100_000_000)),
        _mm256_srli_epi64(eights, 32),
    );
    let high = _mm_cvtsi128_si64(_mm256_castsi256_si128(sixteens)) as u64;
    let low = _mm_cvtsi128_si64(_mm256_extracti128_si256(sixteens, 1)) as u64;
    from_halves(high, low)
}
