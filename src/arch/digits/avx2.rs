//! The AVX2 kernels: 32 binary digits per movemask, 16 hex digits per
//! 128-bit register. Only call them after detecting AVX2.

use super::{parse_binary, parse_hex, xor_digit_limbs};
use std::arch::x86_64::*;

/// 64 ASCII binary digits, most significant first, as a number.
///
/// Reversing the bytes of each 16-byte lane and shifting every digit's
/// low bit into its byte's sign bit, a movemask yields 16 digits per
/// lane in place, with the two lanes of a register swapped.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn binary_word(chunk: &[u8; 64]) -> u64 {
    let reverse = _mm256_setr_epi8(
        15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, //
        15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
    );
    // SAFETY: each load reads 32 of the chunk's 64 bytes; unaligned
    // loads have no alignment requirement.
    let (high, low) = unsafe {
        (
            _mm256_loadu_si256(chunk.as_ptr().cast()),
            _mm256_loadu_si256(chunk.as_ptr().add(32).cast()),
        )
    };
    let bits = |digits: __m256i| {
        let in_sign_bits = _mm256_slli_epi64(_mm256_shuffle_epi8(digits, reverse), 7);
        (_mm256_movemask_epi8(in_sign_bits) as u32).rotate_left(16)
    };
    (u64::from(bits(high)) << 32) | u64::from(bits(low))
}

/// 16 ASCII hex digits of either case, most significant first, as a
/// number.
///
/// Nibble values as in the portable kernel (a letter is above `'9'`);
/// one multiply-add merges each pair of digits into a byte in a 16-bit
/// lane, and one shuffle gathers those bytes in little-endian order.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn hex_word(chunk: &[u8; 16]) -> u64 {
    // SAFETY: the load reads the chunk's 16 bytes; unaligned loads have
    // no alignment requirement.
    let ascii = unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) };
    let letters = _mm_cmpgt_epi8(ascii, _mm_set1_epi8(b'9' as i8));
    let nibbles = _mm_add_epi8(
        _mm_and_si128(ascii, _mm_set1_epi8(0x0f)),
        _mm_and_si128(letters, _mm_set1_epi8(9)),
    );
    let pairs = _mm_maddubs_epi16(nibbles, _mm_set1_epi16(0x0110));
    let gather = _mm_setr_epi8(14, 12, 10, 8, 6, 4, 2, 0, -1, -1, -1, -1, -1, -1, -1, -1);
    _mm_cvtsi128_si64(_mm_shuffle_epi8(pairs, gather)) as u64
}

/// [`super::pack_binary_groups`] with AVX2: the digits of each half of
/// a group are checked in the register they are converted from.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn pack_binary_groups(bytes: &[u8], groups: &mut Vec<u64>) -> usize {
    let one = _mm256_set1_epi8(1);
    let ascii_one = _mm256_set1_epi8(b'1' as i8);
    let mut packed = 0;
    for chunk in bytes.chunks_exact(64) {
        // SAFETY: each load reads 32 of the chunk's 64 bytes; unaligned
        // loads have no alignment requirement.
        let (high, low) = unsafe {
            (
                _mm256_loadu_si256(chunk.as_ptr().cast()),
                _mm256_loadu_si256(chunk.as_ptr().add(32).cast()),
            )
        };
        let digits = _mm256_and_si256(
            _mm256_cmpeq_epi8(_mm256_or_si256(high, one), ascii_one),
            _mm256_cmpeq_epi8(_mm256_or_si256(low, one), ascii_one),
        );
        if _mm256_movemask_epi8(digits) != -1 {
            break;
        }
        let chunk: &[u8; 64] = chunk.try_into().expect("chunks of 64");
        // SAFETY: this function's caller guarantees AVX2.
        groups.push(unsafe { binary_word(chunk) });
        packed += 64;
    }
    packed
}

/// [`super::xor_binary`] with AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn xor_binary(digits: &[u8], first: u64, window: &mut [u64]) {
    xor_digit_limbs::<64>(
        digits,
        first,
        window,
        // SAFETY: this function's caller guarantees AVX2.
        |chunk| unsafe { binary_word(chunk) },
        parse_binary,
    );
}

/// [`super::xor_hex`] with AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn xor_hex(digits: &[u8], first: u64, window: &mut [u64]) {
    // Whole pairs of limbs from the end, 32 digits per register; the
    // limbs left (at most one whole one, and the short top) one by one.
    let skipped = first.saturating_mul(16);
    let end = digits.len() - skipped.min(digits.len() as u64) as usize;
    let pairs = (end / 32).min(window.len() / 2);
    let body = &digits[end - 32 * pairs..end];
    for (slots, chunk) in window.chunks_exact_mut(2).zip(body.rchunks_exact(32)) {
        let chunk: &[u8; 32] = chunk.try_into().expect("chunks of 32");
        // SAFETY: this function's caller guarantees AVX2.
        let (high, low) = unsafe { hex_pair(chunk) };
        slots[0] ^= low;
        slots[1] ^= high;
    }
    xor_digit_limbs::<16>(
        digits,
        first.saturating_add(2 * pairs as u64),
        &mut window[2 * pairs..],
        // SAFETY: this function's caller guarantees AVX2.
        |chunk| unsafe { hex_word(chunk) },
        parse_hex,
    );
}

/// 32 ASCII hex digits, most significant first, as two numbers: the
/// first 16 digits and the last 16. [`hex_word`] on both halves of a
/// 256-bit register at once.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn hex_pair(chunk: &[u8; 32]) -> (u64, u64) {
    // SAFETY: the load reads the chunk's 32 bytes; unaligned loads
    // have no alignment requirement.
    let ascii = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
    let letters = _mm256_cmpgt_epi8(ascii, _mm256_set1_epi8(b'9' as i8));
    let nibbles = _mm256_add_epi8(
        _mm256_and_si256(ascii, _mm256_set1_epi8(0x0f)),
        _mm256_and_si256(letters, _mm256_set1_epi8(9)),
    );
    let pairs = _mm256_maddubs_epi16(nibbles, _mm256_set1_epi16(0x0110));
    let gather = _mm256_setr_epi8(
        14, 12, 10, 8, 6, 4, 2, 0, -1, -1, -1, -1, -1, -1, -1, -1, //
        14, 12, 10, 8, 6, 4, 2, 0, -1, -1, -1, -1, -1, -1, -1, -1,
    );
    let words = _mm256_shuffle_epi8(pairs, gather);
    (
        _mm256_extract_epi64::<0>(words) as u64,
        _mm256_extract_epi64::<2>(words) as u64,
    )
}
