//! Reading a range in place: bytes in memory or a memory map, which the
//! scanner walks as they lie, a map's pages released behind the pass (and
//! inside long heaps, step by step).

use super::fold::{At, Fold};
use super::heap_loop::{scan_piece, HeapLoop};
use super::pass::Stop;
use crate::input::format::Format;
use crate::input::formats::any::Scanner;
use crate::input::packed::TokenScratch;
use crate::input::source::page_release::RELEASE_STEP_BYTES;
use crate::input::source::InPlace;
use std::ops::Range;

/// Reads `range` of the bytes `place` holds (a buffer, or a map whose
/// pages are released behind the pass); returns the bytes read.
pub(super) fn read_in_place<F: Fold>(
    place: InPlace<'_>,
    format: Format,
    range: Range<u64>,
    fold: &mut F,
    heaps: &mut u64,
) -> Result<u64, (Stop, u64)> {
    let (data, pages) = (place.bytes, place.pages);
    let (start, end) = (range.start as usize, range.end as usize);
    let slice = &data[start..end];
    if let Some(width) = format.raw_width() {
        let step = RELEASE_STEP_BYTES - RELEASE_STEP_BYTES % width;
        for (n, piece) in slice.chunks(step).enumerate() {
            let base = (start + n * step) as u64;
            // A fold done early read up to the end of this piece.
            let read = (n * step + piece.len()) as u64;
            scan_piece(format, piece, base, fold, heaps, None, At::nowhere())
                .map_err(|stop| (stop, read))?;
            pages.release(piece);
        }
        return Ok(range.end - range.start);
    }
    let mut scratch = fold.needs().packs_tokens.then(TokenScratch::default);
    let mut stopped_at = slice.len();
    let visitor = HeapLoop {
        fold,
        heaps,
        scratch: scratch.as_mut(),
        at: At { lines: None, pages },
        released: Some((data, range.start)),
        stopped_at: Some(&mut stopped_at),
    };
    let read = Scanner::new(format, slice, range.start)
        .releasing(pages)
        .visit(visitor);
    if let Err(stop) = read {
        // A fold done early read only what its scanner took.
        return Err((stop, stopped_at as u64));
    }
    pages.release(slice);
    Ok(range.end - range.start)
}
