//! The one-pass analysis of a stream (standard input, a pipe): nothing can
//! be read twice, so the pass keeps what the move needs as it goes. The
//! same state, run over one range of a regular file and merged with the
//! others, is the one-pass path of [`chunked`](super::chunked).
//!
//! Every heap must fit in one window. Besides the survey and the nim-sum,
//! the pass keeps counts of the heaps holding each bit ([`HolderCounts`]:
//! every position for a stream, so `winning_moves` is exact; the top ones
//! for a file range), and the few heaps that were the first to hold some
//! bit (the move's heap is the first holder of the msb, so it is among
//! them). A file range also takes tokens too long for its buffer, read in
//! pieces ([`LongHeap`]): those are kept by where they are, and read again
//! ([`Reread`]) only when the move is played on one.

use super::budget::{MemoryBudget, STREAM_LOG_WINDOW_BITS};
use super::counts::{BitCounts, HolderCounts, TopCounts};
use super::holders::{FirstHolders, HeapInFile, KeptHeap};
use super::rules::{self, MovePlan, Player};
use super::survey::{HeapPos, Survey};
use super::values::{subtract_low_limbs, value_from_limbs, BitsFile, RemoveLength, TopDownValue};
use super::{Facts, Options};
use crate::arch::columns::ColumnCounter;
use crate::error::{Error, ParseError};
use crate::input::source::fill;
use crate::input::{
    complete_prefix, Format, Heap, HeapScanner, HeapValue, LineTracker, LongHeap, ScanVisitor,
    Scanner, TokenScratch,
};
use crate::nimsum::{xor_keeping_longer, ByShift};
use crate::report::Move;
use std::io::Read;

/// The name of standard input in messages.
pub const STDIN_NAME: &str = "<stdin>";

/// The line of each heap a pass keeps, found lazily: LFs are counted only
/// up to the heaps that are kept, once per chunk.
struct LineCursor<'a> {
    chunk: &'a [u8],
    counted: usize,
    line: u64,
}

impl<'a> LineCursor<'a> {
    fn new(chunk: &'a [u8], lines_before: u64) -> LineCursor<'a> {
        LineCursor {
            chunk,
            counted: 0,
            line: lines_before + 1,
        }
    }

    /// The line of the byte at `at` (relative to the chunk), at or after
    /// the last one asked for.
    fn line_at(&mut self, at: usize) -> u64 {
        self.line += bytecount::count(&self.chunk[self.counted..at], b'\n') as u64;
        self.counted = at;
        self.line
    }
}

/// The loop over the heaps of one piece, compiled once per format (see
/// [`ScanVisitor`]): the heap then stays in registers from the scanner to
/// the counters, instead of going through memory at a join of all formats.
struct PiecePass<'s, 'p> {
    state: &'s mut StreamState,
    /// Where short tokens are packed, if they are.
    scratch: Option<&'s mut TokenScratch>,
    cursor: LineCursor<'p>,
    track_lines: bool,
    base: u64,
    index: u64,
}

impl<'a> ScanVisitor<'a> for PiecePass<'_, '_> {
    type Output = Result<u64, Stop>;

    fn visit<S: HeapScanner<'a>>(mut self, mut scanner: S) -> Result<u64, Stop> {
        let (base, track_lines) = (self.base, self.track_lines);
        let PiecePass {
            state,
            scratch,
            cursor,
            index,
            ..
        } = &mut self;
        scanner.each_heap(scratch.as_deref_mut(), |heap| {
            let line = |cursor: &mut LineCursor<'_>| {
                track_lines.then(|| cursor.line_at((heap.offset - base) as usize))
            };
            state.take(*index, heap, cursor, line)?;
            *index += 1;
            Ok::<_, Stop>(())
        })?;
        Ok(self.index)
    }
}

impl From<ParseError> for Stop {
    fn from(error: ParseError) -> Stop {
        Stop::Parse(error)
    }
}

/// Why a pass over a piece stopped.
#[derive(Debug)]
pub(super) enum Stop {
    /// A malformed byte.
    Parse(ParseError),
    /// A heap wider than the window.
    TooWide {
        /// Its first byte.
        offset: u64,
        /// Its index, counted from the first piece of the pass.
        index: u64,
        /// Its bit length.
        bits: u64,
    },
    /// The temporary file of kept heaps failed.
    Failed(Error),
}

