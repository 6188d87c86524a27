//! [`pack_hex`](super::pack_hex) with AVX2: 64 bytes a step, in two
//! halves of 32, each byte classified as in the token search.

use super::MAX_GROUPS;
use crate::arch::prefetch::read_ahead;
use crate::arch::token_end::avx2::hex_lanes;
use std::arch::x86_64::*;

/// [`super::pack_hex`] with AVX2: 64 bytes per step, as two halves of
/// 32 whose non-digits are tested together, so that the loop's control
/// (a plain count of steps and one exit test) is paid once per 64 bytes.
/// Against 32 bytes a step counted by a stepped range, tokens of 1-1,024
/// digits held in cache took 0.58 of the time (`cargo bench --bench
/// kernels -- pack_hex`: 8.7 GB/s before, 15.0 after). The last bytes of
/// `data` are read 32 at a time, the step past its end from a zero-padded
/// copy.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn pack_hex(
    data: &[u8],
    start: usize,
    groups: &mut [u64; MAX_GROUPS],
) -> Option<usize> {
    let mut pos = start;
    // Each half stores two groups below `slot`, from the top slots down.
    let mut slot = MAX_GROUPS;
    let whole_steps = (data.len() - start) / 64;
    for _ in 0..whole_steps.min(MAX_GROUPS / 4) {
        read_ahead(data, pos);
        // SAFETY: `pos + 64 <= data.len()` (a whole step); unaligned
        // loads have no alignment requirement.
        let (first, second) = unsafe {
            let at = data.as_ptr().add(pos);
            (
                _mm256_loadu_si256(at.cast()),
                _mm256_loadu_si256(at.add(32).cast()),
            )
        };
        // SAFETY: this function's caller guarantees AVX2; slots `slot -
        // 4 .. slot` are in `groups` (`slot >= 4` for each of the
        // `MAX_GROUPS / 4` steps at most).
        let non_digits = unsafe {
            let first = pack_half(first, groups, slot - 2);
            let second = pack_half(second, groups, slot - 4);
            u64::from(first) | u64::from(second) << 32
        };
        if non_digits != 0 {
            return Some(pos + non_digits.trailing_zeros() as usize);
        }
        pos += 64;
        slot -= 4;
    }
    let mut padded = [0u8; 32];
    while slot > 0 {
        let bytes = match data.get(pos..pos + 32) {
            // SAFETY: the slice has 32 bytes.
            Some(half) => unsafe { _mm256_loadu_si256(half.as_ptr().cast()) },
            None => {
                let rest = &data[pos..];
                padded[..rest.len()].copy_from_slice(rest);
                // SAFETY: `padded` has 32 bytes.
                unsafe { _mm256_loadu_si256(padded.as_ptr().cast()) }
            }
        };
        // SAFETY: this function's caller guarantees AVX2; `slot >= 2` (a
        // multiple of 2).
        let non_digits = unsafe { pack_half(bytes, groups, slot - 2) };
        if non_digits != 0 {
            return Some(pos + non_digits.trailing_zeros() as usize);
        }
        pos += 32;
        slot -= 2;
    }
    super::past_the_last_group(data, pos)
}

/// Packs the 32 digits of `bytes` into two groups stored at `groups[slot]`
/// (the second) and `groups[slot + 1]` (the first), and returns the mask
/// of its non-digits. Each byte is classified as in the token search
/// ([`hex_lanes`]), its value is its low nibble plus a letter's 9 (from a
/// table indexed by its high nibble), one multiply-add merges pairs of
/// digits, and a shuffle and a permute order the two groups.
///
/// # Safety
/// The CPU must support AVX2, and `slot + 2 <= MAX_GROUPS`.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn pack_half(bytes: __m256i, groups: &mut [u64; MAX_GROUPS], slot: usize) -> u32 {
    let letter_nine = _mm256_setr_epi8(
        0, 0, 0, 0, 9, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
        0, 0, 0, 0, 9, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    );
    let gather = _mm256_setr_epi8(
        14, 12, 10, 8, 6, 4, 2, 0, -1, -1, -1, -1, -1, -1, -1, -1, //
        14, 12, 10, 8, 6, 4, 2, 0, -1, -1, -1, -1, -1, -1, -1, -1,
    );
    let low_nibbles = _mm256_set1_epi8(0x0f);
    let high = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), low_nibbles);
    let low = _mm256_and_si256(bytes, low_nibbles);
    // SAFETY: this function's caller guarantees AVX2.
    let is_digit = unsafe { hex_lanes(bytes) };
    let values = _mm256_add_epi8(low, _mm256_shuffle_epi8(letter_nine, high));
    let nibbles = _mm256_and_si256(values, is_digit);
    let pairs = _mm256_maddubs_epi16(nibbles, _mm256_set1_epi16(0x0110));
    // Lane 0's group to the high half of the low 128 bits, lane 1's to
    // the low half.
    let ordered = _mm256_permute4x64_epi64::<0b00_00_00_10>(_mm256_shuffle_epi8(pairs, gather));
    // SAFETY: slots `slot .. slot + 2` are in `groups` (this function's
    // caller guarantees it); unaligned stores have no alignment
    // requirement.
    unsafe {
        _mm_storeu_si128(
            groups.as_mut_ptr().add(slot).cast(),
            _mm256_castsi256_si128(ordered),
        );
    }
    !(_mm256_movemask_epi8(is_digit) as u32)
}
