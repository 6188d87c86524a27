//! One pass over a regular file, split across threads, read with
//! positioned reads (`pread`) into small buffers.
//!
//! This is the fast path for the common case: a budget large enough for
//! the whole nim-sum and heaps of moderate length. The file is cut into
//! one range per thread at heap boundaries (after a whitespace byte for
//! tokens, after an LF for unary, at whole elements for raw arrays; `nimb`
//! cannot be cut, its records are only found from the start). Each thread
//! runs the one-pass analysis of [`stream`](super::stream) over its range;
//! raw arrays go through the column-count kernel instead of one heap at a
//! time. The partial states merge in file order: counts add, the first
//! heap holding a bit is the earliest range's, and the earliest error wins.
//!
//! Why reads and not the map: on the machines this was measured on, a
//! `pread` into a buffer that stays in the L2 cache reads a cached file
//! about twice as fast as touching the mapped pages (each page of a map
//! costs a fault on first touch), and the process never holds more of the
//! file than its buffers, so peak RSS stays a few MiB.
//!
//! A `bits` or `hex` token longer than a read is read in pieces
//! ([`LongToken`]): its digits are packed as they come and aligned at its
//! end, its value is XORed into a sum the ranges share, and it is kept by
//! position; the move's heap, if it is one of them, is read again. Each
//! range may hold one packed token, so they share the budget.
//!
//! A heap wider than the window, a packed token over its share of the
//! budget, or a decimal token or unary line longer than a few MiB of text,
//! makes this path give up ([`analyze`] returns `None`) and the caller runs
//! the multi-pass analysis of [`passes`](super::passes), which handles any
//! heap in bounded memory.

use super::budget::MemoryBudget;
use super::holders::{HeapInFile, KeptHeap};
use super::stream::{Reading, Reread, Stop, StreamState};
use super::survey::{HeapPos, Survey};
use super::{Facts, Options};
use crate::arch::columns::{self, element, ColumnCounter};
use crate::arch::limbs;
use crate::error::Error;
use crate::input::source::{input_error, line_and_column_skipping};
use crate::input::watch::{self, Stamp};
use crate::input::{
    complete_prefix, digits_per_limb, first_boundary, trailing_bytes_error, Format, LongHeap,
    LongToken,
};
use crate::nimsum::xor_keeping_longer;
use std::cell::Cell;
use std::fs::File;
use std::io::ErrorKind;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::sync::Mutex;

/// The sizes this path works with.
#[derive(Clone, Copy, Debug)]
struct Tuning {
    /// Bytes per read: small enough to stay in the L2 cache while parsed.
    read_bytes: usize,
    /// A heap of more text than this (a long line, a long decimal token)
    /// is left to the multi-pass analysis; `bits` and `hex` tokens longer
    /// than a read are read in pieces instead.
    max_heap_bytes: usize,
    /// Ranges smaller than this are not worth a thread of their own.
    min_range_bytes: u64,
}

impl Tuning {
    const DEFAULT: Tuning = Tuning {
        read_bytes: 128 << 10,
        max_heap_bytes: 8 << 20,
        min_range_bytes: 4 << 20,
    };
}

/// The smallest `--memory` budget this path runs under: its buffers and
/// counters take a few MiB; smaller budgets get the windowed passes.
pub const MIN_BUDGET_BYTES: u64 = 64 << 20;

/// Why a range stopped before its end.
enum Halt {
    /// What the one-pass analysis stops for.
    Stop(Stop),
    /// A heap too long for this path.
    LongHeap,
    /// A failed read.
    Io(Error),
}

impl From<Stop> for Halt {
    fn from(stop: Stop) -> Halt {
        Halt::Stop(stop)
    }
}

/// Analyzes the file behind `stamp` in one pass on `options.threads`
/// threads; `None` when it is a case for the multi-pass analysis.
pub fn analyze(stamp: &Stamp, format: Format, options: &Options) -> Result<Option<Facts>, Error> {
    analyze_tuned(stamp, format, options, Tuning::DEFAULT)
}

