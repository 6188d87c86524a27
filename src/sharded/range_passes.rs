//! The analysis of one span of a file, for the sharded runs of
//! `analyze --range` (SPEC section 11; the protocol is in
//! [`crate::sharded`]): the same folds as a whole analysis, run by the
//! driver over the span alone ([`driver::run_span`]), and what they found
//! as numbers that merge across spans.
//!
//! - [`nim_span`]: the first pass of Nim ([`OnePass`]): the survey, the
//!   span's nim-sum, and a table of the span's top bit positions (up to
//!   [`TABLE_BITS`] of them) with how many heaps hold each and the first
//!   that does, read off the pass's holder counts and move candidates.
//!   The msb of a random instance's nim-sum lies in that table, so the
//!   move's heap is known after this one pass; when the msb lies below
//!   the table of some span, [`holders_span`] is the second pass.
//! - [`game_span`]: the pass of a game other than Nim ([`GameSum`]): the
//!   Grundy sum and the first holder of each of its 16 bits. One pass
//!   always suffices.
//! - [`misere_span`]: the misère pass of a game other than Nim
//!   ([`MisereSum`]): the count of the heaps of each kind and the first
//!   heap of each, a constant number of them; the move's heap is among
//!   those firsts whatever the rest of the file holds, so one pass always
//!   suffices.
//!
//! A heap wider than the budget's window leaves the one pass without the
//! span's nim-sum: it is then computed by the windowed passes, a window
//! at a time, into one vector (a partial carries the whole nim-sum
//! anyway), and the table is empty.

use crate::analysis::budget::{Plan, Shape};
use crate::analysis::facts::Stats;
use crate::analysis::game::holders::{Holder, VALUE_BITS};
use crate::analysis::game::run::{refuse_nim_only, sequence_of};
use crate::analysis::game::sums::{game_reads, GameShared, GameSum};
use crate::analysis::misere::fold::MisereSum;
use crate::analysis::misere::kinds::kinds_of;
use crate::analysis::misere::max_heap;
use crate::analysis::nim::candidates::Candidates;
use crate::analysis::nim::holder_counts::HolderCounts;
use crate::analysis::nim::holder_search::HolderSearch;
use crate::analysis::nim::one_pass::{OnePass, Shared};
use crate::analysis::nim::windows::{self, WindowXor};
use crate::analysis::options::Options;
use crate::analysis::survey::Survey;
use crate::error::Error;
use crate::input::driver::{self, Fold, Folded, Reads, SpanError};
use crate::input::source::Input;
use crate::input::{Format, HeapPos};
use crate::working_memory::MemoryMeter;
use std::ops::Range;
use std::time::Instant;

/// The most bit positions, counted down from a span's longest heap, whose
/// holders a span's table keeps: the top two limbs the one pass counts.
pub const TABLE_BITS: u64 = 128;

/// The holders of a span's top bit positions `low .. low + counts.len()`:
/// exact there; above them no heap of the span has a bit; below them
/// unknown.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TopHolders {
    /// The lowest position in the table.
    pub low: u64,
    /// How many heaps hold each position, from `low` up.
    pub counts: Vec<u64>,
    /// The first heap holding each position, from `low` up.
    pub first: Vec<Option<HeapPos>>,
}

/// What the first pass of Nim found in a span.
#[derive(Debug)]
pub struct NimSpan {
    /// Counts and landmarks, heap indices from 0 in the span.
    pub survey: Survey,
    /// The span's nim-sum, little-endian limbs without high zero limbs.
    pub nim_sum: Vec<u64>,
    /// The holders of its top positions.
    pub top: TopHolders,
    /// What it cost.
    pub stats: Stats,
}

/// What the pass of a game other than Nim found in a span.
#[derive(Debug)]
pub struct GameSpan {
    /// Counts and landmarks, heap indices from 0 in the span.
    pub survey: Survey,
    /// The XOR of the heaps' Grundy values.
    pub grundy_sum: u16,
    /// For each bit of the values, its first holder.
    pub holders: Vec<Option<Holder>>,
    /// The first heap past the values computed for a game with no proven
    /// period, where the pass stopped (an error once located).
    pub past_values: Option<HeapPos>,
    /// What it cost.
    pub stats: Stats,
}

