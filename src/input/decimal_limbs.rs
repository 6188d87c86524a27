//! The binary limbs of a decimal token of more than 38 digits (shorter
//! ones fit a word and are read in `dec.rs`): in place up to
//! [`IN_PLACE_DIGITS`], by divide and conquer past that.
//!
//! The two ways trade memory for time. The in-place loop allocates its
//! result once and nothing else, so `--memory log` keeps its bound on
//! decimal heaps of thousands of digits, but it is quadratic; dashu-int's
//! conversion is subquadratic (9,000,000 digits in about a second, within
//! 5x of GMP: `bench/long_decimal.sh`) and allocates as it multiplies.

use super::decimal_digits::{decimal_word, POWERS_OF_TEN};

/// The limbs of validated decimal digits without leading zeros.
pub(super) fn limbs_of(digits: &[u8]) -> Vec<u64> {
    match digits.len() <= IN_PLACE_DIGITS {
        true => decimal_limbs(digits),
        false => long_decimal_limbs(digits),
    }
}

/// Decimal tokens up to this many digits are converted in place
/// ([`decimal_limbs`]); longer ones by divide and conquer
/// ([`long_decimal_limbs`]). Below it the in-place conversion is within a
/// fifth of the other's time and needs no memory beyond its result, which
/// keeps `--memory log` within its bound.
pub(super) const IN_PLACE_DIGITS: usize = 10_000;

/// The little-endian limbs of validated decimal digits, in subquadratic
/// time: dashu-int converts by divide and conquer over powers of ten with
/// its Karatsuba and Toom-3 multiplications (9,000,000 digits in about a
/// second here, where the quadratic loop takes minutes and num-bigint 0.4's
/// `parse_bytes` is quadratic too). A crate that does it well rather than
/// our own: the conversion is only as fast as its multiplication.
fn long_decimal_limbs(digits: &[u8]) -> Vec<u64> {
    let text = std::str::from_utf8(digits).expect("decimal digits are ASCII");
    let value = dashu_int::UBig::from_str_radix(text, 10).expect("digits were validated");
    value
        .to_le_bytes()
        .chunks(8)
        .map(|chunk| {
            let mut word = [0u8; 8];
            word[..chunk.len()].copy_from_slice(chunk);
            u64::from_le_bytes(word)
        })
        .collect()
}

/// Decimal digits a limb step takes: 10^19 is the largest power of ten
/// below 2^64.
const LIMB_STEP_DIGITS: usize = 19;

/// The little-endian limbs of validated decimal digits: 19 digits a step,
/// each step multiplying the limbs so far by 10^19 and adding the step's
/// value, in place. The limbs are allocated once, at a size the digits
/// bound (log2 10 < 3402/1024 bits a digit), so the conversion needs no
/// memory beyond its result, which keeps `--memory log` within its bound
/// on decimal heaps of thousands of digits (num-bigint's `parse_bytes`
/// first copies the digits, a byte each, and grows its result as it
/// goes: three times the memory). Quadratic, as num-bigint's conversion
/// is at these sizes.
fn decimal_limbs(digits: &[u8]) -> Vec<u64> {
    let bound = (digits.len() as u64 * 3402).div_ceil(1024 * 64) + 1;
    let mut limbs: Vec<u64> = Vec::with_capacity(bound as usize);
    let (head, rest) = digits.split_at(digits.len() % LIMB_STEP_DIGITS);
    let steps = std::iter::once(head)
        .filter(|head| !head.is_empty())
        .chain(rest.chunks_exact(LIMB_STEP_DIGITS));
    for step in steps {
        let scale = u128::from(POWERS_OF_TEN[step.len()]);
        let mut carry = decimal_word(step);
        for limb in limbs.iter_mut() {
            let wide = u128::from(*limb) * scale + carry;
            (*limb, carry) = (wide as u64, wide >> 64);
        }
        if carry != 0 {
            limbs.push(carry as u64);
        }
    }
    limbs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::token_end::tests::Rng;
    use num_bigint::BigUint;

    #[test]
    fn long_decimals_convert_exactly_at_every_step_edge() {
        let mut rng = Rng(0x5eed);
        for len in (39..200).chain([380, 381, 399, 4000, 12_345]) {
            let mut text: Vec<u8> = (0..len).map(|_| rng.pick(b"0123456789")).collect();
            text[0] = rng.pick(b"123456789");
            let expected = BigUint::parse_bytes(&text, 10).unwrap().to_u64_digits();
            let limbs = decimal_limbs(&text);
            assert_eq!(limbs, expected, "{len} digits");
            let bound = (len as u64 * 3402).div_ceil(1024 * 64) + 1;
            assert!(limbs.capacity() as u64 <= bound, "{len} digits: no growth");
        }
        for len in [IN_PLACE_DIGITS, IN_PLACE_DIGITS + 1, 50_001] {
            let mut text: Vec<u8> = (0..len).map(|_| rng.pick(b"0123456789")).collect();
            text[0] = rng.pick(b"123456789");
            let expected = BigUint::parse_bytes(&text, 10).unwrap().to_u64_digits();
            assert_eq!(limbs_of(&text), expected, "{len} digits");
        }
        let nines = vec![b'9'; 19 * 7];
        let expected = BigUint::parse_bytes(&nines, 10).unwrap().to_u64_digits();
        assert_eq!(decimal_limbs(&nines), expected);
    }
}