fn analyze_tuned(
    stamp: &Stamp,
    format: Format,
    options: &Options,
    tuning: Tuning,
) -> Result<Option<Facts>, Error> {
    let budget = match options.memory {
        MemoryBudget::Bytes(bytes) if bytes >= MIN_BUDGET_BYTES => bytes,
        _ => return Ok(None),
    };
    let len = stamp.len_at_open();
    let ranges = ranges(stamp, format, len, options.threads, tuning)?;
    // Each range may hold one long token's packed digits, and their sum
    // is as long as the longest: the budget is shared out among them.
    let long = LongTokens {
        max_packed_bytes: usize::try_from(budget / (ranges.len() as u64 + 1)).unwrap_or(usize::MAX),
        nim_sum: Mutex::new(Vec::new()),
        spares: Mutex::new(Vec::new()),
    };
    let run =
        |range: &Range<u64>| analyze_range(stamp, format, range.clone(), options, tuning, &long);
    let results: Vec<Result<StreamState, Halt>> = if let [range] = ranges.as_slice() {
        vec![run(range)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = ranges
                .iter()
                .map(|range| scope.spawn(|| run(range)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("a range thread does not panic"))
                .collect()
        })
    };
    let mut total: Option<StreamState> = None;
    for result in results {
        let state = match result {
            Ok(state) => state,
            Err(Halt::LongHeap | Halt::Stop(Stop::TooWide { .. })) => return Ok(None),
            Err(Halt::Stop(Stop::Parse(error))) => return Err(input_error(stamp, format, error)),
            Err(Halt::Stop(Stop::Failed(error)) | Halt::Io(error)) => return Err(error),
        };
        match &mut total {
            None => total = Some(state),
            Some(earlier) => earlier.merge(state, 0)?,
        }
    }
    let mut total = total.expect("at least one range");
    let LongTokens {
        nim_sum, spares, ..
    } = long;
    total.xor_limbs(nim_sum.into_inner().expect("a range thread does not panic"));
    let no_lf = total.long_digits();
    let reread = FileReread {
        stamp,
        format,
        read_bytes: tuning.read_bytes,
        threads: options.threads.max(1),
        bytes_read: Cell::new(0),
        spare: Cell::new(spares.into_inner().expect("a range thread does not panic")),
    };
    let Some(mut facts) = total.finish(options, len, ranges.len() as u64, Some(&reread))? else {
        return Ok(None);
    };
    facts.bytes_scanned += reread.bytes_read.get();
    if format.is_text() {
        if let Some(chosen) = &mut facts.winning_move {
            let (line, _) =
                line_and_column_skipping(stamp.file(), stamp.name(), chosen.offset, &no_lf)?;
            chosen.line = Some(line);
        }
    }
    Ok(Some(facts))
}

/// What the ranges share about long tokens: how much memory one may take
/// packed, the XOR of those read so far, and the buffers left when the
/// ranges are done (the move's heap may be read again into one).
struct LongTokens {
    max_packed_bytes: usize,
    nim_sum: Mutex<Vec<u64>>,
    spares: Mutex<Vec<u64>>,
}

impl LongTokens {
    /// XORs a long heap into the shared sum, straight from its packed
    /// digits; returns a buffer to reuse. A heap longer than the sum is
    /// turned into limbs and becomes the sum, so that no memory is
    /// allocated (and no page touched) for it.
    fn xor(&self, long: LongHeap) -> Vec<u64> {
        let mut sum = self.nim_sum.lock().expect("a range thread does not panic");
        if long.limbs() <= sum.len() {
            long.xor_into(&mut sum);
            return long.into_buffer();
        }
        xor_keeping_longer(&mut sum, long.into_limbs())
    }

    /// Keeps a range's buffer once it is done, the largest one.
    fn keep_spare(&self, buffer: Vec<u64>) {
        let mut spare = self.spares.lock().expect("a range thread does not panic");
        if buffer.capacity() > spare.capacity() {
            *spare = buffer;
        }
    }
}

