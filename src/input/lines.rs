//! Line and column numbers (SPEC section 3: lines end at LF, the column
//! counts bytes after the last LF, both 1-based), found by counting LFs as
//! the bytes go by.
//!
//! Every line number nimstream reports comes from a [`Lines`]: an error's
//! line and column, the line of a heap a stream keeps, the move's line
//! looked up once an analysis is done. The bytes may come in pieces (the
//! chunks of a stream, the reads of a file, steps through a map whose pages
//! are released behind), so a `Lines` is fed them in order and remembers
//! how far it has counted; ranges known to hold no LF (the digits of a
//! long token) can be skipped without being read.

/// LFs counted from the start of an input up to some offset.
#[derive(Clone, Copy, Debug, Default)]
pub struct Lines {
    /// LFs before `counted_to`.
    lfs: u64,
    /// The offset just past the last LF before `counted_to` (0 if none).
    line_start: u64,
    /// Bytes before this offset have been counted (or skipped).
    counted_to: u64,
}

impl Lines {
    /// Nothing counted yet, counting from offset `start`: the LFs of the
    /// bytes from there on ([`Lines::lfs`], [`Lines::last_lf`]), such as
    /// those of one byte range of a file.
    pub fn starting_at(start: u64) -> Lines {
        Lines {
            lfs: 0,
            line_start: 0,
            counted_to: start,
        }
    }

    /// The LFs counted.
    pub fn lfs(&self) -> u64 {
        self.lfs
    }

    /// The offset of the last LF counted, if any.
    pub fn last_lf(&self) -> Option<u64> {
        self.line_start.checked_sub(1)
    }

    /// Counts the LFs of `bytes` (whose first byte is at offset `base`)
    /// from where counting stopped up to offset `to`, which must lie in
    /// `bytes` or at its end. Bytes before where counting stopped are not
    /// counted twice.
    pub fn count_to(&mut self, bytes: &[u8], base: u64, to: u64) {
        let from = self.counted_to.max(base);
        if to <= from {
            return;
        }
        let piece = &bytes[(from - base) as usize..(to - base) as usize];
        self.lfs += bytecount::count(piece, b'\n') as u64;
        if let Some(lf) = memchr::memrchr(b'\n', piece) {
            self.line_start = from + lf as u64 + 1;
        }
        self.counted_to = to;
    }

    /// Counts all of `bytes`, whose first byte is at offset `base`.
    pub fn count(&mut self, bytes: &[u8], base: u64) {
        self.count_to(bytes, base, base + bytes.len() as u64);
    }

    /// Moves past bytes known to hold no LF, up to offset `to`.
    pub fn skip_to(&mut self, to: u64) {
        self.counted_to = self.counted_to.max(to);
    }

    /// Where counting stopped.
    pub fn counted_to(&self) -> u64 {
        self.counted_to
    }

    /// The 1-based line of the offset where counting stopped.
    pub fn line(&self) -> u64 {
        self.lfs + 1
    }

    /// The 1-based line and column of `offset`, once counted up to it.
    pub fn line_and_column(&self, offset: u64) -> (u64, u64) {
        debug_assert_eq!(offset, self.counted_to);
        (self.lfs + 1, offset - self.line_start + 1)
    }

    /// Counts up to `offset` in `bytes` (first byte at `base`) and gives its
    /// line and column.
    pub fn locate(&mut self, bytes: &[u8], base: u64, offset: u64) -> (u64, u64) {
        self.count_to(bytes, base, offset);
        self.line_and_column(offset)
    }
}

/// The 1-based line and column of `offset` in `data` (lines end at LF; an
/// offset past the end is taken as the end).
pub fn line_and_column(data: &[u8], offset: usize) -> (u64, u64) {
    let offset = offset.min(data.len()) as u64;
    Lines::default().locate(data, 0, offset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_and_column_count_bytes_after_the_last_lf() {
        let data = b"01\n10 x\n";
        assert_eq!(line_and_column(data, 0), (1, 1));
        assert_eq!(line_and_column(data, 6), (2, 4));
        assert_eq!(line_and_column(data, 8), (3, 1));
    }

    #[test]
    fn pieces_count_like_the_whole() {
        let data: Vec<u8> = (0..5000u32)
            .map(|i| {
                if i % 7 == 3 || i % 31 == 0 {
                    b'\n'
                } else {
                    b'1'
                }
            })
            .collect();
        for step in [1, 2, 64, 999, 5000] {
            for offset in [0, 1, 3, 4, 500, 4096, 4999, 5000] {
                let mut lines = Lines::default();
                let mut base = 0;
                while base + step <= offset {
                    lines.count(&data[base..base + step], base as u64);
                    base += step;
                }
                let end = data.len().min(base + step);
                let found = lines.locate(&data[base..end], base as u64, offset as u64);
                assert_eq!(found, line_and_column(&data, offset), "{step} {offset}");
            }
        }
    }

    #[test]
    fn skipped_bytes_hold_no_line_feed() {
        let data = b"1\n111111 1\n1";
        let mut lines = Lines::default();
        lines.count_to(data, 0, 3);
        lines.skip_to(8);
        assert_eq!(lines.locate(data, 0, 11), line_and_column(data, 11));
    }
}
