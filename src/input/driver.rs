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
//!   token longer than a buffer is read in pieces ([`LongToken`]), and any
//!   other heap too long to buffer is read in place from the map (or, with
//!   no map, into a buffer that grows to hold it);
//! - a stream: chunks cut at heap boundaries, the unused tail carried to
//!   the next read, lines counted as the chunks go by.
//!
//! Work is split across threads in one place, [`split`]: a source that can
//! be read at any offset is cut into ranges that start on heap boundaries,
//! one fold per range, and the folds merge in file order ([`Fold::merge`]),
//! which is what lets threads (and later machines) share a pass. The
//! earliest error wins.

use super::lines::Lines;
use super::long::{LongHeap, LongToken};
use super::pages::{PageReleaser, RELEASE_STEP_BYTES};
use super::source::{fill, FileInput, Input, RandomAccess, Reading};
use super::watch;
use super::{
    complete_prefix, first_boundary, trailing_bytes_error, Format, Heap, HeapScanner, HeapValue,
    ScanVisitor, Scanner, TokenScratch,
};
use crate::error::{Error, ParseError};
use std::ops::Range;

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

    /// Takes whole elements of `width` bytes of a raw array, the first of
    /// which is the `index`-th heap of the range and lies at offset
    /// `base`; by default one heap at a time.
    fn raw_elements(
        &mut self,
        elements: &[u8],
        width: usize,
        index: u64,
        base: u64,
    ) -> Result<(), Error> {
        each_element(self, elements, width, index, base)
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

/// Hands `fold` the raw `elements` one heap at a time (see
/// [`Fold::raw_elements`]), until it is done.
pub fn each_element<F: Fold>(
    fold: &mut F,
    elements: &[u8],
    width: usize,
    index: u64,
    base: u64,
) -> Result<(), Error> {
    let mut at = At::nowhere();
    for (i, element) in elements.chunks_exact(width).enumerate() {
        let mut word = [0u8; 8];
        word[..width].copy_from_slice(element);
        let heap = Heap {
            offset: base + (i * width) as u64,
            value: HeapValue::Word(u128::from(u64::from_le_bytes(word))),
        };
        fold.heap(index + i as u64, &heap, &mut at)?;
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
    /// (see [`FileInput::reading`]).
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
    let (bytes, error) = read_stream(reader, format, reads, &mut fold);
    match error {
        None => Ok(Folded {
            fold,
            bytes_read: bytes,
            ranges: 1,
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
    let read = |range: &Range<u64>| read_range(source, format, reads, range.clone(), make());
    let located = |error: Located| error.into_error(input, format);
    let count = range_count(source, format, reads);
    if count == 1 {
        // One range: read here, with nothing allocated for the ranges.
        let (fold, _, bytes_read) = read(&(0..source.size())).map_err(located)?;
        input.check_unchanged()?;
        return Ok(Folded {
            fold,
            bytes_read,
            ranges: 1,
        });
    }
    let ranges = split(source, format, count, reads)?;
    let runs: Vec<Result<RangeRun<F>, Located>> = std::thread::scope(|scope| {
        let handles: Vec<_> = ranges
            .iter()
            .map(|range| scope.spawn(|| read(range)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a range thread does not panic"))
            .collect()
    });
    let mut merged: Option<(F, u64)> = None;
    let mut bytes_read = 0;
    for run in runs {
        let (fold, heaps, bytes) = run.map_err(located)?;
        bytes_read += bytes;
        match &mut merged {
            None => merged = Some((fold, heaps)),
            Some((earlier, heaps_before)) => {
                earlier.merge(fold, *heaps_before)?;
                *heaps_before += heaps;
            }
        }
    }
    input.check_unchanged()?;
    let (fold, _) = merged.expect("at least one range");
    Ok(Folded {
        fold,
        bytes_read,
        ranges: ranges.len(),
    })
}

/// A heap read again, where an earlier pass found it.
pub struct Reread<'a> {
    /// The heap.
    pub heap: Heap<'a>,
    /// Releases the pages it lies in, when it lies in a map.
    pub pages: PageReleaser<'a>,
    /// The bytes read to find it.
    pub bytes_read: u64,
}

/// Reads the heap that starts at `offset` again (an earlier pass found it
/// there): in place from bytes in memory or the map, else with positioned
/// reads into limbs (a `bits` or `hex` token in pieces).
pub fn heap_at<'a>(
    input: &'a Input<'_>,
    format: Format,
    offset: u64,
    reads: &Reads,
) -> Result<Reread<'a>, Error> {
    let source = input
        .random_access()
        .expect("only an input read again holds heaps to reread");
    let (data, pages) = match source {
        RandomAccess::Memory(bytes) => (bytes, PageReleaser::NONE),
        RandomAccess::File(file) => match (file.reading(true), file.map()) {
            (Reading::Mapped, Some(map)) => (map.map(), map.pages()),
            _ => return reread_positioned(input, file, format, offset, reads),
        },
    };
    let mut scanner = Scanner::new(format, &data[offset as usize..], offset).releasing(pages);
    let gone = || watch::changed(input.name(), "a heap read before is gone");
    let heap = scanner
        .next_heap()
        .map_err(|e| input.parse_error(format, e))?
        .ok_or_else(gone)?;
    Ok(Reread {
        heap,
        pages,
        bytes_read: scanner.consumed() as u64,
    })
}

/// [`heap_at`] with positioned reads: the heap's limbs.
fn reread_positioned<'a>(
    input: &'a Input<'_>,
    file: &FileInput,
    format: Format,
    offset: u64,
    reads: &Reads,
) -> Result<Reread<'a>, Error> {
    let mut first = FirstHeap(None);
    let range = offset..file.stamp().len_at_open();
    let read = Positioned::new(file, format, reads).read(range, &mut first, &mut 0);
    let bytes_read = match read {
        Ok(bytes) | Err((Stop::Done, bytes)) => bytes,
        Err((Stop::Parse(error), _)) => return Err(input.parse_error(format, error)),
        Err((Stop::Failed(error), _)) => return Err(error),
    };
    let gone = || watch::changed(input.name(), "a heap read before is gone");
    let value = HeapValue::Limbs(first.0.ok_or_else(gone)?);
    Ok(Reread {
        heap: Heap { offset, value },
        pages: PageReleaser::NONE,
        bytes_read,
    })
}

/// Keeps the first heap of a range, as limbs, and stops.
struct FirstHeap(Option<Vec<u64>>);

impl Fold for FirstHeap {
    fn heap(&mut self, _: u64, heap: &Heap<'_>, _: &mut At<'_>) -> Result<(), Error> {
        self.0 = Some(heap.value.to_limbs());
        Ok(())
    }

    fn done(&self) -> bool {
        self.0.is_some()
    }

    fn merge(&mut self, _: Self, _: u64) -> Result<(), Error> {
        unreachable!("one range is read")
    }
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
    format: Format,
    reads: &Reads,
    range: Range<u64>,
    mut fold: F,
) -> Result<RangeRun<F>, Located> {
    let mut heaps = 0;
    let bytes = match source {
        RandomAccess::Memory(bytes) => read_in_place(
            bytes,
            PageReleaser::NONE,
            format,
            range.clone(),
            &mut fold,
            &mut heaps,
        ),
        RandomAccess::File(file) => match (file.reading(reads.heaps_in_place), file.map()) {
            (Reading::Mapped, Some(map)) => read_in_place(
                map.map(),
                map.pages(),
                format,
                range.clone(),
                &mut fold,
                &mut heaps,
            ),
            _ => Positioned::new(file, format, reads).read(range.clone(), &mut fold, &mut heaps),
        },
    };
    match bytes {
        Ok(bytes) | Err((Stop::Done, bytes)) => Ok((fold, heaps, bytes)),
        Err((Stop::Parse(error), _)) => Err(Located::Parse(error, None)),
        Err((Stop::Failed(error), _)) => Err(Located::Failed(error)),
    }
}

/// Scans `piece` (first byte at offset `base`) into `fold`, counting heaps
/// in `heaps`: the loop over heaps is compiled once per format.
fn scan_piece<F: Fold>(
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
        fold.raw_elements(&piece[..whole], width, *heaps, base)?;
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
    };
    Scanner::new(format, piece, base).visit(visitor)
}

/// The loop over the heaps of one piece (see [`ScanVisitor`]): each heap
/// is built where the fold takes it, so it stays in registers.
struct HeapLoop<'f, 'c, F> {
    fold: &'f mut F,
    heaps: &'f mut u64,
    scratch: Option<&'f mut TokenScratch>,
    at: At<'c>,
    /// In place in a map: the map and the offset up to which its pages are
    /// released.
    released: Option<(&'c [u8], u64)>,
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
        } = self;
        scanner.each_heap(scratch, |heap| {
            fold.heap(*heaps, heap, &mut at)?;
            *heaps += 1;
            if let Some((map, done_to)) = &mut released {
                release_behind(at.pages, map, done_to, heap.offset);
            }
            if fold.done() {
                return Err(Stop::Done);
            }
            Ok(())
        })
    }
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

/// Reads `range` of `data` in place (a buffer, or a map whose pages
/// `pages` releases behind the pass); returns the bytes read.
fn read_in_place<F: Fold>(
    data: &[u8],
    pages: PageReleaser<'_>,
    format: Format,
    range: Range<u64>,
    fold: &mut F,
    heaps: &mut u64,
) -> Result<u64, (Stop, u64)> {
    let (start, end) = (range.start as usize, range.end as usize);
    let slice = &data[start..end];
    let stopped = |stop| (stop, range.end - range.start);
    if let Some(width) = format.raw_width() {
        let step = RELEASE_STEP_BYTES - RELEASE_STEP_BYTES % width;
        for (n, piece) in slice.chunks(step).enumerate() {
            let base = (start + n * step) as u64;
            scan_piece(format, piece, base, fold, heaps, None, At::nowhere()).map_err(stopped)?;
            pages.release(piece);
        }
        return Ok(range.end - range.start);
    }
    let mut scratch = fold.packs_tokens().then(TokenScratch::default);
    let visitor = HeapLoop {
        fold,
        heaps,
        scratch: scratch.as_mut(),
        at: At { lines: None, pages },
        released: Some((data, range.start)),
    };
    Scanner::new(format, slice, range.start)
        .releasing(pages)
        .visit(visitor)
        .map_err(stopped)?;
    pages.release(slice);
    Ok(range.end - range.start)
}

/// Reads the ranges of a regular file with positioned reads.
struct Positioned<'a> {
    file: &'a FileInput,
    format: Format,
    reads: &'a Reads,
}