/// The one-pass state of one range.
fn analyze_range(
    stamp: &Stamp,
    format: Format,
    range: Range<u64>,
    options: &Options,
    tuning: Tuning,
    long: &LongTokens,
) -> Result<StreamState, Halt> {
    let mut state = StreamState::new(options, stamp.name(), Reading::FileRange);
    if let Some(width) = format.raw_width() {
        let mut raw = RawRange::new(range.start, width);
        RangeReader::new(stamp, format, tuning, long).read(range, &mut raw)?;
        return Ok(state.with_raw(raw.survey(), raw.counter, raw.kept, raw.first_big)?);
    }
    let mut text = TextRange {
        state: &mut state,
        format,
        index: 0,
        long,
    };
    RangeReader::new(stamp, format, tuning, long).read(range, &mut text)?;
    Ok(state)
}

/// What a range's reads are handed to.
trait RangeSink {
    /// A buffer of whole heaps whose first byte is at `base`.
    fn piece(&mut self, bytes: &[u8], base: u64) -> Result<(), Halt>;
    /// A token longer than a read (`bits` and `hex` only), read in
    /// pieces; returns its limbs, to be reused.
    fn long_heap(&mut self, long: LongHeap) -> Result<Vec<u64>, Halt>;
}

/// A range of a text format, run through the one-pass state.
struct TextRange<'s, 'l> {
    state: &'s mut StreamState,
    format: Format,
    index: u64,
    long: &'l LongTokens,
}

impl RangeSink for TextRange<'_, '_> {
    fn piece(&mut self, bytes: &[u8], base: u64) -> Result<(), Halt> {
        self.index = self.state.scan(self.format, bytes, base, self.index, 0)?;
        Ok(())
    }

    fn long_heap(&mut self, long: LongHeap) -> Result<Vec<u64>, Halt> {
        self.state.take_long(self.index, &long)?;
        self.index += 1;
        Ok(self.long.xor(long))
    }
}

/// Reads one range into buffers that end on heap boundaries.
struct RangeReader<'a> {
    stamp: &'a Stamp,
    format: Format,
    tuning: Tuning,
    long: &'a LongTokens,
}

impl<'a> RangeReader<'a> {
    fn new(stamp: &'a Stamp, format: Format, tuning: Tuning, long: &'a LongTokens) -> Self {
        RangeReader {
            stamp,
            format,
            tuning,
            long,
        }
    }

    /// Hands `sink` the bytes of `range` in buffers that end on heap
    /// boundaries (the last at the range's end), and its long tokens.
    fn read(&self, range: Range<u64>, sink: &mut impl RangeSink) -> Result<(), Halt> {
        // A range shorter than a read needs no more than its own length.
        let range_len = usize::try_from(range.end - range.start).unwrap_or(usize::MAX);
        let mut buffer = vec![0u8; self.tuning.read_bytes.min(range_len).max(1)];
        let (mut filled, mut base, mut next) = (0usize, range.start, range.start);
        let mut spare = Vec::new();
        loop {
            let want = (buffer.len() - filled).min((range.end - next) as usize);
            read_exact_at(self.stamp, &mut buffer[filled..filled + want], next)?;
            filled += want;
            next += want as u64;
            let end = next == range.end;
            let usable = if end {
                filled
            } else {
                complete_prefix(self.format, &buffer[..filled], base == 0)
            };
            if usable > 0 || end {
                sink.piece(&buffer[..usable], base)?;
                buffer.copy_within(usable..filled, 0);
                filled -= usable;
                base += usable as u64;
            }
            if end {
                self.long.keep_spare(spare);
                return Ok(());
            }
            if filled < buffer.len() {
                continue;
            }
            // The buffer holds the start of one heap and nothing else.
            if LongToken::reads(self.format) && filled >= 3 {
                let token = LongToken::start(self.format, &buffer[..filled], base, spare)
                    .map_err(Stop::Parse)?;
                (filled, base, spare) = self.read_long(token, &mut buffer, range.end, sink)?;
                next = base + filled as u64;
            } else if buffer.len() >= self.tuning.max_heap_bytes {
                return Err(Halt::LongHeap);
            } else {
                buffer.resize(2 * buffer.len(), 0);
            }
        }
    }

