//! The scanner for any format ([`Scanner`]): one enum over the formats'
//! scanners, dispatched once per slice by a [`ScanVisitor`] (or once per
//! heap), and where each format may cut its bytes into pieces: the longest
//! prefix that ends on a heap boundary ([`complete_prefix`]) and the first
//! boundary of a text format ([`first_boundary`]).

use super::{bits, dec, hex, nimb, raw, token, unary};
use crate::error::ParseError;
use crate::input::format::Format;
use crate::input::heap::Heap;
use crate::input::scanner::{HeapScanner, ScanVisitor};
use crate::input::source::page_release::PageReleaser;

/// The scanner for any format, dispatching once per heap.
pub enum Scanner<'a> {
    /// `bits` tokens.
    Bits(bits::BitsScanner<'a>),
    /// `hex` tokens.
    Hex(hex::HexScanner<'a>),
    /// `dec` tokens.
    Dec(dec::DecScanner<'a>),
    /// `unary` lines.
    Unary(unary::UnaryScanner<'a>),
    /// Raw little-endian arrays.
    Raw(raw::RawScanner<'a>),
    /// `nimb` records.
    Nimb(nimb::NimbScanner<'a>),
}

impl<'a> Scanner<'a> {
    /// A scanner over `data`, whose first byte is at absolute offset `base`.
    /// A `nimb` slice starting at offset 0 begins with the header.
    pub fn new(format: Format, data: &'a [u8], base: u64) -> Scanner<'a> {
        match format {
            Format::Bits => Scanner::Bits(bits::BitsScanner::new(data, base)),
            Format::Hex => Scanner::Hex(hex::HexScanner::new(data, base)),
            Format::Dec => Scanner::Dec(dec::DecScanner::new(data, base)),
            Format::Unary => Scanner::Unary(unary::UnaryScanner::new(data, base)),
            Format::Nimb => Scanner::Nimb(nimb::NimbScanner::new(data, base)),
            raw => Scanner::Raw(raw::RawScanner::new(
                data,
                base,
                raw.raw_width()
                    .expect("the remaining formats are raw arrays"),
            )),
        }
    }
}

impl<'a> Scanner<'a> {
    /// Hands the format's own scanner to `visitor`.
    pub fn visit<V: ScanVisitor<'a>>(self, visitor: V) -> V::Output {
        match self {
            Scanner::Bits(s) => visitor.visit(s),
            Scanner::Hex(s) => visitor.visit(s),
            Scanner::Dec(s) => visitor.visit(s),
            Scanner::Unary(s) => visitor.visit(s),
            Scanner::Raw(s) => visitor.visit(s),
            Scanner::Nimb(s) => visitor.visit(s),
        }
    }

    /// Releases the pages of long heaps with `pages` as they are checked
    /// (the formats whose heaps can be long and are read while scanning).
    pub(crate) fn releasing(self, pages: PageReleaser<'a>) -> Scanner<'a> {
        match self {
            Scanner::Bits(s) => Scanner::Bits(s.releasing(pages)),
            Scanner::Hex(s) => Scanner::Hex(s.releasing(pages)),
            Scanner::Dec(s) => Scanner::Dec(s.releasing(pages)),
            Scanner::Unary(s) => Scanner::Unary(s.releasing(pages)),
            other => other,
        }
    }
}

impl<'a> HeapScanner<'a> for Scanner<'a> {
    // Inlined into the passes' loops: returned by a call, a 128-bit value
    // written in two halves and read back whole stalls the loop.
    #[inline(always)]
    fn next_heap(&mut self) -> Result<Option<Heap<'a>>, ParseError> {
        match self {
            Scanner::Bits(s) => s.next_heap(),
            Scanner::Hex(s) => s.next_heap(),
            Scanner::Dec(s) => s.next_heap(),
            Scanner::Unary(s) => s.next_heap(),
            Scanner::Raw(s) => s.next_heap(),
            Scanner::Nimb(s) => s.next_heap(),
        }
    }

    fn consumed(&self) -> usize {
        match self {
            Scanner::Bits(s) => s.consumed(),
            Scanner::Hex(s) => s.consumed(),
            Scanner::Dec(s) => s.consumed(),
            Scanner::Unary(s) => s.consumed(),
            Scanner::Raw(s) => s.consumed(),
            Scanner::Nimb(s) => s.consumed(),
        }
    }
}

/// The length of the longest prefix of `buffer` that ends on a heap boundary,
/// so that a stream can be parsed in chunks (`at_start`: the buffer begins
/// the input). The rest is kept for the next read.
pub(crate) fn complete_prefix(format: Format, buffer: &[u8], at_start: bool) -> usize {
    match format {
        Format::Bits | Format::Hex | Format::Dec => token::complete_prefix(buffer),
        Format::Unary => memchr::memrchr(b'\n', buffer).map_or(0, |lf| lf + 1),
        Format::Nimb => nimb::complete_prefix(buffer, at_start),
        raw => {
            let width = raw.raw_width().expect("raw array format");
            buffer.len() - buffer.len() % width
        }
    }
}

/// The first heap boundary in `bytes` of a text format, cutting only
/// after a separator (whitespace for tokens, LF for unary): the index just
/// past it. The counterpart of [`complete_prefix`] for a reader that starts
/// in the middle of a file.
pub(crate) fn first_boundary(format: Format, bytes: &[u8]) -> Option<usize> {
    let found = match format {
        Format::Unary => memchr::memchr(b'\n', bytes),
        _ => bytes.iter().position(|&b| token::is_space(b)),
    };
    found.map(|i| i + 1)
}
