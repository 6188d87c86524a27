//! The AVX-512 search: 64 bytes classified per step into a mask register
//! of the digits, whose lowest clear bit is the first non-digit; the step
//! past the end of the data is a masked load, whose missing bytes read as
//! zero, a non-digit in every class.

use super::Digits;
use crate::arch::prefetch::read_ahead;
use std::arch::x86_64::*;

/// Bytes per vector.
const LANES: usize = 64;

/// [`super::first_non_digit`] with AVX-512 F and BW.
///
/// # Safety
/// The CPU must support AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn first_non_digit(data: &[u8], pos: usize, digits: Digits) -> usize {
    // One loop per class, each with its own test inlined.
    match digits {
        Digits::Binary => first_flagged(data, pos, |bytes| {
            _mm512_cmpeq_epi8_mask(_mm512_or_si512(bytes, splat(1)), splat(b'1'))
        }),
        Digits::Decimal => first_flagged(data, pos, |bytes| decimal_mask(bytes)),
        Digits::Hex => first_flagged(data, pos, |bytes| {
            // A letter of either case is `a`-`f` once bit 5 is set.
            let letters = _mm512_sub_epi8(_mm512_or_si512(bytes, splat(0x20)), splat(b'a'));
            decimal_mask(bytes) | _mm512_cmple_epu8_mask(letters, splat(5))
        }),
    }
}

/// The lanes of `bytes` that hold `0`-`9`: the byte minus `'0'` is at
/// most 9, unsigned.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn decimal_mask(bytes: __m512i) -> u64 {
    _mm512_cmple_epu8_mask(_mm512_sub_epi8(bytes, splat(b'0')), splat(9))
}

/// `byte` in every lane.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn splat(byte: u8) -> __m512i {
    _mm512_set1_epi8(byte as i8)
}

/// The index of the first byte at or after `pos` that `is_digit` leaves
/// clear, or `data.len()`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn first_flagged(data: &[u8], mut pos: usize, is_digit: impl Fn(__m512i) -> u64) -> usize {
    while pos < data.len() {
        read_ahead(data, pos);
        let left = data.len() - pos;
        let bytes = if left >= LANES {
            // SAFETY: `pos + 64 <= data.len()`; unaligned loads have no
            // alignment requirement.
            unsafe { _mm512_loadu_si512(data.as_ptr().add(pos).cast()) }
        } else {
            // SAFETY: the mask selects the `left` bytes from `pos`, all in
            // `data`; masked-off bytes are not read (and read as zero).
            unsafe { _mm512_maskz_loadu_epi8((1u64 << left) - 1, data.as_ptr().add(pos).cast()) }
        };
        let non_digits = !is_digit(bytes);
        if non_digits != 0 {
            // Past the end of `data` (a zero lane), the search ends there.
            return (pos + non_digits.trailing_zeros() as usize).min(data.len());
        }
        pos += LANES;
    }
    data.len()
}
