//! `nimstream graph FILE`: tokens on a game graph, cycles included.

use super::names::{check_output_name, Content};
use crate::error::Error;
use crate::graph::{analyze_graph_path, render_human, GraphOptions};
use crate::Format;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;

/// Options of `graph`.
#[derive(Debug, Args)]
pub(crate) struct GraphArgs {
    /// The graph: `n m`, m edges `u v`, `k`, k start nodes (`-` for standard input).
    pub file: PathBuf,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Write every node's value to FILE, one a line (`inf` and K for an infinite one).
    #[arg(long, value_name = "FILE")]
    pub values_out: Option<PathBuf>,
}

/// Runs `graph` and prints the report.
pub(crate) fn run(args: GraphArgs) -> Result<(), Error> {
    if let Some(path) = &args.values_out {
        check_output_name("--values-out", path, Content::Instance(Format::Dec))?;
    }
    let options = GraphOptions {
        values_out: args.values_out,
    };
    let report = analyze_graph_path(&args.file, &options)?;
    let text = if args.json {
        report.to_json() + "\n"
    } else {
        render_human(&report)
    };
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| Error::io("<stdout>", e))
}
