//! [`xor_hex`](super::xor_hex) with AVX-512 F, BW and VBMI: four limbs
//! (64 digits) a step from the string's end, XORed into the window with
//! one 256-bit load and store, and the short top step a masked load; and
//! [`xor_binary`](super::xor_binary): a limb (64 digits) a step, its
//! bytes reversed by one byte permute and their low bits tested into a
//! mask register.

use super::{hex_values, parse_binary, xor_digit_limbs};
use std::arch::x86_64::*;
use std::cell::Cell;

/// Each byte's hex value (the zeros of a masked load look up 0): a
/// two-table byte permute reads the first 128 entries.
const VALUES: [u8; 256] = hex_values(0);

/// Where each byte of four limbs comes from in the 32 pairs of digits
/// of a step (pair `p`, digits `2p` and `2p + 1`, in the low byte of
/// 16-bit lane `p`): byte `b` of limb `j` is pair `31 - 8j - b`, the last
/// pair of the step being the least significant.
const GATHER: [u8; 64] = {
    let mut order = [0u8; 64];
    let mut q = 0;
    while q < 32 {
        order[q] = (2 * (31 - q)) as u8;
        q += 1;
    }
    order
};

/// [`super::xor_hex`] with AVX-512.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn xor_hex(digits: &[u8], first: u64, window: &mut [u64]) {
    let skipped = first.saturating_mul(16);
    if skipped >= digits.len() as u64 {
        return;
    }
    let end = digits.len() - skipped as usize;
    // SAFETY: each load reads 64 bytes of a table of 64 or more.
    let tables = unsafe {
        [
            _mm512_loadu_si512(VALUES.as_ptr().cast()),
            _mm512_loadu_si512(VALUES.as_ptr().add(64).cast()),
            _mm512_loadu_si512(GATHER.as_ptr().cast()),
        ]
    };
    let steps = (end / 64).min(window.len() / 4);
    for step in 0..steps {
        // SAFETY: the step's 64 digits end `64 · step` bytes before
        // `end`, all in `digits`; unaligned loads have no alignment
        // requirement.
        let bytes = unsafe { _mm512_loadu_si512(digits.as_ptr().add(end - 64 * step - 64).cast()) };
        let limbs = four_limbs(bytes, tables);
        let slots = &mut window[4 * step..4 * step + 4];
        // SAFETY: `slots` holds four limbs, 32 bytes; unaligned loads and
        // stores have no alignment requirement.
        unsafe {
            let sum = _mm256_xor_si256(_mm256_loadu_si256(slots.as_ptr().cast()), limbs);
            _mm256_storeu_si256(slots.as_mut_ptr().cast(), sum);
        }
    }
    let (left, slots) = (end - 64 * steps, &mut window[4 * steps..]);
    if left == 0 || slots.is_empty() {
        return;
    }
    // The top: the digits left (all 64 bytes when the window ends first).
    let (from, mask) = match left.checked_sub(64) {
        Some(from) => (from, u64::MAX),
        None => (0, u64::MAX >> (64 - left)),
    };
    // SAFETY: the mask selects `left.min(64)` bytes from `from`, all in
    // `digits`; masked-off bytes are not read (and read as zero, which
    // looks up 0).
    let bytes = unsafe { _mm512_maskz_loadu_epi8(mask, digits.as_ptr().add(from).cast()) };
    let bytes = match left < 64 {
        // Move the digits to the top of the step, zeros below them.
        true => shift_up(bytes, 64 - left),
        false => bytes,
    };
    let mut limbs = [0u64; 4];
    // SAFETY: `limbs` holds 32 bytes; an unaligned store.
    unsafe { _mm256_storeu_si256(limbs.as_mut_ptr().cast(), four_limbs(bytes, tables)) };
    for (slot, limb) in slots.iter_mut().zip(limbs) {
        *slot ^= limb;
    }
}