/// What a pass reads, which decides what it keeps.
pub(super) enum Reading {
    /// A stream, read once: kept heaps get their lines as they pass, and
    /// the holders of every bit are counted.
    Stream,
    /// A range of a regular file: lines and the holders of low bits can be
    /// looked up again afterwards.
    FileRange,
}

/// Reads again the heaps a file range left in the file.
pub(super) trait Reread {
    /// Bit `position` of the heap.
    fn bit(&self, heap: &HeapInFile, position: u64) -> Result<bool, Error>;
    /// The heap's value.
    fn value(&self, heap: &HeapInFile) -> Result<Vec<u64>, Error>;
}

/// Everything the single pass keeps.
#[derive(Debug)]
pub(super) struct StreamState {
    survey: Survey,
    nim_sum: Vec<u64>,
    /// The packed tokens' part of the nim-sum, shifted when it is read.
    by_shift: ByShift,
    counts: HolderCounts,
    holders: FirstHolders,
    /// Every non-zero long heap, in order (a file range only).
    in_file: Vec<HeapInFile>,
    /// The first heap of 2 or more, unless it is a long one.
    first_big: Option<KeptHeap>,
    first_one_line: Option<u64>,
    window_bits: u64,
    track_moves: bool,
    /// Whether kept heaps get their line (a file looks it up at the end).
    track_lines: bool,
    name: String,
    /// Where the scanners pack short tokens: a file's ranges only, for
    /// speed (up to 2 KiB here and 16 partial nim-sums in `by_shift`); a
    /// stream keeps its working memory to the nim-sum alone.
    scratch: Option<TokenScratch>,
}

/// Analyzes a stream of `format` in one pass; `name` is the stream's name
/// in errors (`-` becomes `<stdin>`).
pub fn analyze_stream(
    reader: &mut dyn Read,
    format: Format,
    name: &str,
    options: &Options,
) -> Result<Facts, Error> {
    let name = if name == "-" { STDIN_NAME } else { name };
    let mut state = StreamState::new(options, name, Reading::Stream);
    let chunk = options.memory.read_chunk_bytes();
    let bytes = read_chunks(reader, format, chunk, &mut state)?;
    let facts = state.finish(options, bytes, 1, None)?;
    Ok(facts.expect("a stream counts the holders of every bit"))
}

/// Reads the stream chunk by chunk, each cut at a heap boundary.
fn read_chunks(
    reader: &mut dyn Read,
    format: Format,
    chunk: usize,
    state: &mut StreamState,
) -> Result<u64, Error> {
    let mut buffer: Vec<u8> = Vec::with_capacity(chunk);
    let mut base = 0u64;
    let mut index = 0u64;
    let mut lines = LineTracker::default();
    loop {
        if buffer.len() == buffer.capacity() {
            buffer.reserve(buffer.capacity());
        }
        let eof = fill(reader, &mut buffer).map_err(|e| Error::io(&state.name, e))?;
        let usable = if eof {
            buffer.len()
        } else {
            complete_prefix(format, &buffer, base == 0)
        };
        if usable > 0 || eof {
            let piece = &buffer[..usable];
            index = state
                .scan(format, piece, base, index, lines.lines_before)
                .map_err(|stop| state.stream_error(stop, format, piece, base, &lines))?;
            if format.is_text() {
                lines.advance(piece, base);
            }
            buffer.drain(..usable);
            base += usable as u64;
        }
        if eof {
            return Ok(base);
        }
    }
}

impl StreamState {
    /// An empty state for a pass named `name` over `reading`.
    pub(super) fn new(options: &Options, name: &str, reading: Reading) -> StreamState {
        let window_bits = match options.memory {
            MemoryBudget::Log => STREAM_LOG_WINDOW_BITS,
            MemoryBudget::Bytes(bytes) => bytes.saturating_mul(8),
        };
        let (counts, track_lines) = match reading {
            Reading::Stream => (HolderCounts::Every(BitCounts::default()), true),
            Reading::FileRange => (HolderCounts::Top(TopCounts::default()), false),
        };
        StreamState {
            survey: Survey::default(),
            // Two limbs from the start: the XOR of a word needs no check.
            nim_sum: vec![0; 2],
            by_shift: ByShift::default(),
            counts,
            holders: FirstHolders::default(),
            in_file: Vec::new(),
            first_big: None,
            first_one_line: None,
            window_bits,
            track_moves: !options.decide,
            track_lines,
            name: name.to_string(),
            scratch: matches!(reading, Reading::FileRange).then(TokenScratch::default),
        }
    }

