//! The limb kernels: any 64-bit limb of a heap, straight from its digits.
//!
//! Digit strings are most significant first, so limb `i` of a string is the
//! block of digits that ends `i` blocks before its end; only the top limb
//! can be short. Whole limbs are converted with wide operations: portable
//! SWAR on 64-bit words (eight binary digits per multiplication, eight hex
//! digits per handful of shifts), AVX2 (`avx2.rs`), or AVX-512 with VBMI
//! (`avx512.rs`: for hex four limbs a step, XORed into the window as one
//! vector; for binary a limb a step, one byte permute and one bit test),
//! where [`cpu`](super::cpu) allows it. The digits were
//! validated by the scanner, so the kernels assume `0`/`1` for binary and
//! `0-9a-fA-F` for hex. Little-endian bytes are loaded as words.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(test)]
mod tests;

use super::token_end::{first_non_digit, Digits};

/// Value of an ASCII hex digit (the input was validated; other bytes give 0).
pub fn hex_digit_value(digit: u8) -> u8 {
    HEX_VALUES[usize::from(digit)]
}

const HEX_VALUES: [u8; 256] = hex_values(0);

/// Each byte's hex value, and `other` for a byte that is not a hex digit.
pub(super) const fn hex_values(other: u8) -> [u8; 256] {
    let mut table = [other; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
}

/// Packs eight ASCII `0`/`1` digits (first digit most significant) into a byte.
///
/// Each digit's low bit is its value; the multiplication moves the low bit
/// of byte k to bit 63 − k of the product without carries (all partial
/// products land on distinct bit positions).
#[inline]
pub fn pack8(chunk: [u8; 8]) -> u8 {
    let low_bits = u64::from_le_bytes(chunk) & 0x0101_0101_0101_0101;
    (low_bits.wrapping_mul(0x8040_2010_0804_0201) >> 56) as u8
}

/// Up to 64 ASCII binary digits, most significant first, as a number.
#[inline]
pub fn parse_binary(digits: &[u8]) -> u64 {
    debug_assert!(digits.len() <= 64);
    let mut chunks = digits.chunks_exact(8);
    let mut value = 0u64;
    for chunk in &mut chunks {
        let chunk: [u8; 8] = chunk.try_into().expect("chunks of eight");
        value = (value << 8) | u64::from(pack8(chunk));
    }
    for &digit in chunks.remainder() {
        value = (value << 1) | u64::from(digit & 1);
    }
    value
}

/// Exactly 64 ASCII binary digits, most significant first, as a number
/// (eight [`pack8`] multiplications).
#[inline]
fn binary_word(chunk: &[u8; 64]) -> u64 {
    chunk.chunks_exact(8).fold(0, |value, eight| {
        let eight: [u8; 8] = eight.try_into().expect("chunks of eight");
        (value << 8) | u64::from(pack8(eight))
    })
}

/// Up to 16 ASCII hex digits, most significant first, as a number.
#[inline]
pub fn parse_hex(digits: &[u8]) -> u64 {
    debug_assert!(digits.len() <= 16);
    digits
        .iter()
        .fold(0u64, |acc, &d| (acc << 4) | u64::from(hex_digit_value(d)))
}

/// Eight ASCII hex digits of either case, most significant first, as a
/// number, all eight bytes at once.
///
/// Loaded big-endian, the first digit is the top byte. A digit's value is
/// its low nibble, plus 9 for a letter (bit 6 set: `A-F` and `a-f` have low
/// nibbles 1..6); no byte lane carries into the next. Pairs, quads and
/// halves of nibbles are then merged.
#[inline]
fn hex8(chunk: [u8; 8]) -> u32 {
    const LOW_BIT: u64 = 0x0101_0101_0101_0101;
    let word = u64::from_be_bytes(chunk);
    let letters = (word >> 6) & LOW_BIT;
    let nibbles = (word & (0x0f * LOW_BIT)) + 9 * letters;
    let pairs = (nibbles | nibbles >> 4) & 0x00ff_00ff_00ff_00ff;
    let quads = (pairs | pairs >> 8) & 0x0000_ffff_0000_ffff;
    (quads | quads >> 16) as u32
}

/// Exactly 16 ASCII hex digits, most significant first, as a number.
#[inline]
pub(super) fn hex_word(chunk: &[u8; 16]) -> u64 {
    let (high, low) = chunk.split_at(8);
    let high = hex8(high.try_into().expect("eight digits"));
    let low = hex8(low.try_into().expect("eight digits"));
    (u64::from(high) << 32) | u64::from(low)
}

/// The short top limb of a digit string with `DIGITS` digits per limb: its
/// first `top` digits (`0 < top < DIGITS`).
///
/// A string of at least one whole limb is read as its first `DIGITS` digits
/// with the digits of the next limb shifted out, so only a string shorter
/// than one limb goes through `short`.
#[inline(always)]
fn top_limb<const DIGITS: usize>(
    digits: &[u8],
    top: usize,
    word: impl Fn(&[u8; DIGITS]) -> u64,
    short: impl Fn(&[u8]) -> u64,
) -> u64 {
    match digits.first_chunk::<DIGITS>() {
        Some(leading) => word(leading) >> ((DIGITS - top) * (64 / DIGITS)),
        None => short(&digits[..top]),
    }
}

/// Limb `index` of a most-significant-first digit string, `DIGITS` digits
/// per limb: `word` converts a whole limb's digits, `short` a string shorter
/// than one limb.
#[inline(always)]
fn digit_limb<const DIGITS: usize>(
    digits: &[u8],
    index: u64,
    word: impl Fn(&[u8; DIGITS]) -> u64,
    short: impl Fn(&[u8]) -> u64,
) -> u64 {
    let skipped = index.saturating_mul(DIGITS as u64);
    if skipped >= digits.len() as u64 {
        return 0;
    }
    let end = digits.len() - skipped as usize;
    match digits[..end].last_chunk::<DIGITS>() {
        Some(chunk) => word(chunk),
        None => top_limb(digits, end, word, short),
    }
}

/// XORs limbs `first ..` of a most-significant-first digit string, `DIGITS`
/// digits per limb, into `window`: `word` converts a whole limb's digits,
/// `short` a string shorter than one limb.
#[inline(always)]
fn xor_digit_limbs<const DIGITS: usize>(
    digits: &[u8],
    first: u64,
    window: &mut [u64],
    word: impl Fn(&[u8; DIGITS]) -> u64,
    short: impl Fn(&[u8]) -> u64,
) {
    let skipped = first.saturating_mul(DIGITS as u64);
    if skipped >= digits.len() as u64 {
        return;
    }
    let end = digits.len() - skipped as usize;
    let whole = (end / DIGITS).min(window.len());
    let (body, rest) = window.split_at_mut(whole);
    for (slot, chunk) in body.iter_mut().zip(digits[..end].rchunks_exact(DIGITS)) {
        *slot ^= word(chunk.try_into().expect("chunks of one limb"));
    }
    let top = end % DIGITS;
    if top > 0 {
        if let Some(slot) = rest.first_mut() {
            *slot ^= top_limb(digits, top, word, short);
        }
    }
}

/// [`xor_binary`] with the portable SWAR kernel.
fn xor_binary_portable(digits: &[u8], first: u64, window: &mut [u64]) {
    xor_digit_limbs::<64>(digits, first, window, binary_word, parse_binary);
}

/// [`xor_hex`] with the portable SWAR kernel.
fn xor_hex_portable(digits: &[u8], first: u64, window: &mut [u64]) {
    xor_digit_limbs::<16>(digits, first, window, hex_word, parse_hex);
}

/// Limb `index` of a binary digit string.
pub fn binary_limb(digits: &[u8], index: u64) -> u64 {
    digit_limb::<64>(digits, index, binary_word, parse_binary)
}

/// Limb `index` of a hex digit string.
pub fn hex_limb(digits: &[u8], index: u64) -> u64 {
    digit_limb::<16>(digits, index, hex_word, parse_hex)
}

/// Limb `index` of a little-endian magnitude.
pub fn le_bytes_limb(bytes: &[u8], index: u64) -> u64 {
    let start = index.saturating_mul(8);
    if start >= bytes.len() as u64 {
        return 0;
    }
    let start = start as usize;
    let end = (start + 8).min(bytes.len());
    let mut word = [0u8; 8];
    word[..end - start].copy_from_slice(&bytes[start..end]);
    u64::from_le_bytes(word)
}

/// XORs limbs `first ..` of a binary digit string into `window`.
pub fn xor_binary(digits: &[u8], first: u64, window: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = super::cpu();
        if cpu.avx512_vbmi {
            // SAFETY: `cpu()` reports AVX-512 F, BW and VBMI only where
            // the CPU has them.
            return unsafe { avx512::xor_binary(digits, first, window) };
        }
        if cpu.avx2 {
            // SAFETY: `cpu()` reports AVX2 only where the CPU has it.
            return unsafe { avx2::xor_binary(digits, first, window) };
        }
    }
    xor_binary_portable(digits, first, window);
}

