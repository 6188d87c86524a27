//! `dec`: whitespace-separated tokens of ASCII decimal digits.
//!
//! Tokens of up to 38 digits become a 128-bit word; longer ones are
//! converted to binary limbs by num-bigint, once, when the heap is read
//! (unless leading zeros bring them down to 38 significant digits).
//!
//! Most tokens are short, and two paths take them without the general
//! one:
//!
//! - the block path, for a pass whose fold takes heaps in blocks
//!   ([`HeapScanner::fill_words`], `block_path.rs`): tokens of up to 20 digits,
//!   64 bytes of text at a time;
//! - a fast path for a fold that takes heaps one at a time
//!   ([`HeapScanner::next_heap`]), which validates a token, finds its end
//!   and computes its value in one go, eight bytes at a time with SWAR.
//!
//! A token neither takes (more than 38 digits, too near the end of the
//! slice, or with a bad byte near it) goes through the general path:
//! [`scan_digits`], which reports errors, then [`decimal_value`].
//!
//! Measured on 1 GiB of 20-digit tokens, `analyze` on two threads: heaps
//! taken one at a time between two SWAR parses, 0.47 s (about 7 ns of
//! parse and 8-9 of fold a heap, the fold's 128-bit work between parses
//! not vectorised); in blocks, 0.20 s. The block path had been tried on
//! the one-at-a-time loop first (commit 9be77f7) and lost there: AVX2
//! could not inline into the scanner, nor the fold into a loop compiled
//! for AVX2.

pub(crate) mod digits;
pub(crate) mod limbs;

use super::block_path::{self, Resume};
use super::token::{is_space, scan_digits, skip_space, strip_leading_zeros};
use crate::arch::short_tokens::Syntax;
use crate::arch::token_end::Digits;
use crate::error::ParseError;
use crate::input::blocks::WordBuffer;
use crate::input::heap::{trimmed, Heap, HeapValue};
use crate::input::scanner::HeapScanner;
use crate::input::source::page_release::PageReleaser;
use digits::{decimal_word, parse8, parse_prefix, POWERS_OF_TEN};

/// What a bad byte in a `dec` token is told to be instead.
pub(crate) const EXPECTED: &str = "a decimal digit (0-9) or whitespace";

/// The most decimal digits that always fit in a `u128`.
const WORD_DIGITS: usize = 38;

/// Yields the tokens of a `dec` slice.
pub struct DecScanner<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    pages: PageReleaser<'a>,
    /// What the last run of blocks left checked.
    resume: Resume,
}

impl<'a> DecScanner<'a> {
    /// A scanner over `data`, whose first byte is at absolute offset `base`.
    pub fn new(data: &'a [u8], base: u64) -> Self {
        DecScanner {
            data,
            pos: 0,
            base,
            pages: PageReleaser::NONE,
            resume: Resume::default(),
        }
    }

    /// Releases the pages of long heaps with `pages` as they are checked.
    pub(crate) fn releasing(self, pages: PageReleaser<'a>) -> Self {
        DecScanner { pages, ..self }
    }
}

/// The value of validated decimal digits without leading zeros.
pub fn decimal_value(digits: &[u8]) -> HeapValue<'static> {
    if digits.len() <= WORD_DIGITS {
        return HeapValue::Word(decimal_word(digits));
    }
    HeapValue::Limbs(trimmed(limbs::limbs_of(digits)))
}

/// The eight bytes of `data` at `pos` as a little-endian word, if there.
#[inline]
fn word_at(data: &[u8], pos: usize) -> Option<u64> {
    let bytes = data.get(pos..pos.checked_add(8)?)?;
    Some(u64::from_le_bytes(bytes.try_into().expect("eight bytes")))
}

/// Where the first non-digit of `word` is (0-7), if it has one, and
/// whether that byte is whitespace.
#[inline]
fn token_end_in(word: u64) -> Option<(usize, bool)> {
    let stops = Digits::Decimal.non_digits(word);
    if stops == 0 {
        return None;
    }
    let len = (stops.trailing_zeros() / 8) as usize;
    Some((len, is_space((word >> (8 * len)) as u8)))
}

/// The fast path: the end and value of the token at
/// `start` if it has at most [`WORD_DIGITS`] digits (leading zeros
/// included) and is followed by whitespace within `data`; `None` sends it
/// to the general path. Eight bytes at a time, each validated and
/// converted in the same step: up to 16 digits in `u64`, then in `u128`.
#[inline(always)]
fn swar_short_token(data: &[u8], start: usize) -> Option<(usize, u128)> {
    let mut high = 0u64;
    for pos in [start, start + 8] {
        let word = word_at(data, pos)?;
        if let Some((len, at_space)) = token_end_in(word) {
            let value = high * POWERS_OF_TEN[len] + parse_prefix(word, len);
            return at_space.then_some((pos + len, u128::from(value)));
        }
        high = high * 100_000_000 + parse8(word);
    }
    // Past 38 digits the value may wrap around, but such a token is then
    // refused, whatever its value.
    let mut value = u128::from(high);
    for pos in [start + 16, start + 24, start + 32] {
        let word = word_at(data, pos)?;
        if let Some((len, at_space)) = token_end_in(word) {
            let fits = pos + len - start <= WORD_DIGITS;
            let value = value
                .wrapping_mul(u128::from(POWERS_OF_TEN[len]))
                .wrapping_add(u128::from(parse_prefix(word, len)));
            return (at_space && fits).then_some((pos + len, value));
        }
        value = value
            .wrapping_mul(100_000_000)
            .wrapping_add(u128::from(parse8(word)));
    }
    None
}

impl<'a> HeapScanner<'a> for DecScanner<'a> {
    fn consumed(&self) -> usize {
        self.pos
    }

    const FILLS_WORDS: bool = true;

    fn fill_words(&mut self, words: &mut WordBuffer) {
        (self.pos, self.resume) =
            block_path::fill(Syntax::Dec, self.data, self.pos, self.base, words);
    }

    #[inline(always)]
    fn next_heap(&mut self) -> Result<Option<Heap<'a>>, ParseError> {
        let start = skip_space(self.data, self.pos);
        if start == self.data.len() {
            self.pos = start;
            return Ok(None);
        }
        let unchecked = self.resume.unchecked_from(start);
        if let Some((end, value)) = swar_short_token(self.data, start) {
            // The byte at `end` is whitespace: the next token starts later.
            self.pos = end + 1;
            return Ok(Some(Heap {
                offset: self.base + start as u64,
                value: HeapValue::Word(value),
            }));
        }
        let end = scan_digits(
            self.data,
            unchecked,
            self.base,
            Digits::Decimal,
            EXPECTED,
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
mod tests;
