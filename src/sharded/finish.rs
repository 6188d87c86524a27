//! The merge of partials and, once they cover the whole file, the report:
//! the error of the earliest bad range, located; the second phase's plan,
//! when the first phase did not find the msb's holders; or the report
//! `analyze` prints, built by the analysis's own code
//! ([`super::whole_file`])
//! from the merged numbers and the one heap the move is played on.
//!
//! The merged report's `stats` are the work of the whole run: `passes`
//! is the most passes a range took in the first phase, plus one for the
//! second phase when it ran; `bytes_scanned` every worker's reads and
//! the merge's (the move's heap); `working_memory_bytes` the largest of
//! a worker's and the merge's; `threads` the number of ranges; `seconds`
//! the workers' seconds added up, and the merge's (the work, not the
//! wall-clock time of a job whose workers run at once); `window_bits`
//! the workers' window.

use super::marks::{mismatch, Mark};
use super::partial::{GameMark, Kind, Partial};
use super::table;
use super::whole_file::{self, Landmark, WholeGame, WholeMisere, WholeNim};
use crate::analysis::facts::Facts;
use crate::analysis::game::holders::Holder;
use crate::analysis::survey::Survey;
use crate::analysis::{Options, Rule};
use crate::error::Error;
use crate::games::{Game, HeapSize};
use crate::input::source::Input;
use crate::input::{Format, HeapPos};
use crate::nimsum::highest_bit;
use crate::report::{InputInfo, Report};
use crate::working_memory::MemoryMeter;
use std::path::Path;
use std::time::Instant;

/// What merging partials gives.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// The partials cover the whole file: its report.
    Report(Box<Report>),
    /// They cover the whole file, and the msb's holders are not known:
    /// the merged first phase, the plan of the second (each range runs
    /// `analyze --range … --partial --phase2 PLAN`).
    SecondPhase(Box<Partial>),
    /// They cover part of the file: their merged partial.
    Partial(Box<Partial>),
}

/// Merges partials of one file, in any order: first-phase partials of
/// adjacent ranges, or one whole first phase (the plan) and the
/// second-phase partials of adjacent ranges. `options` gives what the
/// report needs besides the partials (`--inline-bits`; `--memory`,
/// `--no-mmap` for reading the move's heap).
pub fn merge(partials: Vec<Partial>, options: &Options) -> Result<Outcome, Error> {
    let (meter, started) = (MemoryMeter::start(), Instant::now());
    let (surveys, holders): (Vec<Partial>, Vec<Partial>) =
        partials.into_iter().partition(|p| p.kind == Kind::Survey);
    let surveys = merge_run(surveys)?.ok_or_else(|| mismatch("no first-phase partial".into()))?;
    let holders = merge_run(holders)?;
    if let Some(holders) = &holders {
        if !surveys.is_whole() || !holders.is_whole() {
            return Err(mismatch(
                "second-phase partials are merged with the whole first phase, and must cover the \
                 whole file"
                    .into(),
            ));
        }
    }
    if !surveys.is_whole() {
        return Ok(Outcome::Partial(Box::new(surveys)));
    }
    if let Some(error) = &surveys.error {
        return Err(located(&surveys, error, options)?);
    }
    let conclusion = conclude(&surveys, holders.as_ref(), options)?;
    let Some(mut facts) = conclusion else {
        return Ok(Outcome::SecondPhase(Box::new(surveys)));
    };
    let stats = &mut facts.stats;
    for part in [Some(&surveys), holders.as_ref()].into_iter().flatten() {
        stats.bytes_scanned += part.stats.bytes_scanned;
        stats.working_memory_bytes = stats
            .working_memory_bytes
            .max(part.stats.working_memory_bytes);
        stats.seconds += part.stats.seconds;
    }
    stats.passes = surveys.stats.passes + u64::from(holders.is_some());
    stats.threads = surveys.stats.ranges;
    stats.window_bits = surveys.stats.window_bits;
    stats.working_memory_bytes = stats.working_memory_bytes.max(meter.peak_bytes());
    stats.seconds += started.elapsed().as_secs_f64();
    let info = InputInfo {
        path: surveys.input.path.clone(),
        format: format_of(&surveys)?,
        bytes: surveys.input.bytes,
    };
    Ok(Outcome::Report(Box::new(Report::new(
        facts,
        info,
        rule_of(&surveys)?,
    ))))
}