    /// Reads the rest of a long token, through `buffer`, and hands it to
    /// `sink`; returns how many bytes after it are left at the start of
    /// `buffer`, the offset of the first, and the token's limbs for reuse.
    fn read_long(
        &self,
        mut token: LongToken,
        buffer: &mut [u8],
        end: u64,
        sink: &mut impl RangeSink,
    ) -> Result<(usize, u64, Vec<u64>), Halt> {
        loop {
            let at = token.next();
            let want = buffer.len().min((end - at) as usize);
            if want == 0 {
                let spare = sink.long_heap(token.finish())?;
                return Ok((0, end, spare));
            }
            read_exact_at(self.stamp, &mut buffer[..want], at)?;
            let stop = token.feed(&buffer[..want]).map_err(Stop::Parse)?;
            if token.packed_bytes() > self.long.max_packed_bytes {
                return Err(Halt::LongHeap);
            }
            if let Some(stop) = stop {
                let spare = sink.long_heap(token.finish())?;
                buffer.copy_within(stop..want, 0);
                return Ok((want - stop, at + stop as u64, spare));
            }
        }
    }
}

/// Reads the long heaps of a file again, counting the bytes.
struct FileReread<'a> {
    stamp: &'a Stamp,
    format: Format,
    read_bytes: usize,
    threads: usize,
    bytes_read: Cell<u64>,
    /// A buffer the ranges left, for the first heap read again.
    spare: Cell<Vec<u64>>,
}

impl Reread for FileReread<'_> {
    fn bit(&self, heap: &HeapInFile, position: u64) -> Result<bool, Error> {
        let Some((at, bit)) = LongToken::bit_place(self.format, &heap.digits, position) else {
            return Ok(false);
        };
        let mut byte = [0u8];
        read_exact(self.stamp, &mut byte, at)?;
        self.bytes_read.set(self.bytes_read.get() + 1);
        Ok(LongToken::digit_value(self.format, byte[0]) >> bit & 1 == 1)
    }

    /// The digits' length is known now, so limb `j` is the digits that
    /// end `j` limbs before the last: parts of the heap are read and
    /// converted in place, on all threads.
    fn value(&self, heap: &HeapInFile) -> Result<Vec<u64>, Error> {
        let per_limb = digits_per_limb(self.format) as u64;
        let limbs_per_read = (self.read_bytes as u64 / per_limb).max(1) as usize;
        let digits = &heap.digits;
        let mut value = self.spare.take();
        value.clear();
        value.resize((digits.end - digits.start).div_ceil(per_limb) as usize, 0);
        let part_limbs = value.len().div_ceil(self.threads).max(limbs_per_read);
        let (stamp, format) = (self.stamp, self.format);
        let read_part = |first: usize, part: &mut [u64]| -> Result<(), Error> {
            let mut buffer = vec![0u8; limbs_per_read * per_limb as usize];
            for (k, slots) in part.chunks_mut(limbs_per_read).enumerate() {
                let end = digits.end - (first + k * limbs_per_read) as u64 * per_limb;
                let start = end
                    .saturating_sub(slots.len() as u64 * per_limb)
                    .max(digits.start);
                let piece = &mut buffer[..(end - start) as usize];
                read_exact(stamp, piece, start)?;
                match format {
                    Format::Hex => limbs::xor_hex(piece, 0, slots),
                    _ => limbs::xor_binary(piece, 0, slots),
                }
            }
            Ok(())
        };
        std::thread::scope(|scope| {
            let parts: Vec<_> = value
                .chunks_mut(part_limbs)
                .enumerate()
                .map(|(i, part)| scope.spawn(move || read_part(i * part_limbs, part)))
                .collect();
            parts
                .into_iter()
                .try_for_each(|p| p.join().expect("a reading thread does not panic"))
        })?;
        self.bytes_read
            .set(self.bytes_read.get() + (digits.end - digits.start));
        self.stamp.check()?;
        while value.last() == Some(&0) {
            value.pop();
        }
        Ok(value)
    }
}

/// Fills `buffer` from `offset`, for a range.
fn read_exact_at(stamp: &Stamp, buffer: &mut [u8], offset: u64) -> Result<(), Halt> {
    read_exact(stamp, buffer, offset).map_err(Halt::Io)
}

/// Fills `buffer` from `offset`.
fn read_exact(stamp: &Stamp, buffer: &mut [u8], offset: u64) -> Result<(), Error> {
    stamp
        .file()
        .read_exact_at(buffer, offset)
        .map_err(|e| read_error(stamp, e))
}