/// The 64 hex digits of `bytes` (most significant first) as four
/// little-endian limbs: each byte's value looked up by a two-table byte
/// permute, pairs merged by one multiply-add, and one byte permute to
/// order them.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn four_limbs(bytes: __m512i, [low_values, high_values, gather]: [__m512i; 3]) -> __m256i {
    // The digits were validated: no byte from 0x80 (which would look up
    // the entry of its low seven bits).
    let values = _mm512_permutex2var_epi8(low_values, bytes, high_values);
    let pairs = _mm512_maddubs_epi16(values, _mm512_set1_epi16(0x0110));
    _mm512_castsi512_si256(_mm512_permutexvar_epi8(gather, pairs))
}

/// `bytes` moved `by` lanes up (`by < 64`), zeros in the lanes below.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn shift_up(bytes: __m512i, by: usize) -> __m512i {
    // Lane `i` takes lane `i - by`; the lanes below `by` are zeroed.
    let index = _mm512_sub_epi8(lane_indices(), _mm512_set1_epi8(by as i8));
    _mm512_maskz_permutexvar_epi8(u64::MAX << by, index, bytes)
}

/// [`super::xor_binary`] with AVX-512.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn xor_binary(digits: &[u8], first: u64, window: &mut [u64]) {
    let reverse = reversed_lanes();
    let limb = |chunk: &[u8; 64]| binary_limb(load(chunk), reverse);
    xor_digit_limbs::<64>(digits, first, window, limb, parse_binary);
}

/// [`super::xor_binary_checked`] with AVX-512: each limb's 64 bytes are
/// checked in the register they are converted from (`byte | 1` is `'1'`
/// for both digits only), the checks gathered in a mask and tested once.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn xor_binary_checked(digits: &[u8], window: &mut [u64]) -> bool {
    let reverse = reversed_lanes();
    let valid = Cell::new(u64::MAX);
    let limb = |chunk: &[u8; 64]| {
        let bytes = load(chunk);
        let digit_lanes = _mm512_or_si512(bytes, _mm512_set1_epi8(1));
        let ascii_one = _mm512_set1_epi8(b'1' as i8);
        valid.set(valid.get() & _mm512_cmpeq_epi8_mask(digit_lanes, ascii_one));
        binary_limb(bytes, reverse)
    };
    xor_digit_limbs::<64>(digits, 0, window, limb, parse_binary);
    // Past 64 digits the short top limb is read from the first 64 bytes,
    // checked above; a shorter string is converted without the vector.
    let short_valid = digits.len() >= 64 || digits.iter().all(|&b| b | 1 == b'1');
    valid.get() == u64::MAX && short_valid
}

/// 64 bytes of a limb's digits in a register.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn load(chunk: &[u8; 64]) -> __m512i {
    // SAFETY: the chunk holds 64 bytes; unaligned loads have no alignment
    // requirement.
    unsafe { _mm512_loadu_si512(chunk.as_ptr().cast()) }
}

/// The value of 64 binary digits, most significant first: the last digit
/// moved to lane 0 by `reverse` ([`reversed_lanes`]), each digit's low
/// bit (its value) tested into a mask register.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn binary_limb(bytes: __m512i, reverse: __m512i) -> u64 {
    let reversed = _mm512_permutexvar_epi8(reverse, bytes);
    _mm512_test_epi8_mask(reversed, _mm512_set1_epi8(1))
}

/// 63, 62, …, 0 in the 64 byte lanes: a byte permute's index that
/// reverses a register.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn reversed_lanes() -> __m512i {
    _mm512_sub_epi8(_mm512_set1_epi8(63), lane_indices())
}

/// 0, 1, …, 63 in the 64 byte lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn lane_indices() -> __m512i {
    const INDICES: [u8; 64] = {
        let mut lanes = [0u8; 64];
        let mut i = 0;
        while i < 64 {
            lanes[i] = i as u8;
            i += 1;
        }
        lanes
    };
    // SAFETY: the load reads the table's 64 bytes.
    unsafe { _mm512_loadu_si512(INDICES.as_ptr().cast()) }
}
