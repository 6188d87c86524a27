//! The update stream: lines `i x` (set heap i, 0-based, to x), read in
//! blocks, and parsed.
//!
//! A line holds a heap index in decimal and a value, in decimal, `0x`
//! hex or `0b` binary, of any length, separated by spaces or tabs; a CR
//! before the LF is dropped. Blank lines and lines whose first non-blank
//! byte is `#` are skipped. Anything else is an error at the first byte
//! that cannot be read, saying what was expected. A decimal value of up to
//! 19 digits is converted in a loop; a longer one by the `dec` format's
//! own conversion, hex and binary digits by the kernels every format
//! uses.
//!
//! [`UpdateReader`] reads the stream into a buffer and hands out whole
//! lines. When the buffer holds no whole line and must be refilled, it
//! calls the caller's `before_wait` first: the caller flushes its output
//! there, since the read may block until whoever drives the stream has
//! seen the answers so far (see `serve.rs`).

use crate::arch::token_end::{first_non_digit, Digits};
use crate::error::{Error, ParseError};
use crate::input::{Format, HeapScanner, HeapValue, Scanner};
use std::io::{ErrorKind, Read};

/// The first size of the read buffer (it grows to hold a long line).
const READ_BYTES: usize = 64 << 10;

/// A new heap value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum NewValue {
    /// At most 64 bits.
    Word(u64),
    /// Little-endian limbs.
    Limbs(Vec<u64>),
}

impl NewValue {
    /// The value's limbs.
    pub(super) fn limbs(&self) -> &[u64] {
        match self {
            NewValue::Word(word) => std::slice::from_ref(word),
            NewValue::Limbs(limbs) => limbs,
        }
    }
}

/// One update.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Update {
    /// The heap's index.
    pub heap: u64,
    /// Its new value.
    pub value: NewValue,
}

/// A line that is not an update: the first bad byte (0-based in the
/// line), and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct LineError {
    pub at: usize,
    pub message: String,
}

impl LineError {
    fn unexpected(line: &[u8], at: usize, expected: &str) -> LineError {
        let message = match line.get(at) {
            Some(&byte) => ParseError::unexpected(0, byte, expected).message,
            None => format!("expected {expected}, found the end of the line"),
        };
        LineError { at, message }
    }
}

fn is_blank(byte: u8) -> bool {
    byte == b' ' || byte == b'\t'
}

/// The first position at or after `from` that is not `wanted`.
fn skip(line: &[u8], from: usize, wanted: impl Fn(u8) -> bool) -> usize {
    from + line[from..].iter().take_while(|&&b| wanted(b)).count()
}

/// Parses one line of the stream, for an instance of `heaps` heaps named
/// `file` (`None` for a blank line or a comment).
pub(super) fn parse(line: &[u8], heaps: u64, file: &str) -> Result<Option<Update>, LineError> {
    let start = skip(line, 0, is_blank);
    if start == line.len() || line[start] == b'#' {
        return Ok(None);
    }
    let index_end = skip(line, start, |b| b.is_ascii_digit());
    if index_end == start {
        return Err(LineError::unexpected(
            line,
            start,
            "a heap index (decimal digits)",
        ));
    }
    if index_end == line.len() {
        return Err(LineError::unexpected(
            line,
            index_end,
            "a space, then the heap's new value",
        ));
    }
    if !is_blank(line[index_end]) {
        return Err(LineError::unexpected(
            line,
            index_end,
            "a decimal digit or a space",
        ));
    }
    let heap = small_decimal(&line[start..index_end]).filter(|&heap| heap < heaps);
    let Some(heap) = heap else {
        let index = String::from_utf8_lossy(&line[start..index_end]).into_owned();
        let message = super::out_of_range_text(&index, heaps, file);
        return Err(LineError { at: start, message });
    };
    let value_start = skip(line, index_end, is_blank);
    let value_end = memchr::memchr2(b' ', b'\t', &line[value_start..])
        .map_or(line.len(), |blank| value_start + blank);
    let value = parse_value(line, value_start..value_end)?;
    let end = skip(line, value_end, is_blank);
    if end < line.len() {
        return Err(LineError::unexpected(
            line,
            end,
            "the end of the line after the value",
        ));
    }
    Ok(Some(Update { heap, value }))
}

/// A decimal of at most 19 digits (no overflow), else `None`.
fn small_decimal(digits: &[u8]) -> Option<u64> {
    let digits = &digits[skip(digits, 0, |b| b == b'0')..];
    (digits.len() <= 19).then(|| {
        digits
            .iter()
            .fold(0u64, |value, digit| value * 10 + u64::from(digit - b'0'))
    })
}

