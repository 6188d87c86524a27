//! `hex`: whitespace-separated tokens of hex digits (either case), with an
//! optional `0x`/`0X` prefix, most significant digit first.
//!
//! Three paths read a token:
//!
//! - the block path ([`HeapScanner::fill_words`], `block_path.rs`), for a pass
//!   whose fold takes heaps in blocks: tokens of up to 16 digits, 64 bytes
//!   of text at a time;
//! - packing, for a one-pass caller that gives scratch space: a token of
//!   up to 4,096 digits checked and packed in one pass (`packed.rs`);
//! - the digits themselves, checked to the token's end and handed out.

pub(crate) mod packed;

use super::block_path::{self, Resume};
use super::token::{is_space, scan_digits, skip_space, strip_leading_zeros};
use crate::arch::short_tokens::Syntax;
use crate::arch::token_end::Digits;
use crate::error::ParseError;
use crate::input::blocks::WordBuffer;
use crate::input::heap::{Heap, HeapValue};
use crate::input::packed::TokenScratch;
use crate::input::scanner::HeapScanner;
use crate::input::source::page_release::PageReleaser;
use packed::hex_token;

/// What may follow a hex digit, for messages.
pub(crate) const EXPECTED: &str = "a hex digit (0-9, a-f, A-F) or whitespace";

/// Yields the tokens of a `hex` slice.
pub struct HexScanner<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    pages: PageReleaser<'a>,
    /// What the last run of blocks left checked.
    resume: Resume,
    /// Whether runs of blocks take tokens of up to 32 digits
    /// ([`Syntax::WideHex`]): set when the general path has taken one of
    /// 17-32 digits, which a run of [`Syntax::Hex`] leaves to it, and
    /// while the wide runs find such tokens.
    wide: bool,
}

impl<'a> HexScanner<'a> {
    /// A scanner over `data`, whose first byte is at absolute offset `base`.
    pub fn new(data: &'a [u8], base: u64) -> Self {
        HexScanner {
            data,
            pos: 0,
            base,
            pages: PageReleaser::NONE,
            resume: Resume::default(),
            wide: false,
        }
    }

    /// Releases the pages of long heaps with `pages` as they are checked.
    pub(crate) fn releasing(self, pages: PageReleaser<'a>) -> Self {
        HexScanner { pages, ..self }
    }

    /// The index just past a `0x`/`0X` prefix at `start`, or `start`.
    /// Inlined into the token loop: a call for each token, its result
    /// returned through memory, cost more than the test.
    #[inline(always)]
    fn skip_prefix(&self, start: usize) -> Result<usize, ParseError> {
        let has_prefix =
            self.data[start] == b'0' && matches!(self.data.get(start + 1), Some(b'x' | b'X'));
        match has_prefix {
            false => Ok(start),
            true => self.past_prefix(start + 2),
        }
    }

    /// `digits`, the index just past a prefix, if a hex digit is there;
    /// the error otherwise. Out of line: most files have no prefixes
    /// (`gen` writes none), and the token loop stays small.
    #[cold]
    #[inline(never)]
    fn past_prefix(&self, digits: usize) -> Result<usize, ParseError> {
        match self.data.get(digits) {
            Some(&b) if b.is_ascii_hexdigit() => Ok(digits),
            Some(&b) if !is_space(b) => Err(ParseError::unexpected(
                self.base + digits as u64,
                b,
                "a hex digit after the 0x prefix",
            )),
            _ => Err(ParseError::new(
                self.base + digits as u64,
                "expected a hex digit after the 0x prefix, found none",
            )),
        }
    }
}

