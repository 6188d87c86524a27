//! Reading instances: where the bytes come from, one module per format,
//! each a [`HeapScanner`] that yields the heaps of a byte slice in file
//! order, and the driver that reads an input in pieces and pushes its heaps
//! into the analysis's folds.
//!
//! A scanner never copies a heap: it hands out a [`HeapValue`] that borrows
//! the digits from the input, validated, with leading zeros stripped. The
//! value can then give any 64-bit limb of the heap, so the accumulator can
//! XOR any window of bit positions without converting the whole heap (the
//! one exception is a decimal token of more than 38 digits, which is
//! converted to binary limbs once in `dec.rs`: in place up to 10,000
//! digits, by divide and conquer past that). A one-pass caller
//! that takes each heap before the next may instead give the scanner
//! scratch space ([`HeapScanner::each_heap`]): a short `hex` token is then
//! checked and packed into it in one pass ([`PackedDigits`]). For a fold
//! that takes heaps in blocks, the text scanners read their short tokens
//! 64 bytes at a time into a block of words ([`HeapScanner::fill_words`],
//! `blocks.rs`), and the general path takes the rest.
//!
//! Where the bytes come from (a buffer, a regular file read with `pread` or
//! through its map, a pipe) is decided in `source`; the driver (`driver`)
//! reads them in pieces cut at heap boundaries, on threads; the scanners
//! only see slices. Line numbers are counted in `lines`, a file's changes
//! watched in `file_changes`, a map's pages released in `page_release`.

mod bits;
mod blocks;
pub mod cancel;
mod dec;
mod decimal_digits;
mod decimal_limbs;
pub(crate) mod driver;
pub(crate) mod file_changes;
mod format;
mod hex;
pub(crate) mod lines;
mod long_decimals;
mod long_tokens;
mod nimb;
mod packed_hex;
pub(crate) mod page_release;
pub mod progress;
mod raw;
pub(crate) mod source;
mod token;
mod tokens_from_end;
mod unary;
mod words;

pub(crate) use decimal_digits::{parse8, parse_prefix, POWERS_OF_TEN};
pub use format::{detect, format_of, Format, NIMB_HEADER};
pub(crate) use long_decimals::LongDecimal;
pub(crate) use long_tokens::{LongHeap, LongTail, LongToken};
pub(crate) use packed_hex::shifted_limb;
pub use packed_hex::{PackedDigits, TokenScratch};
pub(crate) use page_release::PageReleaser;
pub(crate) use raw::{trailing_bytes_error, RawBlock};
pub(crate) use token::is_space;
pub(crate) use tokens_from_end::SummedHeap;
pub use words::{WordBlock, WordBuffer, WORDS_PER_BLOCK};

use crate::arch::digits;
use crate::error::ParseError;

/// Where a heap is: its index in the instance and its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapPos {
    /// 0-based heap index.
    pub index: u64,
    /// 0-based offset of the heap's first byte.
    pub offset: u64,
}

/// One heap as it was found in the input.
#[derive(Clone, Debug)]
pub struct Heap<'a> {
    /// Absolute 0-based offset of the heap's first byte.
    pub offset: u64,
    /// The heap's value, borrowing from the input where it can.
    pub value: HeapValue<'a>,
}

