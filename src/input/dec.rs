//! `dec`: whitespace-separated tokens of ASCII decimal digits.
//!
//! Tokens of up to 38 significant digits become a 128-bit word; longer ones
//! are converted to binary limbs by num-bigint, once, when the heap is read.

use super::token::{scan_digits, skip_space, strip_leading_zeros};
use super::{Heap, HeapScanner, HeapValue};
use crate::error::ParseError;
use num_bigint::BigUint;

/// The most decimal digits that always fit in a `u128`.
const WORD_DIGITS: usize = 38;

/// Yields the tokens of a `dec` slice.
pub struct DecScanner<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> DecScanner<'a> {
    /// A scanner over `data`, whose first byte is at absolute offset `base`.
    pub fn new(data: &'a [u8], base: u64) -> Self {
        DecScanner { data, pos: 0, base }
    }
}

/// The value of validated decimal digits without leading zeros.
pub fn decimal_value(digits: &[u8]) -> HeapValue<'static> {
    if digits.len() <= WORD_DIGITS {
        let word = digits
            .iter()
            .fold(0u128, |acc, &d| acc * 10 + u128::from(d - b'0'));
        return HeapValue::Word(word);
    }
    let big = BigUint::parse_bytes(digits, 10).expect("digits were validated");
    HeapValue::Limbs(big.to_u64_digits())
}

impl<'a> HeapScanner<'a> for DecScanner<'a> {
    fn next_heap(&mut self) -> Result<Option<Heap<'a>>, ParseError> {
        let start = skip_space(self.data, self.pos);
        if start == self.data.len() {
            self.pos = start;
            return Ok(None);
        }
        let end = scan_digits(
            self.data,
            start,
            self.base,
            |b| b.is_ascii_digit(),
            "a decimal digit (0-9) or whitespace",
        )?;
        self.pos = end;
        Ok(Some(Heap {
            offset: self.base + start as u64,
            value: decimal_value(strip_leading_zeros(&self.data[start..end])),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_and_long_tokens_have_the_same_limbs_as_num_bigint() {
        for text in [
            "0",
            "18446744073709551616",
            "340282366920938463463374607431768211455",
            "340282366920938463463374607431768211456",
            "123456789012345678901234567890123456789012345",
        ] {
            let value = decimal_value(strip_leading_zeros(text.as_bytes()));
            let expected = BigUint::parse_bytes(text.as_bytes(), 10).unwrap();
            assert_eq!(value.to_limbs(), expected.to_u64_digits(), "{text}");
        }
    }

    #[test]
    fn bad_bytes_and_offsets() {
        let mut scanner = DecScanner::new(b" 12 3a", 100);
        assert_eq!(scanner.next_heap().unwrap().unwrap().offset, 101);
        assert_eq!(scanner.next_heap().unwrap_err().offset, 105);
    }
}