/// What reading a long token ended with.
enum LongRead {
    /// The token was handed over: the bytes after it left at the start of
    /// the buffer, the offset of the first, and the token's buffer.
    Taken(usize, u64, Vec<u64>),
    /// It packs into more than a token may: read it in place instead.
    TooLong,
}

impl<'a> Positioned<'a> {
    fn new(file: &'a FileInput, format: Format, reads: &'a Reads) -> Self {
        Positioned {
            file,
            format,
            reads,
        }
    }

    /// Reads `range` into buffers that end on heap boundaries (the last at
    /// the range's end) and hands `fold` their heaps; returns the bytes
    /// read.
    fn read<F: Fold>(
        &self,
        range: Range<u64>,
        fold: &mut F,
        heaps: &mut u64,
    ) -> Result<u64, (Stop, u64)> {
        let mut bytes = 0;
        self.read_counting(range, fold, heaps, &mut bytes)
            .map(|()| bytes)
            .map_err(|stop| (stop, bytes))
    }

    fn read_counting<F: Fold>(
        &self,
        range: Range<u64>,
        fold: &mut F,
        heaps: &mut u64,
        bytes: &mut u64,
    ) -> Result<(), Stop> {
        // A range shorter than a read needs no more than its own length.
        let range_len = usize::try_from(range.end - range.start).unwrap_or(usize::MAX);
        let mut buffer = vec![0u8; self.reads.read_bytes.min(range_len).max(1)];
        let mut scratch = fold.packs_tokens().then(TokenScratch::default);
        let (mut filled, mut base, mut next) = (0usize, range.start, range.start);
        let mut spare = Vec::new();
        // A token found too long to pack: read whole when met again.
        let mut whole_at = None;
        loop {
            let want = (buffer.len() - filled).min((range.end - next) as usize);
            self.file
                .read_exact_at(&mut buffer[filled..filled + want], next)?;
            (filled, next, *bytes) = (filled + want, next + want as u64, *bytes + want as u64);
            let end = next == range.end;
            let usable = match end {
                true => filled,
                false => complete_prefix(self.format, &buffer[..filled], base == 0),
            };
            if usable > 0 || end {
                let at = At::nowhere();
                scan_piece(
                    self.format,
                    &buffer[..usable],
                    base,
                    fold,
                    heaps,
                    scratch.as_mut(),
                    at,
                )?;
                buffer.copy_within(usable..filled, 0);
                (filled, base) = (filled - usable, base + usable as u64);
            }
            if end {
                return Ok(());
            }
            if filled < buffer.len() {
                continue;
            }
            // The buffer holds the start of one heap and nothing else.
            if LongToken::reads(self.format) && filled >= 3 && whole_at != Some(base) {
                let token = LongToken::start(self.format, &buffer[..filled], base, spare)?;
                match self.read_long(token, &mut buffer, range.end, fold, *heaps, bytes)? {
                    LongRead::Taken(left, after, buffer_back) => {
                        (filled, base, spare) = (left, after, buffer_back);
                        *heaps += 1;
                        if fold.done() {
                            return Err(Stop::Done);
                        }
                    }
                    LongRead::TooLong => {
                        (filled, spare, whole_at) = (0, Vec::new(), Some(base));
                    }
                }
                next = base + filled as u64;
            } else if self.in_place(whole_at == Some(base), buffer.len()) {
                base = self.heap_in_place(base, range.end, fold, heaps, bytes)?;
                (filled, next) = (0, base);
            } else {
                buffer.resize(2 * buffer.len(), 0);
            }
        }
    }

