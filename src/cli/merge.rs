//! `nimstream merge PARTIAL…`: merges the partial summaries of a sharded
//! run (SPEC section 11) and prints the report as `analyze` does, or the
//! merged partial when the partials cover part of the file, or the plan
//! of the second phase.

use super::analyze::parse_memory;
use clap::Args;
use nimstream::error::Error;
use nimstream::report::human;
use nimstream::sharded::{self, Outcome, Partial};
use nimstream::{MemoryBudget, Options};
use std::io::Write;
use std::path::PathBuf;

/// Options of `merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
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

/// Runs `merge` and prints what it gives.
pub fn run(args: MergeArgs) -> Result<(), Error> {
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
    let text = match sharded::merge(partials, &options)? {
        Outcome::Report(report) if args.json => report.to_json() + "\n",
        Outcome::Report(report) => human::render(&report),
        Outcome::SecondPhase(partial) | Outcome::Partial(partial) => partial_line(&partial),
    };
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| Error::io("<stdout>", e))
}

/// A partial as `merge` prints it: one line of JSON.
fn partial_line(partial: &Partial) -> String {
    partial.to_json() + "\n"
}
