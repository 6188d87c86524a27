//! The multi-pass analysis of a slice (a mapped file or a buffer).
//!
//! Pass 1 surveys the heaps and, when every heap fits in one window,
//! computes the whole nim-sum at once. Otherwise one pass per window
//! computes the nim-sum from the most significant window down. When the
//! first non-zero window shows the msb, a pass counts the heaps holding it
//! and finds the first; from then on each window also yields the move's
//! target (x ⊕ g) and feeds the removed amount's bit length, so the
//! nim-sum and the target stream out to their files top-down and no
//! window is ever held twice.

use super::bulk;
use super::counts::TopCounts;
use super::rules::{self, MovePlan, Player};
use super::survey::{HeapPos, Survey};
use super::values::{
    heap_value_report, subtract_low_limbs, value_from_limbs, BitsFile, RemoveLength, TopDownValue,
};
use super::{Facts, Options};
use crate::error::{Error, ParseError};
use crate::input::source::{
    line_and_column_at, release_pages, MappedFile, RereadFile, RELEASE_STEP_BYTES,
};
use crate::input::watch::{self, Stamp};
use crate::input::{Format, Heap, HeapScanner, HeapValue, PageReleaser, Scanner};
use crate::nimsum::{GrowingAccumulator, WindowAccumulator};
use crate::report::{Move, Value};
use std::convert::Infallible;

/// What the survey pass finds: the survey, the whole nim-sum when it fits
/// one window, and the holders of the top bits.
type SurveyPass = (Survey, Option<WindowAccumulator>, Option<TopCounts>);

/// The state of one analysis of one slice.
pub struct SliceRun<'d, 'o> {
    data: &'d [u8],
    format: Format,
    name: &'o str,
    options: &'o Options,
    passes: u64,
    bytes_scanned: u64,
    threads: u64,
    origin: Origin<'d>,
}

/// Where the bytes of a run live.
#[derive(Clone, Copy)]
enum Origin<'d> {
    /// In memory: `data` is all there is.
    Memory,
    /// In a mapped file (`data` is the map): pages are released as passes
    /// move on, and the file is checked for changes after each pass.
    Mapped(&'d MappedFile),
    /// In a file read again on each pass (`data` is empty).
    Reread(&'d RereadFile),
}

/// The move's heap, once found, and what streams out of it.
struct XorMove<'d> {
    pos: HeapPos,
    holders: u64,
    x: HeapValue<'d>,
    target: TopDownValue,
    remove: RemoveLength,
    pages: PageReleaser<'d>,
}

impl<'d, 'o> SliceRun<'d, 'o> {
    /// Prepares to analyze `data` in `format`; `name` is used in errors.
    pub fn new(data: &'d [u8], format: Format, name: &'o str, options: &'o Options) -> Self {
        SliceRun {
            data,
            format,
            name,
            options,
            passes: 0,
            bytes_scanned: 0,
            threads: 1,
            origin: Origin::Memory,
        }
    }

    /// Reads from a memory map whose pages are released as passes move on.
    pub fn with_map(
        file: &'d MappedFile,
        format: Format,
        name: &'o str,
        options: &'o Options,
    ) -> Self {
        SliceRun {
            origin: Origin::Mapped(file),
            ..SliceRun::new(file.map(), format, name, options)
        }
    }

    /// Reads a file with plain reads, again on each pass (`--no-mmap`).
    pub fn with_reread(
        file: &'d RereadFile,
        format: Format,
        name: &'o str,
        options: &'o Options,
    ) -> Self {
        SliceRun {
            origin: Origin::Reread(file),
            ..SliceRun::new(&[], format, name, options)
        }
    }

    /// The size of the input in bytes.
    fn len(&self) -> u64 {
        match self.origin {
            Origin::Reread(file) => file.stamp().len_at_open(),
            _ => self.data.len() as u64,
        }
    }