    /// Reads the rest of a long token through `buffer` and hands it to
    /// `fold`.
    fn read_long<F: Fold>(
        &self,
        mut token: LongToken,
        buffer: &mut [u8],
        end: u64,
        fold: &mut F,
        index: u64,
        bytes: &mut u64,
    ) -> Result<LongRead, Stop> {
        loop {
            let at = token.next();
            let want = buffer.len().min((end - at) as usize);
            if want == 0 {
                let spare = fold.long_heap(index, token.finish(), &mut At::nowhere())?;
                return Ok(LongRead::Taken(0, end, spare));
            }
            self.file.read_exact_at(&mut buffer[..want], at)?;
            *bytes += want as u64;
            let stop = token.feed(&buffer[..want])?;
            if token.packed_bytes() > self.reads.max_packed_bytes {
                return Ok(LongRead::TooLong);
            }
            if let Some(stop) = stop {
                let spare = fold.long_heap(index, token.finish(), &mut At::nowhere())?;
                buffer.copy_within(stop..want, 0);
                return Ok(LongRead::Taken(want - stop, at + stop as u64, spare));
            }
        }
    }

    /// Whether a heap that fills a buffer of `buffered` bytes is read in
    /// place from the map (opening it) rather than into a larger buffer:
    /// when it is `too_long_to_pack` or past the longest heap buffered,
    /// and there is a map.
    fn in_place(&self, too_long_to_pack: bool, buffered: usize) -> bool {
        let past_buffers = buffered >= self.reads.max_buffered_heap_bytes;
        (too_long_to_pack || past_buffers) && self.file.map().is_some()
    }

