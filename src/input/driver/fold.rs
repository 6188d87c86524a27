//! What a pass pushes heaps into: the [`Fold`] trait and what the driver knows of a heap besides its
//! value ([`At`]).

use crate::error::Error;
use crate::input::blocks::{RawBlock, WordBlock};
use crate::input::heap::{Heap, HeapValue};
use crate::input::lines::Lines;
use crate::input::long::from_end::SummedHeap;
use crate::input::long::pieces::{LongHeap, LongTail};
use crate::input::source::page_release::PageReleaser;

/// What a fold needs of the driver, stated in one place ([`Fold::needs`]):
/// how it takes long tokens and short ones. Each need says which of the
/// fold's methods the driver then calls; a fold that needs nothing takes
/// every heap through [`Fold::heap`] (and [`Fold::long_heap`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Needs {
    /// Takes a `bits` or `hex` token read in pieces group by group
    /// ([`Fold::long_groups`], then [`Fold::long_tail`]) rather than whole
    /// ([`Fold::long_heap`]): a fold that needs each digit once (a residue)
    /// then holds no copy of the token, and no token is too long for it.
    pub drains_long_tokens: bool,
    /// The most bits a `bits` or `hex` token may have for a positioned
    /// pass to read it from its end (`from_end.rs`): its limbs XORed
    /// straight into a sum the fold's ranges share ([`Fold::xor_limbs`]),
    /// the token then handed over without its value
    /// ([`Fold::summed_heap`]). `None`: the fold takes long tokens whole or
    /// drained.
    pub sums_from_end: Option<u64>,
    /// Takes the heaps of a scanner that parses them a block at a time
    /// ([`crate::input::scanner::HeapScanner::fill_words`]) in blocks
    /// ([`Fold::words`]) rather than one by one.
    pub takes_words: bool,
    /// The scanners may pack short tokens into scratch space
    /// ([`HeapValue::Packed`]) instead of handing out their digits.
    pub packs_tokens: bool,
}

impl Needs {
    /// Heaps one by one, long tokens whole.
    pub const NOTHING: Needs = Needs {
        drains_long_tokens: false,
        sums_from_end: None,
        takes_words: false,
        packs_tokens: false,
    };

    /// Heaps in blocks of words where a scanner parses them so.
    pub const WORDS: Needs = Needs {
        takes_words: true,
        ..Needs::NOTHING
    };
}

/// What a pass pushes heaps into. A pass over a source that can be read at
/// any offset makes one fold per range and merges them in file order, so a
/// fold's state must merge associatively. Heap indices count from 0 in
/// each range.
///
/// Two methods every fold writes: [`Fold::heap`] and [`Fold::merge`]. The
/// rest have defaults, and the driver calls them as [`Fold::needs`] says:
/// long tokens whole ([`Fold::long_heap`]), drained
/// ([`Fold::long_groups`], [`Fold::long_tail`]) or summed from their end
/// ([`Fold::xor_limbs`], [`Fold::summed_heap`]); heaps in blocks
/// ([`Fold::raw_elements`] for raw arrays, [`Fold::words`] for short
/// tokens); and [`Fold::done`], which ends a range early.
pub trait Fold: Send + Sized {
    /// What the fold needs of the driver beyond heaps one by one (see
    /// [`Needs`]); by default nothing.
    fn needs(&self) -> Needs {
        Needs::NOTHING
    }

    /// Takes the `index`-th heap of the range.
    fn heap(&mut self, index: u64, heap: &Heap<'_>, at: &mut At<'_>) -> Result<(), Error>;

    /// Takes a `bits` or `hex` token the driver read in pieces (it was
    /// longer than a read); returns its buffer, for the next such token.
    fn long_heap(
        &mut self,
        index: u64,
        long: LongHeap,
        at: &mut At<'_>,
    ) -> Result<Vec<u64>, Error> {
        let heap = Heap {
            offset: long.offset,
            value: HeapValue::Limbs(long.into_limbs()),
        };
        self.heap(index, &heap, at)?;
        match heap.value {
            HeapValue::Limbs(limbs) => Ok(limbs),
            _ => unreachable!("built as limbs just above"),
        }
    }

    /// Takes the next whole groups of the token being read in pieces, in
    /// reading order: 64 binary or 16 hex digits each (when
    /// [`Needs::drains_long_tokens`]).
    fn long_groups(&mut self, _groups: &[u64]) {}

    /// Takes the end of the `index`-th heap, a token whose whole groups
    /// went to [`Fold::long_groups`].
    fn long_tail(&mut self, _index: u64, _tail: LongTail) -> Result<(), Error> {
        Ok(())
    }

    /// XORs limbs `first ..` of a token read from its end into the shared
    /// sum (when [`Needs::sums_from_end`]).
    fn xor_limbs(&self, _first: u64, _limbs: &[u64]) {}

