//! Reading a range of a regular file in pieces of a fixed size that end
//! on heap boundaries: in place from the file's map where it has one (text
//! formats, no copy) up to the first heap that fills a whole piece, else,
//! and from there on, with positioned reads (`pread`) into a buffer: a
//! `bits` or `hex` token longer than a buffer is read from the range's
//! end when the fold sums tokens that way and the tokens after it are long
//! too (`from_end.rs`), else in pieces ([`LongToken`]); a `dec` token
//! longer than a buffer in pieces too, converted as it comes
//! ([`LongDecimal`]); any other heap too long to buffer is read in place
//! from the map, or, with no map, into a buffer that grows to hold it.

use super::fold::{At, Fold};
use super::from_end::{Backward, Zone};
use super::heap_loop::scan_piece;
use super::pass::{Reads, Stop, LINE};
use super::progress;
use crate::input::format::Format;
use crate::input::formats::any::{complete_prefix, Scanner};
use crate::input::long::decimals::LongDecimal;
use crate::input::long::pieces::LongToken;
use crate::input::packed::TokenScratch;
use crate::input::scanner::HeapScanner;
use crate::input::source::file::MappedFile;
use crate::input::source::file_changes;
use crate::input::source::page_release::PAGE;
use crate::input::source::FileInput;
use std::ops::Range;