/// Parses the value at `range` of `line`.
fn parse_value(line: &[u8], range: std::ops::Range<usize>) -> Result<NewValue, LineError> {
    let token = &line[range.clone()];
    let (digits_at, radix) = match token {
        [b'0', b'x' | b'X', ..] => (range.start + 2, 16),
        [b'0', b'b' | b'B', ..] => (range.start + 2, 2),
        _ => (range.start, 10),
    };
    let class = match radix {
        16 => Digits::Hex,
        2 => Digits::Binary,
        _ => Digits::Decimal,
    };
    let bad = first_non_digit(&line[..range.end], digits_at, class);
    if bad == digits_at || bad < range.end {
        let expected = match radix {
            16 => "a hex digit",
            2 => "a binary digit (0 or 1)",
            _ if bad == range.start => "the heap's new value (decimal, or 0x or 0b and digits)",
            _ => "a decimal digit",
        };
        return Err(LineError::unexpected(line, bad, expected));
    }
    let digits = &line[digits_at..range.end];
    let significant = &digits[skip(digits, 0, |b| b == b'0')..];
    let limbs = match radix {
        16 => HeapValue::Hex(significant).to_limbs(),
        2 => HeapValue::Binary(significant).to_limbs(),
        _ => match small_decimal(significant) {
            Some(word) => return Ok(NewValue::Word(word)),
            None => long_decimal(significant),
        },
    };
    Ok(match limbs.as_slice() {
        [] => NewValue::Word(0),
        [word] => NewValue::Word(*word),
        _ => NewValue::Limbs(limbs),
    })
}

/// The limbs of validated decimal digits, converted as the `dec` format
/// converts its long tokens.
fn long_decimal(digits: &[u8]) -> Vec<u64> {
    match Scanner::new(Format::Dec, digits, 0).next_heap() {
        Ok(Some(heap)) => heap.value.to_limbs(),
        _ => unreachable!("decimal digits make one dec token"),
    }
}

/// A line of the stream, as the reader hands it out.
#[derive(Clone, Copy, Debug)]
pub(super) struct UpdateLine<'b> {
    /// The line without its LF (and a CR before it).
    pub bytes: &'b [u8],
    /// The offset of its first byte in the stream.
    pub offset: u64,
    /// Its 1-based number.
    pub line: u64,
}

/// Reads a stream of update lines (see the module documentation).
pub(super) struct UpdateReader<'r> {
    reader: &'r mut dyn Read,
    name: &'r str,
    buffer: Vec<u8>,
    /// The first byte not handed out yet.
    start: usize,
    /// The end of the bytes read.
    end: usize,
    /// The stream offset of `buffer[0]`.
    base: u64,
    /// The number of the next line.
    line: u64,
    at_end: bool,
}