/// A heap's value in the encoding it was read in, normalised so that the
/// most significant digit (or limb, or byte) is non-zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeapValue<'a> {
    /// A value that fits in 128 bits (raw arrays, unary, short decimals).
    Word(u128),
    /// ASCII `0`/`1`, most significant first, no leading `0`.
    Binary(&'a [u8]),
    /// ASCII hex digits of either case, most significant first, no leading `0`.
    Hex(&'a [u8]),
    /// A little-endian magnitude without high zero bytes.
    LeBytes(&'a [u8]),
    /// Little-endian 64-bit limbs without high zero limbs (long decimals).
    Limbs(Vec<u64>),
    /// A short token as its scanner packed it, in the scanner's scratch
    /// space.
    Packed(PackedDigits<'a>),
}

/// Little-endian limbs without their high zero limbs: the form of
/// [`HeapValue::Limbs`]. The one place limbs are trimmed.
pub(crate) fn trimmed(mut limbs: Vec<u64>) -> Vec<u64> {
    limbs.truncate(limbs.iter().rposition(|&w| w != 0).map_or(0, |top| top + 1));
    limbs
}

impl HeapValue<'_> {
    /// The number of bits in the value (0 for zero).
    pub fn bit_length(&self) -> u64 {
        match self {
            HeapValue::Word(w) => u64::from(128 - w.leading_zeros()),
            HeapValue::Binary(digits) => digits.len() as u64,
            HeapValue::Hex(digits) => match digits.first() {
                None => 0,
                Some(&top) => 4 * (digits.len() as u64 - 1) + nibble_bits(top),
            },
            HeapValue::LeBytes(bytes) => match bytes.last() {
                None => 0,
                Some(&top) => 8 * (bytes.len() as u64 - 1) + u64::from(8 - top.leading_zeros()),
            },
            HeapValue::Limbs(limbs) => match limbs.last() {
                None => 0,
                Some(&top) => 64 * (limbs.len() as u64 - 1) + u64::from(64 - top.leading_zeros()),
            },
            HeapValue::Packed(packed) => packed.bits,
        }
    }

    /// True for the value 1.
    pub fn is_one(&self) -> bool {
        self.bit_length() == 1
    }

    /// Limb `index` (bits `64·index .. 64·index + 64`) of the value.
    pub fn limb(&self, index: u64) -> u64 {
        match self {
            HeapValue::Word(w) => match index {
                0 => *w as u64,
                1 => (*w >> 64) as u64,
                _ => 0,
            },
            HeapValue::Binary(digits) => digits::binary_limb(digits, index),
            HeapValue::Hex(digits) => digits::hex_limb(digits, index),
            HeapValue::LeBytes(bytes) => digits::le_bytes_limb(bytes, index),
            HeapValue::Limbs(limbs) => usize::try_from(index)
                .ok()
                .and_then(|i| limbs.get(i).copied())
                .unwrap_or(0),
            HeapValue::Packed(packed) => packed.limb(index),
        }
    }

    /// Bit `position` of the value.
    pub fn bit(&self, position: u64) -> bool {
        self.limb(position / 64) >> (position % 64) & 1 == 1
    }

    /// XORs limbs `first_limb ..` of the value into `window`, one per slot.
    pub fn xor_window(&self, first_limb: u64, window: &mut [u64]) {
        if let HeapValue::Word(w) = self {
            // The common case (raw arrays, unary, short decimals): at most
            // two limbs, and XORing the zero limbs above the value is a no-op.
            let limbs = [*w as u64, (*w >> 64) as u64];
            let skip = usize::try_from(first_limb).map_or(limbs.len(), |f| f.min(limbs.len()));
            for (slot, limb) in window.iter_mut().zip(&limbs[skip..]) {
                *slot ^= limb;
            }
            return;
        }
        let limb_count = self.bit_length().div_ceil(64);
        if first_limb >= limb_count {
            return;
        }
        let span = (limb_count - first_limb).min(window.len() as u64) as usize;
        match self {
            HeapValue::Binary(digits) => {
                digits::xor_binary(digits, first_limb, &mut window[..span])
            }
            HeapValue::Hex(digits) => digits::xor_hex(digits, first_limb, &mut window[..span]),
            HeapValue::LeBytes(bytes) => {
                digits::xor_le_bytes(bytes, first_limb, &mut window[..span])
            }
            HeapValue::Limbs(limbs) => {
                for (slot, limb) in window[..span].iter_mut().zip(&limbs[first_limb as usize..]) {
                    *slot ^= limb;
                }
            }
            HeapValue::Packed(packed) => {
                for (slot, j) in window[..span].iter_mut().zip(first_limb..) {
                    *slot ^= packed.limb(j);
                }
            }
            HeapValue::Word(_) => unreachable!("handled above"),
        }
    }

    /// The value as an owned copy of its limbs (for small heaps kept aside).
    pub fn to_limbs(&self) -> Vec<u64> {
        let mut out = vec![0; self.bit_length().div_ceil(64) as usize];
        self.xor_window(0, &mut out);
        out
    }
}

impl<'a> HeapValue<'a> {
    /// How many input bytes hold one limb, for values that borrow their
    /// digits from the input (`None` for values held as numbers).
    pub(crate) fn bytes_per_limb(&self) -> Option<usize> {
        match self {
            HeapValue::Binary(_) => Some(64),
            HeapValue::Hex(_) => Some(16),
            HeapValue::LeBytes(_) => Some(8),
            HeapValue::Word(_) | HeapValue::Limbs(_) | HeapValue::Packed(_) => None,
        }
    }

    /// The limbs `limbs` of a value read from digits or bytes, as a value
    /// of the same encoding (leading zeros included); `None` for a value
    /// held as a number.
    pub(crate) fn limb_slice(&self, limbs: std::ops::Range<u64>) -> Option<HeapValue<'a>> {
        let bytes = self.limb_bytes(limbs);
        match self {
            HeapValue::Binary(_) => Some(HeapValue::Binary(bytes)),
            HeapValue::Hex(_) => Some(HeapValue::Hex(bytes)),
            HeapValue::LeBytes(_) => Some(HeapValue::LeBytes(bytes)),
            HeapValue::Word(_) | HeapValue::Limbs(_) | HeapValue::Packed(_) => None,
        }
    }

    /// The input bytes that hold limbs `limbs` (empty for values held as
    /// numbers), so that a pass can release them once it has read them.
    pub(crate) fn limb_bytes(&self, limbs: std::ops::Range<u64>) -> &'a [u8] {
        let (bytes, per_limb, msb_first) = match *self {
            HeapValue::Binary(digits) => (digits, 64, true),
            HeapValue::Hex(digits) => (digits, 16, true),
            HeapValue::LeBytes(bytes) => (bytes, 8, false),
            HeapValue::Word(_) | HeapValue::Limbs(_) | HeapValue::Packed(_) => return &[],
        };
        let len = bytes.len() as u64;
        let lo = limbs.start.saturating_mul(per_limb).min(len) as usize;
        let hi = limbs.end.saturating_mul(per_limb).min(len) as usize;
        if msb_first {
            &bytes[bytes.len() - hi..bytes.len() - lo]
        } else {
            &bytes[lo..hi]
        }
    }
}