/// XORs the limbs of `digits` into `window` (limb 0 first, as
/// [`xor_binary`] from limb 0; `window` holds a limb for every 64 digits
/// or part of them) if every byte of `digits` is `0` or `1`, and says
/// whether it is; when it is not, `window` holds anything. The AVX-512
/// build checks each limb's bytes in the register it converts them from;
/// the others check first ([`first_non_digit`]).
pub fn xor_binary_checked(digits: &[u8], window: &mut [u64]) -> bool {
    debug_assert!(
        window.len() >= digits.len().div_ceil(64),
        "a limb for every 64 digits"
    );
    #[cfg(target_arch = "x86_64")]
    if super::cpu().avx512_vbmi {
        // SAFETY: `cpu()` reports AVX-512 F, BW and VBMI only where the
        // CPU has them.
        return unsafe { avx512::xor_binary_checked(digits, window) };
    }
    xor_binary_checked_by_parts(digits, window)
}

/// [`xor_binary_checked`] as a check, then [`xor_binary`].
fn xor_binary_checked_by_parts(digits: &[u8], window: &mut [u64]) -> bool {
    let all_digits = first_non_digit(digits, 0, Digits::Binary) == digits.len();
    if all_digits {
        xor_binary(digits, 0, window);
    }
    all_digits
}

