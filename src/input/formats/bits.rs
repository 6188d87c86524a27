//! `bits`: whitespace-separated tokens of ASCII `0`/`1`, most significant
//! bit first.
//!
//! For a pass whose fold takes heaps in blocks, tokens of up to 64 digits
//! are read 64 bytes of text at a time (`block_path.rs`); every other token's
//! digits are checked to its end and handed out.

use super::block_path::{self, Resume};
use super::token::{scan_digits, skip_space, strip_leading_zeros};
use crate::arch::short_tokens::Syntax;
use crate::arch::token_end::Digits;
use crate::error::ParseError;
use crate::input::blocks::WordBuffer;
use crate::input::heap::{Heap, HeapValue};
use crate::input::scanner::HeapScanner;
use crate::input::source::page_release::PageReleaser;

/// What may follow a binary digit, for messages.
pub(crate) const EXPECTED: &str = "a binary digit ('0' or '1') or whitespace";

/// Yields the tokens of a `bits` slice.
pub struct BitsScanner<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    pages: PageReleaser<'a>,
    /// What the last run of blocks left checked.
    resume: Resume,
}

impl<'a> BitsScanner<'a> {
    /// A scanner over `data`, whose first byte is at absolute offset `base`.
    pub fn new(data: &'a [u8], base: u64) -> Self {
        BitsScanner {
            data,
            pos: 0,
            base,
            pages: PageReleaser::NONE,
            resume: Resume::default(),
        }
    }

    /// Releases the pages of long heaps with `pages` as they are checked.
    pub(crate) fn releasing(self, pages: PageReleaser<'a>) -> Self {
        BitsScanner { pages, ..self }
    }
}

impl<'a> HeapScanner<'a> for BitsScanner<'a> {
    fn consumed(&self) -> usize {
        self.pos
    }

    const FILLS_WORDS: bool = true;

    fn fill_words(&mut self, words: &mut WordBuffer) {
        (self.pos, self.resume) =
            block_path::fill(Syntax::Bits, self.data, self.pos, self.base, words);
    }

    // Inlined into each pass's loop, so that the heap is built in
    // registers where the fold takes it (returned through memory, it is
    // written field by field and read back whole, which stalls the loop).
    #[inline(always)]
    fn next_heap(&mut self) -> Result<Option<Heap<'a>>, ParseError> {
        let start = skip_space(self.data, self.pos);
        if start == self.data.len() {
            self.pos = start;
            return Ok(None);
        }
        let end = scan_digits(
            self.data,
            self.resume.unchecked_from(start),
            self.base,
            Digits::Binary,
            EXPECTED,
            self.pages,
        )?;
        self.pos = end;
        Ok(Some(Heap {
            offset: self.base + start as u64,
            value: HeapValue::Binary(strip_leading_zeros(&self.data[start..end])),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heaps(data: &[u8]) -> Result<Vec<(u64, Vec<u8>)>, ParseError> {
        let mut scanner = BitsScanner::new(data, 0);
        let mut out = Vec::new();
        while let Some(heap) = scanner.next_heap()? {
            let HeapValue::Binary(digits) = heap.value else {
                unreachable!("bits yields binary digits")
            };
            out.push((heap.offset, digits.to_vec()));
        }
        Ok(out)
    }

    #[test]
    fn tokens_keep_their_offsets_and_lose_leading_zeros() {
        let found = heaps(b" 011\t0\r\n1 ").unwrap();
        assert_eq!(
            found,
            vec![(1, b"11".to_vec()), (5, b"".to_vec()), (8, b"1".to_vec())]
        );
    }

    #[test]
    fn tokens_longer_than_a_release_step_are_checked_to_the_end() {
        use crate::input::source::page_release::RELEASE_STEP_BYTES;
        let long = RELEASE_STEP_BYTES * 2 + 3;
        let mut data = vec![b'1'; long];
        data.extend_from_slice(b" 0");
        let found = heaps(&data).unwrap();
        assert_eq!((found[0].1.len(), found[1].0), (long, long as u64 + 1));
        data[RELEASE_STEP_BYTES + 9] = b'2';
        assert_eq!(
            heaps(&data).unwrap_err().offset,
            RELEASE_STEP_BYTES as u64 + 9
        );
    }

    #[test]
    fn empty_and_blank_inputs_have_no_heaps() {
        assert!(heaps(b"").unwrap().is_empty());
        assert!(heaps(b" \n\r\t").unwrap().is_empty());
    }

    #[test]
    fn a_bad_byte_is_reported_where_it_is() {
        assert_eq!(heaps(b"01 102").unwrap_err().offset, 5);
        assert_eq!(heaps(b"1\x0c1").unwrap_err().offset, 1);
        assert_eq!(heaps(b"x").unwrap_err().offset, 0);
    }
}
