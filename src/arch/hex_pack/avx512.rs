//! [`pack_hex`](super::pack_hex) with AVX-512 F, BW and VBMI: 64 bytes a
//! step, each byte's value looked up by a two-table byte permute.

use super::MAX_GROUPS;
use crate::arch::digits::hex_values;
use crate::arch::prefetch::read_ahead;
use std::arch::x86_64::*;

/// Each byte's hex value, or `0x80` for a byte that is not a hex
/// digit: a two-table byte permute looks up the first 128 entries.
const VALUES: [u8; 256] = hex_values(0x80);

/// Where each byte of four stored groups comes from in the pairs of
/// digits [`pack_hex`] merges: group `g` of the step (pairs
/// `8g .. 8g + 8`, in the low bytes of 16-bit lanes) goes to slot
/// `3 - g` of the store, its first pair in its top byte.
const GATHER: [u8; 64] = {
    let mut order = [0u8; 64];
    let mut q = 0;
    while q < 32 {
        let (g, b) = (3 - q / 8, q % 8);
        order[q] = (2 * (8 * g + 7 - b)) as u8;
        q += 1;
    }
    order
};

/// [`super::pack_hex`] with AVX-512: 64 bytes per step. One two-table
/// byte permute gives each byte's value or marks it as a non-digit
/// (bytes from `0x80` carry their own mark), one multiply-add merges
/// pairs of digits, and one byte permute orders four groups for a
/// 32-byte store. The step past the end of `data` is a masked load.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn pack_hex(
    data: &[u8],
    start: usize,
    groups: &mut [u64; MAX_GROUPS],
) -> Option<usize> {
    // SAFETY: each load reads 64 bytes of a table of 64 or more.
    let (low_values, high_values, gather) = unsafe {
        (
            _mm512_loadu_si512(VALUES.as_ptr().cast()),
            _mm512_loadu_si512(VALUES.as_ptr().add(64).cast()),
            _mm512_loadu_si512(GATHER.as_ptr().cast()),
        )
    };
    let pair_weights = _mm512_set1_epi16(0x0110);
    let low_nibbles = _mm512_set1_epi8(0x0f);
    let mut pos = start;
    // Steps of four groups, from the top slots down: a plain count, so
    // that the loop's control is two instructions.
    let mut slot = MAX_GROUPS;
    while slot > 0 {
        slot -= 4;
        read_ahead(data, pos);
        let left = data.len() - pos;
        let bytes = if left >= 64 {
            // SAFETY: `pos + 64 <= data.len()`; unaligned loads have no
            // alignment requirement.
            unsafe { _mm512_loadu_si512(data.as_ptr().add(pos).cast()) }
        } else {
            // SAFETY: the mask selects the `left` bytes from `pos`,
            // all in `data`; masked-off bytes are not read (and read
            // as zero, a non-digit).
            unsafe { _mm512_maskz_loadu_epi8((1u64 << left) - 1, data.as_ptr().add(pos).cast()) }
        };
        let values = _mm512_permutex2var_epi8(low_values, bytes, high_values);
        let non_digits = _mm512_movepi8_mask(_mm512_or_si512(values, bytes));
        let nibbles = _mm512_and_si512(values, low_nibbles);
        let pairs = _mm512_maddubs_epi16(nibbles, pair_weights);
        let ordered = _mm512_permutexvar_epi8(gather, pairs);
        // SAFETY: slots `slot .. slot + 4` are in `groups`, which has
        // `MAX_GROUPS` (a multiple of 4, `slot <= MAX_GROUPS - 4`);
        // unaligned stores have no alignment requirement.
        unsafe {
            _mm256_storeu_si256(
                groups.as_mut_ptr().add(slot).cast(),
                _mm512_castsi512_si256(ordered),
            );
        }
        if non_digits != 0 {
            return Some(pos + non_digits.trailing_zeros() as usize);
        }
        pos += 64;
    }
    super::past_the_last_group(data, pos)
}
