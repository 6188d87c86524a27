//! Where a range's heaps lie: the span `[first, last)` of the bytes a
//! sharded run's worker reads for the byte range `[start, end)` it was
//! given (`analyze --range`, `sharded/worker.rs`).
//!
//! A range's heaps are those whose first byte lies in it. A token starts
//! at a byte that is not whitespace after whitespace or the file's start;
//! a unary line after an LF or the file's start; a raw element at a
//! multiple of the width; a `nimb` record after the previous one. The
//! span starts at the range's first heap (or where one would start) and
//! ends past its last heap, which may run past `end`: the driver reads
//! spans that start and end on heap boundaries. The spans of adjacent
//! ranges are adjacent, so together they read every heap once.
//!
//! Costs: a text range looks at the byte before it and, when it starts
//! inside a token, at most its own bytes to find the first boundary; it
//! reads the token that crosses its end to find the last (both with the
//! boundary search that cuts a pass's ranges, `ranges.rs`). A `nimb` record
//! is found only from the header: the worker hops from record to record
//! (through the driver, in place from the map, which touches the length
//! prefixes and little else) up to the first record at or past `end`, so
//! a range's cost grows with the number of records before it.

use super::fold::{At, Fold};
use super::pass::Reads;
use super::ranges::next_boundary;
use super::run::{run_span, SpanError};
use crate::error::Error;
use crate::input::format::Format;
use crate::input::heap::Heap;
use crate::input::source::Input;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// The span of the heaps of `range` (`None`: no heap starts in it), or
/// the span from the start that holds its first error.
/// `reads` say how a pass reads (the hop through `nimb` records is one).
pub(crate) fn span_of(
    input: &Input<'_>,
    format: Format,
    range: Range<u64>,
    reads: &Reads,
) -> Result<Option<Range<u64>>, Error> {
    let source = input.random_access().expect("a range is of a file");
    let size = source.size();
    let (first, last) = match format.raw_width() {
        Some(width) => {
            let up = |at: u64| at.div_ceil(width as u64) * width as u64;
            (up(range.start).min(size), up(range.end).min(size))
        }
        None if format == Format::Nimb => return nimb_span(input, range, reads),
        None => {
            let boundary = |at, end| next_boundary(source, format, (at, end), u64::MAX, reads);
            let first = boundary(range.start, range.end)?;
            let last = boundary(range.end, size)?;
            (first.unwrap_or(range.end), last.unwrap_or(size))
        }
    };
    Ok((first < range.end && first < last).then_some(first..last))
}

/// The span of a `nimb` range: hops through the records from the header.
/// Every `nimb` error past the header is at a record's first byte, so a
/// bad record bounds spans like a good one; a bad header belongs to the
/// range that starts the file.
fn nimb_span(
    input: &Input<'_>,
    range: Range<u64>,
    reads: &Reads,
) -> Result<Option<Range<u64>>, Error> {
    let size = input.size().expect("a range is of a file");
    if range.start >= range.end {
        return Ok(None);
    }
    let found = [AtomicU64::new(NONE), AtomicU64::new(NONE)];
    let hops = Hops {
        start: range.start,
        end: range.end,
        found: &found,
    };
    match run_span(input, Format::Nimb, reads, 0..size, || hops.clone()) {
        Ok(_) => {}
        Err(SpanError::Parse(error)) if error.offset < 8 => {
            return Ok((range.start == 0).then_some(0..size));
        }
        Err(SpanError::Parse(error)) => hops.record(error.offset),
        Err(SpanError::Failed(error)) => return Err(error),
    }
    let get = |slot: &AtomicU64| Some(slot.load(Ordering::Relaxed)).filter(|&at| at != NONE);
    let first = if range.start == 0 {
        Some(0)
    } else {
        get(&found[0])
    };
    let last = get(&found[1]).unwrap_or(size);
    Ok(first
        .filter(|&first| first < range.end)
        .map(|first| first..last))
}

/// No record found yet.
const NONE: u64 = u64::MAX;

/// The hop through `nimb` records: notes the first record at or past
/// `start`, and the first at or past `end`, where it stops.
#[derive(Clone)]
struct Hops<'f> {
    start: u64,
    end: u64,
    found: &'f [AtomicU64; 2],
}

impl Hops<'_> {
    /// Notes a record (or a bad one) at `offset`.
    fn record(&self, offset: u64) {
        if offset >= self.start {
            let _ =
                self.found[0].compare_exchange(NONE, offset, Ordering::Relaxed, Ordering::Relaxed);
        }
        if offset >= self.end {
            let _ =
                self.found[1].compare_exchange(NONE, offset, Ordering::Relaxed, Ordering::Relaxed);
        }
    }
}

impl Fold for Hops<'_> {
    fn heap(&mut self, _: u64, heap: &Heap<'_>, _: &mut At<'_>) -> Result<(), Error> {
        self.record(heap.offset);
        Ok(())
    }

    fn done(&self) -> bool {
        self.found[1].load(Ordering::Relaxed) != NONE
    }

    fn merge(&mut self, _: Self, _: u64) -> Result<(), Error> {
        unreachable!("a nimb file is one range")
    }
}