    /// Releases the pages of a mapped input behind a pass.
    fn pages(&self) -> PageReleaser<'d> {
        match self.origin {
            Origin::Mapped(file) => PageReleaser::of(file.map()),
            _ => PageReleaser::NONE,
        }
    }

    /// The file's size and modification time at open, when it is a file.
    fn stamp(&self) -> Option<&'d Stamp> {
        match self.origin {
            Origin::Memory => None,
            Origin::Mapped(file) => Some(file.stamp()),
            Origin::Reread(file) => Some(file.stamp()),
        }
    }

    /// Runs the whole analysis.
    pub fn run(mut self) -> Result<Facts, Error> {
        let window_limbs = self.options.memory.window_limbs(self.len());
        let (survey, whole, top_counts) = self.survey(window_limbs)?;
        let counts = survey.counts();
        let winner_needs_nim_sum = !(self.options.rule == rules::Rule::Misere && counts.big <= 1);
        let skip_windows = self.options.decide && !winner_needs_nim_sum;

        let nim_sum_file = match (&self.options.nim_sum_out, skip_windows) {
            (Some(path), false) => Some(BitsFile::create(path)?),
            _ => None,
        };
        let capture = self.options.inline_bits.min(survey.max_bit_length);
        let mut nim_sum = TopDownValue::new(capture, nim_sum_file);
        let mut msb = None;
        let mut xor_move = None;
        let mut complete = !skip_windows;

        if !skip_windows {
            let max_limbs = survey.max_bit_length.div_ceil(64);
            let windows = max_limbs.div_ceil(window_limbs);
            let mut whole = whole;
            for k in (0..windows).rev() {
                let first = k * window_limbs;
                let len = window_limbs.min(max_limbs - first) as usize;
                let window = match whole.take() {
                    Some(window) => window,
                    None => self.window_pass(first, len)?,
                };
                if msb.is_none() {
                    if let Some(top) = window.highest_bit() {
                        msb = Some(top);
                        let early_exit = self.options.decide
                            && windows > 1
                            && self.options.nim_sum_out.is_none();
                        if early_exit {
                            complete = false;
                            break;
                        }
                        let wants_xor_move =
                            rules::move_plan(self.options.rule, counts, true) == MovePlan::XorMsb;
                        if wants_xor_move && !self.options.decide {
                            let holders = top_counts.as_ref().and_then(|c| c.count(top));
                            xor_move = Some(self.start_xor_move(top, holders, &window, capture)?);
                        }
                    }
                }
                for (j, &limb) in window.limbs().iter().enumerate().rev() {
                    nim_sum.push(first + j as u64, limb)?;
                }
                if let Some(m) = &mut xor_move {
                    m.absorb(&window)?;
                }
            }
        }

        let winner = rules::winner(self.options.rule, counts, msb.is_some());
        let nim_sum = if complete {
            Some(nim_sum.finish(self.options.inline_bits)?)
        } else {
            None
        };
        let (winning_moves, winning_move) = if self.options.decide {
            (Some(0).filter(|_| winner == Player::Second), None)
        } else {
            self.choose_move(&survey, msb.is_some(), xor_move)?
        };
        Ok(Facts {
            survey,
            nim_sum,
            msb,
            winner,
            winning_moves,
            winning_move,
            passes: self.passes,
            bytes_scanned: self.bytes_scanned,
            window_bits: 64 * window_limbs,
            threads: self.threads,
        })
    }

    /// Pass 1: counts, the longest heap, the whole nim-sum if it fits in
    /// one window, and the holders of the top bits (raw arrays in bulk
    /// count them when the msb is known instead).
    fn survey(&mut self, window_limbs: u64) -> Result<SurveyPass, Error> {
        if let Some(width) = self.bulk_width() {
            let threads = self.options.threads;
            let (survey, xor, used) =
                bulk::survey_parallel(self.data, width, threads, self.pages())
                    .map_err(|e| self.input_error(e))?;
            self.threads = self.threads.max(used as u64);
            self.end_bulk_pass()?;
            let limbs = if survey.max_bit_length > 0 {
                vec![xor]
            } else {
                Vec::new()
            };
            let whole = WindowAccumulator::from_limbs(0, limbs);
            return Ok((survey, Some(whole), None));
        }
        let mut survey = Survey::default();
        let mut nim_sum = GrowingAccumulator::new(window_limbs);
        let mut top_counts = TopCounts::default();
        let pages = self.pages();
        self.for_each_heap(|index, heap| {
            survey.record(index, heap);
            nim_sum.xor(&heap.value, pages);
            top_counts.add(&heap.value);
        })?;
        Ok((survey, nim_sum.finish(), Some(top_counts)))
    }

    /// One pass computing the nim-sum's limbs `first .. first + len`.
    fn window_pass(&mut self, first: u64, len: usize) -> Result<WindowAccumulator, Error> {
        let mut window = WindowAccumulator::new(first, len);
        let pages = self.pages();
        self.for_each_heap(|_, heap| window.xor(&heap.value, pages))?;
        Ok(window)
    }

    /// A pass that counts the heaps whose bit `msb` is set (unless the
    /// survey counted them: `holders`) and finds the first; then the
    /// target's limbs above `window` stream out from it.
    fn start_xor_move(
        &mut self,
        msb: u64,
        holders: Option<u64>,
        window: &WindowAccumulator,
        capture: u64,
    ) -> Result<XorMove<'d>, Error> {
        let mut found = None;
        let (holders, first) = match (holders, self.bulk_width()) {
            (Some(holders), None) => {
                let (pos, heap) = self.first_holder(msb)?;
                found = heap;
                (holders, pos)
            }
            (_, Some(width)) => {
                let threads = self.options.threads;
                let found = bulk::holders_parallel(self.data, width, msb, threads, self.pages());
                self.end_bulk_pass()?;
                found
            }
            (None, None) => self.scan_holders(msb)?,
        };
        let pos = first.expect("the msb of the nim-sum is set in some heap");
        let x = match found {
            Some(heap) => heap.value,
            None => self.heap_at(pos.offset)?.value,
        };
        let file = match &self.options.move_out {
            Some(path) => Some(BitsFile::create(path)?),
            None => None,
        };
        let mut target = TopDownValue::new(capture, file);
        let above = window.first_limb() + window.limbs().len() as u64;
        self.pages()
            .in_steps(&x, above..x.bit_length().div_ceil(64), |limbs| {
                limbs.rev().try_for_each(|i| target.push(i, x.limb(i)))
            })?;
        Ok(XorMove {
            pos,
            holders,
            x,
            target,
            remove: RemoveLength::default(),
            pages: self.pages(),
        })
    }

    /// A pass that stops at the first heap whose bit `bit` is set: where it
    /// is and, when the input is in memory or mapped, the heap itself (so
    /// that it need not be scanned again).
    fn first_holder(&mut self, bit: u64) -> Result<(Option<HeapPos>, Option<Heap<'d>>), Error> {
        self.passes += 1;
        if let Origin::Reread(file) = self.origin {
            let chunk = self.options.memory.read_chunk_bytes();
            let (found, read) = file.find_heap(self.format, chunk, |heap| heap.value.bit(bit))?;
            self.bytes_scanned += read;
            return Ok((found, None));
        }
        let mut scanner = Scanner::new(self.format, self.data, 0).releasing(self.pages());
        let mut index = 0;
        let mut released = 0;
        while let Some(heap) = scanner.next_heap().map_err(|e| self.input_error(e))? {
            let reached = heap.offset as usize;
            if heap.value.bit(bit) {
                self.bytes_scanned += reached as u64;
                if let Some(stamp) = self.stamp() {
                    stamp.check()?;
                }
                let pos = HeapPos {
                    index,
                    offset: heap.offset,
                };
                return Ok((Some(pos), Some(heap)));
            }
            index += 1;
            if reached >= released + RELEASE_STEP_BYTES {
                self.release(released, reached);
                released = reached;
            }
        }
        self.bytes_scanned += self.data.len() as u64;
        Ok((None, None))
    }

    /// A pass counting the heaps whose bit `bit` is set, and finding the first.
    fn scan_holders(&mut self, bit: u64) -> Result<(u64, Option<HeapPos>), Error> {
        let mut holders = 0;
        let mut first = None;
        self.for_each_heap(|index, heap| {
            if heap.value.bit(bit) {
                holders += 1;
                first.get_or_insert(HeapPos {
                    index,
                    offset: heap.offset,
                });
            }
        })?;
        Ok((holders, first))
    }

    /// The deterministic winning move of SPEC section 1, and how many heaps
    /// admit one.
    fn choose_move(
        &mut self,
        survey: &Survey,
        nim_sum_nonzero: bool,
        xor_move: Option<XorMove<'d>>,
    ) -> Result<(Option<u64>, Option<Move>), Error> {
        let counts = survey.counts();
        let plan = rules::move_plan(self.options.rule, counts, nim_sum_nonzero);
        let holders = xor_move.as_ref().map_or(0, |m| m.holders);
        let winning_moves = rules::winning_moves(plan, counts, holders);
        let found = match plan {
            MovePlan::None => None,
            MovePlan::XorMsb => {
                let m = xor_move.expect("a non-zero nim-sum window starts the move");
                Some(self.finish_xor_move(m)?)
            }
            MovePlan::SingleBig { target } => {
                let pos = survey.first_big.expect("one heap is big");
                Some(self.small_target_move(pos, target)?)
            }
            MovePlan::TakeOne => {
                let pos = survey.first_one.expect("some heap is 1");
                Some(self.small_target_move(pos, 0)?)
            }
        };
        Ok((Some(winning_moves), found))
    }

    fn finish_xor_move(&mut self, m: XorMove<'d>) -> Result<Move, Error> {
        let inline = self.options.inline_bits;
        let remove_bits = m.remove.finish();
        let remove = if remove_bits <= inline {
            let used = remove_bits.div_ceil(64);
            let x_low: Vec<u64> = (0..used).map(|i| m.x.limb(i)).collect();
            let difference = subtract_low_limbs(&x_low, m.target.low_limbs());
            value_from_limbs(remove_bits, &difference, inline)
        } else {
            value_from_limbs(remove_bits, &[], inline)
        };
        let from = heap_value_report(&m.x, inline);
        let to = m.target.finish(inline)?;
        self.describe_move(m.pos, from, to, remove)
    }

    /// A misère move leaving 0 or 1 on the heap at `pos`.
    fn small_target_move(&mut self, pos: HeapPos, target: u64) -> Result<Move, Error> {
        let inline = self.options.inline_bits;
        let x = self.heap_at(pos.offset)?.value;
        if let Some(path) = &self.options.move_out {
            let mut file = BitsFile::create(path)?;
            file.push(target)?;
            file.finish()?;
        }
        let from = heap_value_report(&x, inline);
        let to = value_from_limbs(64 - u64::from(target.leading_zeros()), &[target], inline);
        let remove = subtract_small(&x, target, inline, self.pages());
        self.describe_move(pos, from, to, remove)
    }

    fn describe_move(
        &self,
        pos: HeapPos,
        from: Value,
        to: Value,
        remove: Value,
    ) -> Result<Move, Error> {
        Ok(Move {
            heap: pos.index,
            offset: pos.offset,
            line: self.line_of(pos.offset)?,
            from,
            to,
            remove,
        })
    }

    /// Visits every heap in order, counting a pass and its bytes.
    /// A file is checked for changes at the end of each pass.
    fn for_each_heap(&mut self, mut visit: impl FnMut(u64, &Heap<'_>)) -> Result<u64, Error> {
        self.passes += 1;
        if let Origin::Reread(file) = self.origin {
            let mut index = 0;
            let chunk = self.options.memory.read_chunk_bytes();
            self.bytes_scanned += file.for_each_heap(self.format, chunk, |heap| {
                visit(index, heap);
                index += 1;
            })?;
            file.stamp().check()?;
            return Ok(index);
        }
        let mut scanner = Scanner::new(self.format, self.data, 0).releasing(self.pages());
        let mut index = 0;
        let mut released = 0;
        while let Some(heap) = scanner.next_heap().map_err(|e| self.input_error(e))? {
            visit(index, &heap);
            index += 1;
            let reached = heap.offset as usize;
            if reached >= released + RELEASE_STEP_BYTES {
                self.release(released, reached);
                released = reached;
            }
        }
        self.release(released, self.data.len());
        self.bytes_scanned += self.data.len() as u64;
        if let Some(stamp) = self.stamp() {
            stamp.check()?;
        }
        Ok(index)
    }

    /// The element width when the input is a raw array in memory or in a
    /// map, which the passes read in bulk ([`bulk`]).
    fn bulk_width(&self) -> Option<usize> {
        match self.origin {
            Origin::Reread(_) => None,
            _ => self.format.raw_width(),
        }
    }

    /// Counts a pass that read all of `data` in bulk, and checks the file.
    fn end_bulk_pass(&mut self) -> Result<(), Error> {
        self.passes += 1;
        self.bytes_scanned += self.data.len() as u64;
        match self.stamp() {
            Some(stamp) => stamp.check(),
            None => Ok(()),
        }
    }

    /// Releases the mapped pages of `start..end`, when reading a map.
    fn release(&self, start: usize, end: usize) {
        if let Origin::Mapped(file) = self.origin {
            release_pages(file.map(), start, end);
        }
    }

    /// Reads the one heap that starts at `offset` (already validated).
    fn heap_at(&mut self, offset: u64) -> Result<Heap<'d>, Error> {
        if let Origin::Reread(file) = self.origin {
            return file.heap_at(self.format, offset);
        }
        let start = offset as usize;
        let mut scanner =
            Scanner::new(self.format, &self.data[start..], offset).releasing(self.pages());
        let heap = scanner.next_heap().map_err(|e| self.input_error(e))?;
        heap.ok_or_else(|| watch::changed(self.name, "a heap read before is gone"))
    }

    /// The line of `offset`, for the text formats.
    fn line_of(&self, offset: u64) -> Result<Option<u64>, Error> {
        if !self.format.is_text() {
            return Ok(None);
        }
        let (line, _) = match self.origin {
            Origin::Reread(file) => line_and_column_at(file.stamp().file(), self.name, offset)?,
            _ => self.pages().line_and_column(self.data, offset as usize),
        };
        Ok(Some(line))
    }

    /// A parse error in a slice; a change of the file explains it first.
    fn input_error(&self, error: ParseError) -> Error {
        if let Some(Err(changed)) = self.stamp().map(Stamp::check) {
            return changed;
        }
        let line_col = self.format.is_text().then(|| {
            self.pages()
                .line_and_column(self.data, error.offset as usize)
        });
        Error::Input {
            path: self.name.to_string(),
            offset: error.offset,
            line_col,
            message: error.message,
        }
    }
}

