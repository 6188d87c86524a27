//! The decimal numbers of a graph file, one after another, with the offset
//! of each: the digit loop of the graph reader.
//!
//! A graph file is almost all short numbers (node ids of a few digits,
//! one separator each), so a number is read eight bytes at a time: one
//! word load, a SWAR test that finds the first non-digit
//! ([`Digits::non_digits`]), and a SWAR conversion of the digits before it
//! (three multiplications for up to eight digits). A number of 9 to 16
//! digits takes a second word. The byte after the digits is checked in the
//! same word: it must be whitespace. Anything else (a number of more than
//! 16 digits, leading zeros included; the last 16 bytes of the input; a
//! bad byte) goes through [`Numbers::next_slow`], one byte at a time, which
//! also words the errors.
//!
//! Whitespace is the token formats' (space, tab, LF, CR). Values above
//! `u64::MAX` saturate to it: every count and node id the reader accepts
//! is far below, so a saturated value is refused by the range checks.
//!
//! The mapped pages of the input are released behind the reader in steps
//! of [`RELEASE_STEP_BYTES`] ([`Numbers::release_behind`]), so the
//! resident size of the map stays a few steps whatever the file's size.
//!
//! The conversion is the one of the `dec` format's fast path, restated
//! here for values of at most 16 digits in a `u64`; the vector versions
//! that `dec` measured and dropped would gain less here, where numbers are
//! shorter still.

use crate::arch::token_end::Digits;
use crate::error::ParseError;
use crate::input::source::page_release::{PageReleaser, RELEASE_STEP_BYTES};
use crate::input::{is_space, parse8, parse_prefix, POWERS_OF_TEN};

/// What a byte that is neither a digit nor whitespace is reported as
/// missing.
pub(crate) const EXPECTED: &str = "a decimal digit (0-9) or whitespace";

/// A number of the input and where it starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Number {
    /// Its value, saturated at `u64::MAX`.
    pub value: u64,
    /// The offset of its first digit.
    pub start: usize,
}

/// Reads the numbers of `data` in order.
pub(crate) struct Numbers<'a> {
    data: &'a [u8],
    /// The next byte to read.
    pos: usize,
    pages: PageReleaser<'a>,
    /// Pages before this offset have been released.
    released_to: usize,
}

/// The first non-digit of `word` (0-8; 8 when all eight bytes are digits).
#[inline(always)]
fn digits_in(word: u64) -> usize {
    let stops = Digits::Decimal.non_digits(word);
    (stops.trailing_zeros() / 8) as usize
}

