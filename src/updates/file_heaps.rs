//! FILE's heaps as an update session reads them: one heap through the
//! index (an update's old value), the heaps of a range in order (a block
//! of the OR tree, or all of them), and the line a heap starts on.
//!
//! FILE is read in place, from its memory map (or the bytes in memory),
//! never written. A heap is reached from the sample before it: the tokens
//! of `bits`, `hex` and `dec` on the way are only delimited
//! (`token_starts.rs`), the heaps of `unary` and `nimb` scanned; the heap
//! itself is read by the format's scanner, which checks its bytes again.
//! Bytes that no longer parse mean the file changed, an error; a change
//! that still parses shows in FILE's size and modification time, checked
//! when the session ends.
//!
//! **Resident memory.** The pages an update reads stay mapped: a stream
//! of updates to random heaps of a file of short heaps ends with the pages
//! it touched resident, up to the whole file (clean pages of the page
//! cache, which the kernel takes back when it needs them). Releasing them
//! as the session goes would cost a page fault at nearly every update of
//! such a stream (measured: a fault per update doubled its cost). A heap
//! of at least [`RELEASE_AFTER_USE_BYTES`] is different: its pages, and
//! those of the heaps skipped to reach it, are released once the update
//! has used it ([`FileHeaps::release`]), so a file of long heaps keeps a
//! resident size of a few heaps. Scans release the pages behind them as
//! they go.
//!
//! **Lines.** The line of a heap of `bits`, `hex` or `dec` is found by
//! counting LFs, from a checkpoint: the line of every 16th sample (every
//! 256th heap), filled in lazily and in order the first time a heap past
//! it is asked for, so all the asks of a session together count FILE's
//! LFs once, plus at most 256 heaps' bytes each; the last answer is
//! remembered (the move's heap rarely changes). A `unary` heap's line is
//! its index + 1; raw arrays and `nimb` have no lines.

use super::index::{HeapIndex, Start};
use super::token_starts::token_start;
use crate::arch::prefetch::prefetch;
use crate::error::Error;
use crate::input::lines::Lines;
use crate::input::source::file_changes;
use crate::input::source::page_release::{PageReleaser, RELEASE_STEP_BYTES};
use crate::input::source::Input;
use crate::input::{Format, HeapScanner, HeapValue, Scanner};
use std::ops::{ControlFlow, Range};

/// A heap read from FILE of at least this many bytes has its pages
/// released once used.
pub(super) const RELEASE_AFTER_USE_BYTES: usize = 64 << 10;

/// Samples per line checkpoint.
const SAMPLES_PER_LINE_CHECKPOINT: usize = 16;

/// FILE, its index, and its line checkpoints.
pub(super) struct FileHeaps<'a> {
    input: Input<'a>,
    format: Format,
    index: HeapIndex,
    /// The line of every [`SAMPLES_PER_LINE_CHECKPOINT`]-th sample, so far.
    line_checkpoints: Vec<u64>,
    /// LFs counted from the start, as far as the checkpoints reach.
    counted: Lines,
    /// The last heap whose line was asked for, and its line.
    last_line: Option<(u64, u64)>,
}

impl<'a> FileHeaps<'a> {
    /// FILE (`input`, read at any offset) in `format`, and its index.
    pub(super) fn new(input: Input<'a>, format: Format, index: HeapIndex) -> Result<Self, Error> {
        if input.in_place().is_none() {
            let why = std::io::Error::other("cannot be mapped into memory, which updates need");
            return Err(Error::io(input.name(), why));
        }
        Ok(FileHeaps {
            input,
            format,
            index,
            line_checkpoints: Vec::new(),
            counted: Lines::default(),
            last_line: None,
        })
    }

    /// FILE's name in messages.
    pub(super) fn name(&self) -> &str {
        self.input.name()
    }

    /// The index of heap offsets.
    pub(super) fn index(&self) -> &HeapIndex {
        &self.index
    }