    /// Reads the heap at `base` in place from the map and hands it to
    /// `fold`; returns the offset after it.
    fn heap_in_place<F: Fold>(
        &self,
        base: u64,
        end: u64,
        fold: &mut F,
        heaps: &mut u64,
        bytes: &mut u64,
    ) -> Result<u64, Stop> {
        let map = self
            .file
            .map()
            .expect("a heap is read in place only from a map");
        let pages = map.pages();
        let slice = &map.map()[base as usize..end as usize];
        let mut scanner = Scanner::new(self.format, slice, base).releasing(pages);
        let Some(heap) = scanner.next_heap()? else {
            let name = self.file.stamp().name();
            return Err(Stop::Failed(watch::changed(
                name,
                "a heap read before is gone",
            )));
        };
        fold.heap(*heaps, &heap, &mut At { lines: None, pages })?;
        *heaps += 1;
        let consumed = scanner.consumed();
        pages.release(&slice[..consumed]);
        *bytes += consumed as u64;
        if fold.done() {
            return Err(Stop::Done);
        }
        Ok(base + consumed as u64)
    }
}

/// Reads a stream chunk by chunk, each cut at a heap boundary, counting
/// lines for the text formats; returns the bytes read and the error that
/// stopped it, if any.
fn read_stream<F: Fold>(
    reader: &mut dyn std::io::Read,
    format: Format,
    reads: &Reads,
    fold: &mut F,
) -> (u64, Option<Located>) {
    let mut buffer: Vec<u8> = Vec::with_capacity(reads.stream_chunk_bytes);
    let mut lines = Lines::default();
    let (mut base, mut heaps) = (0u64, 0u64);
    loop {
        if buffer.len() == buffer.capacity() {
            buffer.reserve(buffer.capacity());
        }
        let eof = match fill(reader, &mut buffer) {
            Ok(eof) => eof,
            Err(e) => return (base, Some(Located::Io(e))),
        };
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
                    return (base, Some(Located::Parse(error, line_col)));
                }
                Err(Stop::Failed(error)) => return (base, Some(Located::Failed(error))),
            }
            lines.count(piece, base);
            buffer.drain(..usable);
            base += usable as u64;
        }
        if eof {
            return (base, None);
        }
    }
}