/// What the second pass of Nim found in a span: the holders of one bit.
#[derive(Clone, Debug)]
pub struct HoldersSpan {
    /// How many heaps hold the bit.
    pub count: u64,
    /// The first of them, its index from 0 in the span.
    pub first: Option<HeapPos>,
    /// Heaps in the span.
    pub heaps: u64,
    /// What it cost.
    pub stats: Stats,
}

/// The plan of a span's passes: one pass, with the budget's window.
pub(super) fn span_plan(span: &Range<u64>, format: Format, options: &Options) -> Plan {
    let shape = Shape {
        len: Some(span.end - span.start),
        format,
        threads: options.threads,
    };
    options.memory.plan_for(&shape, true)
}

/// Runs the first pass of Nim over `span` of `input`, which starts and
/// ends on heap boundaries.
pub fn nim_span(
    input: &Input<'_>,
    format: Format,
    options: &Options,
    span: Range<u64>,
) -> Result<NimSpan, SpanError> {
    let (meter, started) = (MemoryMeter::start(), Instant::now());
    let plan = span_plan(&span, format, options);
    let mut stats = Stats {
        window_bits: plan.window_bits,
        ..Stats::default()
    };
    let name = input.name().to_string();
    let shared = Shared::new(&plan, format, &name, false, true);
    let folded = driver::run_span(input, format, &plan.first, span.clone(), || {
        OnePass::new(&shared)
    })?;
    stats.count_pass(&folded);
    let mut first = folded.fold.finish();
    let top = match (first.nim_sum.is_some(), first.candidates.as_mut()) {
        (true, Some(candidates)) => top_holders(&first.counts, candidates, &first.survey)
            .map_err(|e| SpanError::Failed(Error::io(input.name(), e)))?,
        _ => TopHolders {
            low: first.survey.max_bit_length,
            ..TopHolders::default()
        },
    };
    let nim_sum = match first.nim_sum.take() {
        Some(sum) => sum,
        None => window_sums(
            input,
            format,
            &plan,
            span,
            first.survey.max_bit_length,
            &mut stats,
        )?,
    };
    stats.working_memory_bytes = meter.peak_bytes();
    stats.seconds = started.elapsed().as_secs_f64();
    Ok(NimSpan {
        survey: first.survey,
        nim_sum,
        top,
        stats,
    })
}

/// The table of the top positions: where the counts answer, and the
/// candidates tell the first holder.
fn top_holders(
    counts: &HolderCounts,
    candidates: &mut Candidates,
    survey: &Survey,
) -> std::io::Result<TopHolders> {
    let high = survey.max_bit_length;
    let floor = high.saturating_sub(TABLE_BITS);
    let mut low = high;
    while low > floor && counts.count(low - 1).is_some() {
        low -= 1;
    }
    let first = candidates.first_holders(low..high)?;
    // A first holder not known (a long token's bit below its top limbs)
    // leaves the positions up to it out of the table.
    let known_from = first.iter().rposition(Option::is_none).map_or(0, |i| i + 1);
    let low = low + known_from as u64;
    Ok(TopHolders {
        low,
        counts: (low..high).map(|p| counts.count(p).unwrap_or(0)).collect(),
        first: first[known_from..].iter().map(|f| f.flatten()).collect(),
    })
}

/// The span's nim-sum by the windowed passes, into one vector.
fn window_sums(
    input: &Input<'_>,
    format: Format,
    plan: &Plan,
    span: Range<u64>,
    max_bit_length: u64,
    stats: &mut Stats,
) -> Result<Vec<u64>, SpanError> {
    let mut sum = vec![0u64; max_bit_length.div_ceil(64) as usize];
    for window in windows::top_down(max_bit_length, plan.window_limbs) {
        let folded = span_pass(input, format, &plan.later, span.clone(), stats, || {
            WindowXor::new(window)
        })?;
        let first = window.first as usize;
        sum[first..first + window.len].copy_from_slice(&folded.into_limbs());
    }
    Ok(crate::input::trimmed(sum))
}