/// Bits in the value of one hex digit character (its bit length).
fn nibble_bits(digit: u8) -> u64 {
    u64::from(8 - digits::hex_digit_value(digit).leading_zeros())
}

/// A format's reader over one slice: yields the heaps in order.
pub trait HeapScanner<'a> {
    /// The next heap, `None` at the end of the slice, or the first bad byte.
    fn next_heap(&mut self) -> Result<Option<Heap<'a>>, ParseError>;

    /// How many bytes of the slice the heaps so far took (a heap boundary).
    fn consumed(&self) -> usize;

    /// Whether the scanner parses short heaps a block at a time
    /// ([`HeapScanner::fill_words`]).
    const FILLS_WORDS: bool = false;

    /// Parses heaps of at most 128 bits into `words` until it is full or
    /// the next heap is one the block loop does not take (a long one, one
    /// near the end of the slice, a bad byte, the end), which is left to
    /// [`HeapScanner::take_heap`].
    fn fill_words(&mut self, _words: &mut WordBuffer) {}

    /// Calls `take` with the next heap, if there is one before the end of
    /// the slice (`false` otherwise), or returns the first error. Given
    /// `scratch`, a format may convert a heap into it in the same pass that
    /// checks it, rather than hand out its digits. The heap is built where
    /// `take` is inlined, so it stays in registers (a heap returned through
    /// memory, written field by field and read back in wider moves, stalls
    /// the loop).
    #[inline(always)]
    fn take_heap<E: From<ParseError>>(
        &mut self,
        _scratch: Option<&mut TokenScratch>,
        take: impl FnOnce(&Heap<'_>) -> Result<(), E>,
    ) -> Result<bool, E> {
        match self.next_heap()? {
            Some(heap) => take(&heap).map(|()| true),
            None => Ok(false),
        }
    }

    /// Calls `take` with each heap in turn ([`HeapScanner::take_heap`]), up
    /// to the end of the slice or the first error.
    #[inline(always)]
    fn each_heap<E: From<ParseError>>(
        &mut self,
        mut scratch: Option<&mut TokenScratch>,
        mut take: impl FnMut(&Heap<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        while self.take_heap(scratch.as_deref_mut(), &mut take)? {}
        Ok(())
    }
}

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

/// A loop over the heaps of one scanner, written once and compiled for
/// each format's scanner by [`Scanner::visit`]: the dispatch on the format
/// happens once per slice instead of once per heap.
pub trait ScanVisitor<'a> {
    /// What the loop returns.
    type Output;
    /// Runs the loop over `scanner`.
    fn visit<S: HeapScanner<'a>>(self, scanner: S) -> Self::Output;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_lengths_of_every_encoding_agree() {
        assert_eq!(HeapValue::Word(5).bit_length(), 3);
        assert_eq!(HeapValue::Binary(b"101").bit_length(), 3);
        assert_eq!(HeapValue::Hex(b"5").bit_length(), 3);
        assert_eq!(HeapValue::Hex(b"1f").bit_length(), 5);
        assert_eq!(HeapValue::LeBytes(&[0xff, 0x01]).bit_length(), 9);
        assert_eq!(HeapValue::Limbs(vec![0, 1]).bit_length(), 65);
        assert_eq!(HeapValue::Binary(b"").bit_length(), 0);
    }

    #[test]
    fn limb_bytes_are_the_digits_that_limb_reads() {
        let digits: Vec<u8> = (0..150).map(|i| b'0' + (i % 3 == 0) as u8).collect();
        let value = HeapValue::Binary(&digits);
        assert_eq!(value.limb_bytes(0..1), &digits[86..]);
        assert_eq!(value.limb_bytes(1..3), &digits[..86]);
        assert_eq!(value.limb_bytes(2..9), &digits[..22]);
        let hex = HeapValue::Hex(b"123456789abcdef01");
        assert_eq!(hex.limb_bytes(1..2), b"1");
        let le = [1u8; 20];
        assert_eq!(HeapValue::LeBytes(&le).limb_bytes(1..5).len(), 12);
        assert!(HeapValue::Word(7).limb_bytes(0..1).is_empty());
    }

    #[test]
    fn word_windows_match_limb_by_limb_xors() {
        for w in [0, 1, u128::from(u64::MAX), 1 << 64, u128::MAX] {
            let value = HeapValue::Word(w);
            for first in 0..4u64 {
                for len in 0..4 {
                    let mut fast = vec![0u64; len];
                    value.xor_window(first, &mut fast);
                    let slow: Vec<u64> =
                        (first..first + len as u64).map(|i| value.limb(i)).collect();
                    assert_eq!(fast, slow, "{w} {first} {len}");
                }
            }
        }
    }

    #[test]
    fn windows_of_a_word_split_at_limb_boundaries() {
        let value = HeapValue::Word((3u128 << 64) | 7);
        let mut window = [0u64; 2];
        value.xor_window(0, &mut window);
        assert_eq!(window, [7, 3]);
        let mut high = [0u64; 1];
        value.xor_window(1, &mut high);
        assert_eq!(high, [3]);
    }
}