/// Partials of adjacent ranges merged in file order (`None` for none).
fn merge_run(mut partials: Vec<Partial>) -> Result<Option<Partial>, Error> {
    partials.sort_by_key(|p| p.range);
    let mut all = partials.into_iter();
    let Some(mut merged) = all.next() else {
        return Ok(None);
    };
    for later in all {
        merged.append(later)?;
    }
    Ok(Some(merged))
}

/// The msb named by a plan of the second phase: a whole first phase of
/// Nim whose nim-sum is not 0.
pub(super) fn msb_of_plan(plan: &Partial) -> Result<u64, Error> {
    let bad = |why: &str| Error::Usage(format!("--phase2 needs the plan `merge` printed: {why}"));
    if plan.kind != Kind::Survey || !plan.is_whole() {
        return Err(bad("a first phase of the whole file"));
    }
    let nim = plan.nim.as_ref().ok_or_else(|| bad("a plan of Nim"))?;
    highest_bit(0, &table::from_hex(&nim.nim_sum)?).ok_or_else(|| bad("a non-zero nim-sum"))
}

/// The facts of the whole file (`None`: the second phase must run).
fn conclude(
    surveys: &Partial,
    holders: Option<&Partial>,
    options: &Options,
) -> Result<Option<Facts>, Error> {
    let format = format_of(surveys)?;
    let options = run_options(surveys, options)?;
    let path = Path::new(&surveys.input.path);
    let input = Input::open(path, &surveys.input.path, !options.no_mmap)?;
    let text = format.is_text();
    let line = move |mark: Mark| text.then(|| mark.lines.line_and_column(mark.offset).0);
    let survey = survey_of(surveys)?;
    if let Some(misere) = &surveys.misere {
        let kinds = crate::analysis::misere::misere_kinds(&options)?;
        let mut whole = WholeMisere {
            survey,
            counts: misere.counts.clone(),
            firsts: misere
                .firsts
                .iter()
                .map(|first| first.as_ref().map(|h| holder_of(h, line(h.heap))))
                .collect(),
        };
        // A partial of ranges with no heap has empty lists.
        whole.counts.resize(kinds, 0);
        whole.firsts.resize(kinds, None);
        return whole_file::conclude_misere(&input, format, &options, &whole).map(Some);
    }
    if let Some(grundy) = &surveys.grundy {
        let sum = grundy.grundy_sum;
        let holder = match sum {
            0 => None,
            _ => grundy.holders[(15 - sum.leading_zeros()) as usize],
        };
        let whole = WholeGame {
            survey,
            grundy_sum: sum,
            holder: holder.map(|h| holder_of(&h, line(h.heap))),
        };
        return whole_file::conclude_game(&input, format, &options, &whole).map(Some);
    }
    let nim = surveys
        .nim
        .as_ref()
        .ok_or_else(|| mismatch("no nim-sum".into()))?;
    let part = surveys
        .survey
        .as_ref()
        .expect("a survey partial has its survey");
    let mut whole = WholeNim {
        survey,
        nim_sum: table::from_hex(&nim.nim_sum)?,
        first_one_line: part.first_one.and_then(line),
        first_big_line: part.first_big.and_then(line),
        msb_holders: None,
    };
    if let Some(msb) = whole.msb().filter(|_| whole.needs_msb_holders(&options)) {
        let found = match holders.and_then(|h| h.holders) {
            Some(found) if found.msb == msb => Some((found.count, found.first)),
            Some(_) => return Err(mismatch("the second phase searched another bit".into())),
            None => table::known(nim, msb),
        };
        let Some((count, first)) = found else {
            return Ok(None);
        };
        let first = first.ok_or_else(|| mismatch("no heap holds the msb".into()))?;
        whole.msb_holders = Some((count, landmark(first, line(first))));
    }
    whole_file::conclude_nim(&input, format, &options, &whole).map(Some)
}

