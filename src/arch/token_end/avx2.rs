//! The exact AVX2 search: 32 bytes classified per step, and a movemask of
//! the non-digits whose lowest set bit is the index of the first one, so
//! the bytes that end a token are never searched twice. The first step
//! already gives the exact end of a short token, so unlike the portable
//! search it has no short word-at-a-time stage.
//!
//! Written with `std::arch` intrinsics by hand: the compiler does not
//! vectorise a loop that exits early (hence the whole blocks of the
//! portable search), and no crate classifies bytes against a set of
//! ranges (`memchr` finds up to three given bytes).

use super::{first_non_digit_portable, Digits};
use crate::arch::prefetch::read_ahead;
use std::arch::x86_64::*;

/// Bytes per vector.
const LANES: usize = 32;

/// [`super::first_non_digit`] with AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn first_non_digit(data: &[u8], pos: usize, digits: Digits) -> usize {
    // One loop per class, each with its own test inlined.
    match digits {
        Digits::Binary => first_flagged(data, pos, digits, |bytes| {
            // SAFETY: this function's caller guarantees AVX2.
            unsafe { binary_lanes(bytes) }
        }),
        Digits::Decimal => first_flagged(data, pos, digits, |bytes| {
            // SAFETY: this function's caller guarantees AVX2.
            unsafe { decimal_lanes(bytes) }
        }),
        Digits::Hex => first_flagged(data, pos, digits, |bytes| {
            // SAFETY: this function's caller guarantees AVX2.
            unsafe { hex_lanes(bytes) }
        }),
    }
}

/// All ones in each lane of `bytes` that holds `0` or `1`: the byte
/// with its lowest bit set is `'1'`.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::arch) unsafe fn binary_lanes(bytes: __m256i) -> __m256i {
    _mm256_cmpeq_epi8(_mm256_or_si256(bytes, splat(1)), splat(b'1'))
}

/// All ones in each lane of `bytes` that holds `0`-`9`: the byte minus
/// `'0'` is at most 9, unsigned.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::arch) unsafe fn decimal_lanes(bytes: __m256i) -> __m256i {
    at_most(_mm256_sub_epi8(bytes, splat(b'0')), 9)
}

/// All ones in each lane of `bytes` that holds `0`-`9`, `a`-`f` or
/// `A`-`F`, from two 16-entry tables indexed by the byte's nibbles: bit
/// 0 marks high nibble 3 and low nibbles 0-9 (the decimal digits), bit
/// 1 high nibbles 4 and 6 and low nibbles 1-6 (the letters); a byte is
/// a digit when its two entries share a bit. High nibbles from 8 up
/// (bytes from `0x80`) have no bits. The AVX2 hex packer classifies its
/// bytes with it too.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
pub(in crate::arch) unsafe fn hex_lanes(bytes: __m256i) -> __m256i {
    let by_high = _mm256_setr_epi8(
        0, 0, 0, 1, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
        0, 0, 0, 1, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    );
    let by_low = _mm256_setr_epi8(
        1, 3, 3, 3, 3, 3, 3, 1, 1, 1, 0, 0, 0, 0, 0, 0, //
        1, 3, 3, 3, 3, 3, 3, 1, 1, 1, 0, 0, 0, 0, 0, 0,
    );
    let high = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), splat(0x0f));
    let low = _mm256_and_si256(bytes, splat(0x0f));
    let shared = _mm256_and_si256(
        _mm256_shuffle_epi8(by_high, high),
        _mm256_shuffle_epi8(by_low, low),
    );
    let none = _mm256_cmpeq_epi8(shared, _mm256_setzero_si256());
    _mm256_xor_si256(none, splat(0xff))
}

/// `byte` in every lane.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn splat(byte: u8) -> __m256i {
    _mm256_set1_epi8(byte as i8)
}

/// All ones in each lane of `bytes` that is at most `limit`, unsigned.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn at_most(bytes: __m256i, limit: u8) -> __m256i {
    _mm256_cmpeq_epi8(_mm256_min_epu8(bytes, splat(limit)), bytes)
}

/// The index of the first byte at or after `pos` whose lane `is_digit`
/// leaves zero, or `data.len()`. Whole vectors are loaded from `pos`;
/// the rest is covered by the last 32 bytes of `data`, with the lanes
/// before `pos` shifted out. A `data` shorter than a vector goes to the
/// portable search.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn first_flagged(
    data: &[u8],
    mut pos: usize,
    digits: Digits,
    is_digit: impl Fn(__m256i) -> __m256i,
) -> usize {
    let Some(last) = data.len().checked_sub(LANES) else {
        return first_non_digit_portable(data, pos, digits);
    };
    let non_digits_at = |at: usize| {
        debug_assert!(at <= last);
        // SAFETY: `at + LANES <= data.len()`, so the load reads bytes of
        // `data` only; unaligned loads have no alignment requirement.
        let bytes = unsafe { _mm256_loadu_si256(data.as_ptr().add(at).cast()) };
        !(_mm256_movemask_epi8(is_digit(bytes)) as u32)
    };
    while pos <= last {
        read_ahead(data, pos);
        let flags = non_digits_at(pos);
        if flags != 0 {
            return pos + flags.trailing_zeros() as usize;
        }
        pos += LANES;
    }
    let flags = non_digits_at(last).checked_shr((pos - last) as u32);
    match flags {
        Some(flags) if flags != 0 => pos + flags.trailing_zeros() as usize,
        _ => data.len(),
    }
}
