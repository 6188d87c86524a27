//! `unary`: one heap per line, its value the number of `1` bytes on it.
//!
//! Lines end in LF; a CR right before the LF is ignored, a CR anywhere else
//! is an error. An empty line is a heap of 0; a last line without LF counts
//! when it is not empty.
//!
//! For a pass whose fold takes heaps in blocks, lines are read 64 bytes at
//! a time (`block_path.rs`) where they hold only `1`s and LFs; the general
//! path takes the rest, and finishes a line a run of blocks stopped in
//! from where the run left it.

use super::block_path::{self, Resume};
use crate::arch::short_tokens::Syntax;
use crate::error::ParseError;
use crate::input::blocks::WordBuffer;
use crate::input::heap::{Heap, HeapValue};
use crate::input::scanner::HeapScanner;
use crate::input::source::page_release::{PageReleaser, RELEASE_STEP_BYTES};

/// Yields the lines of a `unary` slice.
pub struct UnaryScanner<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    pages: PageReleaser<'a>,
    /// What the last run of blocks left checked.
    resume: Resume,
}

impl<'a> UnaryScanner<'a> {
    /// A scanner over `data`, whose first byte is at absolute offset `base`.
    pub fn new(data: &'a [u8], base: u64) -> Self {
        UnaryScanner {
            data,
            pos: 0,
            base,
            pages: PageReleaser::NONE,
            resume: Resume::default(),
        }
    }

    /// Releases the pages of long heaps with `pages` as they are checked.
    pub(crate) fn releasing(self, pages: PageReleaser<'a>) -> Self {
        UnaryScanner { pages, ..self }
    }

    /// The number of `1`s on the line `start..end` (`end` at its LF or at
    /// the end of the data), or the first byte that does not belong.
    fn count_ones(&self, start: usize, end: usize, has_lf: bool) -> Result<u64, ParseError> {
        let line = &self.data[start..end];
        let ones = match first_not_one(line) {
            None => line.len(),
            Some(bad) if bad + 1 == line.len() && line[bad] == b'\r' && has_lf => bad,
            Some(bad) => {
                let offset = self.base + (start + bad) as u64;
                let found = line[bad];
                return Err(if found == b'\r' {
                    ParseError::new(
                        offset,
                        "found a carriage return (0x0d) not followed by a line feed; \
                         expected '1' or the end of the line",
                    )
                } else {
                    ParseError::unexpected(offset, found, "'1' or the end of the line")
                });
            }
        };
        Ok(ones as u64)
    }
}

impl UnaryScanner<'_> {
    /// Finds the LF ending the line whose bytes from `from` on are not yet
    /// checked, in steps of [`RELEASE_STEP_BYTES`]: a step without an LF
    /// that holds only `1`s is counted and its pages released. Returns
    /// where the uncounted rest of the line starts, and the LF if there is
    /// one.
    fn skip_long_line(&self, mut from: usize) -> (usize, Option<usize>) {
        let data = self.data;
        loop {
            let step_end = data.len().min(from.saturating_add(RELEASE_STEP_BYTES));
            if let Some(i) = memchr::memchr(b'\n', &data[from..step_end]) {
                return (from, Some(from + i));
            }
            let step = &data[from..step_end];
            if step_end == data.len() || first_not_one(step).is_some() {
                let lf = memchr::memchr(b'\n', &data[step_end..]).map(|i| step_end + i);
                return (from, lf);
            }
            self.pages.release(step);
            from = step_end;
        }
    }
}

/// Eight `1` bytes.
const ONES: u64 = u64::from_le_bytes([b'1'; 8]);

/// The index of the first byte of `line` that is not `1`: 32 bytes are
/// compared at a time (four words, which the compiler turns into vector
/// compares), then the block holding a mismatch, and the tail, byte by byte.
fn first_not_one(line: &[u8]) -> Option<usize> {
    let mut checked = 0;
    for block in line.chunks_exact(32) {
        let mismatch = block.chunks_exact(8).fold(0, |acc, word| {
            acc | (u64::from_le_bytes(word.try_into().expect("eight bytes")) ^ ONES)
        });
        if mismatch != 0 {
            break;
        }
        checked += 32;
    }
    line[checked..]
        .iter()
        .position(|&b| b != b'1')
        .map(|bad| checked + bad)
}