/// How many ranges to cut the input into: at most `reads.ranges`, none
/// shorter than `reads.min_range_bytes`; a `nimb` file is one range, its
/// records are only found from the start.
fn range_count(source: RandomAccess<'_>, format: Format, reads: &Reads) -> u64 {
    match format {
        Format::Nimb => 1,
        _ => (reads.ranges as u64).clamp(1, (source.size() / reads.min_range_bytes.max(1)).max(1)),
    }
}

/// The input cut into at most `count` ranges that start on heap
/// boundaries: after a separator for the text formats (a cut that falls
/// inside a heap longer than `reads.max_buffered_heap_bytes` is dropped),
/// at whole elements for raw arrays. The one place work is split.
fn split(
    source: RandomAccess<'_>,
    format: Format,
    count: u64,
    reads: &Reads,
) -> Result<Vec<Range<u64>>, Error> {
    let len = source.size();
    let mut starts = vec![0];
    for k in 1..count {
        let nominal = len / count * k;
        let start = match format.raw_width() {
            Some(width) => nominal - nominal % width as u64,
            None => match next_boundary(source, format, nominal, len, reads)? {
                Some(start) => start,
                None => continue,
            },
        };
        if start > *starts.last().expect("starts with 0") && start < len {
            starts.push(start);
        }
    }
    starts.push(len);
    Ok(starts.windows(2).map(|w| w[0]..w[1]).collect())
}

/// The first heap boundary at or after `from`: just past a separator.
/// `None` when none comes within the longest heap a pass buffers.
fn next_boundary(
    source: RandomAccess<'_>,
    format: Format,
    from: u64,
    len: u64,
    reads: &Reads,
) -> Result<Option<u64>, Error> {
    let mut window = vec![0u8; 64 << 10];
    // A separator just before `from` makes `from` itself a boundary.
    let from = from.saturating_sub(1);
    let mut at = from;
    while at < len && at - from < reads.max_buffered_heap_bytes as u64 {
        let n = window.len().min((len - at) as usize);
        source.read_exact_at(&mut window[..n], at)?;
        if let Some(end) = first_boundary(format, &window[..n]) {
            return Ok(Some(at + end as u64));
        }
        at += n as u64;
    }
    Ok((at >= len).then_some(len))
}
