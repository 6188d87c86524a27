//! Misère play over one byte range of a file, for the sharded runs of
//! `analyze --range` (SPEC section 11; the protocol is in
//! [`crate::sharded`]): the pass of [`super::fold`] over the range, and,
//! once the ranges are merged, the facts of the whole file from the merged
//! counts and first heaps. One phase always suffices: a partial carries
//! the count of the heaps of each kind and the first of each, a constant
//! number of them, and the move's heap is among those firsts whatever the
//! rest of the file holds.

use super::fold::MisereSum;
use super::kinds::kinds_of;
use super::{max_heap, Found};
use crate::analysis::facts::{Facts, Stats};
use crate::analysis::game_holders::Holder;
use crate::analysis::game_sums::{game_reads, GameShared};
use crate::analysis::ranged::{span_plan, SpanHolder};
use crate::analysis::survey::Survey;
use crate::analysis::Options;
use crate::error::Error;
use crate::input::driver::{self, SpanError};
use crate::input::source::Input;
use crate::input::{Format, HeapPos};
use crate::working_memory::MemoryMeter;
use std::ops::Range;
use std::time::Instant;

/// What the misère pass found in a span.
#[derive(Debug)]
pub struct MisereSpan {
    /// Counts and landmarks, heap indices from 0 in the span.
    pub survey: Survey,
    /// The heaps of each kind.
    pub counts: Vec<u64>,
    /// The first heap of each kind (its `grundy` is the kind).
    pub firsts: Vec<Option<SpanHolder>>,
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
    let firsts = pass
        .firsts
        .iter()
        .map(|first| {
            first.as_ref().map(|holder| SpanHolder {
                pos: holder.pos,
                size: holder.size,
                grundy: holder.grundy,
                bits: holder.bits,
            })
        })
        .collect();
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

/// What the merged spans of a misère analysis found over the whole file.
#[derive(Clone, Debug)]
pub struct WholeMisere {
    /// Counts and landmarks of every heap.
    pub survey: Survey,
    /// The heaps of each kind.
    pub counts: Vec<u64>,
    /// The first heap of each kind, with its line.
    pub firsts: Vec<Option<(SpanHolder, Option<u64>)>>,
}

/// The facts of a misère analysis under the game of `options` from what
/// the merged spans found; `input` is the file, read only for the move's
/// heap.
pub fn conclude_misere(
    input: &Input<'_>,
    format: Format,
    options: &Options,
    whole: &WholeMisere,
) -> Result<Facts, Error> {
    let kinds = kinds_of(&options.game, max_heap(options))?;
    if whole.counts.len() != kinds.class.len() || whole.firsts.len() != kinds.class.len() {
        return Err(Error::Usage(format!(
            "the partials count {} kinds of heaps, and the misère quotient of {} has {}",
            whole.counts.len(),
            options.game,
            kinds.class.len()
        )));
    }
    let firsts: Vec<Option<Holder>> = whole
        .firsts
        .iter()
        .map(|first| first.as_ref().map(|(found, line)| found.holder(*line)))
        .collect();
    let found = Found {
        survey: whole.survey.clone(),
        counts: &whole.counts,
        firsts: &firsts,
    };
    found.facts(input, format, options, &kinds, &[], &mut Stats::default())
}
