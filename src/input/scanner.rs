//! What every format's reader is: a [`HeapScanner`] yields the heaps of
//! one byte slice in file order, one at a time ([`HeapScanner::next_heap`],
//! [`HeapScanner::take_heap`]) or, for the text formats' short tokens, a
//! block at a time ([`HeapScanner::fill_words`]); a [`ScanVisitor`] is a
//! loop over the heaps written once and compiled for each format.
//!
//! The formats themselves are in `formats/`, one file or folder each.

use super::blocks::WordBuffer;
use super::heap::Heap;
use super::packed::TokenScratch;
use crate::error::ParseError;

/// A format's reader over one slice: yields the heaps in order.
pub trait HeapScanner<'a> {
    /// The next heap, `None` at the end of the slice, or the first bad byte.
    fn next_heap(&mut self) -> Result<Option<Heap<'a>>, ParseError>;

    /// How many bytes of the slice the heaps so far took (a heap boundary).
    fn consumed(&self) -> usize;

    /// Whether the scanner parses short heaps a block at a time
    /// ([`HeapScanner::fill_words`]).
    const FILLS_WORDS: bool = false;

    /// Parses heaps of at most 128 bits into `words` until it is full or
    /// the next heap is one the block loop does not take (a long one, one
    /// near the end of the slice, a bad byte, the end), which is left to
    /// [`HeapScanner::take_heap`].
    fn fill_words(&mut self, _words: &mut WordBuffer) {}

    /// Calls `take` with the next heap, if there is one before the end of
    /// the slice (`false` otherwise), or returns the first error. Given
    /// `scratch`, a format may convert a heap into it in the same pass that
    /// checks it, rather than hand out its digits. The heap is built where
    /// `take` is inlined, so it stays in registers (a heap returned through
    /// memory, written field by field and read back in wider moves, stalls
    /// the loop).
    #[inline(always)]
    fn take_heap<E: From<ParseError>>(
        &mut self,
        _scratch: Option<&mut TokenScratch>,
        take: impl FnOnce(&Heap<'_>) -> Result<(), E>,
    ) -> Result<bool, E> {
        match self.next_heap()? {
            Some(heap) => take(&heap).map(|()| true),
            None => Ok(false),
        }
    }

    /// Calls `take` with each heap in turn ([`HeapScanner::take_heap`]), up
    /// to the end of the slice or the first error.
    #[inline(always)]
    fn each_heap<E: From<ParseError>>(
        &mut self,
        mut scratch: Option<&mut TokenScratch>,
        mut take: impl FnMut(&Heap<'_>) -> Result<(), E>,
    ) -> Result<(), E> {
        while self.take_heap(scratch.as_deref_mut(), &mut take)? {}
        Ok(())
    }
}

/// A loop over the heaps of one scanner, written once and compiled for
/// each format's scanner by [`Scanner::visit`](crate::input::formats::any::Scanner::visit): the dispatch on the format
/// happens once per slice instead of once per heap.
pub trait ScanVisitor<'a> {
    /// What the loop returns.
    type Output;
    /// Runs the loop over `scanner`.
    fn visit<S: HeapScanner<'a>>(self, scanner: S) -> Self::Output;
}
