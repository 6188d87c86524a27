//! The loop over the heaps of one piece of input (a read buffer, a stream's
//! chunk, a range in place): the format's scanner hands each heap to the
//! fold where it is built ([`HeapLoop`]), or a block of short heaps at a
//! time to a fold that takes blocks ([`in_blocks`]); raw arrays go to the
//! fold a block of whole elements at a time ([`scan_piece`]). Pages of a
//! map are released behind the loop.

use super::{At, Fold, Stop};
use crate::input::page_release::{PageReleaser, RELEASE_STEP_BYTES};
use crate::input::{
    trailing_bytes_error, Format, Heap, HeapScanner, RawBlock, ScanVisitor, Scanner, TokenScratch,
    WordBuffer,
};

/// Scans `piece` (first byte at offset `base`) into `fold`, counting heaps
/// in `heaps`: the loop over heaps is compiled once per format.
pub(super) fn scan_piece<F: Fold>(
    format: Format,
    piece: &[u8],
    base: u64,
    fold: &mut F,
    heaps: &mut u64,
    scratch: Option<&mut TokenScratch>,
    at: At<'_>,
) -> Result<(), Stop> {
    if let Some(width) = format.raw_width() {
        let whole = piece.len() - piece.len() % width;
        let block = RawBlock {
            bytes: &piece[..whole],
            width,
            index: *heaps,
            base,
        };
        fold.raw_elements(block)?;
        *heaps += (whole / width) as u64;
        if whole < piece.len() {
            let error = trailing_bytes_error(base + whole as u64, piece.len() - whole, width);
            return Err(Stop::Parse(error));
        }
        return if fold.done() { Err(Stop::Done) } else { Ok(()) };
    }
    let visitor = HeapLoop {
        fold,
        heaps,
        scratch,
        at,
        released: None,
        stopped_at: None,
    };
    Scanner::new(format, piece, base).visit(visitor)
}

/// The loop over the heaps of one piece (see [`ScanVisitor`]): each heap
/// is built where the fold takes it, so it stays in registers.
pub(super) struct HeapLoop<'f, 'c, F> {
    pub(super) fold: &'f mut F,
    pub(super) heaps: &'f mut u64,
    pub(super) scratch: Option<&'f mut TokenScratch>,
    pub(super) at: At<'c>,
    /// In place in a map: the map and the offset up to which its pages are
    /// released.
    pub(super) released: Option<(&'c [u8], u64)>,
    /// In place: set to the bytes of the slice the scanner took when the
    /// fold is done before its end (the bytes the pass read).
    pub(super) stopped_at: Option<&'f mut usize>,
}

impl<'a, F: Fold> ScanVisitor<'a> for HeapLoop<'_, '_, F> {
    type Output = Result<(), Stop>;

    fn visit<S: HeapScanner<'a>>(self, mut scanner: S) -> Result<(), Stop> {
        let HeapLoop {
            fold,
            heaps,
            scratch,
            mut at,
            mut released,
            stopped_at,
        } = self;
        let result = match S::FILLS_WORDS && fold.takes_words() {
            true => in_blocks(&mut scanner, fold, heaps, &mut at, &mut released),
            false => scanner.each_heap(scratch, |heap| {
                take_heap(fold, heaps, heap, &mut at, &mut released)
            }),
        };
        if let (Err(Stop::Done), Some(stopped_at)) = (&result, stopped_at) {
            *stopped_at = scanner.consumed();
        }
        result
    }
}

/// The loop of a scanner that parses short heaps a block at a time: each
/// block goes to the fold whole, and the heap that ended it (if any)
/// alone.
fn in_blocks<'a, S: HeapScanner<'a>, F: Fold>(
    scanner: &mut S,
    fold: &mut F,
    heaps: &mut u64,
    at: &mut At<'_>,
    released: &mut Option<(&[u8], u64)>,
) -> Result<(), Stop> {
    let mut words = WordBuffer::default();
    loop {
        scanner.fill_words(&mut words);
        let full = words.is_full();
        if !words.is_empty() {
            let block = words.block(*heaps);
            fold.words(block, at)?;
            *heaps += block.len() as u64;
            if let Some((map, done_to)) = released {
                let last = block.offsets[block.len() - 1];
                release_behind(at.pages, map, done_to, last);
            }
            words.clear();
        }
        if fold.done() {
            return Err(Stop::Done);
        }
        if full {
            continue;
        }
        match scanner.next_heap()? {
            Some(heap) => take_heap(fold, heaps, &heap, at, released)?,
            None => return Ok(()),
        }
    }
}

/// Hands `heap` to `fold` as the next heap of its range, and releases the
/// pages behind it.
#[inline(always)]
fn take_heap<F: Fold>(
    fold: &mut F,
    heaps: &mut u64,
    heap: &Heap<'_>,
    at: &mut At<'_>,
    released: &mut Option<(&[u8], u64)>,
) -> Result<(), Stop> {
    fold.heap(*heaps, heap, at)?;
    *heaps += 1;
    if let Some((map, done_to)) = released {
        release_behind(at.pages, map, done_to, heap.offset);
    }
    if fold.done() {
        return Err(Stop::Done);
    }
    Ok(())
}

/// Releases the pages of `map` from `done_to` up to `offset` once they
/// make a step.
#[inline]
fn release_behind(pages: PageReleaser<'_>, map: &[u8], done_to: &mut u64, offset: u64) {
    if offset >= *done_to + RELEASE_STEP_BYTES as u64 {
        pages.release(&map[*done_to as usize..offset as usize]);
        *done_to = offset;
    }
}
