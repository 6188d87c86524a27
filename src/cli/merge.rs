//! `nimstream merge PARTIAL…`: merges the partial summaries of a sharded
//! run (SPEC section 11) and prints the report as `analyze` does, or the
//! merged partial when the partials cover part of the file, or the plan
//! of the second phase.

use super::analyze::{parse_memory, print_partial};
use clap::Args;
use nimstream::error::Error;
use nimstream::report::human;
use nimstream::sharded::{self, Outcome, Partial, PARTIAL_VERSION};
use nimstream::{MemoryBudget, Options};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

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
        partials.extend(read_all(path)?);
    }
    let options = Options {
        inline_bits: args.inline_bits,
        memory: args.memory,
        no_mmap: args.no_mmap,
        ..Options::default()
    };
    let report = match sharded::merge(partials, &options)? {
        Outcome::Report(report) => report,
        Outcome::SecondPhase(plan) => return print_partial(&plan),
        Outcome::Partial(partial) => return print_partial(&partial),
    };
    let text = match args.json {
        true => report.to_json() + "\n",
        false => human::render(&report),
    };
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| Error::io("<stdout>", e))
}

/// The one partial in `path` (the plan of `--phase2`).
pub fn read_one(path: &Path) -> Result<Partial, Error> {
    let mut all = read_all(path)?;
    match all.len() {
        1 => Ok(all.remove(0)),
        n => Err(Error::Usage(format!(
            "{}: holds {n} partials; --phase2 takes the one plan `merge` printed",
            path.display()
        ))),
    }
}

/// The partials in `path` (`-`: standard input), one a line.
fn read_all(path: &Path) -> Result<Vec<Partial>, Error> {
    let name = match path.as_os_str() == "-" {
        true => "<stdin>".to_string(),
        false => path.display().to_string(),
    };
    let mut text = String::new();
    let read = match path.as_os_str() == "-" {
        true => std::io::stdin().read_to_string(&mut text),
        false => std::fs::File::open(path).and_then(|mut f| f.read_to_string(&mut text)),
    };
    read.map_err(|e| Error::io(&name, e))?;
    let mut partials = Vec::new();
    let mut offset = 0u64;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        if !line.trim().is_empty() {
            let bad = |message: String| Error::Input {
                path: name.clone(),
                offset,
                line_col: Some((n as u64 + 1, 1)),
                message,
            };
            let partial: Partial = serde_json::from_str(line)
                .map_err(|e| bad(format!("not a nimstream partial: {e}")))?;
            if partial.nimstream_partial != PARTIAL_VERSION {
                return Err(bad(format!(
                    "a partial of version {}; this nimstream reads version {PARTIAL_VERSION}",
                    partial.nimstream_partial
                )));
            }
            partials.push(partial);
        }
        offset += line.len() as u64;
    }
    Ok(partials)
}
