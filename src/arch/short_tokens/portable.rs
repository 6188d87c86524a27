//! The portable build of the short-token kernels: SWAR on 64-bit words,
//! for every target (see the parent module for the loop they serve), and
//! the small helpers the other builds share.

use super::{fill_any, Blocks, ShortHeaps, Stopped, Syntax, BLOCK};
use crate::arch::token_end::{Digits, ASCII_ZEROS};

/// [`super::ShortKernel::fill`] without SIMD beyond the target's
/// baseline. Out of line: inlined into the dispatch, its loops' stack
/// frame (19 KiB, probed page by page) was set up on every call of the
/// vector builds too; that was 2 % of a pass over hex with a long token
/// after every 64 short ones, whose runs are short.
#[inline(never)]
pub(super) fn fill(
    syntax: Syntax,
    data: &[u8],
    from: usize,
    base: u64,
    heaps: &mut ShortHeaps,
) -> Stopped {
    fill_any(&Portable, syntax, data, from, base, heaps)
}

/// The portable build.
pub(super) struct Portable;

impl Blocks for Portable {
    #[inline(always)]
    fn digits(&self, syntax: Syntax, block: &[u8; BLOCK]) -> Option<u64> {
        digits_portable(syntax, block)
    }

    #[inline(always)]
    fn bits_block(&self, block: &[u8; BLOCK]) -> Option<(u64, u64)> {
        let digits = digits_portable(Syntax::Bits, block)?;
        let ones = (0..BLOCK / 8).fold(0, |ones, i| {
            ones | gather_high_bits(bytes_equal(word(block, i), b'1')) << (8 * i)
        });
        Some((digits, ones.reverse_bits()))
    }

    #[inline(always)]
    fn hex_value(&self, bytes: &[u8; 16], len: usize) -> u64 {
        hex_value_portable(bytes, len)
    }

    #[inline(always)]
    fn dec_value(&self, bytes: &[u8; 32], len: usize) -> u128 {
        dec_value_portable(bytes, len)
    }
}

/// `0x01` in every byte of a word.
const LOW_BITS: u64 = 0x0101_0101_0101_0101;

/// `0x80` in every byte of a word.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// `0x80` in each byte of `word` that is not 0: a byte with a bit set in
/// its low seven carries into bit 7 when they are added to `0x7f`, or has
/// bit 7 set itself. No sum leaves its byte.
#[inline(always)]
fn nonzero_bytes(word: u64) -> u64 {
    (((word & !HIGH_BITS) + !HIGH_BITS) | word) & HIGH_BITS
}

/// `0x80` in each byte of `word` equal to `byte`.
#[inline(always)]
fn bytes_equal(word: u64, byte: u8) -> u64 {
    !nonzero_bytes(word ^ (LOW_BITS * u64::from(byte))) & HIGH_BITS
}

