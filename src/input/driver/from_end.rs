//! The long tokens at the end of a range, read from the range's end.
//!
//! A `bits` or `hex` token longer than a read is held whole when read
//! forward ([`crate::input::long::pieces::LongToken`]): its bit 0 is known only at its
//! end. When a positioned pass meets one and its fold sums tokens from
//! their end ([`Needs::sums_from_end`](super::fold::Needs::sums_from_end)), the range is read backward from
//! its end first, while its tokens are long: each is read from its last
//! digit down ([`TokenFromEnd`]), its limbs XORed into the fold's shared
//! sum as they come, and only its place, bit length and top limbs kept.
//! The forward reader then stops where that zone starts and hands those
//! tokens to the fold in file order. A range that ends in long tokens
//! (one heap of gigabytes, or a few) is so read once, with nothing held
//! but the sum; a short token stops the backward read, and a long token
//! before it is read forward as before.

use super::fold::Fold;
use super::pass::{Stop, LINE};
use super::progress;
use crate::error::Error;
use crate::input::format::Format;
use crate::input::formats::token::is_space;
use crate::input::long::from_end::{FromEnd, SummedHeap, TokenFromEnd};
use crate::input::long::pieces::{bits_per_digit, digits_per_limb};
use crate::input::source::FileInput;

/// The end of a range read backward: its tokens, summed.
pub(super) struct Zone {
    /// Where the zone starts: the forward reader stops here.
    pub(super) start: u64,
    /// Whether the backward read was tried (it is, at most once a range).
    probed: bool,
    /// The tokens summed, the last in the file first.
    summed: Vec<SummedHeap>,
}

impl Zone {
    /// An empty zone at the end of a range ending at `end`.
    pub(super) fn new(end: u64) -> Zone {
        Zone {
            start: end,
            probed: false,
            summed: Vec::new(),
        }
    }

    /// Reads the range backward from the zone's start down to `floor`
    /// (the first byte of a long token the forward reader met), once a
    /// range, while its tokens are long; true when it reached `floor`.
    /// `chunk_bytes` is the size of a read; the bytes read are added to
    /// `bytes`.
    pub(super) fn extend_to<F: Fold>(
        &mut self,
        reader: &Backward<'_>,
        floor: u64,
        fold: &F,
        bytes: &mut u64,
    ) -> Result<bool, Error> {
        if std::mem::replace(&mut self.probed, true) {
            return Ok(false);
        }
        let Some(max_bits) = fold.needs().sums_from_end else {
            return Ok(false);
        };
        let bits_per_digit = bits_per_digit(reader.format);
        if (self.start - floor).saturating_mul(bits_per_digit) > max_bits {
            return Ok(false);
        }
        let mut buffer = vec![0u8; reader.chunk_len + 2 + LINE];
        while let Some(last) = reader.last_non_space(floor, self.start, &mut buffer, bytes)? {
            let token = reader.token_ending_at(last, floor, &mut buffer, fold, bytes)?;
            let Some(heap) = token else {
                self.start = last + 1;
                return Ok(false);
            };
            self.start = heap.offset;
            self.summed.push(heap);
            if self.start == floor {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// Hands the summed tokens to `fold`, in file order, counting them in
    /// `heaps`.
    pub(super) fn hand_over<F: Fold>(&mut self, fold: &mut F, heaps: &mut u64) -> Result<(), Stop> {
        while let Some(heap) = self.summed.pop() {
            fold.summed_heap(*heaps, &heap)?;
            *heaps += 1;
            if fold.done() {
                return Err(Stop::Done);
            }
        }
        Ok(())
    }
}

/// The first read of the search for a token's last byte.
const SEPARATOR_READ: usize = 16;

/// Reads a file backward in chunks of whole limbs.
pub(super) struct Backward<'a> {
    file: &'a FileInput,
    format: Format,
    /// Bytes per read: a whole number of limbs of either format.
    chunk_len: usize,
}

impl<'a> Backward<'a> {
    /// Reads `file` of `format` in chunks of about `read_bytes`.
    pub(super) fn new(file: &'a FileInput, format: Format, read_bytes: usize) -> Self {
        let limb = digits_per_limb(Format::Bits);
        Backward {
            file,
            format,
            chunk_len: (read_bytes - read_bytes % limb).max(limb),
        }
    }

    /// Reads `lo..hi` into `buffer` (at least `LINE` bytes longer), at
    /// the place whose address has the file offset's place in a cache
    /// line. The reads from a token's end start anywhere, and all of one
    /// token's at the same place in a line: four 2^28-bit heaps read 1
    /// byte past a line into a buffer 16 bytes past one took 1.6 times
    /// the time (nearly all of it the kernel's copy) of the same reads
    /// into a buffer placed like the file.
    fn read<'b>(
        &self,
        buffer: &'b mut [u8],
        lo: u64,
        hi: u64,
        bytes: &mut u64,
    ) -> Result<&'b [u8], Error> {
        let skew = (lo as usize).wrapping_sub(buffer.as_ptr() as usize) % LINE;
        let piece = &mut buffer[skew..skew + (hi - lo) as usize];
        self.file.read_exact_at(piece, lo)?;
        *bytes += piece.len() as u64;
        progress::read(piece.len() as u64);
        Ok(piece)
    }

    /// The offset of the last byte before `end`, down to `floor`, that is
    /// not whitespace. Separators are short: the reads start small, so
    /// that the token's last chunk is not read twice, and double.
    fn last_non_space(
        &self,
        floor: u64,
        mut end: u64,
        buffer: &mut [u8],
        bytes: &mut u64,
    ) -> Result<Option<u64>, Error> {
        let mut step = SEPARATOR_READ;
        while end > floor {
            let lo = end.saturating_sub(step as u64).max(floor);
            let piece = self.read(buffer, lo, end, bytes)?;
            if let Some(i) = piece.iter().rposition(|&b| !is_space(b)) {
                return Ok(Some(lo + i as u64));
            }
            end = lo;
            step = (2 * step).min(self.chunk_len);
        }
        Ok(None)
    }

    /// Reads the token whose last byte is at `last` from its end, XORing
    /// its limbs into `fold`'s sum; `None` when it is short or holds a
    /// byte that is not a digit (left to the forward reader).
    fn token_ending_at<F: Fold>(
        &self,
        last: u64,
        floor: u64,
        buffer: &mut [u8],
        fold: &F,
        bytes: &mut u64,
    ) -> Result<Option<SummedHeap>, Error> {
        let mut token = TokenFromEnd::new(self.format, last + 1);
        loop {
            let hi = token.next_end();
            let lo = hi.saturating_sub(self.chunk_len as u64).max(floor);
            // Two bytes more below the chunk, where a `0x` may be.
            let read_from = lo.saturating_sub(2).max(floor);
            let piece = self.read(buffer, read_from, hi, bytes)?;
            let (prior, chunk) = piece.split_at((lo - read_from) as usize);
            let below = [
                prior.last().copied(),
                prior.len().checked_sub(2).map(|i| prior[i]),
            ];
            let xor = |first: u64, limbs: &[u64]| fold.xor_limbs(first, limbs);
            match token.take(chunk, lo, floor, below, xor) {
                FromEnd::More => continue,
                FromEnd::Whole(heap) => return Ok(Some(heap)),
                FromEnd::Refused => return Ok(None),
            }
        }
    }
}
