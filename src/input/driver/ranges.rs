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
use crate::input::source::page_release::PageReleaser;
use crate::input::source::Input;
use crate::input::source::{RandomAccess, Reading};
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
    let mut starts = vec![base];
    for k in 1..count {
        let nominal = base + (end - base) / count * k;
        let start = match format.raw_width() {
            Some(width) => nominal - (nominal - base) % width as u64,
            None => match next_boundary(source, format, nominal, end, reads)? {
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

/// The first heap boundary at or after `from`, before `len` (the end of
/// the span being cut): just past a separator. `None` when none comes
/// within the longest heap a pass buffers.
pub(super) fn next_boundary(
    source: RandomAccess<'_>,
    format: Format,
    from: u64,
    len: u64,
    reads: &Reads,
) -> Result<Option<u64>, Error> {
    let mut window = vec![0u8; reads.read_bytes.min(64 << 10)];
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