/// Bit 7 of each byte of `flags` gathered into a byte, byte `i` to bit `i`
/// (the multiplication moves bit `8i` to bit `56 + i`, without carries).
#[inline(always)]
fn gather_high_bits(flags: u64) -> u64 {
    ((flags & HIGH_BITS) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// `0x80` in each byte of `word` that is whitespace: a space, tab, LF or
/// CR.
#[inline(always)]
fn space_bytes(word: u64) -> u64 {
    bytes_equal(word, b' ')
        | bytes_equal(word, b'\t')
        | bytes_equal(word, b'\n')
        | bytes_equal(word, b'\r')
}

/// The eight-byte word `i` of `block`.
#[inline(always)]
fn word(block: &[u8; BLOCK], i: usize) -> u64 {
    u64::from_le_bytes(block[8 * i..8 * i + 8].try_into().expect("eight bytes"))
}

/// [`Blocks::digits`] for any CPU: eight bytes at a time with SWAR, each
/// byte's class a flag in its bit 7 (the digits from
/// [`Digits::non_digits`]), the flags gathered into the mask.
fn digits_portable(syntax: Syntax, block: &[u8; BLOCK]) -> Option<u64> {
    let (mut mask, mut valid) = (0, HIGH_BITS);
    for i in 0..BLOCK / 8 {
        let word = word(block, i);
        let token_digits = |digits: Digits| !nonzero_bytes(digits.non_digits(word)) & HIGH_BITS;
        let (digits, separators) = match syntax {
            Syntax::Bits => (token_digits(Digits::Binary), space_bytes(word)),
            Syntax::Hex | Syntax::WideHex => (token_digits(Digits::Hex), space_bytes(word)),
            Syntax::Dec => (token_digits(Digits::Decimal), space_bytes(word)),
            Syntax::Unary => (bytes_equal(word, b'1'), bytes_equal(word, b'\n')),
        };
        valid &= digits | separators;
        mask |= gather_high_bits(digits) << (8 * i);
    }
    (valid == HIGH_BITS).then_some(mask)
}

/// The value of a hex digit byte (either case): its low nibble, plus 9
/// for a letter (bit 6 set).
#[inline(always)]
pub(super) fn hex_digit(byte: u8) -> u64 {
    u64::from(byte & 0x0f) + 9 * u64::from(byte >> 6 & 1)
}

/// [`Blocks::hex_value`] for any CPU: the 16 bytes as two words, each
/// byte turned into its digit's value and the eight values of a word
/// gathered into 32 bits with three shift-and-mask steps (SWAR).
fn hex_value_portable(bytes: &[u8; 16], len: usize) -> u64 {
    let half = |k: usize| {
        let word = u64::from_le_bytes(bytes[8 * k..8 * k + 8].try_into().expect("eight bytes"));
        // Each byte's value: its low nibble, plus 9 where bit 6 is set.
        let values = (word & 0x0f0f_0f0f_0f0f_0f0f) + 9 * (word >> 6 & 0x0101_0101_0101_0101);
        // The first byte is the most significant digit: byte i goes to
        // bits 4 (7 - i).
        let values = values.swap_bytes();
        let pairs = (values | values >> 4) & 0x00ff_00ff_00ff_00ff;
        let quads = (pairs | pairs >> 8) & 0x0000_ffff_0000_ffff;
        (quads | quads >> 16) & 0xffff_ffff
    };
    let value = half(0) << 32 | half(1);
    value & low_bits(4 * len)
}

/// The number held in a word of eight digit values (`0`-`9`, one per byte,
/// the first byte most significant), with SWAR: one multiplication makes
/// the four two-digit pairs (in bytes 0, 2, 4 and 6), then two more weigh
/// them (by 10^6 and 100, and by 10^4 and 1) and sum them in bits 32-63.
/// The products overflow only in bits that are discarded.
#[inline(always)]
pub fn combine8(digits: u64) -> u64 {
    const PAIRS_0_2: u64 = 0x0000_00ff_0000_00ff;
    const WEIGHTS_0_2: u64 = 100 + (1_000_000 << 32);
    const WEIGHTS_1_3: u64 = 1 + (10_000 << 32);
    let pairs = digits * 10 + (digits >> 8);
    let even = (pairs & PAIRS_0_2).wrapping_mul(WEIGHTS_0_2);
    let odd = ((pairs >> 16) & PAIRS_0_2).wrapping_mul(WEIGHTS_1_3);
    even.wrapping_add(odd) >> 32
}

/// [`Blocks::dec_value`] for any CPU: four words of eight digits, the
/// bytes before the digits cleared, each converted with [`combine8`].
fn dec_value_portable(bytes: &[u8; 32], len: usize) -> u128 {
    let ignored = 32 - len;
    let mut eights = [0u64; 4];
    for (k, chunk) in bytes.chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        // `'0'`-`'9'` XOR `'0'` is 0-9; the ignored bytes are cleared.
        let skip = ignored.saturating_sub(8 * k).min(8) as u32;
        let kept = u64::MAX.checked_shl(8 * skip).unwrap_or(0);
        eights[k] = combine8((word ^ ASCII_ZEROS) & kept);
    }
    from_halves(
        eights[0] * 100_000_000 + eights[1],
        eights[2] * 100_000_000 + eights[3],
    )
}

/// The number whose first 16 digits are `high` and last 16 are `low`.
#[inline(always)]
pub(super) fn from_halves(high: u64, low: u64) -> u128 {
    u128::from(high) * 10_000_000_000_000_000 + u128::from(low)
}

/// The low `n` bits set (`n` up to 64).
#[inline(always)]
pub(super) fn low_bits(n: usize) -> u64 {
    u64::MAX
        .checked_shr(64u32.wrapping_sub(n as u32))
        .unwrap_or(0)
}
