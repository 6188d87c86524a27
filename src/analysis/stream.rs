//! The one-pass analysis of a stream (standard input, a pipe): nothing can
//! be read twice, so the pass keeps what the move needs as it goes.
//!
//! Every heap must fit in one window. Besides the survey, the pass keeps
//! per-bit counts of the heaps holding each bit (bit-sliced counters, whose
//! lowest plane is the nim-sum itself, so `winning_moves` is exact), and
//! the few heaps that were the first to hold some bit (the move's heap is
//! the first holder of the msb, so it is among them).

use super::budget::{MemoryBudget, STREAM_LOG_WINDOW_BITS};
use super::holders::{FirstHolders, KeptHeap};
use super::rules::{self, MovePlan, Player};
use super::survey::{HeapPos, Survey};
use super::values::{
    heap_value_report, subtract_low_limbs, value_from_limbs, BitsFile, TopDownValue,
};
use super::{Facts, Options};
use crate::error::{Error, ParseError};
use crate::input::source::fill;
use crate::input::{
    complete_prefix, line_and_column, Format, Heap, HeapScanner, HeapValue, Scanner,
};
use crate::report::Move;
use std::io::Read;

/// The name of standard input in messages.
pub const STDIN_NAME: &str = "<stdin>";

/// Bit-sliced counters: plane p holds bit p of the count of heaps having
/// each bit position set. Plane 0 is the nim-sum.
#[derive(Debug, Default)]
struct BitCounts {
    planes: Vec<Vec<u64>>,
}

impl BitCounts {
    fn add(&mut self, value: &HeapValue<'_>) {
        let limbs = value.bit_length().div_ceil(64) as usize;
        for j in 0..limbs {
            let mut carry = value.limb(j as u64);
            let mut plane = 0;
            while carry != 0 {
                if plane == self.planes.len() {
                    self.planes.push(Vec::new());
                }
                let row = &mut self.planes[plane];
                if row.len() <= j {
                    row.resize(limbs.max(j + 1), 0);
                }
                let sum = row[j] ^ carry;
                carry &= row[j];
                row[j] = sum;
                plane += 1;
            }
        }
    }

    /// How many heaps have bit `position` set.
    fn count(&self, position: u64) -> u64 {
        let (limb, bit) = ((position / 64) as usize, position % 64);
        self.planes
            .iter()
            .enumerate()
            .map(|(p, row)| (row.get(limb).map_or(0, |w| w >> bit & 1)) << p)
            .sum()
    }

    fn nim_sum(&self) -> &[u64] {
        self.planes.first().map_or(&[], Vec::as_slice)
    }
}

/// Line numbers of a stream read in chunks.
#[derive(Debug, Default)]
struct LineTracker {
    lines_before: u64,
    line_start: u64,
}

impl LineTracker {
    /// Line and column of absolute `offset` inside `chunk` starting at `base`.
    fn locate(&self, chunk: &[u8], base: u64, offset: u64) -> (u64, u64) {
        let (line, column) = line_and_column(chunk, (offset - base) as usize);
        if line == 1 {
            (self.lines_before + 1, offset - self.line_start + 1)
        } else {
            (self.lines_before + line, column)
        }
    }

    fn advance(&mut self, chunk: &[u8], base: u64) {
        self.lines_before += memchr::memchr_iter(b'\n', chunk).count() as u64;
        if let Some(lf) = memchr::memrchr(b'\n', chunk) {
            self.line_start = base + lf as u64 + 1;
        }
    }
}

/// Everything the single pass keeps.
#[derive(Debug, Default)]
struct StreamState {
    survey: Survey,
    counts: BitCounts,
    holders: FirstHolders,
    first_big: Option<KeptHeap>,
    first_one_line: Option<u64>,
    window_bits: u64,
    track_moves: bool,
    name: String,
}