    /// The error a stream reports for `stop` inside `piece`.
    fn stream_error(
        &self,
        stop: Stop,
        format: Format,
        piece: &[u8],
        base: u64,
        lines: &LineTracker,
    ) -> Error {
        let located = |offset: u64| format.is_text().then(|| lines.locate(piece, base, offset));
        match stop {
            Stop::Parse(ParseError { offset, message }) => Error::Input {
                path: self.name.clone(),
                offset,
                line_col: located(offset),
                message,
            },
            Stop::TooWide {
                offset,
                index,
                bits,
            } => Error::Input {
                path: self.name.clone(),
                offset,
                line_col: None,
                message: format!(
                    "heap {index} has {bits} bits, more than the {}-bit window of --memory; \
                     standard input is read in one pass, so save it to a file and pass its path",
                    self.window_bits
                ),
            },
            Stop::Failed(error) => error,
        }
    }

    /// Scans one chunk of whole heaps, the first of which is heap `index`
    /// and lies on line `lines_before + 1`; returns the next heap index.
    pub(super) fn scan(
        &mut self,
        format: Format,
        piece: &[u8],
        base: u64,
        index: u64,
        lines_before: u64,
    ) -> Result<u64, Stop> {
        let track_lines = self.track_lines && format.is_text();
        let mut scratch = self.scratch.take();
        let pass = PiecePass {
            state: self,
            scratch: scratch.as_mut(),
            cursor: LineCursor::new(piece, lines_before),
            track_lines,
            base,
            index,
        };
        let next = Scanner::new(format, piece, base).visit(pass);
        self.scratch = scratch;
        next
    }

    /// Takes one heap into the survey, the counters and the kept heaps;
    /// `line` finds its line, asked only when the heap is kept.
    #[inline(always)]
    fn take<'c>(
        &mut self,
        index: u64,
        heap: &Heap<'_>,
        cursor: &mut LineCursor<'c>,
        line: impl Fn(&mut LineCursor<'c>) -> Option<u64>,
    ) -> Result<(), Stop> {
        let bits = heap.value.bit_length();
        if bits > self.window_bits {
            return Err(Stop::TooWide {
                offset: heap.offset,
                index,
                bits,
            });
        }
        let pos = HeapPos {
            index,
            offset: heap.offset,
        };
        let was_big = self.survey.first_big.is_some();
        let was_one = self.survey.first_one.is_some();
        self.survey.record(index, heap);
        self.xor(&heap.value);
        self.counts.add(&heap.value);
        if !self.track_moves {
            return Ok(());
        }
        if self.holders.holds_new_bit(&heap.value) {
            self.holders
                .offer(pos, line(cursor), &heap.value)
                .map_err(|e| Stop::Failed(Error::io(self.name.clone(), e)))?;
        }
        if !was_big && self.survey.first_big.is_some() {
            self.first_big = Some(KeptHeap {
                pos,
                line: line(cursor),
                limbs: heap.value.to_limbs(),
            });
        }
        if !was_one && self.survey.first_one.is_some() {
            self.first_one_line = line(cursor);
        }
        Ok(())
    }

    /// Takes a heap read in pieces: into the survey and the counters like
    /// any other, but kept by where it is rather than whole, and left out
    /// of the nim-sum, which the caller XORs it into.
    pub(super) fn take_long(&mut self, index: u64, long: &LongHeap) -> Result<(), Stop> {
        let (offset, bits) = (long.offset, long.bit_length());
        if bits > self.window_bits {
            return Err(Stop::TooWide {
                offset,
                index,
                bits,
            });
        }
        self.survey.record_length(index, offset, bits);
        self.counts.add_limbs(bits, |j| long.limb(j));
        if self.track_moves && bits > 0 {
            let pos = HeapPos { index, offset };
            let digits = long.digits.clone();
            self.in_file
                .push(HeapInFile::new(pos, digits, bits, |j| long.limb(j)));
        }
        Ok(())
    }

    /// Where the digits of the long heaps are (no LF is among them).
    pub(super) fn long_digits(&self) -> Vec<std::ops::Range<u64>> {
        self.in_file.iter().map(|h| h.digits.clone()).collect()
    }

