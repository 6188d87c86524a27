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
//! A heap wider than the window, or longer than a few MiB of text,
//! makes this path give up ([`analyze`] returns `None`) and the caller runs
//! the multi-pass analysis of [`passes`](super::passes), which handles any
//! heap in bounded memory.

use super::budget::MemoryBudget;
use super::holders::KeptHeap;
use super::stream::{Reading, Stop, StreamState};
use super::survey::{HeapPos, Survey};
use super::{Facts, Options};
use crate::error::Error;
use crate::input::source::{input_error, line_and_column_at};
use crate::input::watch::{self, Stamp};
use crate::input::{complete_prefix, first_boundary, trailing_bytes_error, Format};
use crate::nimsum::columns::{self, element, ColumnCounter};
use std::fs::File;
use std::io::ErrorKind;
use std::ops::Range;
use std::os::unix::fs::FileExt;

/// The sizes this path works with.
#[derive(Clone, Copy, Debug)]
struct Tuning {
    /// Bytes per read: small enough to stay in the L2 cache while parsed.
    read_bytes: usize,
    /// A heap of more text than this (a long line, a long token, many
    /// leading zeros) is left to the multi-pass analysis.
    max_heap_bytes: usize,
    /// A heap of more bits than this is left to the multi-pass analysis,
    /// which holds no heap whole.
    max_heap_bits: u64,
    /// Ranges smaller than this are not worth a thread of their own.
    min_range_bytes: u64,
}

impl Tuning {
    const DEFAULT: Tuning = Tuning {
        read_bytes: 128 << 10,
        max_heap_bytes: 8 << 20,
        max_heap_bits: 1 << 20,
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
    if !matches!(options.memory, MemoryBudget::Bytes(b) if b >= MIN_BUDGET_BYTES) {
        return Ok(None);
    }
    let len = stamp.len_at_open();
    let Some(ranges) = ranges(stamp, format, len, options.threads, tuning)? else {
        return Ok(None);
    };
    let results: Vec<Result<StreamState, Halt>> = if let [range] = ranges.as_slice() {
        vec![analyze_range(stamp, format, range.clone(), options, tuning)]
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = ranges
                .iter()
                .map(|range| {
                    scope.spawn(|| analyze_range(stamp, format, range.clone(), options, tuning))
                })
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
    let total = total.expect("at least one range");
    let Some(mut facts) = total.finish(options, len, ranges.len() as u64)? else {
        return Ok(None);
    };
    if format.is_text() {
        if let Some(chosen) = &mut facts.winning_move {
            chosen.line = Some(line_and_column_at(stamp.file(), stamp.name(), chosen.offset)?.0);
        }
    }
    Ok(Some(facts))
}

/// The one-pass state of one range.
fn analyze_range(
    stamp: &Stamp,
    format: Format,
    range: Range<u64>,
    options: &Options,
    tuning: Tuning,
) -> Result<StreamState, Halt> {
    let name = stamp.name();
    let mut state = StreamState::new(options, name, Reading::FileRange);
    if let Some(width) = format.raw_width() {
        let mut raw = RawRange::new(range.start, width);
        read_range(stamp, format, range, tuning, |piece, base| {
            raw.scan(piece, base)
        })?;
        return Ok(state.with_raw(raw.survey(), raw.counter, raw.kept, raw.first_big)?);
    }
    let mut index = 0;
    read_range(stamp, format, range, tuning, |piece, base| {
        index = state.scan(format, piece, base, index, 0)?;
        if state.survey().max_bit_length > tuning.max_heap_bits {
            return Err(Halt::LongHeap);
        }
        Ok(())
    })?;
    Ok(state)
}

/// Feeds `piece(bytes, base)` the bytes of `range` in buffers that end on
/// heap boundaries (the last at the range's end).
fn read_range(
    stamp: &Stamp,
    format: Format,
    range: Range<u64>,
    tuning: Tuning,
    mut piece: impl FnMut(&[u8], u64) -> Result<(), Halt>,
) -> Result<(), Halt> {
    // A range shorter than a read needs no more than its own length.
    let range_len = usize::try_from(range.end - range.start).unwrap_or(usize::MAX);
    let mut buffer = vec![0u8; tuning.read_bytes.min(range_len).max(1)];
    let (mut filled, mut base, mut next) = (0usize, range.start, range.start);
    loop {
        if filled == buffer.len() {
            if buffer.len() >= tuning.max_heap_bytes {
                return Err(Halt::LongHeap);
            }
            buffer.resize(2 * buffer.len(), 0);
        }
        let want = (buffer.len() - filled).min((range.end - next) as usize);
        read_exact_at(stamp, &mut buffer[filled..filled + want], next)?;
        filled += want;
        next += want as u64;
        let end = next == range.end;
        let usable = if end {
            filled
        } else {
            complete_prefix(format, &buffer[..filled], base == 0)
        };
        if usable > 0 || end {
            piece(&buffer[..usable], base)?;
            buffer.copy_within(usable..filled, 0);
            filled -= usable;
            base += usable as u64;
        }
        if end {
            return Ok(());
        }
    }
}

/// Fills `buffer` from `offset`.
fn read_exact_at(stamp: &Stamp, buffer: &mut [u8], offset: u64) -> Result<(), Halt> {
    stamp
        .file()
        .read_exact_at(buffer, offset)
        .map_err(|e| Halt::Io(read_error(stamp, e)))
}

/// The error of a failed read: a file that ends early has shrunk.
fn read_error(stamp: &Stamp, error: std::io::Error) -> Error {
    match error.kind() {
        ErrorKind::UnexpectedEof => watch::changed(stamp.name(), "it is shorter than when opened"),
        _ => Error::io(stamp.name(), error),
    }
}

/// The file cut into ranges that start on heap boundaries, at most one
/// per thread; `None` when a cut falls inside a heap too long for this
/// path.
fn ranges(
    stamp: &Stamp,
    format: Format,
    len: u64,
    threads: usize,
    tuning: Tuning,
) -> Result<Option<Vec<Range<u64>>>, Error> {
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
                None => return Ok(None),
            },
        };
        if start > *starts.last().expect("starts with 0") && start < len {
            starts.push(start);
        }
    }
    starts.push(len);
    Ok(Some(starts.windows(2).map(|w| w[0]..w[1]).collect()))
}

