//! Where a range's heaps lie: the span `[first, last)` of the bytes a
//! worker reads for the byte range `[start, end)` it was given, and the
//! line feeds of the range's bytes.
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
//! reads the token that crosses its end to find the last. A `nimb` record
//! is found only from the header: the worker hops from record to record
//! (through the driver, in place from the map, which touches the length
//! prefixes and little else) up to the first record at or past `end`, so
//! a range's cost grows with the number of records before it.

use super::marks::Lines;
use crate::error::Error;
use crate::input::driver::{self, At, Fold, SpanError};
use crate::input::source::{Input, RandomAccess};
use crate::input::{first_boundary, Format, Heap};
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes read at once looking for a boundary or counting line feeds.
const READ_BYTES: usize = 1 << 20;

/// The span of the heaps of `range` (`None`: no heap starts in it), or
/// the span from the start that holds its first error.
pub fn span_of(
    input: &Input<'_>,
    format: Format,
    range: Range<u64>,
) -> Result<Option<Range<u64>>, Error> {
    let source = input.random_access().expect("a range is of a file");
    let size = source.size();
    let (first, last) = match format.raw_width() {
        Some(width) => {
            let up = |at: u64| at.div_ceil(width as u64) * width as u64;
            (up(range.start).min(size), up(range.end).min(size))
        }
        None if format == Format::Nimb => return nimb_span(input, range),
        None => {
            let first = boundary(source, format, range.start, range.end)?;
            let last = boundary(source, format, range.end, size)?;
            (first.unwrap_or(range.end), last.unwrap_or(size))
        }
    };
    Ok((first < range.end && first < last).then_some(first..last))
}

/// The first heap boundary at or after `at` of a text format, looking no
/// further than `limit`: `at` itself at the file's start or end or after
/// a separator, else just past the next separator.
fn boundary(
    source: RandomAccess<'_>,
    format: Format,
    at: u64,
    limit: u64,
) -> Result<Option<u64>, Error> {
    if at == 0 || at >= source.size() {
        return Ok(Some(at));
    }
    let mut before = [0u8];
    source.read_exact_at(&mut before, at - 1)?;
    if first_boundary(format, &before).is_some() {
        return Ok(Some(at));
    }
    let mut buffer = vec![0u8; READ_BYTES];
    let mut from = at;
    while from < limit {
        let n = READ_BYTES.min((limit - from) as usize);
        source.read_exact_at(&mut buffer[..n], from)?;
        if let Some(past) = first_boundary(format, &buffer[..n]) {
            return Ok(Some(from + past as u64));
        }
        from += n as u64;
    }
    Ok(None)
}

/// The span of a `nimb` range: hops through the records from the header.
/// Every `nimb` error past the header is at a record's first byte, so a
/// bad record bounds spans like a good one; a bad header belongs to the
/// range that starts the file.
fn nimb_span(input: &Input<'_>, range: Range<u64>) -> Result<Option<Range<u64>>, Error> {
    let size = input.size().expect("a range is of a file");
    if range.start >= range.end {
        return Ok(None);
    }
    let reads = driver::Reads {
        ranges: 1,
        min_range_bytes: 1,
        read_bytes: READ_BYTES,
        max_buffered_heap_bytes: usize::MAX,
        max_packed_bytes: usize::MAX,
        stream_chunk_bytes: READ_BYTES,
        heaps_in_place: true,
    };
    let found = [AtomicU64::new(NONE), AtomicU64::new(NONE)];
    let hops = Hops {
        start: range.start,
        end: range.end,
        found: &found,
    };
    match driver::run_span(input, Format::Nimb, &reads, 0..size, || hops.clone()) {
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

/// The line feeds of `range`, and those from its start to each of
/// `marks` (offsets at or past its start, in increasing order, which may
/// lie past its end), and the bytes read to count them. For the text
/// formats; none for the others.
pub fn lines_of(
    input: &Input<'_>,
    format: Format,
    range: Range<u64>,
    marks: &[u64],
) -> Result<(Lines, Vec<Lines>, u64), Error> {
    if !format.is_text() {
        return Ok((Lines::default(), vec![Lines::default(); marks.len()], 0));
    }
    let source = input.random_access().expect("a range is of a file");
    let mut stops: Vec<u64> = marks.to_vec();
    stops.push(range.end);
    stops.sort_unstable();
    let mut counted = Lines::default();
    let mut at = range.start;
    let mut buffer = vec![0u8; READ_BYTES];
    let mut found = Vec::with_capacity(stops.len());
    for &stop in &stops {
        while at < stop {
            let n = READ_BYTES.min((stop - at) as usize);
            source.read_exact_at(&mut buffer[..n], at)?;
            let piece = &buffer[..n];
            counted.lfs += bytecount::count(piece, b'\n') as u64;
            if let Some(lf) = memchr::memrchr(b'\n', piece) {
                counted.last_lf = Some(at + lf as u64);
            }
            at += n as u64;
        }
        found.push((stop, counted));
    }
    let at_stop = |offset: u64| {
        found
            .iter()
            .find(|(stop, _)| *stop == offset)
            .map(|(_, lines)| *lines)
            .expect("every mark is a stop")
    };
    let read = at - range.start;
    let at_marks = marks.iter().map(|&m| at_stop(m)).collect();
    Ok((at_stop(range.end), at_marks, read))
}