impl XorMove<'_> {
    /// Takes one nim-sum window (top-down order): the target's limbs there
    /// are g ⊕ x.
    fn absorb(&mut self, window: &WindowAccumulator) -> Result<(), Error> {
        let first = window.first_limb();
        let limbs = first..first + window.limbs().len() as u64;
        let XorMove {
            x,
            target,
            remove,
            pages,
            ..
        } = self;
        pages.in_steps(x, limbs, |step| {
            step.rev().try_for_each(|index| {
                let g = window.limbs()[(index - first) as usize];
                let x = x.limb(index);
                remove.feed(index, g, x);
                target.push(index, g ^ x)
            })
        })
    }
}

/// `x − s` for s ∈ {0, 1} (x ≥ s), reported; `pages` releases the input
/// behind a long heap.
fn subtract_small(x: &HeapValue<'_>, s: u64, inline_bits: u64, pages: PageReleaser<'_>) -> Value {
    let x_bits = x.bit_length();
    let bit_length = if s == 1 && is_power_of_two(x, pages) {
        x_bits - 1
    } else {
        x_bits
    };
    if bit_length > inline_bits {
        return value_from_limbs(bit_length, &[], inline_bits);
    }
    let difference = subtract_low_limbs(&x.to_limbs(), &[s]);
    value_from_limbs(bit_length, &difference, inline_bits)
}

/// True when exactly one bit of `x` is set (read in steps, releasing the
/// input behind).
fn is_power_of_two(x: &HeapValue<'_>, pages: PageReleaser<'_>) -> bool {
    let mut ones = 0u64;
    let counted = pages.in_steps(x, 0..x.bit_length().div_ceil(64), |step| {
        ones += step.map(|i| u64::from(x.limb(i).count_ones())).sum::<u64>();
        Ok::<(), Infallible>(())
    });
    counted.unwrap_or_else(|never| match never {});
    ones == 1
}