impl<'a> HeapScanner<'a> for UnaryScanner<'a> {
    fn consumed(&self) -> usize {
        self.pos
    }

    const FILLS_WORDS: bool = true;

    fn fill_words(&mut self, words: &mut WordBuffer) {
        (self.pos, self.resume) =
            block_path::fill(Syntax::Unary, self.data, self.pos, self.base, words);
    }

    // Inlined into each pass's loop, so that the heap is built in
    // registers where the fold takes it (returned through memory, it is
    // written field by field and read back whole, which stalls the loop).
    #[inline(always)]
    fn next_heap(&mut self) -> Result<Option<Heap<'a>>, ParseError> {
        let start = self.pos;
        if start == self.data.len() {
            return Ok(None);
        }
        let unchecked = self.resume.unchecked_from(start);
        let (checked, lf) = self.skip_long_line(unchecked);
        let end = lf.unwrap_or(self.data.len());
        let ones = (checked - start) as u64 + self.count_ones(checked, end, lf.is_some())?;
        self.pos = lf.map_or(end, |lf| lf + 1);
        Ok(Some(Heap {
            offset: self.base + start as u64,
            value: HeapValue::Word(u128::from(ones)),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn values(data: &[u8]) -> Result<Vec<u128>, ParseError> {
        let mut scanner = UnaryScanner::new(data, 0);
        let mut out = Vec::new();
        while let Some(heap) = scanner.next_heap()? {
            let HeapValue::Word(w) = heap.value else {
                unreachable!("unary yields words")
            };
            out.push(w);
        }
        Ok(out)
    }

    #[test]
    fn the_spec_examples() {
        assert_eq!(values(b"").unwrap(), Vec::<u128>::new());
        assert_eq!(values(b"\n").unwrap(), vec![0]);
        assert_eq!(values(b"11\n1").unwrap(), vec![2, 1]);
        assert_eq!(values(b"111\n\n1\n").unwrap(), vec![3, 0, 1]);
        assert_eq!(values(b"11\r\n\r\n").unwrap(), vec![2, 0]);
    }

    #[test]
    fn block_compares_find_the_same_byte_as_a_byte_loop() {
        for len in 0..200 {
            let mut line = vec![b'1'; len];
            assert_eq!(first_not_one(&line), None, "{len}");
            for bad in 0..len {
                for byte in [b'0', b'\r', 0xb1] {
                    line[bad] = byte;
                    let expected = line.iter().position(|&b| b != b'1');
                    assert_eq!(first_not_one(&line), expected, "{len} {bad}");
                    line[bad] = b'1';
                }
            }
        }
    }

    #[test]
    fn lines_longer_than_a_release_step_count_every_one() {
        let long = RELEASE_STEP_BYTES * 2 + 5;
        let mut data = vec![b'1'; long];
        data.extend_from_slice(b"\n1");
        assert_eq!(values(&data).unwrap(), vec![long as u128, 1]);
        data.truncate(long);
        assert_eq!(values(&data).unwrap(), vec![long as u128]);
        data.extend_from_slice(b"\r\n");
        assert_eq!(values(&data).unwrap(), vec![long as u128]);
        data[RELEASE_STEP_BYTES + 3] = b'0';
        assert_eq!(
            values(&data).unwrap_err().offset,
            RELEASE_STEP_BYTES as u64 + 3
        );
    }

    #[test]
    fn a_stray_carriage_return_is_an_error() {
        assert_eq!(values(b"1\r1\n").unwrap_err().offset, 1);
        assert_eq!(values(b"11\r").unwrap_err().offset, 2);
        assert_eq!(values(b"1\r\r\n").unwrap_err().offset, 1);
        assert_eq!(values(b"\n10\n").unwrap_err().offset, 2);
    }
}