    /// Takes the `index`-th heap, a token whose limbs went to
    /// [`Fold::xor_limbs`].
    fn summed_heap(&mut self, _index: u64, _heap: &SummedHeap) -> Result<(), Error> {
        Ok(())
    }

    /// Takes a block of whole elements of a raw array; by default one
    /// heap at a time.
    fn raw_elements(&mut self, block: RawBlock<'_>) -> Result<(), Error> {
        each_element(self, block)
    }

    /// Takes a block of heaps of at most 128 bits (when
    /// [`Needs::takes_words`]); by default one heap at a time.
    fn words(&mut self, block: WordBlock<'_>, at: &mut At<'_>) -> Result<(), Error> {
        each_word(self, block, at)
    }

    /// Whether the fold needs no more heaps of its range.
    fn done(&self) -> bool {
        false
    }

    /// Appends the fold of the range that follows this one, whose heap
    /// indices start again from 0: `heaps_before` heaps precede it.
    fn merge(&mut self, later: Self, heaps_before: u64) -> Result<(), Error>;
}

/// Hands `fold` the elements of `block` one heap at a time (see
/// [`Fold::raw_elements`]), until it is done.
pub fn each_element<F: Fold>(fold: &mut F, block: RawBlock<'_>) -> Result<(), Error> {
    let mut at = At::nowhere();
    for (i, value) in block.elements().enumerate() {
        fold.heap(block.index + i as u64, &block.heap(i, value), &mut at)?;
        if fold.done() {
            break;
        }
    }
    Ok(())
}

/// Hands `fold` the heaps of `block` one at a time (see [`Fold::words`]),
/// until it is done.
pub fn each_word<F: Fold>(
    fold: &mut F,
    block: WordBlock<'_>,
    at: &mut At<'_>,
) -> Result<(), Error> {
    for i in 0..block.len() {
        fold.heap(block.index + i as u64, &block.heap(i), at)?;
        if fold.done() {
            break;
        }
    }
    Ok(())
}

/// A run of heaps of at most 64 bits shorter than this, inside a block
/// with wider ones, goes one heap at a time: a block's own costs (a
/// fold's set-up, its loops' ends) are those of about as many heaps.
const FEWEST_NARROW: usize = 16;

/// Hands `fold` the heaps of `block`, some of which are wider than 64
/// bits, in order: each run of [`FEWEST_NARROW`] or more heaps of at most
/// 64 bits to `narrow` as a block of its own (`high_or` 0), every other
/// heap one at a time; until the fold is done. A fold's loops over blocks
/// of one limb thus keep `hex` of up to 64 bits with a `u128` now and
/// then, which would otherwise go one heap at a time.
pub fn narrow_runs<F: Fold>(
    fold: &mut F,
    block: WordBlock<'_>,
    at: &mut At<'_>,
    mut narrow: impl FnMut(&mut F, WordBlock<'_>, &mut At<'_>) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut from = 0;
    while from < block.len() {
        let wide = block.next_wide(from);
        let to = wide.unwrap_or(block.len());
        let singles = match to - from >= FEWEST_NARROW {
            true => {
                narrow(fold, block.narrow_run(from, to), at)?;
                to..to
            }
            false => from..to,
        };
        if fold.done() {
            return Ok(());
        }
        for i in singles.chain(wide) {
            fold.heap(block.index + i as u64, &block.heap(i), at)?;
            if fold.done() {
                return Ok(());
            }
        }
        from = to + 1;
    }
    Ok(())
}

/// What the driver knows of a heap besides its value.
pub struct At<'c> {
    /// The lines counted so far and the chunk being read, when the driver
    /// counts lines (a stream of a text format).
    pub(super) lines: Option<(&'c mut Lines, &'c [u8], u64)>,
    /// Releases the pages the heap lies in, when it lies in a map.
    pub pages: PageReleaser<'c>,
}

impl At<'_> {
    /// Nothing known: no lines counted, no map.
    pub fn nowhere() -> At<'static> {
        At {
            lines: None,
            pages: PageReleaser::NONE,
        }
    }

    /// The line of the heap at `offset` when the driver counts lines as it
    /// reads (a stream, which cannot look it up later); `None` otherwise.
    /// Offsets asked for must not decrease.
    pub fn line(&mut self, offset: u64) -> Option<u64> {
        let (lines, chunk, base) = self.lines.as_mut()?;
        lines.count_to(chunk, *base, offset);
        Some(lines.line())
    }

    /// [`At::line`] with the column, for an error at `offset`.
    pub fn line_and_column(&mut self, offset: u64) -> Option<(u64, u64)> {
        let (lines, chunk, base) = self.lines.as_mut()?;
        Some(lines.locate(chunk, *base, offset))
    }
}
