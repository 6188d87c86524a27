//! `dec`: whitespace-separated tokens of ASCII decimal digits.
//!
//! Tokens of up to 38 significant digits become a 128-bit word; longer ones
//! are converted to binary limbs by num-bigint, once, when the heap is read.

use super::pages::PageReleaser;
use super::token::{scan_digits, skip_space, strip_leading_zeros, Digits};
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
    pages: PageReleaser<'a>,
}

impl<'a> DecScanner<'a> {
    /// A scanner over `data`, whose first byte is at absolute offset `base`.
    pub fn new(data: &'a [u8], base: u64) -> Self {
        DecScanner {
            data,
            pos: 0,
            base,
            pages: PageReleaser::NONE,
        }
    }

    /// Releases the pages of long heaps with `pages` as they are checked.
    pub fn releasing(self, pages: PageReleaser<'a>) -> Self {
        DecScanner { pages, ..self }
    }
}

/// The value of validated decimal digits without leading zeros.
pub fn decimal_value(digits: &[u8]) -> HeapValue<'static> {
    if digits.len() <= WORD_DIGITS {
        return HeapValue::Word(decimal_word(digits));
    }
    let big = BigUint::parse_bytes(digits, 10).expect("digits were validated");
    HeapValue::Limbs(big.to_u64_digits())
}

/// The most decimal digits that always fit in a `u64`.
const U64_DIGITS: usize = 19;

/// The value of eight ASCII decimal digits, first digit most significant
/// (SWAR: pairs, then quads, then the whole, with three multiplications).
#[inline]
fn parse8(chunk: &[u8]) -> u64 {
    let word = u64::from_le_bytes(chunk.try_into().expect("eight digits"));
    let digits = word - 0x3030_3030_3030_3030;
    let pairs = (digits * 10 + (digits >> 8)) & 0x00ff_00ff_00ff_00ff;
    let quads = (pairs * 100 + (pairs >> 16)) & 0x0000_ffff_0000_ffff;
    (quads * 10_000 + (quads >> 32)) & 0xffff_ffff
}

/// Validated decimal digits (at most [`WORD_DIGITS`]) as a number: the
/// first `len % 8` digits one by one, then eight at a time, in `u64`
/// arithmetic up to 19 digits.
fn decimal_word(digits: &[u8]) -> u128 {
    let (head, rest) = digits.split_at(digits.len() % 8);
    let head = head
        .iter()
        .fold(0u64, |acc, &d| acc * 10 + u64::from(d - b'0'));
    let chunks = rest.chunks_exact(8);
    if digits.len() <= U64_DIGITS {
        u128::from(chunks.fold(head, |acc, chunk| acc * 100_000_000 + parse8(chunk)))
    } else {
        chunks.fold(u128::from(head), |acc, chunk| {
            acc * 100_000_000 + u128::from(parse8(chunk))
        })
    }
}

impl<'a> HeapScanner<'a> for DecScanner<'a> {
    #[inline]
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
            Digits::Decimal,
            "a decimal digit (0-9) or whitespace",
            self.pages,
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
    fn chunked_parsing_matches_a_digit_by_digit_fold() {
        let pattern = b"98765432109182736450";
        for len in 0..=WORD_DIGITS {
            for shift in 0..pattern.len() {
                let digits: Vec<u8> = pattern
                    .iter()
                    .cycle()
                    .skip(shift)
                    .take(len)
                    .copied()
                    .collect();
                let expected = digits
                    .iter()
                    .fold(0u128, |acc, &d| acc * 10 + u128::from(d - b'0'));
                assert_eq!(decimal_word(&digits), expected, "{len} {shift}");
            }
        }
        assert_eq!(decimal_word(&[b'9'; WORD_DIGITS]), 10u128.pow(38) - 1);
        assert_eq!(decimal_word(b"18446744073709551615"), u128::from(u64::MAX));
    }

    #[test]
    fn bad_bytes_and_offsets() {
        let mut scanner = DecScanner::new(b" 12 3a", 100);
        assert_eq!(scanner.next_heap().unwrap().unwrap().offset, 101);
        assert_eq!(scanner.next_heap().unwrap_err().offset, 105);
    }
}