/// Reads the ranges of a regular file with positioned reads.
pub(super) struct Positioned<'a> {
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
    pub(super) fn new(file: &'a FileInput, format: Format, reads: &'a Reads) -> Self {
        Positioned {
            file,
            format,
            reads,
        }
    }

    /// Reads `range` into buffers that end on heap boundaries (the last at
    /// the range's end) and hands `fold` their heaps; returns the bytes
    /// read.
    pub(super) fn read<F: Fold>(
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
        let mut buffer = ReadBuffer::new(self.reads.read_bytes.min(range_len).max(1));
        let mut scratch = fold.needs().packs_tokens.then(TokenScratch::default);
        let mut spare = Vec::new();
        // A token found too long to pack: read whole when met again.
        let mut whole_at = None;
        // The long tokens at the range's end, once read from there.
        let mut zone = Zone::new(range.end);
        let mut count = Count {
            bytes,
            forward_to: range.start,
        };
        let mut base = range.start;
        // Raw arrays keep the copy: their XOR runs at memory speed, and
        // u64le read in place took 1.07 of the time (`bench/RESULTS.md`).
        let text = self.format.raw_width().is_none();
        if let Some(map) = text.then(|| self.file.map()).flatten() {
            let span = (base, range.end);
            base = self.scan_in_place(map, span, fold, heaps, scratch.as_mut(), &mut count)?;
            if base == range.end {
                return Ok(());
            }
        }
        let (mut filled, mut next) = (0usize, base);
        loop {
            let want = (buffer.len() - filled).min((zone.start - next) as usize);
            self.file
                .read_exact_at(&mut buffer[filled..filled + want], next)?;
            (filled, next) = (filled + want, next + want as u64);
            count.forward_to(next);
            let end = next == zone.start;
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
                return zone.hand_over(fold, heaps);
            }
            if filled < buffer.len() {
                continue;
            }
            // The buffer holds the start of one heap and nothing else.
            if self.format == Format::Dec {
                let token = LongDecimal::start(&buffer[..filled], base)?;
                (filled, base) = self.read_long_decimal(
                    token,
                    &mut buffer,
                    zone.start,
                    fold,
                    *heaps,
                    &mut count,
                )?;
                *heaps += 1;
                if fold.done() {
                    return Err(Stop::Done);
                }
                next = base + filled as u64;
            } else if LongToken::reads(self.format) && filled >= 3 && whole_at != Some(base) {
                let backward = Backward::new(self.file, self.format, self.reads.read_bytes);
                if zone.extend_to(&backward, base, fold, count.bytes)? {
                    return zone.hand_over(fold, heaps);
                }
                let token = LongToken::start(self.format, &buffer[..filled], base, spare)?;
                match self.read_long(token, &mut buffer, zone.start, fold, *heaps, &mut count)? {
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
                base = self.heap_in_place(base, zone.start, fold, heaps, &mut count)?;
                (filled, next) = (0, base);
            } else {
                buffer.grow();
            }
        }
    }

    /// Reads the range's pieces of whole heaps from `from` in place from
    /// the map, with no copy into the buffer, until `end` or the first
    /// heap that fills a whole piece, and returns where it stopped: the
    /// rest of the range goes through the buffer. Going back to the map
    /// after each long heap read its first piece twice (faulted in from
    /// the map, then copied by `pread`): hex heaps of 1-2 MB took 1.28
    /// times as long. The pieces' pages are released behind every
    /// `release_bytes` and where it stops. On the two-core Zen 3 machines
    /// of issue 30 the one pass over text took 0.69-1.02 of the time it
    /// took with the copy, unary and short tokens gaining most
    /// (`bench/RESULTS.md`); releasing the pages every 2 MiB instead of 8
    /// gave back half of that (each release interrupts the other threads
    /// to flush their TLBs).
    fn scan_in_place<F: Fold>(
        &self,
        map: &MappedFile,
        (from, end): (u64, u64),
        fold: &mut F,
        heaps: &mut u64,
        mut scratch: Option<&mut TokenScratch>,
        count: &mut Count<'_>,
    ) -> Result<u64, Stop> {
        let (data, pages) = (map.map(), map.pages());
        let (mut base, mut released_to) = (from, from);
        while base < end {
            self.file.check_cancel()?;
            let piece_end = end.min(base + self.reads.read_bytes as u64);
            let piece = &data[base as usize..piece_end as usize];
            let usable = match piece_end == end {
                true => piece.len(),
                false => complete_prefix(self.format, piece, base == 0),
            };
            if usable == 0 {
                break;
            }
            let after = base + usable as u64;
            count.forward_to(after);
            let piece = &piece[..usable];
            let at = At::nowhere();
            scan_piece(
                self.format,
                piece,
                base,
                fold,
                heaps,
                scratch.as_deref_mut(),
                at,
            )?;
            if after - released_to >= self.reads.release_bytes as u64 {
                pages.release(&data[released_to as usize..after as usize]);
                // The page `after` falls in goes with the next release.
                released_to = after - after % PAGE as u64;
            }
            base = after;
        }
        pages.release(&data[released_to as usize..base as usize]);
        Ok(base)
    }

    /// Reads the rest of a long token through `buffer` and hands it to
    /// `fold`: whole, or group by group to a fold that drains tokens (no
    /// token is too long for it).
    fn read_long<F: Fold>(
        &self,
        mut token: LongToken,
        buffer: &mut [u8],
        end: u64,
        fold: &mut F,
        index: u64,
        count: &mut Count<'_>,
    ) -> Result<LongRead, Stop> {
        let drains = fold.needs().drains_long_tokens;
        loop {
            if drains {
                token.drain_into(|groups| fold.long_groups(groups));
            }
            let at = token.next();
            let want = self.read_piece(at, buffer, end, count)?;
            let stop = match want {
                0 => Some(0),
                _ => token.feed(&buffer[..want])?,
            };
            if !drains && token.packed_bytes() > self.reads.max_packed_bytes {
                return Ok(LongRead::TooLong);
            }
            if let Some(stop) = stop {
                if drains {
                    token.drain_into(|groups| fold.long_groups(groups));
                }
                let spare = end_long(token, fold, index)?;
                buffer.copy_within(stop..want, 0);
                return Ok(LongRead::Taken(want - stop, at + stop as u64, spare));
            }
        }
    }

    /// Reads the rest of a long decimal token through `buffer` and hands
    /// it to `fold` as the `index`-th heap; returns the bytes after it
    /// left at the start of the buffer, and the offset of the first.
    fn read_long_decimal<F: Fold>(
        &self,
        mut token: LongDecimal,
        buffer: &mut [u8],
        end: u64,
        fold: &mut F,
        index: u64,
        count: &mut Count<'_>,
    ) -> Result<(usize, u64), Stop> {
        loop {
            let at = token.next();
            let want = self.read_piece(at, buffer, end, count)?;
            let stop = match want {
                0 => Some(0),
                _ => token.feed(&buffer[..want])?,
            };
            if let Some(stop) = stop {
                fold.heap(index, &token.finish(), &mut At::nowhere())?;
                buffer.copy_within(stop..want, 0);
                return Ok((want - stop, at + stop as u64));
            }
        }
    }

    /// Reads the next piece of a token read in pieces, from `at` up to at
    /// most `end`, into `buffer`; returns its length, 0 at `end` (where
    /// the range, and so the token, ends).
    fn read_piece(
        &self,
        at: u64,
        buffer: &mut [u8],
        end: u64,
        count: &mut Count<'_>,
    ) -> Result<usize, Stop> {
        let want = buffer.len().min((end - at) as usize);
        if want > 0 {
            self.file.read_exact_at(&mut buffer[..want], at)?;
            count.forward_to(at + want as u64);
        }
        Ok(want)
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
        count: &mut Count<'_>,
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
            return Err(Stop::Failed(file_changes::changed(
                name,
                "a heap read before is gone",
            )));
        };
        fold.heap(*heaps, &heap, &mut At { lines: None, pages })?;
        *heaps += 1;
        let consumed = scanner.consumed();
        pages.release(&slice[..consumed]);
        count.forward_to(base + consumed as u64);
        if fold.done() {
            return Err(Stop::Done);
        }
        Ok(base + consumed as u64)
    }
}

