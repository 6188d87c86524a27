//! The `dec` block kernels with SSE2, 16 bytes per instruction. SSE2 is
//! part of the x86_64 baseline, so these inline into the scanner's loop
//! with no runtime detection; SSSE3's byte multiply-add (`pmaddubsw`) is
//! not, so digit pairs are made with a 16-bit multiply instead.

use super::{from_halves, BLOCK, SHORT_DIGITS};
use std::arch::x86_64::*;

/// [`super::DecKernel::digit_mask`] with SSE2: per 16 bytes, one compare
/// for the digits, four for the whitespace, one movemask each.
///
/// # Safety
/// The CPU must support SSE2 (every x86_64 CPU does).
#[inline]
#[target_feature(enable = "sse2")]
pub(super) unsafe fn digit_mask(block: &[u8; BLOCK]) -> Option<u64> {
    let mut digits = 0u64;
    let mut valid = _mm_set1_epi8(-1);
    for (i, chunk) in block.chunks_exact(16).enumerate() {
        // SAFETY: the chunk holds 16 bytes; unaligned loads have no
        // alignment requirement.
        let bytes = unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) };
        let is_digit = digit_lanes(bytes);
        valid = _mm_and_si128(valid, _mm_or_si128(is_digit, space_lanes(bytes)));
        digits |= u64::from(_mm_movemask_epi8(is_digit) as u16) << (16 * i);
    }
    (_mm_movemask_epi8(valid) == 0xffff).then_some(digits)
}

/// All ones in each lane of `bytes` that holds `0`-`9`: adding `0x50`
/// moves `'0'..='9'` to the 10 lowest signed bytes, `-128..=-119`.
#[inline]
#[target_feature(enable = "sse2")]
fn digit_lanes(bytes: __m128i) -> __m128i {
    let moved = _mm_add_epi8(bytes, _mm_set1_epi8(0x50));
    _mm_cmplt_epi8(moved, _mm_set1_epi8(-118))
}

/// All ones in each lane of `bytes` that holds a space, tab, LF or CR.
#[inline]
#[target_feature(enable = "sse2")]
fn space_lanes(bytes: __m128i) -> __m128i {
    let is = |byte: u8| _mm_cmpeq_epi8(bytes, _mm_set1_epi8(byte as i8));
    _mm_or_si128(
        _mm_or_si128(is(b' '), is(b'\n')),
        _mm_or_si128(is(b'\t'), is(b'\r')),
    )
}

/// [`super::DecKernel::short_value`] with SSE2: the digits' values with
/// the lanes before them cleared, then pairs (a 16-bit multiply by
/// `10·256 + 1` leaves `10·a + b` in the high byte of each pair `a`, `b`),
/// quads (`pmaddwd` by 100 and 1), eights (packed to 16 bits, `pmaddwd`
/// by 10^4 and 1), and two halves of 16 digits.
///
/// # Safety
/// The CPU must support SSE2 (every x86_64 CPU does).
#[inline]
#[target_feature(enable = "sse2")]
pub(super) unsafe fn short_value(bytes: &[u8; SHORT_DIGITS], len: usize) -> u128 {
    let ptr = bytes.as_ptr();
    // SAFETY: `bytes` holds 32 bytes, two unaligned loads of 16.
    let (high, low) = unsafe {
        (
            _mm_loadu_si128(ptr.cast()),
            _mm_loadu_si128(ptr.add(16).cast()),
        )
    };
    // Lane `i` of the 32 is kept if `i >= 32 - len`, that is `i > 31 - len`.
    let last_ignored = _mm_set1_epi8(SHORT_DIGITS as i8 - 1 - len as i8);
    let first_lanes = _mm_setr_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let last_lanes = _mm_add_epi8(first_lanes, _mm_set1_epi8(16));
    let high = kept_digits(high, _mm_cmpgt_epi8(first_lanes, last_ignored));
    let low = kept_digits(low, _mm_cmpgt_epi8(last_lanes, last_ignored));
    let quads = _mm_packs_epi32(quads(high), quads(low));
    let eights = _mm_madd_epi16(quads, _mm_set1_epi32(10_000 + (1 << 16)));
    let sixteens = _mm_add_epi64(
        _mm_mul_epu32(eights, _mm_set1_epi32(100_000_000)),
        _mm_srli_epi64(eights, 32),
    );
    let high = _mm_cvtsi128_si64(sixteens) as u64;
    let low = _mm_cvtsi128_si64(_mm_unpackhi_epi64(sixteens, sixteens)) as u64;
    from_halves(high, low)
}

/// The values (0-9) of the digit lanes of `bytes` that `kept` marks, zero
/// in the others.
#[inline]
#[target_feature(enable = "sse2")]
fn kept_digits(bytes: __m128i, kept: __m128i) -> __m128i {
    _mm_and_si128(_mm_xor_si128(bytes, _mm_set1_epi8(b'0' as i8)), kept)
}

/// Four 32-bit lanes of four digits each from 16 digit values.
#[inline]
#[target_feature(enable = "sse2")]
fn quads(digits: __m128i) -> __m128i {
    let pairs = _mm_srli_epi16(_mm_mullo_epi16(digits, _mm_set1_epi16(10 * 256 + 1)), 8);
    _mm_madd_epi16(pairs, _mm_set1_epi32(100 + (1 << 16)))
}
