//! The loop over the heaps of one piece of input (a read buffer, a stream's
//! chunk, a range in place): the format's scanner hands each heap to the
//! fold where it is built ([`HeapLoop`]), or a block of short heaps at a
//! time to a fold that takes blocks ([`in_blocks`]); raw arrays go to the
//! fold a block of whole elements at a time ([`scan_piece`]). Pages of a
//! map are released behind the loop.

use super::fold::{At, Fold};
use super::pass::Stop;
use crate::input::blocks::{RawBlock, WordBuffer};
use crate::input::format::Format;
use crate::input::formats::any::Scanner;
use crate::input::formats::raw::trailing_bytes_error;
use crate::input::heap::Heap;
use crate::input::packed::TokenScratch;
use crate::input::scanner::{HeapScanner, ScanVisitor};
use crate::input::source::page_release::{PageReleaser, RELEASE_STEP_BYTES};

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
        let result = match S::FILLS_WORDS && fold.needs().takes_words {
            true => in_blocks(&mut scanner, fold, heaps, scratch, &mut at, &mut released),
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

/// A run of blocks that takes fewer heaps than this is not worth trying
/// again at once: the heaps around are mostly long ones.
const FEW_HEAPS: usize = 16;

/// The most heaps the general path takes, after runs of blocks that took
/// few, before the blocks are tried again.
const MOST_BETWEEN_RUNS: u32 = 256;

/// The fewest heaps a run of blocks is let take (see [`next_most`]).
const FEWEST_PER_RUN: usize = 64;

/// The heaps the run after one that took `taken` of `most` may take:
/// twice as many as the run took, at least [`FEWEST_PER_RUN`]. A run
/// stops before the first token too long for the blocks, and the tokens
/// it found past that one, up to `most`, were found for nothing (a token
/// that runs through a block stops the search, but one of 17-127 `hex`
/// digits does not): where runs keep stopping early, the next ones stop
/// searching sooner. Full runs double it back to the buffer's size.
/// Short `hex` with a token of 40 digits after every 64 lines took 0.19
/// of the instructions that runs of 1,024 heaps each time took (valgrind,
/// 32 MiB), and 0.18 of the time (593 MiB, one thread).
fn next_most(most: usize, taken: usize, full: bool) -> usize {
    match full {
        true => 2 * most,
        false => (2 * taken).max(FEWEST_PER_RUN),
    }
}

/// The loop of a scanner that parses short heaps a block at a time: each
/// run of blocks goes to the fold whole, and the heap that ended it (a
/// long one, or one the blocks leave) to the general path, with
/// `scratch`. Where runs keep taking few heaps, the general path takes
/// more before the next run, twice as many each time up to
/// [`MOST_BETWEEN_RUNS`]: a file of long tokens pays for a look at a
/// block now and then only. Each run may take as many heaps as
/// [`next_most`] says.
fn in_blocks<'a, S: HeapScanner<'a>, F: Fold>(
    scanner: &mut S,
    fold: &mut F,
    heaps: &mut u64,
    mut scratch: Option<&mut TokenScratch>,
    at: &mut At<'_>,
    released: &mut Option<(&[u8], u64)>,
) -> Result<(), Stop> {
    let mut words = WordBuffer::default();
    // Heaps left to the general path before the next run, and how many it
    // takes after the next run that takes few.
    let (mut general, mut next_general) = (0u32, 1u32);
    loop {
        if general == 0 {
            scanner.fill_words(&mut words);
            let (taken, full) = (words.len(), words.is_full());
            words.set_most(next_most(words.most(), taken, full));
            if taken > 0 {
                let block = words.block(*heaps);
                fold.words(block, at)?;
                *heaps += taken as u64;
                if let Some((map, done_to)) = released {
                    let last = block.offsets[taken - 1];
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
            (general, next_general) = match taken >= FEW_HEAPS {
                true => (1, 1),
                false => (next_general, (2 * next_general).min(MOST_BETWEEN_RUNS)),
            };
        }
        let took = scanner.take_heap(scratch.as_deref_mut(), |heap| {
            take_heap(fold, heaps, heap, at, released)
        })?;
        if !took {
            return Ok(());
        }
        general -= 1;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_that_stop_early_shrink_the_next_and_full_ones_grow_it() {
        assert_eq!(next_most(1024, 64, false), 128);
        assert_eq!(next_most(128, 64, false), 128);
        assert_eq!(next_most(1024, 3, false), FEWEST_PER_RUN);
        assert_eq!(next_most(128, 130, true), 256);
        assert_eq!(next_most(1024, 1030, true), 2048);
    }
}