/// The error of the earliest bad range, as `analyze` reports it.
fn located(
    surveys: &Partial,
    error: &super::partial::ErrorAt,
    options: &Options,
) -> Result<Error, Error> {
    let message = match (&error.message, error.past_values_heap) {
        (Some(message), _) => message.clone(),
        (None, Some(index)) => {
            whole_file::past_values_error(index, &run_options(surveys, options)?)?
        }
        (None, None) => return Err(mismatch("an error without a message".into())),
    };
    let line_col = format_of(surveys)?
        .is_text()
        .then(|| error.lines.line_and_column(error.offset));
    Ok(Error::Input {
        path: surveys.input.path.clone(),
        offset: error.offset,
        line_col,
        message,
    })
}

/// The options of the run the partials come from.
fn run_options(partial: &Partial, options: &Options) -> Result<Options, Error> {
    let game: Game = partial
        .game
        .parse()
        .map_err(|e: crate::games::GameError| mismatch(e.to_string()))?;
    Ok(Options {
        format: Some(format_of(partial)?),
        rule: rule_of(partial)?,
        game,
        max_values: partial.max_values,
        ..options.clone()
    })
}

fn format_of(partial: &Partial) -> Result<Format, Error> {
    let name = &partial.input.format;
    Format::from_name(name).ok_or_else(|| mismatch(format!("unknown format '{name}'")))
}

fn rule_of(partial: &Partial) -> Result<Rule, Error> {
    let name = &partial.rule;
    Rule::from_name(name).ok_or_else(|| mismatch(format!("unknown rule '{name}'")))
}

/// The survey of the whole file, from the merged partial.
fn survey_of(partial: &Partial) -> Result<Survey, Error> {
    let part = partial
        .survey
        .as_ref()
        .ok_or_else(|| mismatch("a first-phase partial without its survey".into()))?;
    let pos = |mark: Mark| HeapPos {
        index: mark.index,
        offset: mark.offset,
    };
    Ok(Survey {
        heaps: partial.heaps,
        nonzero: part.nonzero,
        ones: part.ones,
        big: part.big,
        max_bit_length: part.max_bit_length,
        first_one: part.first_one.map(pos),
        first_big: part.first_big.map(pos),
    })
}

fn landmark(mark: Mark, line: Option<u64>) -> Landmark {
    Landmark {
        pos: HeapPos {
            index: mark.index,
            offset: mark.offset,
        },
        line,
    }
}

/// The heap a partial's game mark names, on `line`, as the move reads it
/// (its digits read again where it lies).
fn holder_of(mark: &GameMark, line: Option<u64>) -> Holder {
    let size = match (mark.size, mark.residue) {
        (Some(h), _) => HeapSize::Exact(h),
        (None, residue) => HeapSize::Huge {
            residue: residue.unwrap_or(0),
        },
    };
    Holder {
        pos: HeapPos {
            index: mark.heap.index,
            offset: mark.heap.offset,
        },
        line,
        size,
        grundy: mark.grundy,
        bits: mark.bits,
        limbs: None,
        borrow: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::marks::Lines;

    #[test]
    fn lines_locate_an_offset_after_the_last_lf() {
        let lines = Lines {
            lfs: 2,
            last_lf: Some(9),
        };
        assert_eq!(lines.line_and_column(12), (3, 3));
        assert_eq!(Lines::default().line_and_column(4), (1, 5));
    }
}
