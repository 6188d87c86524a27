//! Reading the update stream: a buffer of it, handed out a whole line at
//! a time.
//!
//! When the buffer holds no whole line and must be refilled,
//! [`UpdateReader::next_line`] calls the caller's `before_wait` first:
//! the caller flushes its output there, since the read may block until
//! whoever drives the stream has seen the answers so far (see
//! `serve.rs`). [`UpdateReader::buffered_line`] never reads: it hands out
//! the lines already in the buffer, so that the caller may look ahead
//! without waiting. A CR before an LF is dropped; the last line counts
//! without an LF.

use crate::error::Error;
use std::io::{ErrorKind, Read};

/// The first size of the read buffer (it grows to hold a long line).
const READ_BYTES: usize = 64 << 10;

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