    /// The bytes the index takes, with the line checkpoints at their
    /// full size.
    pub(super) fn index_bytes(&self) -> u64 {
        let checkpoints = self
            .index
            .samples()
            .div_ceil(SAMPLES_PER_LINE_CHECKPOINT as u64);
        self.index.bytes() + 8 * checkpoints
    }

    /// Fails when FILE changed since it was opened.
    pub(super) fn check_unchanged(&self) -> Result<(), Error> {
        self.input.check_unchanged()
    }

    /// Releases the pages of `value`, a heap read from FILE, once used,
    /// when it is long (see the module documentation).
    pub(super) fn release(&self, value: &HeapValue<'_>) {
        let bytes = value.limb_bytes(0..u64::MAX);
        if bytes.len() >= RELEASE_AFTER_USE_BYTES {
            mapped(&self.input).1.release(bytes);
        }
    }

    /// Starts fetching the index entry of heap `heap`.
    pub(super) fn prefetch_index(&self, heap: u64) {
        if let Some(entry) = self.index.entry_of(heap) {
            prefetch(std::slice::from_ref(entry));
        }
    }

    /// Starts fetching the bytes heap `heap` is read from: from its
    /// sample, the bytes a read of up to 16 short heaps takes.
    pub(super) fn prefetch_heap(&self, heap: u64) {
        let (data, _) = mapped(&self.input);
        let (offset, span) = match self.index.start_of(heap) {
            Start::Raw(offset) => (offset, 1),
            Start::Sample { offset, skip, .. } => (offset, (skip + 1) * 24),
        };
        let start = (offset as usize).min(data.len());
        let end = (start + span as usize).min(data.len());
        prefetch(&data[start..end]);
    }

