//! [`pack_hex`](super::pack_hex) with AVX2: 32 bytes a step, each byte
//! classified as in the token search.

use super::MAX_GROUPS;
use crate::arch::token_end::avx2::hex_lanes;
use std::arch::x86_64::*;

/// [`super::pack_hex`] with AVX2: 32 bytes per step. Each byte is
/// classified as in the token search ([`hex_lanes`]), its value is its
/// low nibble plus a letter's 9 (from a table indexed by its high
/// nibble), one multiply-add merges pairs of digits, and a
/// shuffle and a permute order two groups for a 16-byte store. The
/// step past the end of `data` reads a zero-padded copy.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn pack_hex(
    data: &[u8],
    start: usize,
    groups: &mut [u64; MAX_GROUPS],
) -> Option<usize> {
    let letter_nine = _mm256_setr_epi8(
        0, 0, 0, 0, 9, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
        0, 0, 0, 0, 9, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    );
    let gather = _mm256_setr_epi8(
        14, 12, 10, 8, 6, 4, 2, 0, -1, -1, -1, -1, -1, -1, -1, -1, //
        14, 12, 10, 8, 6, 4, 2, 0, -1, -1, -1, -1, -1, -1, -1, -1,
    );
    let low_nibbles = _mm256_set1_epi8(0x0f);
    let pair_weights = _mm256_set1_epi16(0x0110);
    let mut pos = start;
    let mut padded = [0u8; 32];
    for slot in (0..=MAX_GROUPS - 2).rev().step_by(2) {
        let bytes = match data.get(pos..pos + 32) {
            // SAFETY: the slice has 32 bytes; unaligned loads have no
            // alignment requirement.
            Some(step) => unsafe { _mm256_loadu_si256(step.as_ptr().cast()) },
            None => {
                let rest = &data[pos..];
                padded[..rest.len()].copy_from_slice(rest);
                // SAFETY: `padded` has 32 bytes.
                unsafe { _mm256_loadu_si256(padded.as_ptr().cast()) }
            }
        };
        let high = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), low_nibbles);
        let low = _mm256_and_si256(bytes, low_nibbles);
        // SAFETY: this function's caller guarantees AVX2.
        let is_digit = unsafe { hex_lanes(bytes) };
        let values = _mm256_add_epi8(low, _mm256_shuffle_epi8(letter_nine, high));
        let nibbles = _mm256_and_si256(values, is_digit);
        let pairs = _mm256_maddubs_epi16(nibbles, pair_weights);
        // Lane 0's group to the high half of the low 128 bits, lane 1's
        // to the low half.
        let ordered = _mm256_permute4x64_epi64::<0b00_00_00_10>(_mm256_shuffle_epi8(pairs, gather));
        // SAFETY: slots `slot .. slot + 2` are in `groups`, which has
        // `MAX_GROUPS` (`slot <= MAX_GROUPS - 2`); unaligned stores have no
        // alignment requirement.
        unsafe {
            _mm_storeu_si128(
                groups.as_mut_ptr().add(slot).cast(),
                _mm256_castsi256_si128(ordered),
            );
        }
        let non_digits = !(_mm256_movemask_epi8(is_digit) as u32);
        if non_digits != 0 {
            return Some(pos + non_digits.trailing_zeros() as usize);
        }
        pos += 32;
    }
    super::past_the_last_group(data, pos)
}
