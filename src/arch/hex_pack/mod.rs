//! A short `hex` token checked and converted in one pass over its digits:
//! the digits are classified and packed into groups of 16 (64 bits) in the
//! same registers, and the token's end found on the way.
//!
//! Group `i` holds digits `16i .. 16i + 16` counted from the token's start,
//! the first most significant, and is stored at slot `MAX_GROUPS - 1 - i`,
//! so that at the token's end the groups are in little-endian order; what
//! the value is then (the groups shifted right by the unused low digits of
//! the last one) is for the caller to read (`input::pack`). Builds: 64
//! bytes a step with AVX-512 VBMI (`avx512.rs`), 64 with AVX2 as two
//! halves of 32 (`avx2.rs`), 16 with portable SWAR, picked by
//! [`cpu`](super::cpu).
//!
//! Written with `std::arch` intrinsics by hand: the compiler does not
//! vectorise a loop that exits at the first non-digit, and no crate
//! converts digits and finds a token's end in the same registers.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;

use super::digits::{hex_word, parse_hex};
use super::prefetch::read_ahead;
use super::token_end::Digits;

/// The most groups a packed token may have: 256 groups of 16 digits (2 KiB
/// of scratch space).
pub const MAX_GROUPS: usize = 256;

/// Scans hex digits from `start` (`start < data.len()`), storing group `i`
/// (digits `16i .. 16i + 16` from `start`, the first most significant) at
/// `groups[MAX_GROUPS - 1 - i]`. A last, partial group holds its digits
/// in its top bits; its low bits, and the slots below it, may hold
/// anything (a kernel stores whole steps of groups). Returns the index of
/// the first non-digit (or `data.len()`), or `None` if there are more
/// than `16 · MAX_GROUPS` digits.
#[inline]
pub fn pack_hex(data: &[u8], start: usize, groups: &mut [u64; MAX_GROUPS]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = super::cpu();
        if cpu.avx512_vbmi {
            // SAFETY: `cpu()` reports AVX-512 F, BW and VBMI only where the
            // CPU has them.
            return unsafe { avx512::pack_hex(data, start, groups) };
        }
        if cpu.avx2 {
            // SAFETY: `cpu()` reports AVX2 only where the CPU has it.
            return unsafe { avx2::pack_hex(data, start, groups) };
        }
    }
    pack_hex_portable(data, start, groups)
}

/// [`pack_hex`] for any CPU: 16 bytes per step, checked as two SWAR words
/// and converted with [`hex_word`].
fn pack_hex_portable(data: &[u8], start: usize, groups: &mut [u64; MAX_GROUPS]) -> Option<usize> {
    let mut pos = start;
    for slot in (0..MAX_GROUPS).rev() {
        read_ahead(data, pos);
        let Some(chunk) = data.get(pos..pos + 16) else {
            // The last bytes of `data`, one by one.
            let rest = &data[pos..];
            let digits = rest.iter().take_while(|&&b| b.is_ascii_hexdigit()).count();
            groups[slot] = partial_group(&rest[..digits]);
            return Some(pos + digits);
        };
        let chunk: &[u8; 16] = chunk.try_into().expect("16 bytes");
        let word = |half: usize| u64::from_le_bytes(chunk[8 * half..][..8].try_into().expect("8"));
        let (first, second) = (
            Digits::Hex.non_digits(word(0)),
            Digits::Hex.non_digits(word(1)),
        );
        if first | second != 0 {
            let flags = u128::from(first) | u128::from(second) << 64;
            let digits = (flags.trailing_zeros() / 8) as usize;
            groups[slot] = partial_group(&chunk[..digits]);
            return Some(pos + digits);
        }
        groups[slot] = hex_word(chunk);
        pos += 16;
    }
    past_the_last_group(data, pos)
}

/// Fewer than 16 hex digits as a group: in its top bits.
fn partial_group(digits: &[u8]) -> u64 {
    match digits.len() {
        0 => 0,
        n => parse_hex(digits) << (64 - 4 * n),
    }
}

/// Where a token whose `MAX_GROUPS` groups are all full ends: at `pos` if
/// no digit follows, or `None` (too long to pack).
fn past_the_last_group(data: &[u8], pos: usize) -> Option<usize> {
    let at_end = data.get(pos).is_none_or(|b| !b.is_ascii_hexdigit());
    at_end.then_some(pos)
}

/// A packer: [`pack_hex`] or one of its builds.
#[cfg(test)]
pub(crate) type Packer = fn(&[u8], usize, &mut [u64; MAX_GROUPS]) -> Option<usize>;

/// Every build this CPU can run, whatever the cap, by name: the packers'
/// tests (`input::pack`) hold each against a digit-by-digit reference.
#[cfg(test)]
pub(crate) fn builds() -> Vec<(&'static str, Packer)> {
    let mut found: Vec<(&'static str, Packer)> = vec![("portable", pack_hex_portable)];
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = super::Cpu::detected();
        if cpu.avx2 {
            // SAFETY: the CPU supports AVX2, checked just above.
            found.push(("avx2", |d, s, g| unsafe { avx2::pack_hex(d, s, g) }));
        }
        if cpu.avx512_vbmi {
            // SAFETY: the CPU supports AVX-512 F, BW and VBMI.
            found.push(("avx512", |d, s, g| unsafe { avx512::pack_hex(d, s, g) }));
        }
    }
    found
}