/// Analyzes a stream of `format` in one pass; `name` is the stream's name
/// in errors (`-` becomes `<stdin>`).
pub fn analyze_stream(
    reader: &mut dyn Read,
    format: Format,
    name: &str,
    options: &Options,
) -> Result<Facts, Error> {
    let window_bits = match options.memory {
        MemoryBudget::Log => STREAM_LOG_WINDOW_BITS,
        MemoryBudget::Bytes(bytes) => bytes.saturating_mul(8),
    };
    let chunk = match options.memory {
        MemoryBudget::Log => 1024,
        MemoryBudget::Bytes(bytes) => bytes.clamp(4096, 1 << 20) as usize,
    };
    let mut state = StreamState {
        window_bits,
        track_moves: !options.decide,
        name: if name == "-" {
            STDIN_NAME.to_string()
        } else {
            name.to_string()
        },
        ..StreamState::default()
    };
    let bytes = read_chunks(reader, format, chunk, &mut state)?;
    state.finish(options, bytes)
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
            index = state.scan(format, piece, base, index, &lines)?;
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
    /// Scans one chunk of whole heaps; returns the next heap index.
    fn scan(
        &mut self,
        format: Format,
        piece: &[u8],
        base: u64,
        mut index: u64,
        lines: &LineTracker,
    ) -> Result<u64, Error> {
        let located = |offset: u64| format.is_text().then(|| lines.locate(piece, base, offset));
        let mut scanner = Scanner::new(format, piece, base);
        loop {
            let heap = match scanner.next_heap() {
                Ok(Some(heap)) => heap,
                Ok(None) => return Ok(index),
                Err(ParseError { offset, message }) => {
                    return Err(Error::Input {
                        path: self.name.clone(),
                        offset,
                        line_col: located(offset),
                        message,
                    })
                }
            };
            self.take(index, &heap, located(heap.offset).map(|(line, _)| line))?;
            index += 1;
        }
    }

    /// Takes one heap into the survey, the counters and the kept heaps.
    fn take(&mut self, index: u64, heap: &Heap<'_>, line: Option<u64>) -> Result<(), Error> {
        let bits = heap.value.bit_length();
        if bits > self.window_bits {
            return Err(Error::Input {
                path: self.name.clone(),
                offset: heap.offset,
                line_col: None,
                message: format!(
                    "heap {index} has {bits} bits, more than the {}-bit window of --memory; \
                     standard input is read in one pass, so save it to a file and pass its path",
                    self.window_bits
                ),
            });
        }
        let pos = HeapPos {
            index,
            offset: heap.offset,
        };
        let was_big = self.survey.first_big.is_some();
        let was_one = self.survey.first_one.is_some();
        self.survey.record(index, heap);
        self.counts.add(&heap.value);
        if !self.track_moves {
            return Ok(());
        }
        self.holders
            .offer(pos, line, &heap.value)
            .map_err(|e| Error::io(self.name.clone(), e))?;
        if !was_big && self.survey.first_big.is_some() {
            self.first_big = Some(KeptHeap {
                pos,
                line,
                limbs: heap.value.to_limbs(),
            });
        }
        if !was_one && self.survey.first_one.is_some() {
            self.first_one_line = line;
        }
        Ok(())
    }

    /// Applies the rules to what the pass kept.
    fn finish(mut self, options: &Options, bytes: u64) -> Result<Facts, Error> {
        let bit_counts = std::mem::take(&mut self.counts);
        let g = bit_counts.nim_sum();
        let top = g.iter().rposition(|&w| w != 0);
        let msb = top.map(|t| 64 * t as u64 + 63 - u64::from(g[t].leading_zeros()));
        let counts = self.survey.counts();
        let winner = rules::winner(options.rule, counts, msb.is_some());
        let inline = options.inline_bits;
        let file = match &options.nim_sum_out {
            Some(path) => Some(BitsFile::create(path)?),
            None => None,
        };
        let mut nim_sum = TopDownValue::new(64 * g.len() as u64, file);
        for (j, &limb) in g.iter().enumerate().rev() {
            nim_sum.push(j as u64, limb)?;
        }
        let nim_sum = Some(nim_sum.finish(inline)?);
        let (winning_moves, winning_move) = if options.decide {
            (Some(0).filter(|_| winner == Player::Second), None)
        } else {
            let plan = rules::move_plan(options.rule, counts, msb.is_some());
            let holders = msb.map_or(0, |m| bit_counts.count(m));
            let moves = rules::winning_moves(plan, counts, holders);
            (Some(moves), self.play(plan, msb, g, options)?)
        };
        Ok(Facts {
            survey: self.survey,
            nim_sum,
            msb,
            winner,
            winning_moves,
            winning_move,
            passes: 1,
            bytes_scanned: bytes,
            window_bits: self.window_bits,
            threads: 1,
        })
    }

    fn play(
        &mut self,
        plan: MovePlan,
        msb: Option<u64>,
        g: &[u64],
        options: &Options,
    ) -> Result<Option<Move>, Error> {
        let (kept, target) = match plan {
            MovePlan::None => return Ok(None),
            MovePlan::XorMsb => {
                let msb = msb.expect("XorMsb needs a non-zero nim-sum");
                let kept = self
                    .holders
                    .first_with_bit(msb)
                    .map_err(|e| Error::io(self.name.clone(), e))?
                    .expect("some heap holds the msb");
                let target: Vec<u64> = (0..kept.limbs.len().max(g.len()))
                    .map(|j| kept.limbs.get(j).unwrap_or(&0) ^ g.get(j).unwrap_or(&0))
                    .collect();
                (kept, target)
            }
            MovePlan::SingleBig { target } => {
                (self.first_big.clone().expect("one big heap"), vec![target])
            }
            MovePlan::TakeOne => {
                let pos = self.survey.first_one.expect("some heap is 1");
                let one = KeptHeap {
                    pos,
                    line: self.first_one_line,
                    limbs: vec![1],
                };
                return Ok(Some(describe(&one, &[0], options)?));
            }
        };
        Ok(Some(describe(&kept, &target, options)?))
    }
}

/// The move from a kept heap to `target`, written to `--move-out`.
fn describe(kept: &KeptHeap, target: &[u64], options: &Options) -> Result<Move, Error> {
    let inline = options.inline_bits;
    let x = HeapValue::Limbs(kept.limbs.clone());
    let target_bits = HeapValue::Limbs(trimmed(target.to_vec())).bit_length();
    if let Some(path) = &options.move_out {
        let mut file = BitsFile::create(path)?;
        for &limb in target.iter().rev() {
            file.push(limb)?;
        }
        file.finish()?;
    }
    let difference = subtract_low_limbs(&kept.limbs, target);
    let remove_bits = HeapValue::Limbs(trimmed(difference.clone())).bit_length();
    Ok(Move {
        heap: kept.pos.index,
        offset: kept.pos.offset,
        line: kept.line,
        from: heap_value_report(&x, inline),
        to: value_from_limbs(target_bits, target, inline),
        remove: value_from_limbs(remove_bits, &difference, inline),
    })
}

fn trimmed(mut limbs: Vec<u64>) -> Vec<u64> {
    while limbs.last() == Some(&0) {
        limbs.pop();
    }
    limbs
}
