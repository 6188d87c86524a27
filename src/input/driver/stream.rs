//! Reading a stream (standard input, a pipe): chunks cut at heap
//! boundaries, the unused tail carried to the next read, lines counted as
//! the chunks go by, since a stream cannot be read again to find them.

use super::fold::{At, Fold};
use super::heap_loop::scan_piece;
use super::pass::{Located, Reads, Stop};
use super::progress;
use crate::input::format::Format;
use crate::input::formats::any::complete_prefix;
use crate::input::lines::Lines;
use crate::input::source::fill;
use crate::input::source::page_release::PageReleaser;

/// The first read's size: 8 KiB; reads grow to the chunk size from there.
const FIRST_CHUNK_BYTES: usize = 8 << 10;

/// Reads a stream chunk by chunk, each cut at a heap boundary, counting
/// lines for the text formats; returns the bytes read, the heaps read and
/// the error that stopped it, if any.
pub(super) fn read_stream<F: Fold>(
    reader: &mut dyn std::io::Read,
    format: Format,
    reads: &Reads,
    fold: &mut F,
) -> (u64, u64, Option<Located>) {
    // The buffer starts small, so that a short input costs little working
    // memory, and doubles while reads fill it, up to the chunk size (past
    // it only to hold a heap that does not fit).
    let mut buffer: Vec<u8> = Vec::with_capacity(reads.stream_chunk_bytes.min(FIRST_CHUNK_BYTES));
    let mut lines = Lines::default();
    let (mut base, mut heaps) = (0u64, 0u64);
    let mut filled = false;
    loop {
        let holds_no_heap = buffer.len() == buffer.capacity();
        if holds_no_heap || (filled && buffer.capacity() < reads.stream_chunk_bytes) {
            buffer.reserve(2 * buffer.capacity() - buffer.len());
        }
        let eof = match fill(reader, &mut buffer) {
            Ok(eof) => eof,
            Err(e) => return (base, heaps, Some(Located::Io(e))),
        };
        filled = !eof;
        let usable = match eof {
            true => buffer.len(),
            false => complete_prefix(format, &buffer, base == 0),
        };
        if usable > 0 || eof {
            let piece = &buffer[..usable];
            let counting = format.is_text().then_some((&mut lines, piece, base));
            let at = At {
                lines: counting,
                pages: PageReleaser::NONE,
            };
            match scan_piece(format, piece, base, fold, &mut heaps, None, at) {
                Ok(()) | Err(Stop::Done) => {}
                Err(Stop::Parse(error)) => {
                    let line_col = format
                        .is_text()
                        .then(|| lines.locate(piece, base, error.offset));
                    return (base, heaps, Some(Located::Parse(error, line_col)));
                }
                Err(Stop::Failed(error)) => return (base, heaps, Some(Located::Failed(error))),
            }
            lines.count(piece, base);
            progress::read(usable as u64);
            buffer.drain(..usable);
            base += usable as u64;
        }
        if eof {
            return (base, heaps, None);
        }
    }
}
