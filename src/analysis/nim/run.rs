//! One analysis from start to end: the first pass, then whatever it left
//! to do, then the facts.
//!
//! What may be left after the first pass: the windows of a nim-sum longer
//! than it could hold ([`super::windows`]); the count of the heaps holding
//! the msb and the first of them, when it did not keep them
//! ([`super::holder_search`]); the move's heap, read again when it was not kept
//! whole. Each is one more pass or read through the same driver, carrying
//! on from what the first pass learned, and each is counted in the stats.

use super::candidates::{holds_bit, Candidate, Candidates, HeapInFile};
use super::holder_search::HolderSearch;
use super::moves::{lengths_from_top, small_move, XorMove};
use super::one_pass::{FirstPass, OnePass, Shared};
use super::streamed_values::TopDownValue;
use super::windows::{self, WindowXor};
use crate::analysis::budget::Plan;
use crate::analysis::facts::{Facts, MoveFacts, Stats};
use crate::analysis::options::Options;
use crate::analysis::rules::{self, MoveFinder, Player};
use crate::error::Error;
use crate::input::driver::progress;
use crate::input::driver::{self, Fold, Reread};
use crate::input::source::page_release::PageReleaser;
use crate::input::source::Input;
use crate::input::{Format, HeapPos, HeapValue, LongToken};
use crate::nimsum::{bit_length, highest_bit};
use crate::output::BitsFile;
use crate::working_memory::MemoryMeter;
use std::time::Instant;

/// Analyzes `input`, read as `format`, as Nim under the rule of `options`.
pub(crate) fn analyze_nim(
    input: &mut Input<'_>,
    format: Format,
    options: &Options,
) -> Result<Facts, Error> {
    analyze_under(options.plan(input, format), input, format, options)
}

/// [`analyze_nim`] under `plan`.
pub(crate) fn analyze_under(
    mut plan: Plan,
    input: &mut Input<'_>,
    format: Format,
    options: &Options,
) -> Result<Facts, Error> {
    // The input's name, for the errors of the first pass's folds, is not
    // working memory of the analysis.
    let name = input.name().to_string();
    let meter = MemoryMeter::start();
    let started = Instant::now();
    let mut cost = Stats {
        window_bits: plan.window_bits,
        ..Stats::default()
    };
    let first = first_pass(input, &name, format, options, &plan, &mut cost)?;
    plan.after_first_pass(first.survey.heaps, input.size().unwrap_or(0));
    let run = Run {
        input,
        format,
        options,
        plan,
        cost,
        windowed: false,
    };
    let mut facts = run.conclude(first)?;
    input.check_unchanged()?;
    facts.stats.working_memory_bytes = meter.peak_bytes();
    facts.stats.seconds = started.elapsed().as_secs_f64();
    Ok(facts)
}

/// The first pass: the one-pass fold over the whole input.
fn first_pass(
    input: &mut Input<'_>,
    name: &str,
    format: Format,
    options: &Options,
    plan: &Plan,
    cost: &mut Stats,
) -> Result<FirstPass, Error> {
    let stream = input.random_access().is_none();
    let shared = Shared::new(plan, format, name, stream, !options.decide);
    let folded = driver::run(input, format, &plan.first, || OnePass::new(&shared))?;
    cost.count_pass(&folded);
    Ok(folded.fold.finish())
}

/// The rest of an analysis, once the first pass is done.
struct Run<'a, 'i> {
    input: &'a Input<'i>,
    format: Format,
    options: &'a Options,
    plan: Plan,
    cost: Stats,
    /// Whether the nim-sum is read in windows (the first pass did not
    /// hold it): heaps are then read again in place, never held whole.
    windowed: bool,
}

/// The nim-sum as its windows arrive, most significant first, and what is
/// built from them.
struct Windows<'a> {
    msb: Option<u64>,
    /// The nim-sum, streamed to `--nim-sum-out`.
    nim_sum: TopDownValue,
    /// Bits of the move's target kept for the report.
    capture: u64,
    /// The move of normal play, once the msb is known.
    xor_move: Option<XorMoving<'a>>,
    /// How many heaps hold the msb.
    holders: u64,
    /// Whether every window was taken (`--decide` may stop earlier).
    complete: bool,
}

