//! The driver: reads an input in pieces cut at heap boundaries and pushes
//! its heaps, in file order, into a [`Fold`]. Every pass of every analysis
//! goes through [`run`].
//!
//! One function reads each kind of source:
//!
//! - bytes in memory or a memory map ([`Reading::Mapped`]), in place: the
//!   scanner runs over the range itself, and a map's pages are released
//!   behind the pass (and inside long heaps, step by step);
//! - a regular file read with positioned reads ([`Reading::Positioned`]):
//!   buffers of a fixed size cut at heap boundaries; a `bits` or `hex`
//!   token longer than a buffer is read in pieces, and any
//!   other heap too long to buffer is read in place from the map (or, with
//!   no map, into a buffer that grows to hold it);
//! - a stream: chunks cut at heap boundaries, the unused tail carried to
//!   the next read, lines counted as the chunks go by.
//!
//! Work is split across threads in one place (`ranges.rs`): a source that can
//! be read at any offset is cut into ranges that start on heap boundaries,
//! one fold per range, and the folds merge in file order ([`Fold::merge`]),
//! which is what lets threads (and later machines) share a pass. The
//! earliest error wins.

mod from_end;
mod heap_loop;
mod in_place;
mod positioned;
mod ranges;
mod reread;
mod stream;
#[cfg(test)]
mod tests;

pub use reread::{heap_at, Reread};

use super::cancel::{Cancel, CANCEL_PIECE_BYTES};
use super::lines::Lines;
use super::long_tokens::{LongHeap, LongTail};
use super::page_release::PageReleaser;
use super::progress;
use super::source::{Input, RandomAccess, Reading};
use super::tokens_from_end::SummedHeap;
use super::{Format, Heap, HeapValue, RawBlock, WordBlock};
use crate::error::{Error, ParseError};
use in_place::read_in_place;
use positioned::Positioned;
use ranges::{run_located, split};
use std::ops::Range;
use stream::read_stream;

/// The alignment the read buffers keep: a cache line.
const LINE: usize = 64;

/// What a pass pushes heaps into. A pass over a source that can be read at
/// any offset makes one fold per range and merges them in file order, so a
/// fold's state must merge associatively. Heap indices count from 0 in
/// each range.
pub trait Fold: Send + Sized {
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

    /// Whether the fold takes a `bits` or `hex` token read in pieces group
    /// by group ([`Fold::long_groups`], then [`Fold::long_tail`]) rather
    /// than whole ([`Fold::long_heap`]): a fold that needs each digit once
    /// (a residue) then holds no copy of the token, and no token is too
    /// long for it.
    fn drains_long_tokens(&self) -> bool {
        false
    }

    /// Takes the next whole groups of the token being read in pieces, in
    /// reading order: 64 binary or 16 hex digits each (when
    /// [`Fold::drains_long_tokens`]).
    fn long_groups(&mut self, _groups: &[u64]) {}

    /// Takes the end of the `index`-th heap, a token whose whole groups
    /// went to [`Fold::long_groups`].
    fn long_tail(&mut self, _index: u64, _tail: LongTail) -> Result<(), Error> {
        Ok(())
    }

    /// The most bits a `bits` or `hex` token may have for a positioned
    /// pass to read it from its end (`from_end.rs`): its limbs XORed
    /// straight into a sum the fold's ranges share ([`Fold::xor_limbs`]),
    /// the token then handed over without its value
    /// ([`Fold::summed_heap`]). `None` (the default): the fold takes long
    /// tokens whole or drained.
    fn sums_from_end(&self) -> Option<u64> {
        None
    }

    /// XORs limbs `first ..` of a token read from its end into the shared
    /// sum (when [`Fold::sums_from_end`]).
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

    /// Whether the fold takes the heaps of a scanner that parses them a
    /// block at a time ([`crate::input::HeapScanner::fill_words`]) in blocks
    /// ([`Fold::words`]) rather than one by one.
    fn takes_words(&self) -> bool {
        false
    }

    /// Takes a block of heaps of at most 128 bits (when
    /// [`Fold::takes_words`]); by default one heap at a time.
    fn words(&mut self, block: WordBlock<'_>, at: &mut At<'_>) -> Result<(), Error> {
        each_word(self, block, at)
    }