/// One more pass over the span, counted in `stats`.
fn span_pass<F: Fold>(
    input: &Input<'_>,
    format: Format,
    reads: &Reads,
    span: Range<u64>,
    stats: &mut Stats,
    make: impl Fn() -> F + Sync,
) -> Result<F, SpanError> {
    let folded: Folded<F> = driver::run_span(input, format, reads, span, make)?;
    stats.count_pass(&folded);
    Ok(folded.fold)
}

/// Runs the pass of the game of `options` over `span` of `input`.
pub fn game_span(
    input: &Input<'_>,
    format: Format,
    options: &Options,
    span: Range<u64>,
) -> Result<GameSpan, SpanError> {
    refuse_nim_only(options).map_err(SpanError::Failed)?;
    let sequence = sequence_of(&options.game, options.max_values).map_err(SpanError::Failed)?;
    let (meter, started) = (MemoryMeter::start(), Instant::now());
    let plan = span_plan(&span, format, options);
    let (reads, mut stats) = game_reads(&plan);
    let shared = GameShared::new(&sequence, &plan, false);
    let pass = span_pass(input, format, &reads, span, &mut stats, || {
        GameSum::new(&shared)
    })?
    .finish();
    let holders = (0..VALUE_BITS as u32)
        .map(|bit| pass.holders.of_bit(bit).cloned())
        .collect();
    stats.working_memory_bytes = meter.peak_bytes();
    stats.seconds = started.elapsed().as_secs_f64();
    Ok(GameSpan {
        survey: pass.survey,
        grundy_sum: pass.grundy_sum,
        holders,
        past_values: pass.past_values.map(|past| past.pos),
        stats,
    })
}

/// Runs the first-holder search for bit `msb` over `span` of `input`,
/// counting the holders.
pub fn holders_span(
    input: &Input<'_>,
    format: Format,
    options: &Options,
    span: Range<u64>,
    msb: u64,
) -> Result<HoldersSpan, SpanError> {
    let (meter, started) = (MemoryMeter::start(), Instant::now());
    let plan = span_plan(&span, format, options);
    let mut stats = Stats {
        window_bits: plan.window_bits,
        ..Stats::default()
    };
    let folded = driver::run_span(input, format, &plan.later, span, || {
        HolderSearch::new(msb, true)
    })?;
    stats.count_pass(&folded);
    stats.working_memory_bytes = meter.peak_bytes();
    stats.seconds = started.elapsed().as_secs_f64();
    Ok(HoldersSpan {
        count: folded.fold.count,
        first: folded.fold.first,
        heaps: folded.heaps,
        stats,
    })
}

/// What the misère pass found in a span.
#[derive(Debug)]
pub struct MisereSpan {
    /// Counts and landmarks, heap indices from 0 in the span.
    pub survey: Survey,
    /// The heaps of each kind.
    pub counts: Vec<u64>,
    /// The first heap of each kind (its `grundy` is the kind).
    pub firsts: Vec<Option<Holder>>,
    /// The first heap past the heaps the quotient was computed for, with
    /// no period proven, where the pass stopped (an error once located).
    pub past_values: Option<HeapPos>,
    /// What it cost.
    pub stats: Stats,
}

/// Runs the misère pass of the game of `options` over `span` of `input`.
pub fn misere_span(
    input: &Input<'_>,
    format: Format,
    options: &Options,
    span: Range<u64>,
) -> Result<MisereSpan, SpanError> {
    let kinds = kinds_of(&options.game, max_heap(options)).map_err(SpanError::Failed)?;
    let (meter, started) = (MemoryMeter::start(), Instant::now());
    let plan = span_plan(&span, format, options);
    let (reads, mut stats) = game_reads(&plan);
    let shared = GameShared::new(&kinds.kinds, &plan, false);
    let count = kinds.class.len();
    let folded = driver::run_span(input, format, &reads, span, || {
        MisereSum::new(&shared, count)
    })?;
    stats.count_pass(&folded);
    let pass = folded.fold;
    let firsts = pass.firsts;
    stats.working_memory_bytes = meter.peak_bytes();
    stats.seconds = started.elapsed().as_secs_f64();
    Ok(MisereSpan {
        survey: pass.survey,
        counts: pass.counts,
        firsts,
        past_values: pass.past_values.map(|past| past.pos),
        stats,
    })
}