impl<'a> Numbers<'a> {
    /// A reader of `data` from its start, releasing the pages behind it
    /// with `pages`.
    pub(crate) fn new(data: &'a [u8], pages: PageReleaser<'a>) -> Numbers<'a> {
        Numbers {
            data,
            pos: 0,
            pages,
            released_to: 0,
        }
    }

    /// The size of the input: the offset of its end.
    pub(crate) fn len(&self) -> usize {
        self.data.len()
    }

    /// The bytes not read yet.
    pub(crate) fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    /// The bytes of the input in `range` (for messages).
    pub(crate) fn text(&self, range: std::ops::Range<usize>) -> &'a [u8] {
        &self.data[range]
    }

    /// The next number, `None` at the end of the input, or the error at
    /// the first byte that is neither a digit nor whitespace.
    #[inline(always)]
    pub(crate) fn next(&mut self) -> Result<Option<Number>, ParseError> {
        let mut start = self.pos;
        while start < self.data.len() && is_space(self.data[start]) {
            start += 1;
        }
        let Some(bytes) = self.data.get(start..start + 16) else {
            return self.next_slow(start);
        };
        let first = u64::from_le_bytes(bytes[..8].try_into().expect("eight bytes"));
        let len = digits_in(first);
        if (1..8).contains(&len) && is_space(bytes[len]) {
            self.pos = start + len + 1;
            let value = parse_prefix(first, len);
            return Ok(Some(Number { value, start }));
        }
        if len == 8 {
            let second = u64::from_le_bytes(bytes[8..].try_into().expect("eight bytes"));
            let more = digits_in(second);
            if more < 8 && is_space(bytes[8 + more]) {
                self.pos = start + 8 + more + 1;
                let value = parse8(first) * POWERS_OF_TEN[more] + parse_prefix(second, more);
                return Ok(Some(Number { value, start }));
            }
        }
        self.next_slow(start)
    }

    /// [`Numbers::next`] one byte at a time, from `start` (which is not
    /// whitespace), for the cases the word path leaves: long numbers, the
    /// end of the input, and errors.
    #[cold]
    #[inline(never)]
    fn next_slow(&mut self, start: usize) -> Result<Option<Number>, ParseError> {
        let mut end = start;
        let mut value = 0u64;
        while let Some(&byte) = self.data.get(end) {
            if byte.is_ascii_digit() {
                let digit = u64::from(byte - b'0');
                value = value
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(digit))
                    .unwrap_or(u64::MAX);
                end += 1;
            } else if is_space(byte) {
                break;
            } else {
                return Err(ParseError::unexpected(end as u64, byte, EXPECTED));
            }
        }
        if end == start {
            self.pos = start;
            return Ok(None);
        }
        self.pos = end;
        Ok(Some(Number { value, start }))
    }

    /// Releases the mapped pages behind the reader once it has moved a
    /// step past the last release.
    #[inline(always)]
    pub(crate) fn release_behind(&mut self) {
        if self.pos - self.released_to >= RELEASE_STEP_BYTES {
            self.release_to(self.pos);
        }
    }

    /// Releases the mapped pages of everything read so far.
    pub(crate) fn release_all_read(&mut self) {
        self.release_to(self.pos);
    }

    #[cold]
    fn release_to(&mut self, to: usize) {
        // Whole pages only: the page of `to` may still be read.
        let to = to & !4095;
        if to > self.released_to {
            self.pages.release(&self.data[self.released_to..to]);
            self.released_to = to;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The numbers of `data`, or the first error, read one byte at a time
    /// by the obvious loop, values in `u128` then saturated.
    fn reference(data: &[u8]) -> Result<Vec<Number>, ParseError> {
        let mut found = Vec::new();
        let mut pos = 0;
        while pos < data.len() {
            if is_space(data[pos]) {
                pos += 1;
                continue;
            }
            let start = pos;
            let mut value = 0u128;
            while pos < data.len() && !is_space(data[pos]) {
                let byte = data[pos];
                if !byte.is_ascii_digit() {
                    return Err(ParseError::unexpected(pos as u64, byte, EXPECTED));
                }
                value = (value * 10 + u128::from(byte - b'0')).min(u128::from(u64::MAX) + 1);
                pos += 1;
            }
            let value = u64::try_from(value).unwrap_or(u64::MAX);
            found.push(Number { value, start });
        }
        Ok(found)
    }

    fn read_all(data: &[u8]) -> Result<Vec<Number>, ParseError> {
        let mut numbers = Numbers::new(data, PageReleaser::NONE);
        let mut found = Vec::new();
        while let Some(number) = numbers.next()? {
            found.push(number);
        }
        Ok(found)
    }

    /// A random number of `len` digits, with leading zeros at times.
    fn random_number(rng: &mut ChaCha8Rng, len: usize) -> Vec<u8> {
        let zeros = if rng.random_bool(0.3) {
            rng.random_range(0..=len)
        } else {
            0
        };
        (0..len)
            .map(|i| {
                if i < zeros {
                    b'0'
                } else {
                    b'0' + rng.random_range(0..10u8)
                }
            })
            .collect()
    }

    #[test]
    fn numbers_of_every_length_at_every_alignment_match_the_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for len in 1..=26 {
            for align in 0..24 {
                for _ in 0..6 {
                    let mut data: Vec<u8> = (0..align)
                        .map(|_| b" \t\n\r"[rng.random_range(0..4)])
                        .collect();
                    data.extend(random_number(&mut rng, len));
                    for _ in 0..rng.random_range(0..4) {
                        data.push(b" \t\n\r"[rng.random_range(0..4)]);
                        let more = rng.random_range(1..12);
                        data.extend(random_number(&mut rng, more));
                    }
                    if rng.random_bool(0.5) {
                        data.push(b'\n');
                    }
                    assert_eq!(read_all(&data), reference(&data), "{data:?}");
                }
            }
        }
    }

    #[test]
    fn bad_bytes_anywhere_give_the_reference_error() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let bad = b"/:;-+xa.\x00\x0b\x0c\x7f\x80\xb0\xb9\xff";
        for len in 1..=20 {
            for at in 0..=len {
                for align in 0..20 {
                    let mut data = vec![b' '; align];
                    let start = data.len();
                    data.extend(random_number(&mut rng, len));
                    data.push(b'\n');
                    data.extend(random_number(&mut rng, 18));
                    data.push(b' ');
                    data[start + at] = bad[rng.random_range(0..bad.len())];
                    let expected = reference(&data);
                    assert!(expected.is_err());
                    assert_eq!(read_all(&data), expected, "{data:?}");
                }
            }
        }
    }

    #[test]
    fn the_largest_values_and_saturation() {
        let data = b"18446744073709551615 18446744073709551616 0000000000000000000000042 \
                     9999999999999999 99999999 12345678\n";
        let values: Vec<u64> = read_all(data).unwrap().iter().map(|n| n.value).collect();
        assert_eq!(
            values,
            [
                u64::MAX,
                u64::MAX,
                42,
                9_999_999_999_999_999,
                99_999_999,
                12_345_678
            ]
        );
    }

    #[test]
    fn the_end_of_the_input_ends_a_number() {
        let data = b"1 22 333";
        let found = read_all(data).unwrap();
        assert_eq!(
            found.last(),
            Some(&Number {
                value: 333,
                start: 5
            })
        );
        assert_eq!(read_all(b"").unwrap(), []);
        assert_eq!(read_all(b" \n\t\r ").unwrap(), []);
    }
}