    /// Whether the scanners may pack short tokens into scratch space
    /// ([`HeapValue::Packed`]) instead of handing out their digits.
    fn packs_tokens(&self) -> bool {
        false
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

/// What the driver knows of a heap besides its value.
pub struct At<'c> {
    /// The lines counted so far and the chunk being read, when the driver
    /// counts lines (a stream of a text format).
    lines: Option<(&'c mut Lines, &'c [u8], u64)>,
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

/// How a pass reads its input: the sizes the memory budget allows.
#[derive(Clone, Copy, Debug)]
pub struct Reads {
    /// Ranges read at once, each on a thread (inputs read at any offset).
    pub ranges: usize,
    /// A range shorter than this is not worth a thread of its own.
    pub min_range_bytes: u64,
    /// Bytes per positioned read.
    pub read_bytes: usize,
    /// A heap of more text than this is not buffered in a positioned
    /// pass: a `bits` or `hex` token is read in pieces, any other heap in
    /// place from the map.
    pub max_buffered_heap_bytes: usize,
    /// The most memory a token read in pieces may pack into; a longer one
    /// is read in place from the map.
    pub max_packed_bytes: usize,
    /// The first size of a stream's read buffer (it grows to hold a heap).
    pub stream_chunk_bytes: usize,
    /// Whether the pass needs heaps of any length without holding them
    /// (see [`crate::input::source::FileInput::reading`]).
    pub heaps_in_place: bool,
}

/// A pass's merged fold and what it cost.
pub struct Folded<F> {
    /// The folds of every range, merged.
    pub fold: F,
    /// Bytes read from the input.
    pub bytes_read: u64,
    /// Ranges read at once.
    pub ranges: usize,
    /// Heaps read.
    pub heaps: u64,
}

/// Why the reading of a range stopped early.
enum Stop {
    /// A malformed byte.
    Parse(ParseError),
    /// The fold or a read failed.
    Failed(Error),
    /// The fold needs nothing more.
    Done,
}

impl From<ParseError> for Stop {
    fn from(error: ParseError) -> Stop {
        Stop::Parse(error)
    }
}

impl From<Error> for Stop {
    fn from(error: Error) -> Stop {
        Stop::Failed(error)
    }
}

/// One range's fold, heap count and bytes read.
type RangeRun<F> = (F, u64, u64);

/// Runs one pass over `input`: pushes its heaps into folds made by
/// `make`, one per range, and merges them. A regular file is checked for
/// changes at the end of the pass.
pub fn run<F: Fold>(
    input: &mut Input<'_>,
    format: Format,
    reads: &Reads,
    make: impl Fn() -> F + Sync,
) -> Result<Folded<F>, Error> {
    let Some(reader) = input.stream_mut() else {
        return run_random(input, format, reads, make);
    };
    let mut fold = make();
    progress::pass_started();
    let (bytes, heaps, error) = read_stream(reader, format, reads, &mut fold);
    match error {
        None => Ok(Folded {
            fold,
            bytes_read: bytes,
            ranges: 1,
            heaps,
        }),
        Some(error) => Err(error.into_error(input, format)),
    }
}

/// [`run`] over an input that can be read at any offset (a stream is
/// read only once, by [`run`]): the ranges are read on threads of their
/// own.
pub fn run_random<F: Fold>(
    input: &Input<'_>,
    format: Format,
    reads: &Reads,
    make: impl Fn() -> F + Sync,
) -> Result<Folded<F>, Error> {
    let source = input
        .random_access()
        .expect("a stream is read once, by run");
    let folded = run_located(input, format, reads, 0..source.size(), make)
        .map_err(|error| error.into_error(input, format))?;
    input.check_unchanged()?;
    Ok(folded)
}

/// Why a pass over a span stopped ([`run_span`]): a malformed byte, as
/// the scanner found it (no line and column: the span's reader does not
/// know the lines before it), or any other error.
pub enum SpanError {
    /// A malformed byte.
    Parse(ParseError),
    /// Anything else, complete.
    Failed(Error),
}

/// [`run_random`] over `span` alone, which must start and end on heap
/// boundaries (a `nimb` span after the header, unless it starts at 0):
/// its heaps are pushed into folds, indices counted from 0. A malformed
/// byte comes back as the scanner found it, for the caller to locate
/// (the sharded runs of `analyze --range`, which know the lines before
/// the span only once every range is merged).
pub fn run_span<F: Fold>(
    input: &Input<'_>,
    format: Format,
    reads: &Reads,
    span: Range<u64>,
    make: impl Fn() -> F + Sync,
) -> Result<Folded<F>, SpanError> {
    run_located(input, format, reads, span, make).map_err(|error| match error {
        Located::Parse(error, _) => SpanError::Parse(error),
        Located::Io(error) => SpanError::Failed(Error::io(input.name(), error)),
        Located::Failed(error) => SpanError::Failed(error),
    })
}

/// An error of a range or a stream, before the input's name (and, when
/// the reader did not count lines, the line) is attached.
enum Located {
    /// A malformed byte; its line and column when the reader counted them.
    Parse(ParseError, Option<(u64, u64)>),
    /// A failed read of a stream.
    Io(std::io::Error),
    /// Anything else, complete.
    Failed(Error),
}

impl Located {
    fn into_error(self, input: &Input<'_>, format: Format) -> Error {
        match self {
            Located::Parse(error, line_col) => {
                input.error_at(format, error.offset, error.message, line_col)
            }
            Located::Io(error) => Error::io(input.name(), error),
            Located::Failed(error) => error,
        }
    }
}

/// Reads one range of an input that can be read at any offset.
fn read_range<F: Fold>(
    source: RandomAccess<'_>,
    cancel: (&Cancel, &str),
    format: Format,
    reads: &Reads,
    range: Range<u64>,
    mut fold: F,
) -> Result<RangeRun<F>, Located> {
    let mut heaps = 0;
    let bytes = match source {
        RandomAccess::Memory(bytes) => {
            let data = (bytes, PageReleaser::NONE);
            in_pieces(
                source, data, cancel, format, reads, range, &mut fold, &mut heaps,
            )?
        }
        RandomAccess::File(file) => match file.reading(reads.heaps_in_place) {
            Reading::Mapped(map) => {
                let data = (map.map(), map.pages());
                in_pieces(
                    source, data, cancel, format, reads, range, &mut fold, &mut heaps,
                )?
            }
            // Positioned reads look at the flag themselves.
            Reading::Positioned => {
                Positioned::new(file, format, reads).read(range.clone(), &mut fold, &mut heaps)
            }
        },
    };
    match bytes {
        Ok(bytes) | Err((Stop::Done, bytes)) => Ok((fold, heaps, bytes)),
        Err((Stop::Parse(error), _)) => Err(Located::Parse(error, None)),
        Err((Stop::Failed(error), _)) => Err(Located::Failed(error)),
    }
}

/// Reads `range` of `data` in place (a map's pages released by its
/// releaser); when the input can be cancelled, in pieces of
/// [`CANCEL_PIECE_BYTES`] cut at heap boundaries, the flag looked at
/// before each. Returns the bytes read, as [`read_in_place`] does.
#[allow(clippy::too_many_arguments)]
fn in_pieces<F: Fold>(
    source: RandomAccess<'_>,
    (data, pages): (&[u8], PageReleaser<'_>),
    (cancel, name): (&Cancel, &str),
    format: Format,
    reads: &Reads,
    range: Range<u64>,
    fold: &mut F,
    heaps: &mut u64,
) -> Result<Result<u64, (Stop, u64)>, Located> {
    let pieces = match cancel.is_armed() && format != Format::Nimb {
        true => {
            let count = (range.end - range.start).div_ceil(CANCEL_PIECE_BYTES);
            split(source, format, range, count, reads).map_err(Located::Failed)?
        }
        false => vec![range],
    };
    let mut total = 0;
    for piece in pieces {
        cancel.check(name).map_err(Located::Failed)?;
        let read = read_in_place(data, pages, format, piece, fold, heaps);
        let bytes = match &read {
            Ok(bytes) | Err((_, bytes)) => *bytes,
        };
        progress::read(bytes);
        if let Err((stop, bytes)) = read {
            return Ok(Err((stop, total + bytes)));
        }
        total += bytes;
    }
    Ok(Ok(total))
}