    /// Appends the state of the pass over the next piece of the input,
    /// whose heap indices and lines start again from 0 and 1: they move by
    /// this state's heap count and by `lines_before` (the LFs before that
    /// piece).
    pub(super) fn merge(&mut self, later: StreamState, lines_before: u64) -> Result<(), Error> {
        let shift = |mut kept: KeptHeap| {
            kept.pos.index += self.survey.heaps;
            kept.line = kept.line.map(|l| l + lines_before);
            kept
        };
        let StreamState {
            survey,
            mut nim_sum,
            mut by_shift,
            counts,
            mut holders,
            in_file,
            first_big,
            first_one_line,
            ..
        } = later;
        let later_big = first_big.map(shift);
        let heaps_before = self.survey.heaps;
        holders
            .drain(|kept| {
                let kept = shift(kept);
                let value = HeapValue::Limbs(kept.limbs);
                self.holders.offer(kept.pos, kept.line, &value)
            })
            .map_err(|e| Error::io(self.name.clone(), e))?;
        if self.survey.first_one.is_none() {
            self.first_one_line = first_one_line.map(|l| l + lines_before);
        }
        if self.survey.first_big.is_none() {
            self.first_big = later_big;
        }
        self.in_file.extend(in_file.into_iter().map(|mut heap| {
            heap.pos.index += heaps_before;
            heap
        }));
        self.survey.merge_after(&survey, heaps_before);
        by_shift.drain_into(&mut nim_sum);
        self.xor_limbs(nim_sum);
        self.counts.merge(counts);
        Ok(())
    }

    /// This state with what a bulk count of raw elements found: the survey,
    /// the counters, and the first holder of each bit and the first heap
    /// of 2 or more, in input order.
    pub(super) fn with_raw(
        mut self,
        survey: Survey,
        columns: ColumnCounter,
        kept: Vec<KeptHeap>,
        first_big: Option<KeptHeap>,
    ) -> Result<StreamState, Stop> {
        self.survey = survey;
        let counts = columns.columns();
        let parity = counts.iter().enumerate();
        self.nim_sum = vec![parity.fold(0, |g, (b, &c)| g | (c & 1) << b)];
        self.counts = HolderCounts::Top(TopCounts::from_counter(columns));
        if self.track_moves {
            for heap in kept {
                self.holders
                    .offer(heap.pos, None, &HeapValue::Limbs(heap.limbs))
                    .map_err(|e| Stop::Failed(Error::io(self.name.clone(), e)))?;
            }
            self.first_big = first_big;
        }
        Ok(self)
    }

    /// XORs a value given as little-endian limbs into the nim-sum (the
    /// longer of the two vectors is kept, so nothing is allocated).
    pub(super) fn xor_limbs(&mut self, limbs: Vec<u64>) {
        xor_keeping_longer(&mut self.nim_sum, limbs);
    }

    /// XORs `value` into the nim-sum.
    #[inline(always)]
    fn xor(&mut self, value: &HeapValue<'_>) {
        if let (HeapValue::Word(word), [low, high, ..]) = (value, self.nim_sum.as_mut_slice()) {
            *low ^= *word as u64;
            *high ^= (*word >> 64) as u64;
            return;
        }
        if let HeapValue::Packed(packed) = value {
            self.by_shift.xor(packed);
            return;
        }
        let limbs = value.bit_length().div_ceil(64) as usize;
        if self.nim_sum.len() < limbs {
            self.nim_sum.resize(limbs, 0);
        }
        value.xor_window(0, &mut self.nim_sum);
    }