/// The move of normal play, being built or already known.
enum XorMoving<'a> {
    /// Its target streams out as the windows arrive.
    Streaming(XorMove<'a>, Option<u64>),
    /// Known from a heap's top limbs.
    Known(MoveFacts),
}

impl<'a> Run<'a, '_> {
    /// From the first pass to the facts.
    fn conclude(mut self, mut first: FirstPass) -> Result<Facts, Error> {
        let options = self.options;
        let counts = first.survey.counts();
        let sum_needed = !(options.rule == rules::Rule::Misere && counts.big <= 1);
        let known = first.nim_sum.take();
        let skip = options.decide && !sum_needed && known.is_none();
        let file = match (&options.nim_sum_out, skip) {
            (Some(path), false) => Some(BitsFile::create(path)?),
            _ => None,
        };
        let capture = options.inline_bits.min(first.survey.max_bit_length);
        let mut windows = Windows {
            msb: None,
            nim_sum: TopDownValue::new(capture, file),
            capture,
            xor_move: None,
            holders: 0,
            complete: !skip,
        };
        match known {
            Some(g) => {
                self.take_window(&mut windows, &mut first, 0, &g, false, Some(&g))?;
            }
            None if skip => {}
            None => {
                self.windowed = true;
                self.window_passes(&mut windows, &mut first)?;
            }
        }
        let winner = rules::winner(options.rule, counts, windows.msb.is_some());
        let Windows {
            msb,
            nim_sum,
            complete,
            ..
        } = windows;
        let nim_sum = match complete {
            true => Some(nim_sum.finish(options.inline_bits)?),
            false => None,
        };
        let (winning_moves, winning_move) = match options.decide {
            true => (Some(0).filter(|_| winner == Player::Second), None),
            false => self.choose_move(&mut first, windows.xor_move, windows.holders, msb)?,
        };
        Ok(Facts {
            survey: first.survey,
            nim_sum,
            msb,
            winner,
            winning_moves,
            winning_move,
            game: None,
            misere: None,
            stats: self.cost,
        })
    }

    /// The nim-sum a window per pass, from the top.
    fn window_passes(
        &mut self,
        windows: &mut Windows<'a>,
        first: &mut FirstPass,
    ) -> Result<(), Error> {
        let mut all =
            windows::top_down(first.survey.max_bit_length, self.plan.window_limbs).peekable();
        let count = first
            .survey
            .max_bit_length
            .div_ceil(64)
            .div_ceil(self.plan.window_limbs);
        progress::plan(self.input.size().unwrap_or(0).saturating_mul(count));
        while let Some(window) = all.next() {
            let limbs = self.pass(|| WindowXor::new(window))?.into_limbs();
            let more_below = all.peek().is_some();
            if !self.take_window(windows, first, window.first, &limbs, more_below, None)? {
                windows.complete = false;
                return Ok(());
            }
        }
        Ok(())
    }

    /// Takes the nim-sum's limbs `first_limb ..`: the first non-zero window
    /// shows the msb, which starts the move; every window streams out.
    /// `whole`: the whole nim-sum, when these limbs are all of it. False
    /// when `--decide` stops here.
    fn take_window(
        &mut self,
        windows: &mut Windows<'a>,
        first: &mut FirstPass,
        first_limb: u64,
        limbs: &[u64],
        more_below: bool,
        whole: Option<&[u64]>,
    ) -> Result<bool, Error> {
        let options = self.options;
        if windows.msb.is_none() {
            if let Some(top) = highest_bit(first_limb, limbs) {
                windows.msb = Some(top);
                if options.decide && more_below && options.nim_sum_out.is_none() {
                    return Ok(false);
                }
                let on_holder =
                    rules::moves_on_msb_holder(options.rule, first.survey.counts(), true);
                if on_holder && !options.decide {
                    let above = first_limb + limbs.len() as u64;
                    let (holders, moving) =
                        self.start_xor_move(first, top, above, windows.capture, whole)?;
                    (windows.holders, windows.xor_move) = (holders, Some(moving));
                }
            }
        }
        for (j, &limb) in limbs.iter().enumerate().rev() {
            windows.nim_sum.push(first_limb + j as u64, limb)?;
        }
        if let Some(XorMoving::Streaming(xor_move, _)) = &mut windows.xor_move {
            xor_move.absorb(first_limb, limbs)?;
        }
        Ok(true)
    }

    /// How many heaps hold the msb, and the move on the first of them:
    /// from what the first pass kept, or a pass of the first-holder search.
    fn start_xor_move(
        &mut self,
        first: &mut FirstPass,
        msb: u64,
        above: u64,
        capture: u64,
        whole: Option<&[u64]>,
    ) -> Result<(u64, XorMoving<'a>), Error> {
        let count = first.counts.count(msb);
        let kept = match first.candidates.as_mut() {
            Some(candidates) => self.first_candidate(
                candidates,
                |limbs| holds_bit(limbs, msb),
                |run, heap| run.in_file_bit(heap, msb),
            )?,
            None => None,
        };
        let options = self.options;
        let (holders, moving) = match (count, kept) {
            (Some(count), Some(Candidate::Kept(kept))) => {
                let x = HeapValue::Limbs(kept.limbs);
                let start =
                    XorMove::start(kept.pos, x, PageReleaser::NONE, capture, options, above)?;
                (count, XorMoving::Streaming(start, kept.line))
            }
            (Some(count), Some(Candidate::InFile(heap))) => {
                match whole.and_then(|g| lengths_from_top(&heap, g, options)) {
                    Some(known) => (count, XorMoving::Known(known)),
                    None => (count, self.reread_xor_move(heap.pos, capture, above)?),
                }
            }
            (count, _) => {
                let search = self.pass(|| HolderSearch::new(msb, count.is_none()))?;
                let pos = search
                    .first
                    .expect("the msb of the nim-sum is set in some heap");
                let holders = count.unwrap_or(search.count);
                (holders, self.reread_xor_move(pos, capture, above)?)
            }
        };
        Ok((holders, moving))
    }

    /// The move of normal play on the heap at `pos`, read again.
    fn reread_xor_move(
        &mut self,
        pos: HeapPos,
        capture: u64,
        above: u64,
    ) -> Result<XorMoving<'a>, Error> {
        let read = self.reread(pos)?;
        let x = read.heap.value;
        let start = XorMove::start(pos, x, read.pages, capture, self.options, above)?;
        Ok(XorMoving::Streaming(start, None))
    }

    /// The first candidate the first pass kept for which `wanted` holds
    /// of its limbs, or `in_file` of a heap left in the file.
    fn first_candidate(
        &mut self,
        candidates: &mut Candidates,
        wanted: impl Fn(&[u64]) -> bool,
        in_file: impl Fn(&mut Self, &HeapInFile) -> Result<bool, Error>,
    ) -> Result<Option<Candidate>, Error> {
        let input = self.input;
        let io_error = |e| Error::io(input.name(), e);
        candidates.first(wanted, |heap| in_file(self, heap), io_error)
    }

    /// Bit `position` of a heap left in the file: from its top limbs, or
    /// its one digit read again.
    fn in_file_bit(&mut self, heap: &HeapInFile, position: u64) -> Result<bool, Error> {
        if let Some(known) = heap.top_bit(position) {
            return Ok(known);
        }
        let Some((at, bit)) = LongToken::bit_place(self.format, &heap.digits, position) else {
            return Ok(false);
        };
        let digit = driver::byte_at(self.input, at)?;
        self.cost.bytes_scanned += 1;
        Ok(LongToken::digit_value(self.format, digit) >> bit & 1 == 1)
    }

    /// The deterministic winning move of SPEC section 1 (chosen by
    /// [`rules::choose_move`]), and how many heaps admit one.
    fn choose_move(
        &mut self,
        first: &mut FirstPass,
        xor_move: Option<XorMoving<'a>>,
        holders: u64,
        msb: Option<u64>,
    ) -> Result<(Option<u64>, Option<MoveFacts>), Error> {
        let (rule, counts) = (self.options.rule, first.survey.counts());
        let mut finder = Finder {
            run: self,
            first,
            xor_move,
            holders,
        };
        let (winning_moves, found) = rules::choose_move(rule, counts, msb, &mut finder)?;
        let Some((mut found, line)) = found else {
            return Ok((Some(winning_moves), None));
        };
        found.line = match line {
            Some(line) => Some(line),
            None => self.line_of(found.offset, first.candidates.as_ref())?,
        };
        Ok((Some(winning_moves), Some(found)))
    }

    /// Misère with one heap ≥ 2: that heap (at `pos`) is left with
    /// `target`. It is the first candidate of two bits or more, when the
    /// first pass kept them.
    fn single_big_move(
        &mut self,
        first: &mut FirstPass,
        pos: HeapPos,
        target: u64,
    ) -> Result<(MoveFacts, Option<u64>), Error> {
        let kept = match first.candidates.as_mut() {
            Some(candidates) => self.first_candidate(
                candidates,
                |limbs| bit_length(limbs) >= 2,
                |_, heap| Ok(heap.bits >= 2),
            )?,
            None => None,
        };
        let options = self.options;
        if let Some(Candidate::Kept(kept)) = kept {
            debug_assert_eq!(kept.pos, pos);
            let x = HeapValue::Limbs(kept.limbs);
            return Ok((
                small_move(pos, &x, PageReleaser::NONE, target, options)?,
                kept.line,
            ));
        }
        let read = self.reread(pos)?;
        Ok((
            small_move(pos, &read.heap.value, read.pages, target, options)?,
            None,
        ))
    }

    /// Reads the heap at `pos` again: as the first pass read when it held
    /// the nim-sum (a heap is then no longer than its window, and is read
    /// into limbs; a file is never mapped for it), else in place.
    fn reread(&mut self, pos: HeapPos) -> Result<Reread<'a>, Error> {
        let reads = match self.plan.one_pass && !self.windowed {
            true => &self.plan.first,
            false => &self.plan.later,
        };
        let read = driver::heap_at(self.input, self.format, pos.offset, reads)?;
        self.cost.bytes_scanned += read.bytes_read;
        Ok(read)
    }

    /// The line of `offset` for the text formats, counted from the start
    /// (skipping the digits of the heaps left in the file).
    fn line_of(
        &mut self,
        offset: u64,
        candidates: Option<&Candidates>,
    ) -> Result<Option<u64>, Error> {
        if !self.format.is_text() {
            return Ok(None);
        }
        let no_lf = candidates
            .map(Candidates::digits_in_file)
            .unwrap_or_default();
        let found = self.input.lines_to(
            offset,
            &no_lf,
            self.plan.later.read_bytes,
            &mut self.cost.bytes_scanned,
        )?;
        Ok(found.map(|(line, _)| line))
    }

    /// One more pass over the input, with the fold `make` makes.
    fn pass<F: Fold>(&mut self, make: impl Fn() -> F + Sync) -> Result<F, Error> {
        let folded = driver::run_random(self.input, self.format, &self.plan.later, make)?;
        self.cost.count_pass(&folded);
        Ok(folded.fold)
    }
}