    /// The value of heap `heap` (< the heap count).
    pub(super) fn heap(&self, heap: u64) -> Result<HeapValue<'_>, Error> {
        let (data, pages) = mapped(&self.input);
        let (offset, skip) = match self.index.start_of(heap) {
            Start::Raw(offset) => {
                let mut found = None;
                self.scan_raw(heap..heap + 1, offset, |_, value, _| {
                    found = Some(value.clone());
                    ControlFlow::Break(())
                })?;
                return found.ok_or_else(|| self.gone());
            }
            Start::Sample { offset, skip, .. } => (offset, skip),
        };
        let (scanner, skip) = match self.format {
            Format::Bits | Format::Hex | Format::Dec => {
                let after = &data[offset as usize..];
                let skipped = token_start(after, skip).ok_or_else(|| self.gone())?;
                if skipped >= RELEASE_AFTER_USE_BYTES {
                    pages.release(&after[..skipped]);
                }
                let start = offset + skipped as u64;
                (Scanner::new(self.format, &data[start as usize..], start), 0)
            }
            _ => (
                Scanner::new(self.format, &data[offset as usize..], offset),
                skip,
            ),
        };
        let mut scanner = scanner.releasing(pages);
        for _ in 0..skip {
            self.next(&mut scanner)?;
        }
        Ok(self.next(&mut scanner)?.value)
    }

    /// Hands `take` the heaps `heaps` in order (index, value, offset),
    /// until it breaks, releasing the pages behind.
    pub(super) fn scan<'s>(
        &'s self,
        heaps: Range<u64>,
        mut take: impl FnMut(u64, &HeapValue<'s>, u64) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        if heaps.is_empty() {
            return Ok(());
        }
        let (data, pages) = mapped(&self.input);
        let (offset, skip) = match self.index.start_of(heaps.start) {
            Start::Raw(offset) => return self.scan_raw(heaps, offset, take),
            Start::Sample { offset, skip, .. } => (offset, skip),
        };
        let mut scanner =
            Scanner::new(self.format, &data[offset as usize..], offset).releasing(pages);
        let mut released_to = offset;
        for _ in 0..skip {
            self.next(&mut scanner)?;
        }
        for index in heaps {
            let heap = self.next(&mut scanner)?;
            if heap.offset >= released_to + RELEASE_STEP_BYTES as u64 {
                pages.release(&data[released_to as usize..heap.offset as usize]);
                released_to = heap.offset;
            }
            if take(index, &heap.value, heap.offset).is_break() {
                break;
            }
        }
        Ok(())
    }

    /// [`FileHeaps::scan`] over a raw array, from `offset`.
    fn scan_raw<'s>(
        &'s self,
        heaps: Range<u64>,
        offset: u64,
        mut take: impl FnMut(u64, &HeapValue<'s>, u64) -> ControlFlow<()>,
    ) -> Result<(), Error> {
        let width = self.format.raw_width().expect("a raw array") as u64;
        let end = offset + (heaps.end - heaps.start) * width;
        let (data, _) = mapped(&self.input);
        let bytes = data
            .get(offset as usize..end as usize)
            .ok_or_else(|| self.gone())?;
        for (index, element) in heaps.zip(bytes.chunks_exact(width as usize)) {
            let value = HeapValue::Word(u128::from(crate::arch::columns::element(element)));
            if take(index, &value, index * width).is_break() {
                break;
            }
        }
        Ok(())
    }

    /// The next heap of `scanner`, which must have one.
    fn next<'s>(&self, scanner: &mut Scanner<'s>) -> Result<crate::input::Heap<'s>, Error> {
        match scanner.next_heap() {
            Ok(Some(heap)) => Ok(heap),
            Ok(None) => Err(self.gone()),
            Err(error) => Err(self.input.parse_error(self.format, error)),
        }
    }

    /// The error for a heap found in the initial pass and missing now.
    fn gone(&self) -> Error {
        if let Err(changed) = self.check_unchanged() {
            return changed;
        }
        file_changes::changed(self.name(), "a heap read before is gone")
    }

    /// The 1-based line that heap `heap`, at `offset`, starts on (text
    /// formats only).
    pub(super) fn line(&mut self, heap: u64, offset: u64) -> Option<u64> {
        if self.format == Format::Unary {
            return Some(heap + 1);
        }
        if !self.format.is_text() {
            return None;
        }
        if let Some((known, line)) = self.last_line {
            if known == heap {
                return Some(line);
            }
        }
        let Start::Sample { sample, .. } = self.index.start_of(heap) else {
            unreachable!("text formats are sampled")
        };
        let checkpoint = sample / SAMPLES_PER_LINE_CHECKPOINT;
        while self.line_checkpoints.len() <= checkpoint {
            let next = self.line_checkpoints.len() * SAMPLES_PER_LINE_CHECKPOINT;
            let to = self.index.sample_offset(next);
            self.count_lines_to(to);
            self.line_checkpoints.push(self.counted.line());
        }
        let from = self
            .index
            .sample_offset(checkpoint * SAMPLES_PER_LINE_CHECKPOINT);
        let (data, _) = mapped(&self.input);
        let between = &data[from as usize..offset as usize];
        let line = self.line_checkpoints[checkpoint] + bytecount::count(between, b'\n') as u64;
        self.last_line = Some((heap, line));
        Some(line)
    }

    /// Counts FILE's LFs up to `to`, releasing the pages behind.
    fn count_lines_to(&mut self, to: u64) {
        let (data, pages) = mapped(&self.input);
        while self.counted.counted_to() < to {
            let from = self.counted.counted_to();
            let until = to.min(from + RELEASE_STEP_BYTES as u64);
            self.counted.count_to(data, 0, until);
            pages.release(&data[from as usize..until as usize]);
        }
    }
}

/// The bytes of `input` (its map, for a file; empty for an empty file)
/// and the releaser of their pages; [`FileHeaps::new`] made sure they lie
/// in place.
fn mapped<'i>(input: &'i Input<'_>) -> (&'i [u8], PageReleaser<'i>) {
    let place = input.in_place().expect("FILE lies in place");
    (place.bytes, place.pages)
}