    /// Applies the rules to what the pass kept; `None` when the count of
    /// the heaps holding the msb is needed and was not kept (top counts).
    /// `reread` reads the long heaps of a file again.
    pub(super) fn finish(
        mut self,
        options: &Options,
        bytes: u64,
        threads: u64,
        reread: Option<&dyn Reread>,
    ) -> Result<Option<Facts>, Error> {
        let mut g = std::mem::take(&mut self.nim_sum);
        self.by_shift.drain_into(&mut g);
        let g = &g[..g.iter().rposition(|&w| w != 0).map_or(0, |t| t + 1)];
        let top = g.iter().rposition(|&w| w != 0);
        let msb = top.map(|t| 64 * t as u64 + 63 - u64::from(g[t].leading_zeros()));
        let counts = self.survey.counts();
        let winner = rules::winner(options.rule, counts, msb.is_some());
        let inline = options.inline_bits;
        let bits = msb.map_or(0, |m| m + 1);
        let nim_sum = Some(match &options.nim_sum_out {
            None => value_from_limbs(bits, g, inline),
            Some(path) => {
                let mut file = TopDownValue::new(inline.min(bits), Some(BitsFile::create(path)?));
                for (j, &limb) in g.iter().enumerate().rev() {
                    file.push(j as u64, limb)?;
                }
                file.finish(inline)?
            }
        });
        let (winning_moves, winning_move) = if options.decide {
            (Some(0).filter(|_| winner == Player::Second), None)
        } else {
            let plan = rules::move_plan(options.rule, counts, msb.is_some());
            let holders = match msb {
                None => 0,
                Some(m) => match self.counts.count(m) {
                    Some(count) => count,
                    None => return Ok(None),
                },
            };
            let moves = rules::winning_moves(plan, counts, holders);
            (Some(moves), self.play(plan, msb, g, options, reread)?)
        };
        Ok(Some(Facts {
            survey: self.survey,
            nim_sum,
            msb,
            winner,
            winning_moves,
            winning_move,
            passes: 1,
            bytes_scanned: bytes,
            window_bits: self.window_bits,
            threads,
        }))
    }

    fn play(
        &mut self,
        plan: MovePlan,
        msb: Option<u64>,
        g: &[u64],
        options: &Options,
        reread: Option<&dyn Reread>,
    ) -> Result<Option<Move>, Error> {
        match plan {
            MovePlan::None => Ok(None),
            MovePlan::XorMsb => {
                let msb = msb.expect("XorMsb needs a non-zero nim-sum");
                let kept = match self.first_with_bit(msb, reread)? {
                    Holder::Kept(kept) => kept,
                    Holder::InFile(heap) => match describe_xor_from_top(&heap, g, options) {
                        Some(found) => return Ok(Some(found)),
                        None => read_whole(&heap, reread)?,
                    },
                };
                Ok(Some(describe_xor(kept, g, options)?))
            }
            MovePlan::SingleBig { target } => {
                let kept = match self.first_big.take() {
                    Some(kept) => kept,
                    None => {
                        let pos = self.survey.first_big.expect("one big heap");
                        let heap = self.in_file.iter().find(|h| h.pos == pos);
                        read_whole(heap.expect("a big heap not kept is long"), reread)?
                    }
                };
                Ok(Some(describe_small(&kept, target, options)?))
            }
            MovePlan::TakeOne => {
                let pos = self.survey.first_one.expect("some heap is 1");
                let one = KeptHeap {
                    pos,
                    line: self.first_one_line,
                    limbs: vec![1],
                };
                Ok(Some(describe_small(&one, 0, options)?))
            }
        }
    }

    /// The first heap holding bit `msb`: the first kept one, unless a long
    /// heap before it holds the bit too.
    fn first_with_bit(&mut self, msb: u64, reread: Option<&dyn Reread>) -> Result<Holder, Error> {
        let kept = self
            .holders
            .first_with_bit(msb)
            .map_err(|e| Error::io(self.name.clone(), e))?;
        let before = kept.as_ref().map_or(u64::MAX, |k| k.pos.index);
        for heap in self.in_file.iter().take_while(|h| h.pos.index < before) {
            let holds = match heap.top_bit(msb) {
                Some(known) => known,
                None => reread
                    .expect("only a file range keeps long heaps")
                    .bit(heap, msb)?,
            };
            if holds {
                return Ok(Holder::InFile(heap.clone()));
            }
        }
        Ok(Holder::Kept(kept.expect("some heap holds the msb")))
    }
}

/// The heap a move is played on, as it was kept.
enum Holder {
    /// Whole.
    Kept(KeptHeap),
    /// In the file.
    InFile(HeapInFile),
}

/// A long heap, read again whole.
fn read_whole(heap: &HeapInFile, reread: Option<&dyn Reread>) -> Result<KeptHeap, Error> {
    let reread = reread.expect("only a file range keeps long heaps");
    Ok(KeptHeap {
        pos: heap.pos,
        line: None,
        limbs: reread.value(heap)?,
    })
}