impl<'a> HeapScanner<'a> for HexScanner<'a> {
    fn consumed(&self) -> usize {
        self.pos
    }

    #[inline]
    fn next_heap(&mut self) -> Result<Option<Heap<'a>>, ParseError> {
        let Some(start) = self.next_token() else {
            return Ok(None);
        };
        let digits = self.skip_prefix(start)?;
        self.borrowed_heap(start, digits).map(Some)
    }

    const FILLS_WORDS: bool = true;

    fn fill_words(&mut self, words: &mut WordBuffer) {
        let syntax = match self.wide {
            true => Syntax::WideHex,
            false => Syntax::Hex,
        };
        (self.pos, self.resume) = block_path::fill(syntax, self.data, self.pos, self.base, words);
        // A wide run that met no wide token ends them, until the general
        // path meets one again: a `u128` now and then among short tokens
        // leaves them to the cheaper runs (the driver hands each run's
        // heaps to the fold before the next).
        self.wide &= words.high_or() != 0;
    }

    /// Packs a token of up to 4,096 digits into `scratch`, when given, as
    /// it checks it; hands out the digits of the others. The heap is built
    /// where `take` takes it.
    #[inline(always)]
    fn take_heap<E: From<ParseError>>(
        &mut self,
        scratch: Option<&mut TokenScratch>,
        take: impl FnOnce(&Heap<'_>) -> Result<(), E>,
    ) -> Result<bool, E> {
        let Some(start) = self.next_token() else {
            return Ok(false);
        };
        let digits = self.skip_prefix(start)?;
        let offset = self.base + start as u64;
        let packed = match scratch {
            Some(scratch) => hex_token(self.data, digits, self.base, EXPECTED, scratch)?,
            None => None,
        };
        match packed {
            Some((end, packed)) => {
                self.pos = end;
                self.note_width(digits);
                take(&Heap {
                    offset,
                    value: packed.into_value(),
                })?;
            }
            None => {
                let heap = self.borrowed_heap(start, digits)?;
                self.note_width(digits);
                take(&heap)?;
            }
        }
        Ok(true)
    }
}

impl<'a> HexScanner<'a> {
    /// The first byte of the next token, or `None` at the end of the slice.
    #[inline]
    fn next_token(&mut self) -> Option<usize> {
        let start = skip_space(self.data, self.pos);
        if start == self.data.len() {
            self.pos = start;
            return None;
        }
        Some(start)
    }

    /// Notes the width of the token just taken, whose first digit is at
    /// `digits`: one of 17-32 digits turns the runs of blocks to
    /// [`Syntax::WideHex`].
    #[inline(always)]
    fn note_width(&mut self, digits: usize) {
        let wide = Syntax::Hex.max_digits() + 1..=Syntax::WideHex.max_digits();
        self.wide |= wide.contains(&(self.pos - digits));
    }

