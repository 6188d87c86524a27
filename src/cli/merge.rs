//! `nimstream merge PARTIAL…`: merges the partial summaries of a sharded
//! run (`analyze --range … --partial`, docs/cluster.md) and prints the
//! report as `analyze` does; or, exit status 3 and a line on standard
//! error that says which, the merged partial when the partials cover part
//! of the file, or the plan of the second phase.

use super::analyze::parse_memory;
use super::Finished;
use crate::error::Error;
use crate::report::human;
use crate::sharded::{self, Outcome, Partial};
use crate::{MemoryBudget, Options};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

/// Options of `merge`.
#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// Partials printed by `analyze --range … --partial` (files, or `-` for standard input), one a line, in any order.
    #[arg(required = true, value_name = "PARTIAL")]
    pub partials: Vec<PathBuf>,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Values up to this many bits are written into the report.
    #[arg(long, default_value_t = 4096, value_name = "N")]
    pub inline_bits: u64,
    /// Working-memory budget for reading the move's heap again.
    #[arg(long, default_value = "1GiB", value_parser = parse_memory)]
    pub memory: MemoryBudget,
    /// Read the file with plain reads instead of a memory map.
    #[arg(long)]
    pub no_mmap: bool,
}

/// Runs `merge` and prints what it gives: the report; or a partial (of
/// part of the file, or the plan of the second phase) and, on standard
/// error, a line that says which, ending in [`Finished::NotAReport`].
pub(crate) fn run(args: MergeArgs) -> Result<Finished, Error> {
    let mut partials = Vec::new();
    for path in &args.partials {
        partials.extend(sharded::read_partials(path)?);
    }
    let options = Options {
        inline_bits: args.inline_bits,
        memory: args.memory,
        no_mmap: args.no_mmap,
        ..Options::default()
    };
    let (text, note) = match sharded::merge(partials, &options)? {
        Outcome::Report(report) if args.json => (report.to_json() + "\n", None),
        Outcome::Report(report) => (human::render(&report), None),
        Outcome::SecondPhase(plan) => (partial_line(&plan), Some(plan_note(&plan))),
        Outcome::Partial(partial) => (partial_line(&partial), Some(partial_note(&partial))),
    };
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| Error::io("<stdout>", e))?;
    let Some(note) = note else {
        return Ok(Finished::Done);
    };
    writeln!(std::io::stderr().lock(), "{note}").map_err(|e| Error::io("<stderr>", e))?;
    Ok(Finished::NotAReport)
}

/// A partial as `merge` prints it: one line of JSON.
fn partial_line(partial: &Partial) -> String {
    partial.to_json() + "\n"
}

/// The line on standard error when the partials cover part of the file.
fn partial_note(partial: &Partial) -> String {
    let [start, end] = partial.range;
    format!(
        "merge: a partial, not a report: the partials cover bytes {start}..{end} of the {} of \
         {}; merge the partial printed with those of the other bytes",
        partial.input.bytes, partial.input.path
    )
}

/// The line on standard error when the second phase must run.
fn plan_note(plan: &Partial) -> String {
    format!(
        "merge: a plan, not a report: the first phase did not find the heaps holding the \
         nim-sum's highest bit; run `nimstream analyze {} --range START..END --partial --phase2 \
         PLAN` on every range, PLAN the partial printed, then merge PLAN with their partials",
        plan.input.path
    )
}