/// How a whole analysis finds the move's heap: the move of normal play
/// streamed out as the windows came, the others on the heap the first
/// pass's survey names, from its candidates or read again.
struct Finder<'r, 'a, 'i> {
    run: &'r mut Run<'a, 'i>,
    first: &'r mut FirstPass,
    /// The move of normal play, started once the msb was known.
    xor_move: Option<XorMoving<'a>>,
    /// How many heaps hold the msb.
    holders: u64,
}

impl MoveFinder for Finder<'_, '_, '_> {
    /// The move and its line, when the first pass counted it.
    type Move = (MoveFacts, Option<u64>);

    fn on_msb_holder(&mut self, _msb: u64) -> Result<(u64, Self::Move), Error> {
        let inline_bits = self.run.options.inline_bits;
        let found = match self
            .xor_move
            .take()
            .expect("a non-zero nim-sum starts the move")
        {
            XorMoving::Streaming(moving, line) => (moving.finish(inline_bits)?, line),
            XorMoving::Known(known) => (known, None),
        };
        Ok((self.holders, found))
    }

    fn on_first_big(&mut self, target: u64) -> Result<Self::Move, Error> {
        let pos = self.first.survey.first_big.expect("one heap is big");
        self.run.single_big_move(self.first, pos, target)
    }

    fn on_first_one(&mut self) -> Result<Self::Move, Error> {
        let pos = self.first.survey.first_one.expect("some heap is 1");
        let one = HeapValue::Word(1);
        let found = small_move(pos, &one, PageReleaser::NONE, 0, self.run.options)?;
        Ok((found, self.first.first_one_line))
    }
}
