//! Short `hex` tokens checked and converted in one pass over their digits.
//!
//! A token's digits are most significant first, so where its bit 0 lies
//! is known only at its end. Finding the end first and converting the
//! digits afterwards reads every digit twice, and pays a mispredicted loop
//! exit in each pass. Here every block of digits is classified and
//! converted in the same registers (the kernels of
//! [`hex_pack`](crate::arch::hex_pack)), as groups of 16 digits counted
//! from the token's start (the first digit most significant in its group).
//! The groups are stored from the top of a scratch buffer down, so that
//! at the token's end they are in little-endian order, and the value is
//! the groups shifted right by the unused low digits of the last one.
//! That shift is left to whoever reads the value: a limb is two
//! neighbouring groups, and a nim-sum keeps one sum per shift and shifts
//! each once at the end (`nimsum::ByShift`).
//!
//! A token longer than the scratch buffer is left to the two-pass scan:
//! over thousands of digits, what a token costs at its ends no longer
//! matters.

use crate::arch::hex_pack::{pack_hex, MAX_GROUPS};
use crate::error::ParseError;
use crate::input::formats::token::is_space;
use crate::input::packed::{PackedDigits, TokenScratch};

/// Checks and converts the hex digits of the token whose first digit is at
/// `start`, returning where the token ends and its value. `None` if the
/// token has more than `16 · MAX_GROUPS` digits (left to the two-pass
/// scan), or an error at the first byte after the digits if it is not
/// whitespace. Inlined into the scanner's loop, so that the token's end
/// and value stay in registers.
#[inline(always)]
pub fn hex_token<'s>(
    data: &[u8],
    start: usize,
    base: u64,
    expected: &str,
    scratch: &'s mut TokenScratch,
) -> Result<Option<(usize, PackedDigits<'s>)>, ParseError> {
    let groups = scratch.groups();
    let Some(end) = pack_hex(data, start, groups) else {
        return Ok(None);
    };
    if let Some(&byte) = data.get(end).filter(|&&b| !is_space(b)) {
        return Err(ParseError::unexpected(base + end as u64, byte, expected));
    }
    Ok(Some((end, digits_of_groups(groups, end - start))))
}

/// The value of a token of `digits` digits whose groups are at the top of
/// `groups`, in little-endian order: the last group's unused low bits
/// (which a kernel leaves holding what followed the token) are cleared.
#[inline]
fn digits_of_groups(groups: &mut [u64], digits: usize) -> PackedDigits<'_> {
    let groups = &mut groups[MAX_GROUPS - digits.div_ceil(16)..];
    let shift = (4 * (16 - digits % 16) % 64) as u32;
    if let Some(last) = groups.first_mut() {
        *last &= u64::MAX << shift;
    }
    let bits = match groups.iter().rposition(|&g| g != 0) {
        None => 0,
        Some(top) => {
            64 * top as u64 + u64::from(64 - groups[top].leading_zeros()) - u64::from(shift)
        }
    };
    PackedDigits {
        groups,
        shift,
        bits,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::digits::hex_digit_value;
    use crate::arch::hex_pack::{builds, Packer};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The token's end and value, digit by digit: little-endian limbs
    /// without high zero limbs, or `None` past `16 · MAX_GROUPS` digits.
    fn reference(data: &[u8], start: usize) -> Option<(usize, Vec<u64>)> {
        let digits = data[start..]
            .iter()
            .take_while(|b| b.is_ascii_hexdigit())
            .count();
        if digits > 16 * MAX_GROUPS {
            return None;
        }
        let mut limbs = vec![0u64; digits.div_ceil(16)];
        for (k, &d) in data[start..start + digits].iter().rev().enumerate() {
            let value = u64::from(hex_digit_value(d));
            limbs[k / 16] |= value << (4 * (k % 16));
        }
        while limbs.last() == Some(&0) {
            limbs.pop();
        }
        Some((start + digits, limbs))
    }

    /// What a kernel gives for the token at `start`: its end and value.
    fn packed(kernel: Packer, data: &[u8], start: usize) -> Option<(usize, Vec<u64>)> {
        let mut groups = [0x5555_5555_5555_5555; MAX_GROUPS];
        let end = kernel(data, start, &mut groups)?;
        let packed = digits_of_groups(&mut groups, end - start);
        let limbs: Vec<u64> = (0..packed.bits.div_ceil(64))
            .map(|j| packed.limb(j))
            .collect();
        let top = limbs
            .last()
            .map_or(0, |&t| 64 - u64::from(t.leading_zeros()));
        let bits = 64 * limbs.len().saturating_sub(1) as u64 + top;
        assert_eq!(packed.bits, bits, "bit length of {:?}", &data[start..end]);
        Some((end, limbs))
    }

    /// Random hex digits of both cases, some leading zeros.
    fn hex_digits(rng: &mut ChaCha8Rng, len: usize) -> Vec<u8> {
        const ALPHABET: &[u8] = b"0123456789abcdefABCDEF";
        let zeros = if rng.random_bool(0.2) {
            rng.random_range(0..=len)
        } else {
            0
        };
        (0..len)
            .map(|i| {
                if i < zeros {
                    b'0'
                } else {
                    ALPHABET[rng.random_range(0..ALPHABET.len())]
                }
            })
            .collect()
    }

    #[test]
    fn kernels_match_the_digit_by_digit_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for round in 0..3000 {
            // Lengths around every step size, up to past the limit.
            let len = match round % 3 {
                0 => rng.random_range(0..200),
                1 => rng.random_range(0..=16 * MAX_GROUPS + 70),
                _ => 16 * MAX_GROUPS - 66 + rng.random_range(0..140),
            };
            let mut data: Vec<u8> = (0..rng.random_range(0..70)).map(|_| rng.random()).collect();
            let start = data.len();
            data.extend(hex_digits(&mut rng, len));
            if rng.random_bool(0.7) {
                // Any byte may end the token, followed by more digits.
                let mut stop: u8 = rng.random();
                while stop.is_ascii_hexdigit() {
                    stop = rng.random();
                }
                data.push(stop);
                let more = rng.random_range(0..100);
                data.extend(hex_digits(&mut rng, more));
            }
            let expected = reference(&data, start);
            for (name, kernel) in builds() {
                assert_eq!(
                    packed(kernel, &data, start),
                    expected,
                    "{name}: {len} digits from {start} in {} bytes",
                    data.len()
                );
            }
        }
    }

    #[test]
    fn every_byte_ends_a_token_at_every_position_in_a_step() {
        for stop in (0..=255u8).filter(|b| !b.is_ascii_hexdigit()) {
            for len in 0..130 {
                let mut data = b"0F1e".repeat(40)[..len].to_vec();
                data.push(stop);
                data.extend_from_slice(b"ffffffffffffffffffffffffffffffff");
                let expected = reference(&data, 0);
                for (name, kernel) in builds() {
                    assert_eq!(
                        packed(kernel, &data, 0),
                        expected,
                        "{name}: {stop:#x} after {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_token_must_end_at_whitespace() {
        let mut scratch = TokenScratch::default();
        let error = hex_token(b"12g", 0, 100, "a hex digit", &mut scratch).unwrap_err();
        assert_eq!(error.offset, 102);
        let (end, packed) = hex_token(b"0012\t", 0, 0, "", &mut scratch)
            .unwrap()
            .unwrap();
        assert_eq!((end, packed.bits, packed.limb(0)), (4, 5, 0x12));
        let long = b"1".repeat(16 * MAX_GROUPS + 1);
        assert!(hex_token(&long, 0, 0, "", &mut scratch).unwrap().is_none());
    }
}