/// Appends to `groups` the value of each whole group of 64 bytes at the
/// start of `bytes` that are all binary digits, in order (the first digit
/// most significant), checking and converting each group in one go; stops
/// at the first group that holds another byte, or at the last partial one.
/// Returns how many bytes it packed.
pub fn pack_binary_groups(bytes: &[u8], groups: &mut Vec<u64>) -> usize {
    #[cfg(target_arch = "x86_64")]
    if super::cpu().avx2 {
        // SAFETY: `cpu()` reports AVX2 only where the CPU has it.
        return unsafe { avx2::pack_binary_groups(bytes, groups) };
    }
    pack_binary_groups_portable(bytes, groups)
}

/// [`pack_binary_groups`] with SWAR: eight bytes checked per word.
fn pack_binary_groups_portable(bytes: &[u8], groups: &mut Vec<u64>) -> usize {
    let mut packed = 0;
    for chunk in bytes.chunks_exact(64) {
        let chunk: &[u8; 64] = chunk.try_into().expect("chunks of 64");
        let all_digits = chunk.chunks_exact(8).all(|eight| {
            let word = u64::from_le_bytes(eight.try_into().expect("chunks of eight"));
            (word ^ 0x3030_3030_3030_3030) & !0x0101_0101_0101_0101 == 0
        });
        if !all_digits {
            break;
        }
        groups.push(binary_word(chunk));
        packed += 64;
    }
    packed
}

/// XORs limbs `first ..` of a hex digit string into `window`.
pub fn xor_hex(digits: &[u8], first: u64, window: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = super::cpu();
        if cpu.avx512_vbmi {
            // SAFETY: `cpu()` reports AVX-512 F, BW and VBMI only where
            // the CPU has them.
            return unsafe { avx512::xor_hex(digits, first, window) };
        }
        if cpu.avx2 {
            // SAFETY: `cpu()` reports AVX2 only where the CPU has it.
            return unsafe { avx2::xor_hex(digits, first, window) };
        }
    }
    xor_hex_portable(digits, first, window);
}

/// XORs limbs `first ..` of a little-endian magnitude into `window`: the
/// whole limbs as words, then the top limb's bytes (limb by limb, each
/// limb's copy had a length unknown until run time, a call to `memmove`:
/// a sixth of the one pass over `nimb` records of 64 to 4,096 bits).
pub fn xor_le_bytes(bytes: &[u8], first: u64, window: &mut [u64]) {
    let start =
        usize::try_from(first.saturating_mul(8)).map_or(bytes.len(), |s| s.min(bytes.len()));
    let bytes = &bytes[start..];
    let whole = (bytes.len() / 8).min(window.len());
    for (slot, limb) in window[..whole].iter_mut().zip(bytes.chunks_exact(8)) {
        *slot ^= u64::from_le_bytes(limb.try_into().expect("8 bytes"));
    }
    if let Some(slot) = window.get_mut(whole) {
        *slot ^= le_bytes_limb(bytes, whole as u64);
    }
}
