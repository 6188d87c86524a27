//! `u8`, `u16le`, `u32le`, `u64le`: a plain array of fixed-width unsigned
//! little-endian integers, one heap each.

use crate::error::ParseError;
use crate::input::heap::{Heap, HeapValue};
use crate::input::scanner::HeapScanner;

/// Yields the elements of a raw array slice.
pub struct RawScanner<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    width: usize,
}

impl<'a> RawScanner<'a> {
    /// A scanner over `data` (first byte at offset `base`) of `width`-byte elements.
    pub fn new(data: &'a [u8], base: u64, width: usize) -> Self {
        RawScanner {
            data,
            pos: 0,
            base,
            width,
        }
    }
}

/// The error for `count` bytes at `offset` after the last whole element.
pub fn trailing_bytes_error(offset: u64, count: usize, width: usize) -> ParseError {
    ParseError::new(
        offset,
        format!(
            "{count} trailing byte{} after the last whole element; \
             expected the file size to be a multiple of {width}",
            if count == 1 { "" } else { "s" },
        ),
    )
}

impl<'a> HeapScanner<'a> for RawScanner<'a> {
    fn consumed(&self) -> usize {
        self.pos
    }

    // Inlined into each pass's loop, so that the heap is built in
    // registers where the fold takes it (returned through memory, it is
    // written field by field and read back whole, which stalls the loop).
    #[inline(always)]
    fn next_heap(&mut self) -> Result<Option<Heap<'a>>, ParseError> {
        let rest = &self.data[self.pos..];
        if rest.is_empty() {
            return Ok(None);
        }
        if rest.len() < self.width {
            return Err(trailing_bytes_error(
                self.base + self.pos as u64,
                rest.len(),
                self.width,
            ));
        }
        let value = match self.width {
            1 => u64::from(rest[0]),
            2 => u64::from(u16::from_le_bytes([rest[0], rest[1]])),
            4 => u64::from(u32::from_le_bytes(
                rest[..4].try_into().expect("four bytes"),
            )),
            _ => u64::from_le_bytes(rest[..8].try_into().expect("eight bytes")),
        };
        let offset = self.base + self.pos as u64;
        self.pos += self.width;
        Ok(Some(Heap {
            offset,
            value: HeapValue::Word(u128::from(value)),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_are_little_endian() {
        let mut scanner = RawScanner::new(&[1, 2, 3, 4], 0, 2);
        let first = scanner.next_heap().unwrap().unwrap();
        assert_eq!(first.value, HeapValue::Word(0x0201));
        let second = scanner.next_heap().unwrap().unwrap();
        assert_eq!((second.offset, second.value), (2, HeapValue::Word(0x0403)));
        assert!(scanner.next_heap().unwrap().is_none());
    }

    #[test]
    fn trailing_bytes_fail_at_the_first_of_them() {
        let mut scanner = RawScanner::new(&[0; 11], 0, 4);
        scanner.next_heap().unwrap();
        scanner.next_heap().unwrap();
        let error = scanner.next_heap().unwrap_err();
        assert_eq!(error.offset, 8);
        assert!(
            error.message.starts_with("3 trailing bytes"),
            "{}",
            error.message
        );
    }
}
