//! The two kernels of the `dec` scanner's block path: a block of 64 bytes
//! classified into a bitmask of its digits (and checked to hold nothing
//! but digits and whitespace), and the value of up to 32 digits that end
//! where a vector ends.
//!
//! With the digit mask the scanner finds every token's start and end with
//! bit tricks, a few instructions per token and no branch on its length;
//! the value is then read from the 32 bytes that end at the token's end,
//! the bytes before its start ignored. Builds: AVX2 (`avx2.rs`), which
//! inlines only into code compiled for AVX2: the scanner's block loop,
//! which is (`input/dec/`); SSE2 (`sse2.rs`), baseline on x86_64; and
//! portable SWAR on 64-bit words. [`DecKernel::best`] picks one from
//! [`cpu`](super::cpu).

#[cfg(target_arch = "x86_64")]
pub(super) mod avx2;
#[cfg(target_arch = "x86_64")]
mod sse2;
#[cfg(test)]
mod tests;

use super::token_end::{Digits, ASCII_ZEROS};

/// Bytes classified per block.
pub const BLOCK: usize = 64;

/// The most digits [`DecKernel::short_value`] converts: the bytes it reads.
pub const SHORT_DIGITS: usize = 32;

/// `0x80` in every byte of a word.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// A build of the two kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecKernel {
    /// SWAR on 64-bit words, for every target.
    Portable,
    /// SSE2, 16 bytes per instruction.
    #[cfg(target_arch = "x86_64")]
    Sse2,
    /// AVX2, 32 bytes per instruction; inlines only into code compiled
    /// for AVX2.
    #[cfg(target_arch = "x86_64")]
    Avx2,
}

impl DecKernel {
    /// The best build [`cpu`](super::cpu) allows.
    pub fn best() -> DecKernel {
        #[cfg(target_arch = "x86_64")]
        {
            let cpu = super::cpu();
            if cpu.avx2 {
                return DecKernel::Avx2;
            }
            if cpu.sse2 {
                return DecKernel::Sse2;
            }
        }
        DecKernel::Portable
    }

    /// Every build this CPU has, whatever the cap: what the tests hold
    /// against each other.
    #[cfg(test)]
    pub(crate) fn every_build() -> Vec<DecKernel> {
        let mut kernels = vec![DecKernel::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            kernels.push(DecKernel::Sse2);
            if super::Cpu::detected().avx2 {
                kernels.push(DecKernel::Avx2);
            }
        }
        kernels
    }

    /// A bit for each digit (`0`-`9`) of `block`, bit `i` for byte `i`, if
    /// every other byte is whitespace (space, tab, LF, CR); `None` if
    /// `block` holds any other byte.
    #[inline(always)]
    pub fn digit_mask(self, block: &[u8; BLOCK]) -> Option<u64> {
        match self {
            DecKernel::Portable => digit_mask_portable(block),
            // SAFETY: the SSE2 build is picked only on x86_64, where SSE2 is
            // part of the baseline every such CPU has.
            #[cfg(target_arch = "x86_64")]
            DecKernel::Sse2 => unsafe { sse2::digit_mask(block) },
            // SAFETY: the AVX2 build is picked only where `cpu()` reports
            // AVX2, which it does only where the CPU has it.
            #[cfg(target_arch = "x86_64")]
            DecKernel::Avx2 => unsafe { avx2::digit_mask(block) },
        }
    }

    /// The value of the last `len` bytes of `bytes` (`len <= 32`), which
    /// are decimal digits, the first most significant; the bytes before
    /// them are ignored, whatever they hold.
    #[inline(always)]
    pub fn short_value(self, bytes: &[u8; SHORT_DIGITS], len: usize) -> u128 {
        debug_assert!(len <= SHORT_DIGITS);
        match self {
            DecKernel::Portable => short_value_portable(bytes, len),
            // SAFETY: as in `digit_mask`: SSE2 is baseline on x86_64.
            #[cfg(target_arch = "x86_64")]
            DecKernel::Sse2 => unsafe { sse2::short_value(bytes, len) },
            // SAFETY: as in `digit_mask`: only where the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            DecKernel::Avx2 => unsafe { avx2::short_value(bytes, len) },
        }
    }
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

/// `0x80` in each byte of `word` equal to `byte`: a byte that differs has
/// a bit set in its low seven, which the sum carries into bit 7, or bit 7
/// itself set.
#[inline(always)]
fn bytes_equal(word: u64, byte: u8) -> u64 {
    let differ = word ^ (u64::from(byte) * 0x0101_0101_0101_0101);
    !(((differ & !HIGH_BITS) + !HIGH_BITS) | differ) & HIGH_BITS
}

/// Bit 7 of each byte of `flags` gathered into a byte, byte `i` to bit `i`
/// (the multiplication moves bit `8i` to bit `56 + i`, without carries).
#[inline(always)]
fn gather_high_bits(flags: u64) -> u64 {
    ((flags & HIGH_BITS) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// [`DecKernel::digit_mask`] for any CPU, eight bytes at a time.
fn digit_mask_portable(block: &[u8; BLOCK]) -> Option<u64> {
    let mut digits = 0;
    let mut valid = HIGH_BITS;
    for (i, chunk) in block.chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        // Non-digits have bits in their high nibble; fold them into bit 7.
        let stops = Digits::Decimal.non_digits(word);
        let non_digits = (stops | stops << 1 | stops << 2 | stops << 3) & HIGH_BITS;
        let spaces = bytes_equal(word, b' ')
            | bytes_equal(word, b'\t')
            | bytes_equal(word, b'\n')
            | bytes_equal(word, b'\r');
        valid &= !non_digits | spaces;
        digits |= gather_high_bits(!non_digits) << (8 * i);
    }
    (valid == HIGH_BITS).then_some(digits)
}

/// [`DecKernel::short_value`] for any CPU: four words of eight digits, the
/// bytes before the digits cleared, each converted with [`combine8`].
fn short_value_portable(bytes: &[u8; SHORT_DIGITS], len: usize) -> u128 {
    let ignored = SHORT_DIGITS - len;
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
