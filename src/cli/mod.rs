//! The command line: clap definitions and the glue to the library, one file
//! per command. Nothing here computes; it parses, calls, and prints.
//!
//! It lives in the library, behind a hidden door ([`main`], all the binary
//! calls), so that what only the commands use (the workbench's games,
//! checks and plots, the human renderings, the progress line) stays
//! `pub(crate)` and the public API is what a library user needs.

mod analyze;
mod complexity;
mod compressed;
mod convert;
mod gen;
mod graph;
mod grundy;
mod help;
mod merge;
mod names;
mod play;
mod progress;
mod shell;
mod updates;
mod verify;

use crate::arch::simd_cap_from_env;
use crate::error::Error;
use crate::games::Game;
use crate::output::remove_partial_outputs_on_interrupt;
use crate::{Format, Rule};
use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Decide and solve Nim on instances of any size, streaming, in bounded memory.
#[derive(Debug, Parser)]
#[command(name = "nimstream", version, about, long_about = None, after_help = help::after_help("nimstream"))]
pub(crate) struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Analyze an instance: who wins, the nim-sum, and a winning move.
    #[command(after_help = help::after_help("analyze"))]
    Analyze(analyze::AnalyzeArgs),
    /// Follow updates to an instance: the winner after each `i x` line (set heap i to x).
    #[command(after_help = help::after_help("updates"))]
    Updates(updates::UpdatesArgs),
    /// Merge the partial summaries of a sharded run (analyze --range … --partial) into the report.
    #[command(after_help = help::after_help("merge"))]
    Merge(merge::MergeArgs),
    /// A heap game's Grundy values, their period, and the value of any heap.
    #[command(after_help = help::after_help("grundy"))]
    Grundy(grundy::GrundyArgs),
    /// Decide tokens on a game graph, cycles included: win, loss or draw, and a winning move.
    #[command(after_help = help::after_help("graph"))]
    Graph(graph::GraphArgs),
    /// Write an instance: random, deterministic for a seed, in any format.
    #[command(after_help = help::after_help("gen"))]
    Gen(gen::GenArgs),
    /// Convert an instance to another format: the same heaps, in order.
    #[command(after_help = help::after_help("convert"))]
    Convert(convert::ConvertArgs),
    /// Check the analyzer against exhaustive game-tree search, or print the mex table.
    #[command(after_help = help::after_help("verify"))]
    Verify(verify::VerifyArgs),
    /// Play a game out move by move between two strategies.
    #[command(after_help = help::after_help("play"))]
    Play(play::PlayArgs),
    /// Measure how time and working memory grow with the input size.
    #[command(after_help = help::after_help("complexity"))]
    Complexity(complexity::ComplexityArgs),
    /// Print the shell completion script for bash, zsh, fish, powershell or elvish.
    #[command(after_help = help::after_help("completions"))]
    Completions(shell::CompletionsArgs),
    /// Print the manual page (roff), or write every command's page into a folder.
    #[command(after_help = help::after_help("man"))]
    Man(shell::ManArgs),
}

/// How a command that did not fail ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Finished {
    /// It did what was asked (exit status 0).
    Done,
    /// `merge` printed a partial (part of the file, or the plan of the
    /// second phase), not a report, and said so on standard error (exit
    /// status [`Finished::NOT_A_REPORT`]).
    NotAReport,
}

impl Finished {
    /// The exit status of a merge whose result is not a report.
    pub(crate) const NOT_A_REPORT: u8 = 3;
}

/// The `nimstream` binary: parses the command line, runs it, and maps
/// errors to exit statuses (1 bad input or I/O, 2 usage; 3 a merge whose
/// result is not a report).
pub fn main() -> ExitCode {
    // Ctrl-C must not leave half-written output files behind.
    remove_partial_outputs_on_interrupt();
    // Usage errors keep clap's whole message (the tip of a similar name,
    // the usage line, "For more information, try '--help'"), exit 2.
    let cli = Cli::parse();
    // The library ignores an unknown `NIMSTREAM_SIMD`; the binary says so.
    let checked = simd_cap_from_env().map_err(Error::Usage);
    match checked.and_then(|_| run(cli)) {
        Ok(Finished::Done) => ExitCode::SUCCESS,
        Ok(Finished::NotAReport) => ExitCode::from(Finished::NOT_A_REPORT),
        Err(error) if error.is_broken_pipe() => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(error.exit_code() as u8)
        }
    }
}

/// Runs the parsed command line.
fn run(cli: Cli) -> Result<Finished, Error> {
    let done = match cli.command {
        Command::Merge(args) => return merge::run(args),
        Command::Analyze(args) => analyze::run(args),
        Command::Gen(args) => gen::run(args),
        Command::Convert(args) => convert::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Grundy(args) => grundy::run(args),
        Command::Graph(args) => graph::run(args),
        Command::Play(args) => play::run(args),
        Command::Updates(args) => updates::run(args),
        Command::Complexity(args) => complexity::run(args),
        Command::Completions(args) => shell::completions(args),
        Command::Man(args) => shell::man(args),
    };
    done.map(|()| Finished::Done)
}

/// The threads `-j N` asks for, or, without it, as many as the machine
/// runs at once.
pub(crate) fn threads(asked: Option<u64>) -> usize {
    asked.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |n| n as usize,
    )
}

/// Parses a format name for `--format`, `--to`.
pub(crate) fn parse_format(text: &str) -> Result<Format, String> {
    Format::from_name(text).ok_or_else(|| {
        format!("unknown format '{text}': expected bits, hex, dec, unary, u8, u16le, u32le, u64le or nimb")
    })
}

/// Parses `--rule`.
pub(crate) fn parse_rule(text: &str) -> Result<Rule, String> {
    Rule::from_name(text).ok_or_else(|| format!("unknown rule '{text}': expected normal or misere"))
}

/// Parses `--game` (and `grundy`'s game).
pub(crate) fn parse_game(text: &str) -> Result<Game, String> {
    text.parse()
        .map_err(|e: crate::games::GameError| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_clap_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
