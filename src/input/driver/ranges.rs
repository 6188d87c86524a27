//! The one place work is split across threads: an input that can be read
//! at any offset (or a span of it) is cut into ranges that start on heap
//! boundaries, each read on a thread of its own, and their folds merged in
//! file order; and the reading of one range, in place or with
//! positioned reads.

use super::fold::Fold;
use super::in_place::read_in_place;
use super::pass::{Folded, Located, RangeRun, Reads, Stop};
use super::positioned::Positioned;
use super::progress;
use crate::error::Error;
use crate::input::format::Format;
use crate::input::formats::any::first_boundary;
use crate::input::source::cancel::{Cancel, CANCEL_PIECE_BYTES};
use crate::input::source::Input;
use crate::input::source::{InPlace, RandomAccess};
use std::ops::Range;

/// The pass of [`run_random`](super::run_random) and
/// [`run_span`](super::run_span) over `span`.
pub(super) fn run_located<F: Fold>(
    input: &Input<'_>,
    format: Format,
    reads: &Reads,
    span: Range<u64>,
    make: impl Fn() -> F + Sync,
) -> Result<Folded<F>, Located> {
    let source = input
        .random_access()
        .expect("a stream is read once, by run");
    progress::pass_started();
    let cancel = (input.cancel(), input.name());
    let read =
        |range: &Range<u64>| read_range(source, cancel, format, reads, range.clone(), make());
    let count = range_count(span.end - span.start, format, reads);
    if count == 1 {
        // One range: read here, with nothing allocated for the ranges.
        let (fold, heaps, bytes_read) = read(&span)?;
        return Ok(Folded {
            fold,
            bytes_read,
            ranges: 1,
            heaps,
        });
    }
    let ranges = split(source, format, span, count, reads).map_err(Located::Failed)?;
    // Each range's fold merges as its thread is joined, in file order, so
    // that no list of the ranges' results is held.
    let mut merged: Option<(F, u64)> = None;
    let mut bytes_read = 0;
    std::thread::scope(|scope| {
        let handles: Vec<_> = ranges
            .iter()
            .map(|range| scope.spawn(|| read(range)))
            .collect();
        for handle in handles {
            let (fold, heaps, bytes) = handle.join().expect("a range thread does not panic")?;
            bytes_read += bytes;
            match &mut merged {
                None => merged = Some((fold, heaps)),
                Some((earlier, heaps_before)) => {
                    earlier
                        .merge(fold, *heaps_before)
                        .map_err(Located::Failed)?;
                    *heaps_before += heaps;
                }
            }
        }
        Ok::<(), Located>(())
    })?;
    let (fold, heaps) = merged.expect("at least one range");
    Ok(Folded {
        fold,
        bytes_read,
        ranges: ranges.len(),
        heaps,
    })
}

/// How many ranges to cut `len` bytes of input into: at most
/// `reads.ranges`, none shorter than `reads.min_range_bytes`; a `nimb`
/// file is one range, its records are only found from the start.
pub(super) fn range_count(len: u64, format: Format, reads: &Reads) -> u64 {
    match format {
        Format::Nimb => 1,
        _ => (reads.ranges as u64).clamp(1, (len / reads.min_range_bytes.max(1)).max(1)),
    }
}

/// The `span` of the input (the whole of it, but for `analyze --range`),
/// which starts and ends on heap boundaries, cut into at most `count`
/// ranges that start on heap boundaries: after a separator for the text
/// formats (a cut that falls inside a heap longer than
/// `reads.max_buffered_heap_bytes` is dropped), at whole elements for raw
/// arrays. The one place work is split.
pub(super) fn split(
    source: RandomAccess<'_>,
    format: Format,
    span: Range<u64>,
    count: u64,
    reads: &Reads,
) -> Result<Vec<Range<u64>>, Error> {
    let (base, end) = (span.start, span.end);
    let look = reads.max_buffered_heap_bytes as u64;
    let mut starts = vec![base];
    for k in 1..count {
        let nominal = base + (end - base) / count * k;
        let start = match format.raw_width() {
            Some(width) => nominal - (nominal - base) % width as u64,
            None => match next_boundary(source, format, (nominal, end), look, reads)? {
                Some(start) => start,
                None => continue,
            },
        };
        if start > *starts.last().expect("starts with the span's start") && start < end {
            starts.push(start);
        }
    }
    starts.push(end);
    Ok(starts.windows(2).map(|w| w[0]..w[1]).collect())
}

/// The first heap boundary of a text format at or after `at`, looking
/// no further than `end` (the end of the span being cut, or of the
/// input): `at` itself at the input's start or after a separator, else
/// just past the next separator, or `end` when none comes before it.
/// `None` when none comes within `look` bytes (a cut that would fall
/// inside a heap that long is dropped). Reads a window of `reads`'s size
/// (at most 64 KiB) at a time. The one place a boundary is searched for:
/// the cuts between a pass's ranges, and the span of a sharded run's
/// range (`span.rs`).
pub(super) fn next_boundary(
    source: RandomAccess<'_>,
    format: Format,
    (at, end): (u64, u64),
    look: u64,
    reads: &Reads,
) -> Result<Option<u64>, Error> {
    if at == 0 || at >= end {
        return Ok(Some(at.min(end)));
    }
    let mut window = vec![0u8; reads.read_bytes.min(64 << 10)];
    // A separator just before `at` makes `at` itself a boundary.
    let from = at - 1;
    let mut pos = from;
    while pos < end && pos - from < look {
        let n = window.len().min((end - pos) as usize);
        source.read_exact_at(&mut window[..n], pos)?;
        if let Some(past) = first_boundary(format, &window[..n]) {
            return Ok(Some(pos + past as u64));
        }
        pos += n as u64;
    }
    Ok((pos >= end).then_some(end))
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
    let bytes = match (source.in_place(reads.heaps_in_place), source) {
        (Some(data), _) => in_pieces(
            source, data, cancel, format, reads, range, &mut fold, &mut heaps,
        )?,
        // Positioned reads look at the flag themselves.
        (None, RandomAccess::File(file)) => {
            Positioned::new(file, format, reads).read(range.clone(), &mut fold, &mut heaps)
        }
        (None, RandomAccess::Memory(_)) => unreachable!("bytes in memory are read in place"),
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
    data: InPlace<'_>,
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
        let read = read_in_place(data, format, piece, fold, heaps);
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