impl<'r> UpdateReader<'r> {
    /// A reader of `reader`, named `name` in messages.
    pub(super) fn new(reader: &'r mut dyn Read, name: &'r str) -> UpdateReader<'r> {
        UpdateReader {
            reader,
            name,
            buffer: vec![0; READ_BYTES],
            start: 0,
            end: 0,
            base: 0,
            line: 1,
            at_end: false,
        }
    }

    /// The stream's name in messages.
    pub(super) fn name(&self) -> &'r str {
        self.name
    }

    /// The next line; `before_wait` runs before each read of the stream.
    pub(super) fn next_line(
        &mut self,
        before_wait: &mut dyn FnMut() -> Result<(), Error>,
    ) -> Result<Option<UpdateLine<'_>>, Error> {
        let (from, len) = loop {
            if let Some(found) = self.whole_line() {
                break found;
            }
            if self.at_end {
                return Ok(None);
            }
            before_wait()?;
            self.refill()?;
        };
        Ok(Some(self.hand_out(from, len)))
    }

    /// The next line if the buffer holds it whole, without reading.
    pub(super) fn buffered_line(&mut self) -> Option<UpdateLine<'_>> {
        let (from, len) = self.whole_line()?;
        Some(self.hand_out(from, len))
    }

    /// Where the next whole line lies in the buffer (the last line of the
    /// stream counts once the stream has ended).
    fn whole_line(&self) -> Option<(usize, usize)> {
        let unread = &self.buffer[self.start..self.end];
        match memchr::memchr(b'\n', unread) {
            Some(lf) => Some((self.start, lf)),
            None if self.at_end && !unread.is_empty() => Some((self.start, unread.len())),
            None => None,
        }
    }

    /// Hands out the line of `len` bytes at `from`, and moves past it.
    fn hand_out(&mut self, from: usize, len: usize) -> UpdateLine<'_> {
        self.start = (from + len + 1).min(self.end);
        let mut bytes = &self.buffer[from..from + len];
        if let [rest @ .., b'\r'] = bytes {
            bytes = rest;
        }
        self.line += 1;
        UpdateLine {
            bytes,
            offset: self.base + from as u64,
            line: self.line - 1,
        }
    }

    /// Reads more of the stream after the unread bytes, growing the
    /// buffer when they fill it.
    fn refill(&mut self) -> Result<(), Error> {
        if self.start > 0 {
            self.buffer.copy_within(self.start..self.end, 0);
            self.base += self.start as u64;
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buffer.len() {
            self.buffer.resize(2 * self.buffer.len(), 0);
        }
        loop {
            match self.reader.read(&mut self.buffer[self.end..]) {
                Ok(0) => self.at_end = true,
                Ok(read) => self.end += read,
                Err(error) if error.kind() == ErrorKind::Interrupted => continue,
                Err(error) => return Err(Error::io(self.name, error)),
            }
            return Ok(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(line: &str) -> Result<Option<Update>, LineError> {
        parse(line.as_bytes(), 100, "f")
    }

    fn set(heap: u64, value: NewValue) -> Result<Option<Update>, LineError> {
        Ok(Some(Update { heap, value }))
    }

    #[test]
    fn values_read_in_every_radix_and_any_length() {
        assert_eq!(update("3 5"), set(3, NewValue::Word(5)));
        assert_eq!(update("\t07  0x1F \t"), set(7, NewValue::Word(31)));
        assert_eq!(update("0 0b101"), set(0, NewValue::Word(5)));
        assert_eq!(update("0 0X0"), set(0, NewValue::Word(0)));
        assert_eq!(
            update("99 18446744073709551615"),
            set(99, NewValue::Word(u64::MAX))
        );
        let two_to_64 = set(1, NewValue::Limbs(vec![0, 1]));
        assert_eq!(update("1 18446744073709551616"), two_to_64);
        assert_eq!(update("1 0x10000000000000000"), two_to_64);
        assert_eq!(update(&format!("1 0b1{}", "0".repeat(64))), two_to_64);
        assert_eq!(
            update(&format!("1 {}18446744073709551616", "0".repeat(30))),
            two_to_64
        );
    }

    #[test]
    fn blank_lines_and_comments_are_skipped() {
        for line in ["", "  \t", "# a comment", "   #1 2"] {
            assert_eq!(update(line), Ok(None), "{line:?}");
        }
    }

    #[test]
    fn bad_lines_name_their_first_bad_byte() {
        let at = |line: &str| update(line).unwrap_err().at;
        assert_eq!(at("x 5"), 0);
        assert_eq!(at("3"), 1);
        assert_eq!(at("3x 5"), 1);
        assert_eq!(at("3 "), 2);
        assert_eq!(at("3 0x"), 4);
        assert_eq!(at("3 0xfg"), 5);
        assert_eq!(at("3 0b12"), 5);
        assert_eq!(at("3 12a"), 4);
        assert_eq!(at("3 5 6"), 4);
        assert_eq!(at("3 -5"), 2);
        let error = update("3 0xfg").unwrap_err();
        assert_eq!(error.message, "expected a hex digit, found 'g' (0x67)");
        let error = update(" 100 5").unwrap_err();
        assert_eq!(
            (error.at, error.message.as_str()),
            (1, "heap 100 is out of range: f has 100 heaps (0 to 99)")
        );
        let huge = update("99999999999999999999999 5").unwrap_err();
        assert!(huge
            .message
            .starts_with("heap 99999999999999999999999 is out of range"));
    }

    #[test]
    fn lines_come_whole_across_reads_with_their_offsets() {
        let text = b"0 1\r\n\n# c\n12 0x1234567890abcdef1234567890\n3 4";
        for piece in [1, 2, 7, 100] {
            let mut stream = Pieces { data: text, piece };
            let mut reader = UpdateReader::new(&mut stream, "s");
            let mut waits = 0;
            let mut seen = Vec::new();
            while let Some(line) = reader
                .next_line(&mut || {
                    waits += 1;
                    Ok(())
                })
                .unwrap()
            {
                seen.push((line.bytes.to_vec(), line.offset, line.line));
            }
            let expected: Vec<(Vec<u8>, u64, u64)> = vec![
                (b"0 1".to_vec(), 0, 1),
                (b"".to_vec(), 5, 2),
                (b"# c".to_vec(), 6, 3),
                (b"12 0x1234567890abcdef1234567890".to_vec(), 10, 4),
                (b"3 4".to_vec(), 42, 5),
            ];
            assert_eq!(seen, expected, "pieces of {piece}");
            assert!(waits >= text.len().div_ceil(piece), "{waits} waits");
        }
    }

    /// A stream that hands out at most `piece` bytes a read.
    struct Pieces<'d> {
        data: &'d [u8],
        piece: usize,
    }

    impl Read for Pieces<'_> {
        fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
            let n = self.piece.min(buffer.len()).min(self.data.len());
            buffer[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }
}
