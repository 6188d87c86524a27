//! Where a `bits`, `hex` or `dec` token ends: its digit classes, tested one
//! byte or eight at a time, and the search for its first non-digit.
//!
//! Where [`cpu`](super::cpu) allows AVX-512 (`avx512.rs`), 64 bytes are
//! classified per step into a mask register; with AVX2 (`avx2.rs`), 32,
//! and a movemask; either way the mask's lowest bit is that byte's exact
//! index (the AVX2 hex packer classifies its bytes the same way).
//! Elsewhere eight bytes are classified at a time with SWAR, long runs of
//! digits are skipped in blocks that the compiler vectorises, and the
//! block that ends the run is searched again.

#[cfg(target_arch = "x86_64")]
pub(super) mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(test)]
pub(crate) mod tests;

use super::prefetch::read_ahead;

/// The digits of one token format, testable one byte or eight at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Digits {
    /// `0` and `1`.
    Binary,
    /// `0`-`9`.
    Decimal,
    /// `0`-`9`, `a`-`f` and `A`-`F`.
    Hex,
}

/// `0x01` in every byte of a word.
const LOW_BITS: u64 = 0x0101_0101_0101_0101;
/// `0x80` in every byte of a word.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
/// `0x0f` in every byte of a word.
const LOW_NIBBLES: u64 = 0x0f0f_0f0f_0f0f_0f0f;
/// `b'0'` in every byte of a word.
pub const ASCII_ZEROS: u64 = 0x3030_3030_3030_3030;

/// `0x80` in each byte of `low7` (bytes below `0x80`) within `lo..=hi`
/// (`lo >= 1`). Neither sum carries out of a byte: each stays below `0xff`.
#[inline]
fn bytes_in_range(low7: u64, lo: u8, hi: u8) -> u64 {
    let at_least_lo = low7 + LOW_BITS * u64::from(0x80 - lo);
    let above_hi = low7 + LOW_BITS * u64::from(0x7f - hi);
    at_least_lo & !above_hi & HIGH_BITS
}

impl Digits {
    /// True if `byte` is a digit.
    #[inline]
    pub fn is_digit(self, byte: u8) -> bool {
        match self {
            Digits::Binary => byte == b'0' || byte == b'1',
            Digits::Decimal => byte.is_ascii_digit(),
            Digits::Hex => byte.is_ascii_hexdigit(),
        }
    }

    /// Non-zero bits in each byte of `word` that is not a digit, and only
    /// there (SWAR: the eight bytes are classified together, without
    /// branches), so the first non-digit is at `trailing_zeros() / 8`.
    #[inline]
    pub fn non_digits(self, word: u64) -> u64 {
        match self {
            // A bit other than the lowest differs from `'0'`.
            Digits::Binary => (word ^ ASCII_ZEROS) & !LOW_BITS,
            // A high nibble other than 3, or a low nibble of 10 or more
            // (which the `+ 6` carries into bit 4): neither sum leaves its byte.
            Digits::Decimal => {
                (((word & LOW_NIBBLES) + LOW_BITS * 6) | (word ^ ASCII_ZEROS)) & !LOW_NIBBLES
            }
            Digits::Hex => {
                let low7 = word & !HIGH_BITS;
                let digits = bytes_in_range(low7, b'0', b'9')
                    | bytes_in_range(low7 | (LOW_BITS * 0x20), b'a', b'f');
                (!digits | word) & HIGH_BITS
            }
        }
    }
}

/// The index of the first byte at or after `pos` that is not a digit, or
/// `data.len()` if there is none. Uses AVX-512 or AVX2 when
/// [`cpu`](super::cpu) allows it.
#[inline]
pub fn first_non_digit(data: &[u8], pos: usize, digits: Digits) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = super::cpu();
        if cpu.avx512 {
            // SAFETY: `cpu()` reports AVX-512 F and BW only where the CPU
            // has them.
            return unsafe { avx512::first_non_digit(data, pos, digits) };
        }
        if cpu.avx2 {
            // SAFETY: `cpu()` reports AVX2 only where the CPU has it.
            return unsafe { avx2::first_non_digit(data, pos, digits) };
        }
    }
    first_non_digit_portable(data, pos, digits)
}

/// Bytes checked a word at a time before [`first_non_digit_portable`]
/// switches to blocks: a `dec` token usually ends within them.
const SHORT: usize = 32;

/// Bytes per block in the vectorised stage of [`first_non_digit_portable`].
const BLOCK: usize = 64;

/// [`first_non_digit`] for any CPU. Eight bytes are classified at a time
/// (SWAR) for the first [`SHORT`] bytes; then blocks of [`BLOCK`] bytes are
/// checked with a branch-free byte test that the compiler turns into
/// vector compares, and the block holding a non-digit is searched again
/// eight bytes at a time. The last few bytes of `data` are looked at one
/// by one.
fn first_non_digit_portable(data: &[u8], pos: usize, digits: Digits) -> usize {
    let short_end = data.len().min(pos + SHORT);
    let (mut reached, mut stopped) = swar_words(&data[..short_end], pos, digits);
    if !stopped && short_end < data.len() {
        (reached, stopped) = swar_words(data, skip_digit_blocks(data, reached, digits), digits);
    }
    if stopped {
        return reached;
    }
    data[reached..]
        .iter()
        .position(|&b| !digits.is_digit(b))
        .map_or(data.len(), |skip| reached + skip)
}

/// The start of the first block of [`BLOCK`] bytes from `pos` that holds a
/// non-digit or runs past the end of `data`.
fn skip_digit_blocks(data: &[u8], mut pos: usize, digits: Digits) -> usize {
    while let Some(block) = data.get(pos..pos + BLOCK) {
        read_ahead(data, pos);
        let all_digits = match digits {
            Digits::Binary => block.iter().fold(true, |ok, &b| ok & (b | 1 == b'1')),
            Digits::Decimal => block
                .iter()
                .fold(true, |ok, &b| ok & (b.wrapping_sub(b'0') < 10)),
            Digits::Hex => block.iter().fold(true, |ok, &b| {
                ok & ((b.wrapping_sub(b'0') < 10) | ((b | 0x20).wrapping_sub(b'a') < 6))
            }),
        };
        if !all_digits {
            break;
        }
        pos += BLOCK;
    }
    pos
}

/// Eight bytes at a time from `pos`: where the first non-digit is (and
/// true), or the start of the last partial word of `data` (and false).
#[inline]
fn swar_words(data: &[u8], mut pos: usize, digits: Digits) -> (usize, bool) {
    while let Some(chunk) = data.get(pos..pos + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let stops = digits.non_digits(word);
        if stops != 0 {
            return (pos + (stops.trailing_zeros() / 8) as usize, true);
        }
        pos += 8;
    }
    (pos, false)
}
