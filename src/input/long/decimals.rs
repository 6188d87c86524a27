//! A `dec` token too long for one read buffer, taken in pieces: each
//! piece is checked as it arrives and its digits go straight into a
//! [`DecimalStream`], which converts them in subquadratic time as they
//! come. Neither the token's text nor a buffer that grows to hold it is
//! kept: a positioned pass reads a decimal heap of any length through its
//! fixed buffer, as it reads long `bits` and `hex` tokens
//! ([`super::pieces`]).

use crate::arch::token_end::Digits;
use crate::error::ParseError;
use crate::input::formats::dec::limbs::DecimalStream;
use crate::input::formats::dec::EXPECTED;
use crate::input::formats::token::scan_digits;
use crate::input::heap::{trimmed, Heap, HeapValue};
use crate::input::source::page_release::PageReleaser;

/// A decimal token being read piece by piece.
#[derive(Debug)]
pub struct LongDecimal {
    /// The token's first byte.
    offset: u64,
    /// The byte after the last one fed.
    next: u64,
    value: DecimalStream,
}

impl LongDecimal {
    /// Starts a token with its first piece, which begins at the token's
    /// first byte, at absolute offset `base`, and holds no whitespace (a
    /// bad byte in it is an error).
    pub fn start(first: &[u8], base: u64) -> Result<LongDecimal, ParseError> {
        let mut token = LongDecimal {
            offset: base,
            next: base,
            value: DecimalStream::default(),
        };
        token.feed(first)?;
        Ok(token)
    }

    /// The byte after the last one fed.
    pub fn next(&self) -> u64 {
        self.next
    }

    /// Feeds the next piece of the input: `Some(i)` when the token ends at
    /// `piece[i]` (whitespace), `None` when it may go on, or the first byte
    /// that is neither a digit nor whitespace.
    pub fn feed(&mut self, piece: &[u8]) -> Result<Option<usize>, ParseError> {
        let end = scan_digits(
            piece,
            0,
            self.next,
            Digits::Decimal,
            EXPECTED,
            PageReleaser::NONE,
        )?;
        self.value.push(&piece[..end]);
        self.next += end as u64;
        Ok((end < piece.len()).then_some(end))
    }

    /// The token as a heap, once it has ended.
    pub fn finish(self) -> Heap<'static> {
        Heap {
            offset: self.offset,
            value: HeapValue::Limbs(trimmed(self.value.finish())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arch::token_end::tests::Rng;
    use crate::input::format::Format;
    use crate::input::formats::any::Scanner;
    use crate::input::scanner::HeapScanner;

    /// The token at the start of `text` read in pieces of random lengths:
    /// the heap and where it ended, or the error.
    fn in_pieces(text: &[u8], rng: &mut Rng) -> Result<(Heap<'static>, usize), ParseError> {
        let first = 1 + rng.below(text.len());
        let mut token = LongDecimal::start(&text[..first], 500)?;
        let mut at = first;
        while at < text.len() {
            let len = (1 + rng.below(20_000)).min(text.len() - at);
            if let Some(end) = token.feed(&text[at..at + len])? {
                return Ok((token.finish(), at + end));
            }
            at += len;
        }
        Ok((token.finish(), text.len()))
    }

    #[test]
    fn tokens_in_pieces_give_the_scanners_heap_or_error() {
        let mut rng = Rng(0x10d);
        for round in 0..60 {
            let len = 1 + rng.below(60_000);
            let mut text: Vec<u8> = (0..len).map(|_| rng.pick(b"0123456789")).collect();
            if round % 3 == 1 {
                // A bad byte somewhere after the first.
                let at = 1 + rng.below(len);
                text.insert(at, rng.pick(b"x-.\x00\xff"));
            }
            if round % 2 == 0 {
                text.extend_from_slice(b"\n42 ");
            }
            let token_end = text.iter().position(|&b| b == b'\n').unwrap_or(text.len());
            let mut scanner = Scanner::new(Format::Dec, &text, 500);
            let expected = scanner.next_heap().map(|heap| {
                let heap = heap.expect("a token");
                (
                    heap.offset,
                    HeapValue::Limbs(heap.value.to_limbs()),
                    token_end,
                )
            });
            let found =
                in_pieces(&text, &mut rng).map(|(heap, end)| (heap.offset, heap.value, end));
            assert_eq!(found, expected, "round {round}, {len} digits");
        }
    }
}