/// The error of a failed read: a file that ends early has shrunk.
fn read_error(stamp: &Stamp, error: std::io::Error) -> Error {
    match error.kind() {
        ErrorKind::UnexpectedEof => watch::changed(stamp.name(), "it is shorter than when opened"),
        _ => Error::io(stamp.name(), error),
    }
}

/// The file cut into ranges that start on heap boundaries, at most one
/// per thread (a cut that falls inside a heap longer than the longest
/// this path looks through is dropped).
fn ranges(
    stamp: &Stamp,
    format: Format,
    len: u64,
    threads: usize,
    tuning: Tuning,
) -> Result<Vec<Range<u64>>, Error> {
    let count = match format {
        Format::Nimb => 1,
        _ => (threads as u64).clamp(1, (len / tuning.min_range_bytes).max(1)),
    };
    let mut starts = vec![0];
    for k in 1..count {
        let nominal = len / count * k;
        let start = match format.raw_width() {
            Some(width) => nominal - nominal % width as u64,
            None => match next_boundary(stamp.file(), format, nominal, len, tuning)
                .map_err(|e| read_error(stamp, e))?
            {
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
/// `None` when none comes within the longest heap this path buffers.
fn next_boundary(
    file: &File,
    format: Format,
    from: u64,
    len: u64,
    tuning: Tuning,
) -> std::io::Result<Option<u64>> {
    let mut window = vec![0u8; 64 << 10];
    // A separator just before `from` makes `from` itself a boundary.
    let from = from.saturating_sub(1);
    let mut at = from;
    while at < len && at - from < tuning.max_heap_bytes as u64 {
        let n = window.len().min((len - at) as usize);
        file.read_exact_at(&mut window[..n], at)?;
        if let Some(end) = first_boundary(format, &window[..n]) {
            return Ok(Some(at + end as u64));
        }
        at += n as u64;
    }
    Ok((at >= len).then_some(len))
}

impl RangeSink for RawRange {
    fn piece(&mut self, bytes: &[u8], base: u64) -> Result<(), Halt> {
        self.scan(bytes, base)
    }

    fn long_heap(&mut self, _: LongHeap) -> Result<Vec<u64>, Halt> {
        unreachable!("raw arrays are cut at whole elements, never read in pieces")
    }
}

/// One range of a raw array, counted in bulk.
struct RawRange {
    start: u64,
    width: usize,
    heaps: u64,
    or: u64,
    zeros: u64,
    ones: u64,
    counter: ColumnCounter,
    /// Bits no element has held yet.
    unseen: u64,
    /// The first element holding each bit, in order.
    kept: Vec<KeptHeap>,
    first_one: Option<HeapPos>,
    first_big: Option<KeptHeap>,
}

impl RawRange {
    fn new(start: u64, width: usize) -> RawRange {
        RawRange {
            start,
            width,
            heaps: 0,
            or: 0,
            zeros: 0,
            ones: 0,
            counter: ColumnCounter::default(),
            unseen: u64::MAX,
            kept: Vec::new(),
            first_one: None,
            first_big: None,
        }
    }

    /// Counts a piece of whole elements (or reports the trailing bytes
    /// the last piece of the file may have).
    fn scan(&mut self, piece: &[u8], base: u64) -> Result<(), Halt> {
        let whole = piece.len() - piece.len() % self.width;
        if whole < piece.len() {
            let error = trailing_bytes_error(base + whole as u64, piece.len() - whole, self.width);
            return Err(Stop::Parse(error).into());
        }
        let block = columns::tally(piece, self.width, &mut self.counter);
        let elements = (piece.len() / self.width) as u64;
        if block.or & self.unseen != 0 {
            self.keep_first_holders(piece, base);
        }
        if self.first_one.is_none() && block.ones > 0 {
            self.first_one = self
                .position_of(piece, base, |v| v == 1)
                .map(|(pos, _)| pos);
        }
        if self.first_big.is_none() && elements > block.zeros + block.ones {
            self.first_big = self
                .position_of(piece, base, |v| v >= 2)
                .map(|(pos, value)| KeptHeap {
                    pos,
                    line: None,
                    limbs: vec![value],
                });
        }
        self.heaps += elements;
        self.or |= block.or;
        self.zeros += block.zeros;
        self.ones += block.ones;
        Ok(())
    }

    /// Keeps each element of `piece` that is the first to hold some bit.
    fn keep_first_holders(&mut self, piece: &[u8], base: u64) {
        for (i, chunk) in piece.chunks_exact(self.width).enumerate() {
            let value = element(chunk);
            if value & self.unseen != 0 {
                self.unseen &= !value;
                let pos = self.position(base, i);
                self.kept.push(KeptHeap {
                    pos,
                    line: None,
                    limbs: vec![value],
                });
            }
        }
    }

    /// The first element of `piece` for which `wanted` holds, and its value.
    fn position_of(
        &self,
        piece: &[u8],
        base: u64,
        wanted: impl Fn(u64) -> bool,
    ) -> Option<(HeapPos, u64)> {
        piece
            .chunks_exact(self.width)
            .map(element)
            .enumerate()
            .find(|&(_, v)| wanted(v))
            .map(|(i, v)| (self.position(base, i), v))
    }

    /// Element `i` of the piece at `base`, indexed from the range's start.
    fn position(&self, base: u64, i: usize) -> HeapPos {
        let offset = base + (i * self.width) as u64;
        HeapPos {
            index: (offset - self.start) / self.width as u64,
            offset,
        }
    }

    fn survey(&self) -> Survey {
        Survey {
            heaps: self.heaps,
            nonzero: self.heaps - self.zeros,
            ones: self.ones,
            big: self.heaps - self.zeros - self.ones,
            max_bit_length: u64::from(64 - self.or.leading_zeros()),
            first_one: self.first_one,
            first_big: self.first_big.as_ref().map(|k| k.pos),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::passes::SliceRun;
    use crate::analysis::{build_report, Rule};
    use crate::encode::{write_header, write_heap};
    use crate::input::HeapValue;
    use crate::memory::MemoryMeter;
    use crate::report::InputInfo;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::io::Write;
    use std::time::Instant;

    /// Tiny sizes, so that small inputs get many ranges and many reads.
    const TINY: Tuning = Tuning {
        read_bytes: 5,
        max_heap_bytes: 1 << 10,
        min_range_bytes: 1,
    };

    /// A random instance: many zeros and ones, a few long heaps, values
    /// within the format's width, odd separators.
    fn instance(rng: &mut ChaCha8Rng, format: Format) -> Vec<u8> {
        let max_bits = match format {
            Format::Unary => 7,
            other => other.raw_width().map_or(200, |w| 8 * w as u32),
        };
        let mut out = Vec::new();
        write_header(format, &mut out).unwrap();
        for _ in 0..rng.random_range(0..60) {
            let bits = match rng.random_range(0..4) {
                0 => 0,
                1 => 1,
                _ => rng.random_range(0..=max_bits),
            };
            let mut limbs: Vec<u64> = (0..bits.div_ceil(64)).map(|_| rng.random()).collect();
            if let Some(top) = limbs.last_mut() {
                *top >>= (64 - bits % 64) % 64;
                *top |= 1 << ((bits + 63) % 64);
            }
            let value = HeapValue::Limbs(limbs);
            write_heap(format, &value, &mut out).unwrap();
            if format.is_text() && format != Format::Unary && rng.random_range(0..3) == 0 {
                out.extend_from_slice(b" \r\n\t"[..rng.random_range(1..4)].as_ref());
            }
        }
        out
    }

    fn report_of(
        facts: Facts,
        data: &[u8],
        format: Format,
        options: &Options,
    ) -> serde_json::Value {
        let input = InputInfo {
            path: "t".into(),
            format,
            bytes: data.len() as u64,
        };
        let report = build_report(facts, input, options, &MemoryMeter::start(), Instant::now());
        let mut json = serde_json::to_value(&report).unwrap();
        let object = json.as_object_mut().unwrap();
        object.remove("stats");
        if options.decide {
            // These may be null under --decide (SPEC section 3); one pass
            // knows them anyway, the passes stop before.
            for known_or_null in ["nim_sum", "msb", "winning_moves", "move"] {
                object.remove(known_or_null);
            }
        }
        json
    }

    fn stamp_of(data: &[u8]) -> (tempfile::NamedTempFile, Stamp) {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(data).unwrap();
        let stamp = Stamp::take(File::open(file.path()).unwrap(), "t").unwrap();
        (file, stamp)
    }

    /// The one-pass ranges against the multi-pass analysis of the same
    /// bytes; `None` when the fast path declined.
    fn compare(data: &[u8], format: Format, options: &Options) -> Option<()> {
        let (_file, stamp) = stamp_of(data);
        let fast = analyze_tuned(&stamp, format, options, TINY);
        let slow = SliceRun::new(data, format, "t", options).run();
        match (fast, slow) {
            (Ok(Some(fast)), Ok(slow)) => {
                assert_eq!(
                    report_of(fast, data, format, options),
                    report_of(slow, data, format, options),
                    "{format:?} {:?}",
                    String::from_utf8_lossy(data)
                );
                Some(())
            }
            (Ok(None), _) => None,
            (Err(fast), Err(slow)) => {
                assert_eq!(fast.to_string(), slow.to_string(), "{format:?}");
                Some(())
            }
            (fast, slow) => panic!("{format:?}: one pass {fast:?}, passes {slow:?}"),
        }
    }

    /// Options that vary with the round: 1–4 threads, both rules, and
    /// `--decide` now and then.
    fn round_options(round: usize) -> Options {
        Options {
            threads: 1 + round % 4,
            rule: if round.is_multiple_of(2) {
                Rule::Normal
            } else {
                Rule::Misere
            },
            decide: round.is_multiple_of(7),
            ..Options::default()
        }
    }

    #[test]
    fn ranges_on_many_threads_agree_with_the_multi_pass_analysis() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for format in Format::ALL {
            let mut answered = 0;
            for round in 0..60 {
                let data = instance(&mut rng, format);
                let options = round_options(round);
                answered += compare(&data, format, &options).map_or(0, |()| 1);
            }
            assert!(answered > 40, "{format:?}: only {answered} answered");
        }
    }

    #[test]
    fn errors_are_the_earliest_with_line_and_column() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        for format in Format::ALL {
            for _ in 0..40 {
                let mut data = instance(&mut rng, format);
                if data.is_empty() {
                    continue;
                }
                for _ in 0..rng.random_range(1..3) {
                    let at = rng.random_range(0..data.len());
                    data[at] = [b'x', 0x0c, b'2', 0xff][rng.random_range(0..4)];
                }
                if format.raw_width().is_some() {
                    data.push(7);
                }
                let options = Options {
                    threads: 3,
                    ..Options::default()
                };
                compare(&data, format, &options);
            }
        }
    }

    #[test]
    fn long_decimals_and_lines_are_left_to_the_passes() {
        let long_dec =
            HeapValue::Limbs((1..=160u64).map(|i| i.wrapping_mul(0x9E37_79B9)).collect());
        for (format, value) in [
            (Format::Dec, long_dec),
            (Format::Unary, HeapValue::Word(3000)),
        ] {
            let mut data = Vec::new();
            write_heap(format, &HeapValue::Word(1), &mut data).unwrap();
            write_heap(format, &value, &mut data).unwrap();
            let (_file, stamp) = stamp_of(&data);
            let facts = analyze_tuned(&stamp, format, &Options::default(), TINY).unwrap();
            assert!(facts.is_none(), "{format:?}");
        }
    }

    /// Random digits of `len` bits for `format`, led by `zeros` zero digits
    /// (and a `0x` in hex, now and then).
    fn long_token(rng: &mut ChaCha8Rng, format: Format, len: usize, zeros: usize) -> Vec<u8> {
        let alphabet: &[u8] = match format {
            Format::Hex => b"0123456789abcdefABCDEF",
            _ => b"01",
        };
        let prefix: &[u8] = match format {
            Format::Hex if rng.random_range(0..2) == 0 => b"0x",
            _ => b"",
        };
        let digits = len.div_ceil(if format == Format::Hex { 4 } else { 1 });
        let mut token = prefix.to_vec();
        token.extend(std::iter::repeat_n(b'0', zeros));
        token.push(b'1');
        token.extend((1..digits).map(|_| alphabet[rng.random_range(0..alphabet.len())]));
        token
    }

    #[test]
    fn long_bits_and_hex_tokens_are_read_in_pieces_in_one_pass() {
        let mut rng = ChaCha8Rng::seed_from_u64(13);
        for format in [Format::Bits, Format::Hex] {
            let mut answered = 0;
            for round in 0..60usize {
                let mut data = Vec::new();
                for _ in 0..rng.random_range(1..8) {
                    let len = match rng.random_range(0..3) {
                        0 => rng.random_range(1..8),
                        _ => rng.random_range(100..3000),
                    };
                    let zeros = [0, 0, 3, 70][rng.random_range(0..4)];
                    data.extend(long_token(&mut rng, format, len, zeros));
                    data.extend_from_slice(&b" \n\r\t"[..rng.random_range(1..4)]);
                }
                let options = Options {
                    // Short enough that most moves on long heaps are
                    // reported from their top limbs.
                    inline_bits: if round.is_multiple_of(3) { 64 } else { 4096 },
                    ..round_options(round)
                };
                answered += compare(&data, format, &options).map_or(0, |()| 1);
            }
            assert!(answered > 45, "{format:?}: only {answered} answered");
        }
    }

    #[test]
    fn a_move_on_a_long_heap_reads_it_again() {
        let mut rng = ChaCha8Rng::seed_from_u64(14);
        for format in [Format::Bits, Format::Hex] {
            let long = long_token(&mut rng, format, 2000, 5);
            // Normal play: the XOR move is on the long heap; misère with
            // one big heap among ones: it is left with 0 or 1.
            for (ones, rule) in [(0, Rule::Normal), (1, Rule::Misere), (2, Rule::Misere)] {
                let mut data = b"1 ".repeat(ones);
                data.extend_from_slice(&long);
                let tail: &[u8] = match rule {
                    Rule::Normal => b"\n11 10\n",
                    Rule::Misere => b"\n",
                };
                data.extend_from_slice(tail);
                let options = Options {
                    rule,
                    threads: 2,
                    ..Options::default()
                };
                let (_file, stamp) = stamp_of(&data);
                let fast = analyze_tuned(&stamp, format, &options, TINY)
                    .unwrap()
                    .unwrap();
                let chosen = fast.winning_move.as_ref().expect("a move");
                assert_eq!(chosen.heap, ones as u64, "{format:?} {rule:?}");
                assert!(compare(&data, format, &options).is_some());
            }
        }
    }

    #[test]
    fn an_msb_below_the_counted_limbs_is_left_to_the_passes() {
        // Two equal long heaps cancel; the nim-sum is a small heap's.
        let big = format!("1{} ", "0".repeat(300));
        let data = format!("{big}{big}101");
        let (_file, stamp) = stamp_of(data.as_bytes());
        let facts = analyze_tuned(&stamp, Format::Bits, &Options::default(), TINY).unwrap();
        assert!(facts.is_none());
        let decided = Options {
            decide: true,
            ..Options::default()
        };
        assert!(compare(data.as_bytes(), Format::Bits, &decided).is_some());
    }

    #[test]
    fn a_file_that_shrinks_while_read_is_an_error() {
        let data: Vec<u8> = (0..40_000)
            .flat_map(|i| format!("{i} ").into_bytes())
            .collect();
        let (file, stamp) = stamp_of(&data);
        file.as_file().set_len(data.len() as u64 / 2).unwrap();
        let options = Options {
            threads: 2,
            ..Options::default()
        };
        let error = analyze_tuned(&stamp, Format::Dec, &options, TINY).unwrap_err();
        assert!(
            error.to_string().contains("changed while being read"),
            "{error}"
        );
    }

    #[test]
    fn small_budgets_take_the_windowed_passes() {
        let (_file, stamp) = stamp_of(b"1 10 11");
        let options = Options {
            memory: MemoryBudget::Bytes(1 << 20),
            ..Options::default()
        };
        assert!(analyze_tuned(&stamp, Format::Bits, &options, TINY)
            .unwrap()
            .is_none());
    }
}
