//! Where an offset lies in lines: the 1-based line and column of a byte
//! of an input that can be read at any offset, for an error's place and
//! the move's line. Bytes in memory are counted in place; a file through
//! its map if a pass opened it (its pages released behind), else with
//! positioned reads into a buffer no larger than the pass's reads, so that
//! `--memory log` keeps its bound. A stream counts its lines as it is read
//! (`driver/stream.rs`), so it has no lookup here.

use super::file::FileInput;
use super::input::{Input, InputBytes};
use crate::error::Error;
use crate::input::lines::{line_and_column, Lines};
use crate::input::source::page_release::RELEASE_STEP_BYTES;
use std::ops::Range;

/// The largest buffer line counting reads a file into without its map.
const LINE_BUFFER_BYTES: usize = 64 << 10;

impl Input<'_> {
    /// The 1-based line and column of `offset` in an input that can be
    /// read at any offset; `None` for a stream, which counts its lines as
    /// it goes.
    pub fn line_and_column(&self, offset: u64) -> Result<Option<(u64, u64)>, Error> {
        self.lines_to(offset, &[], LINE_BUFFER_BYTES, &mut 0)
    }

    /// [`Input::line_and_column`], not reading the byte ranges of `no_lf`
    /// (in increasing order, known to hold no LF), reading a file without
    /// its map into a buffer of at most `buffer_bytes` (the pass's reads,
    /// so that `--memory log` keeps its bound) and 64 KiB, and adding the
    /// bytes it reads to `read`.
    pub fn lines_to(
        &self,
        offset: u64,
        no_lf: &[Range<u64>],
        buffer_bytes: usize,
        read: &mut u64,
    ) -> Result<Option<(u64, u64)>, Error> {
        let found = match self.bytes() {
            InputBytes::Memory(bytes) => {
                *read += offset.min(bytes.len() as u64);
                line_and_column(bytes, offset as usize)
            }
            InputBytes::File(file) => {
                let offset = offset.min(file.stamp().len_at_open());
                let mut lines = Lines::default();
                let buffer_bytes = buffer_bytes.min(LINE_BUFFER_BYTES);
                let mut buffer = file.line_buffer(buffer_bytes, offset);
                file.count_lines(&mut lines, offset, no_lf, &mut buffer, read)?;
                lines.line_and_column(offset)
            }
            InputBytes::Stream(_) => return Ok(None),
        };
        Ok(Some(found))
    }

    /// The LFs from offset `start` up to each of `stops` (offsets at or
    /// past it, in increasing order, within the input), counted from
    /// `start` ([`Lines::starting_at`]): the lines of a byte range of a
    /// file and of the heaps its partial names. Reads as
    /// [`Input::lines_to`] does, in a buffer of at most `buffer_bytes`,
    /// adding the bytes it reads to `read`; `None` for a stream.
    pub fn lines_from(
        &self,
        start: u64,
        stops: &[u64],
        buffer_bytes: usize,
        read: &mut u64,
    ) -> Result<Option<Vec<Lines>>, Error> {
        let mut lines = Lines::starting_at(start);
        let mut found = Vec::with_capacity(stops.len());
        match self.bytes() {
            InputBytes::Memory(bytes) => {
                for &stop in stops {
                    *read += stop - lines.counted_to();
                    lines.count_to(bytes, 0, stop);
                    found.push(lines);
                }
            }
            InputBytes::File(file) => {
                let last = stops.last().map_or(start, |&stop| stop);
                let mut buffer = file.line_buffer(buffer_bytes, last - start);
                for &stop in stops {
                    file.count_lines(&mut lines, stop, &[], &mut buffer, read)?;
                    found.push(lines);
                }
            }
            InputBytes::Stream(_) => return Ok(None),
        }
        Ok(Some(found))
    }
}

impl FileInput {
    /// The buffer line counting reads `len` bytes into without the map:
    /// at most `buffer_bytes` (at least one); none when the map is open.
    fn line_buffer(&self, buffer_bytes: usize, len: u64) -> Vec<u8> {
        match self.opened_map() {
            Some(_) => Vec::new(),
            None => vec![
                0;
                buffer_bytes
                    .max(1)
                    .min(len.try_into().unwrap_or(usize::MAX))
            ],
        }
    }

    /// Counts the LFs into `lines` from where it stopped up to `to`:
    /// through the map if it is open (releasing pages behind), else with
    /// positioned reads into `buffer` (from [`FileInput::line_buffer`]),
    /// not reading the ranges of `no_lf`; adds the bytes read to `read`.
    fn count_lines(
        &self,
        lines: &mut Lines,
        to: u64,
        no_lf: &[Range<u64>],
        buffer: &mut [u8],
        read: &mut u64,
    ) -> Result<(), Error> {
        let mut skips = no_lf.iter().peekable();
        let in_map = self.opened_map();
        while lines.counted_to() < to {
            let at = lines.counted_to();
            if let Some(skip) = skips.next_if(|s| s.start <= at) {
                lines.skip_to(skip.end.min(to));
                continue;
            }
            let until = skips.peek().map_or(to, |s| s.start.min(to));
            let piece = match in_map {
                Some(map) => {
                    let end = until.min(at + RELEASE_STEP_BYTES as u64);
                    &map.map()[at as usize..end as usize]
                }
                None => {
                    let want = buffer.len().min((until - at) as usize);
                    self.read_exact_at(&mut buffer[..want], at)?;
                    &buffer[..want]
                }
            };
            lines.count(piece, at);
            *read += piece.len() as u64;
            if let Some(map) = in_map {
                map.pages().release(piece);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::source::input::tests::file_input;

    #[test]
    fn lines_and_columns_are_counted_across_reads_and_steps_of_the_map() {
        let mut text = Vec::new();
        for i in 0..30_000 {
            text.extend_from_slice(if i % 7 == 0 { b"1\n" } else { b"101 " });
        }
        let _slots = crate::input::source::file_changes::tests::hold_slot_tests();
        for allow_map in [false, true] {
            let (_file, input) = file_input(&text, allow_map);
            if let InputBytes::File(file) = input.bytes() {
                // Open the map, as a windowed pass would.
                assert_eq!(file.map().is_some(), allow_map);
            }
            for offset in [0, 1, 65_535, 65_536, 65_537, 100_000, text.len() as u64 - 1] {
                assert_eq!(
                    input.line_and_column(offset).unwrap(),
                    Some(line_and_column(&text, offset as usize)),
                    "offset {offset}"
                );
            }
        }
    }
}