/// The move that XORs the nim-sum `g` into the kept heap, written to
/// `--move-out`. The heap's limbs become the target's in place, so a long
/// heap is held once.
fn describe_xor(kept: KeptHeap, g: &[u64], options: &Options) -> Result<Move, Error> {
    let inline = options.inline_bits;
    let KeptHeap {
        pos,
        line,
        limbs: mut x,
    } = kept;
    let from = value_from_limbs(limbs_bit_length(&x), &x, inline);
    let mut remove = RemoveLength::default();
    for (j, (&gj, &xj)) in g.iter().zip(&x).enumerate().rev() {
        remove.feed(j as u64, gj, xj);
    }
    let remove_bits = remove.finish();
    let low_difference = if remove_bits <= inline {
        let used = (remove_bits.div_ceil(64) as usize).min(x.len());
        let target_low: Vec<u64> = (0..used)
            .map(|j| x[j] ^ g.get(j).copied().unwrap_or(0))
            .collect();
        subtract_low_limbs(&x[..used], &target_low)
    } else {
        Vec::new()
    };
    for (t, gj) in x.iter_mut().zip(g) {
        *t ^= gj;
    }
    let target = trimmed(x);
    write_move_out(&target, options)?;
    Ok(Move {
        heap: pos.index,
        offset: pos.offset,
        line,
        from,
        to: value_from_limbs(limbs_bit_length(&target), &target, inline),
        remove: value_from_limbs(remove_bits, &low_difference, inline),
    })
}

/// The move that XORs `g` into a long heap, from the heap's top limbs
/// alone: `None` unless they decide it. They do when the report needs only
/// bit lengths (no `--move-out`, every value longer than `--inline-bits`)
/// and the lengths show within them, as they do but for rare instances:
/// the target's where x ⊕ g first has a set bit from the top, the removed
/// amount's within a few set bits of g below its msb.
fn describe_xor_from_top(heap: &HeapInFile, g: &[u64], options: &Options) -> Option<Move> {
    let inline = options.inline_bits;
    if options.move_out.is_some() || heap.bits <= inline {
        return None;
    }
    let limbs = heap.bits.div_ceil(64) as usize;
    let low = limbs - heap.top.len();
    let x = |j: usize| heap.top[j - low];
    let g_limb = |j: usize| g.get(j).copied().unwrap_or(0);
    let mut remove = RemoveLength::default();
    for j in (low..limbs).rev() {
        remove.feed(j as u64, g_limb(j), x(j));
    }
    let remove_bits = remove.decided().filter(|&bits| bits > inline)?;
    let to_bits = (low..limbs).rev().find_map(|j| {
        let t = x(j) ^ g_limb(j);
        (t != 0).then(|| 64 * j as u64 + 64 - u64::from(t.leading_zeros()))
    });
    let to_bits = to_bits.filter(|&bits| bits > inline)?;
    Some(Move {
        heap: heap.pos.index,
        offset: heap.pos.offset,
        line: None,
        from: value_from_limbs(heap.bits, &[], inline),
        to: value_from_limbs(to_bits, &[], inline),
        remove: value_from_limbs(remove_bits, &[], inline),
    })
}

/// The move leaving `target` (0 or 1) on the kept heap, written to
/// `--move-out`.
fn describe_small(kept: &KeptHeap, target: u64, options: &Options) -> Result<Move, Error> {
    let inline = options.inline_bits;
    let target = trimmed(vec![target]);
    write_move_out(&target, options)?;
    let difference = trimmed(subtract_low_limbs(&kept.limbs, &target));
    Ok(Move {
        heap: kept.pos.index,
        offset: kept.pos.offset,
        line: kept.line,
        from: value_from_limbs(limbs_bit_length(&kept.limbs), &kept.limbs, inline),
        to: value_from_limbs(limbs_bit_length(&target), &target, inline),
        remove: value_from_limbs(limbs_bit_length(&difference), &difference, inline),
    })
}

/// Writes the move's target to `--move-out`, when asked.
fn write_move_out(target: &[u64], options: &Options) -> Result<(), Error> {
    if let Some(path) = &options.move_out {
        let mut file = BitsFile::create(path)?;
        for &limb in target.iter().rev() {
            file.push(limb)?;
        }
        file.finish()?;
    }
    Ok(())
}

/// The bit length of little-endian limbs.
fn limbs_bit_length(limbs: &[u64]) -> u64 {
    limbs.iter().rposition(|&w| w != 0).map_or(0, |t| {
        64 * t as u64 + 64 - u64::from(limbs[t].leading_zeros())
    })
}

fn trimmed(mut limbs: Vec<u64>) -> Vec<u64> {
    while limbs.last() == Some(&0) {
        limbs.pop();
    }
    limbs
}