/// The first heap boundary at or after `from`: just past a separator.
/// `None` when none comes within the longest heap this path takes.
fn next_boundary(
    file: &File,
    format: Format,
    from: u64,
    len: u64,
    tuning: Tuning,
) -> std::io::Result<Option<u64>> {
    let mut window = vec![0u8; 64 << 10];
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
        max_heap_bits: 1 << 12,
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

    #[test]
    fn ranges_on_many_threads_agree_with_the_multi_pass_analysis() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for format in Format::ALL {
            let mut answered = 0;
            for round in 0..60 {
                let data = instance(&mut rng, format);
                let options = Options {
                    threads: 1 + round % 4,
                    rule: if round % 2 == 0 {
                        Rule::Normal
                    } else {
                        Rule::Misere
                    },
                    decide: round % 7 == 0,
                    ..Options::default()
                };
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
    fn a_heap_too_long_for_one_pass_is_left_to_the_passes() {
        let long = [vec![b'1'; 3000], b" 1\n".to_vec()].concat();
        let (_file, stamp) = stamp_of(&long);
        let facts = analyze_tuned(&stamp, Format::Bits, &Options::default(), TINY).unwrap();
        assert!(facts.is_none());
        let zeros = [b"1 ".to_vec(), vec![b'0'; 2000], b"1".to_vec()].concat();
        let (_file, stamp) = stamp_of(&zeros);
        let facts = analyze_tuned(&stamp, Format::Bits, &Options::default(), TINY).unwrap();
        assert!(facts.is_none());
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
