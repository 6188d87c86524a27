//! The binary limbs of a decimal token of more than 38 digits (shorter
//! ones fit a word and are read in `mod.rs`): in place up to
//! [`IN_PLACE_DIGITS`], by divide and conquer past that, or, for a token
//! read in pieces, as its digits come ([`DecimalStream`]).
//!
//! The two ways trade memory for time. The in-place loop allocates its
//! result once and nothing else, so `--memory log` keeps its bound on
//! decimal heaps of thousands of digits, but it is quadratic; dashu-int's
//! conversion is subquadratic (9,000,000 digits in about a second, within
//! 5x of GMP: `bench/long_decimal.sh`) and allocates as it multiplies.

use super::digits::{decimal_word, POWERS_OF_TEN};
use dashu_int::UBig;

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
    limbs_of_ubig(&parse_ubig(digits))
}

/// The value of validated decimal digits (none: 0).
fn parse_ubig(digits: &[u8]) -> UBig {
    let text = std::str::from_utf8(digits).expect("decimal digits are ASCII");
    match text.is_empty() {
        true => UBig::ZERO,
        false => UBig::from_str_radix(text, 10).expect("digits were validated"),
    }
}

/// The little-endian 64-bit limbs of `value`.
fn limbs_of_ubig(value: &UBig) -> Vec<u64> {
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

/// Digits a [`DecimalStream`] converts at a time.
const BLOCK_DIGITS: usize = 1 << 12;

/// A decimal number converted as its digits come, most significant first,
/// without holding them: the divide and conquer of
/// [`long_decimal_limbs`], bottom up. Whole blocks of [`BLOCK_DIGITS`]
/// digits are converted, and combined like the bits of a binary counter:
/// two values of `d` digits each become `high · 10^d + low`, so every
/// multiplication is balanced and each level of the tree costs one
/// multiplication of the whole number's size (O(M(n) log n) in all). It
/// holds the value so far (about 0.42 bytes a digit), the powers 10^d
/// used (about as much), and one block of digits.
#[derive(Debug, Default)]
pub(crate) struct DecimalStream {
    /// The values of the whole blocks so far, combined: each with its
    /// digit count, `BLOCK_DIGITS · 2^k` for k strictly decreasing, most
    /// significant first.
    combined: Vec<(UBig, usize)>,
    /// `10^(BLOCK_DIGITS · 2^k)` by k, as far as needed.
    powers: Vec<UBig>,
    /// The digits of the block being filled.
    pending: Vec<u8>,
}

impl DecimalStream {
    /// Takes the next validated digits.
    pub(crate) fn push(&mut self, mut digits: &[u8]) {
        while !digits.is_empty() {
            if self.pending.is_empty() && digits.len() >= BLOCK_DIGITS {
                // A whole block in the piece: converted where it lies.
                let (block, rest) = digits.split_at(BLOCK_DIGITS);
                self.add_block(parse_ubig(block));
                digits = rest;
                continue;
            }
            let take = (BLOCK_DIGITS - self.pending.len()).min(digits.len());
            self.pending.extend_from_slice(&digits[..take]);
            digits = &digits[take..];
            if self.pending.len() == BLOCK_DIGITS {
                let block = parse_ubig(&self.pending);
                self.pending.clear();
                self.add_block(block);
            }
        }
    }

    /// Appends a whole block's value, combining equal neighbours.
    fn add_block(&mut self, mut value: UBig) {
        let (mut digits, mut level) = (BLOCK_DIGITS, 0);
        while self.combined.last().is_some_and(|&(_, d)| d == digits) {
            let (high, _) = self.combined.pop().expect("checked above");
            value += high * self.power(level);
            (digits, level) = (2 * digits, level + 1);
        }
        self.combined.push((value, digits));
    }

    /// `10^(BLOCK_DIGITS · 2^level)`.
    fn power(&mut self, level: usize) -> &UBig {
        while self.powers.len() <= level {
            let next = match self.powers.last() {
                None => UBig::from(10u8).pow(BLOCK_DIGITS),
                Some(last) => last.sqr(),
            };
            self.powers.push(next);
        }
        &self.powers[level]
    }

    /// The limbs of the whole number.
    pub(crate) fn finish(mut self) -> Vec<u64> {
        let mut value = parse_ubig(&self.pending);
        // 10^(the digits `value` holds), up to the last step that needs it.
        let mut scale = UBig::from(10u8).pow(self.pending.len());
        let combined = std::mem::take(&mut self.combined);
        let count = combined.len();
        for (i, (high, digits)) in combined.into_iter().rev().enumerate() {
            value += high * &scale;
            if i + 1 < count {
                let level = (digits / BLOCK_DIGITS).trailing_zeros() as usize;
                scale *= self.power(level);
            }
        }
        limbs_of_ubig(&value)
    }
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
        let expected_nines = BigUint::parse_bytes(&nines, 10).unwrap().to_u64_digits();
        assert_eq!(streamed(&nines, &mut rng), expected_nines);
        let expected = BigUint::parse_bytes(&nines, 10).unwrap().to_u64_digits();
        assert_eq!(decimal_limbs(&nines), expected);
    }

    /// `digits` through a [`DecimalStream`] in pieces of random lengths.
    fn streamed(digits: &[u8], rng: &mut Rng) -> Vec<u64> {
        let mut stream = DecimalStream::default();
        let mut rest = digits;
        while !rest.is_empty() {
            let take = (1 + rng.below(3 * BLOCK_DIGITS)).min(rest.len());
            stream.push(&rest[..take]);
            rest = &rest[take..];
        }
        crate::input::heap::trimmed(stream.finish())
    }

    #[test]
    fn streamed_decimals_equal_num_bigint_at_every_block_count() {
        let mut rng = Rng(0xdec);
        let lengths = (0..20)
            .map(|blocks| blocks * BLOCK_DIGITS)
            .flat_map(|n| [n.saturating_sub(1), n, n + 1, n + 37]);
        for len in lengths.chain([1, 38, 39, 100_003]) {
            let mut text: Vec<u8> = (0..len).map(|_| rng.pick(b"0123456789")).collect();
            if len > 3 {
                // Leading zeros now and then.
                text[0] = rng.pick(b"0123456789");
            }
            let expected = BigUint::parse_bytes(&text, 10)
                .map_or_else(Vec::new, |value| value.to_u64_digits());
            assert_eq!(streamed(&text, &mut rng), expected, "{len} digits");
        }
    }
}
