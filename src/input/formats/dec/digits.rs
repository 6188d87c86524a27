//! Decimal digits to numbers, eight at a time (SWAR): the arithmetic
//! shared by the `dec` scanner, the limbs of long decimal tokens and the
//! game-graph reader. A word of eight ASCII digits, loaded little-endian,
//! becomes its value in three multiplications
//! ([`combine8`]); a shorter prefix is shifted into place first.

use crate::arch::short_tokens::combine8;
use crate::arch::token_end::ASCII_ZEROS;

/// `10^k` for `k` up to 19, by `k`.
pub(crate) const POWERS_OF_TEN: [u64; 20] = {
    let mut powers = [1u64; 20];
    let mut k = 1;
    while k < 20 {
        powers[k] = powers[k - 1] * 10;
        k += 1;
    }
    powers
};

/// The value of the eight ASCII decimal digits of `word` (loaded
/// little-endian, so its first byte is the most significant digit).
#[inline(always)]
pub(crate) fn parse8(word: u64) -> u64 {
    combine8(word - ASCII_ZEROS)
}

/// The value of the first `len` (below 8) bytes of `word`, which are ASCII
/// decimal digits; the bytes after them may be anything. Subtracting `'0'`
/// from a byte below `'0'` borrows only from the bytes after it, and those
/// are shifted out, leaving zeros (leading zeros) in their place.
#[inline(always)]
pub(crate) fn parse_prefix(word: u64, len: usize) -> u64 {
    let digits = word.wrapping_sub(ASCII_ZEROS);
    // Two shifts, so that `len == 0` shifts everything out.
    combine8(digits << 1 << (63 - 8 * len))
}

/// The most decimal digits that always fit in a `u64`.
const U64_DIGITS: usize = 19;

/// Validated decimal digits (at most 38, `dec`'s `WORD_DIGITS`) as a
/// number: the first `len % 8` digits padded with leading zeros to eight,
/// then eight at a time, in `u64` arithmetic up to 19 digits.
pub(crate) fn decimal_word(digits: &[u8]) -> u128 {
    let (head, rest) = digits.split_at(digits.len() % 8);
    let mut padded = [b'0'; 8];
    padded[8 - head.len()..].copy_from_slice(head);
    let head = parse8(u64::from_le_bytes(padded));
    let chunks = rest
        .chunks_exact(8)
        .map(|chunk| parse8(u64::from_le_bytes(chunk.try_into().expect("eight digits"))));
    if digits.len() <= U64_DIGITS {
        u128::from(chunks.fold(head, |acc, chunk| acc * 100_000_000 + chunk))
    } else {
        chunks.fold(u128::from(head), |acc, chunk| {
            acc * 100_000_000 + u128::from(chunk)
        })
    }
}