/// A read buffer that starts on a cache line. The kernel copies a file's
/// pages into it at full speed; into a buffer 16 bytes past a line (where
/// an allocation of 128 KiB or more, served by its own map, begins) the
/// copy of a cached file took about a tenth longer, measured on two
/// threads.
struct ReadBuffer {
    backing: Vec<u8>,
    /// Where the aligned bytes start in `backing`.
    start: usize,
    len: usize,
}

impl ReadBuffer {
    fn new(len: usize) -> ReadBuffer {
        let backing = vec![0u8; len + LINE];
        let start = backing.as_ptr().align_offset(LINE);
        ReadBuffer {
            backing,
            start,
            len,
        }
    }

    /// Doubles the buffer, keeping its bytes. The backing grows in place
    /// where the allocator can (a large one is remapped, never copied
    /// while both exist), and the bytes move to the new cache line.
    fn grow(&mut self) {
        let (old_start, len) = (self.start, self.len);
        self.backing.resize(2 * len + LINE, 0);
        self.start = self.backing.as_ptr().align_offset(LINE);
        self.backing
            .copy_within(old_start..old_start + len, self.start);
        self.len = 2 * len;
    }
}

impl std::ops::Deref for ReadBuffer {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.backing[self.start..self.start + self.len]
    }
}

impl std::ops::DerefMut for ReadBuffer {
    fn deref_mut(&mut self) -> &mut [u8] {
        &mut self.backing[self.start..self.start + self.len]
    }
}

/// The bytes a range's reads brought, each counted once: a heap read in
/// place may begin before the end of the bytes in the buffer, so reads
/// forward are counted up to the furthest.
struct Count<'b> {
    bytes: &'b mut u64,
    forward_to: u64,
}

impl Count<'_> {
    /// Counts the bytes read forward up to `to` that are not counted yet.
    fn forward_to(&mut self, to: u64) {
        if to > self.forward_to {
            *self.bytes += to - self.forward_to;
            progress::read(to - self.forward_to);
            self.forward_to = to;
        }
    }
}

/// Hands `fold` the end of a long token, the `index`-th heap: its tail
/// when the fold drained its groups, else the whole heap; gives back the
/// token's buffer.
fn end_long<F: Fold>(token: LongToken, fold: &mut F, index: u64) -> Result<Vec<u64>, Stop> {
    if fold.needs().drains_long_tokens {
        let (tail, spare) = token.finish_drained();
        fold.long_tail(index, tail)?;
        return Ok(spare);
    }
    Ok(fold.long_heap(index, token.finish(), &mut At::nowhere())?)
}