    /// The token whose first digit is at `digits`, as its digits (those a
    /// run of blocks checked are not checked again).
    #[inline(always)]
    fn borrowed_heap(&mut self, start: usize, digits: usize) -> Result<Heap<'a>, ParseError> {
        let end = scan_digits(
            self.data,
            self.resume.unchecked_from(digits),
            self.base,
            Digits::Hex,
            EXPECTED,
            self.pages,
        )?;
        self.pos = end;
        Ok(Heap {
            offset: self.base + start as u64,
            value: HeapValue::Hex(strip_leading_zeros(&self.data[digits..end])),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(data: &[u8]) -> Result<Vec<(u64, Vec<u8>)>, ParseError> {
        let mut scanner = HexScanner::new(data, 0);
        let mut out = Vec::new();
        while let Some(heap) = scanner.next_heap()? {
            let HeapValue::Hex(digits) = heap.value else {
                unreachable!("hex yields hex digits")
            };
            out.push((heap.offset, digits.to_vec()));
        }
        Ok(out)
    }

    /// The heaps of `data` as the driver reads them for a fold that takes
    /// blocks: runs of blocks, and one heap by the general path (with
    /// scratch, as the one pass reads) after each run that is not full;
    /// each heap's offset and limbs, and how many came in blocks.
    fn in_blocks(data: &[u8]) -> (Vec<(u64, Vec<u64>)>, usize) {
        let mut scanner = HexScanner::new(data, 0);
        let (mut words, mut scratch) = (WordBuffer::default(), TokenScratch::default());
        let (mut heaps, mut from_blocks) = (Vec::new(), 0);
        loop {
            scanner.fill_words(&mut words);
            let block = words.block(0);
            for i in 0..block.len() {
                heaps.push((block.offsets[i], block.heap(i).value.to_limbs()));
            }
            from_blocks += block.len();
            let full = words.is_full();
            words.clear();
            if full {
                continue;
            }
            let took = scanner.take_heap(Some(&mut scratch), |heap| {
                heaps.push((heap.offset, heap.value.to_limbs()));
                Ok::<(), ParseError>(())
            });
            if !took.unwrap() {
                return (heaps, from_blocks);
            }
        }
    }

    #[test]
    fn once_a_token_of_17_to_32_digits_is_met_runs_of_blocks_take_them() {
        // Tokens of 1 to 32 digits; the first of 17 or more is the tenth.
        let tokens: Vec<String> = (0..2000u32)
            .map(|i| {
                format!(
                    "{:x}",
                    u128::from(i.wrapping_mul(2_654_435_761)) << (4 * (i % 17))
                )
            })
            .collect();
        let data = tokens.join("\n").into_bytes();
        let (heaps, from_blocks) = in_blocks(&data);
        let mut offset = 0;
        for (token, (at, limbs)) in tokens.iter().zip(&heaps) {
            let value = u128::from_str_radix(token, 16).unwrap();
            let expected = HeapValue::Word(value).to_limbs();
            assert_eq!((*at, limbs), (offset, &expected), "token {token}");
            offset += token.len() as u64 + 1;
        }
        assert_eq!(heaps.len(), tokens.len());
        // All but the tokens before the first wide run and those near the end.
        assert!(
            from_blocks > tokens.len() - 40,
            "{from_blocks} heaps from blocks"
        );
    }

    #[test]
    fn prefixes_are_optional_and_offsets_point_at_the_zero() {
        let found = scan(b"0x1F 00a\n0X0").unwrap();
        assert_eq!(
            found,
            vec![(0, b"1F".to_vec()), (5, b"a".to_vec()), (9, b"".to_vec())]
        );
    }

    #[test]
    fn a_bare_prefix_fails_at_the_byte_after_it() {
        assert_eq!(scan(b"0x").unwrap_err().offset, 2);
        assert_eq!(scan(b"1 0x 2").unwrap_err().offset, 4);
        assert_eq!(scan(b"0xg").unwrap_err().offset, 2);
    }

    #[test]
    fn a_prefix_inside_a_token_is_a_bad_byte() {
        assert_eq!(scan(b"00x1").unwrap_err().offset, 2);
        assert_eq!(scan(b"0x0x1").unwrap_err().offset, 3);
    }

    /// Each heap's offset and limbs.
    type Found = Vec<(u64, Vec<u64>)>;

    /// Each heap's offset and limbs, or the error, as `each_heap` yields
    /// them with `scratch` or without; and how many were packed (handed
    /// out as a word up to 128 bits, as groups past that).
    fn heaps(
        data: &[u8],
        scratch: Option<&mut TokenScratch>,
    ) -> (Result<Found, ParseError>, usize) {
        let (mut found, mut packed) = (Vec::new(), 0);
        let scanned = HexScanner::new(data, 1000).each_heap(scratch, |heap| {
            let bits = heap.value.bit_length();
            match heap.value {
                HeapValue::Hex(_) => {}
                HeapValue::Word(_) => assert!(bits <= 128, "a word of {bits} bits"),
                HeapValue::Packed(_) => assert!(bits > 128, "groups of {bits} bits"),
                _ => unreachable!("hex gives digits, words or groups"),
            }
            packed += !matches!(heap.value, HeapValue::Hex(_)) as usize;
            found.push((heap.offset, heap.value.to_limbs()));
            Ok::<_, ParseError>(())
        });
        (scanned.map(|()| found), packed)
    }

    #[test]
    fn packed_tokens_are_the_heaps_the_digits_give() {
        let mut rng = 0x2545_F491_4F6C_DD1Du64;
        let mut random = move |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        let mut scratch = TokenScratch::default();
        let mut packed_heaps = 0;
        for round in 0..400 {
            let mut data = Vec::new();
            for _ in 0..random(12) {
                data.extend_from_slice([&b" "[..], b"\n", b"\t\r\n"][random(3) as usize]);
                if random(4) == 0 {
                    data.extend_from_slice(b"0x");
                }
                let len = [random(40), random(5000)][random(2) as usize];
                data.extend((0..len).map(|_| b"0123456789abcdefABCDEF"[random(22) as usize]));
            }
            if round % 3 == 0 && !data.is_empty() {
                let at = random(data.len() as u64) as usize;
                data[at] = [b'g', b'x', 0xff, b'-'][random(4) as usize];
            }
            let (by_digits, none_packed) = heaps(&data, None);
            let (packed, count) = heaps(&data, Some(&mut scratch));
            assert_eq!(packed, by_digits, "{}", String::from_utf8_lossy(&data));
            assert_eq!(none_packed, 0);
            packed_heaps += count;
        }
        assert!(packed_heaps > 1000, "{packed_heaps} tokens packed");
    }
}
