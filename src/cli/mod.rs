//! The command line: clap definitions and the glue to the library, one file
//! per command. Nothing here computes; it parses, calls, and prints. It is
//! part of the binary, not of the library: it reaches the library through
//! `nimstream::…` paths, as any other program would.

mod analyze;
mod complexity;
mod convert;
mod gen;
mod graph;
mod grundy;
mod merge;
mod play;
mod progress;
mod shell;
mod updates;
mod verify;

use clap::{Parser, Subcommand};
use nimstream::error::Error;
use nimstream::games::Game;
use nimstream::{Format, Rule};

/// Examples and exit statuses, shown under `--help`.
const AFTER_HELP: &str = "\
Examples:
  nimstream analyze fixtures/three-four-five.dec        who wins, and the move
  nimstream analyze big.bits --memory log --json        the paper's log-space algorithm
  cat heaps.txt | nimstream analyze - --format dec      standard input needs --format
  nimstream analyze rows.dec --game kayles              a heap game beyond Nim
  nimstream updates heaps.dec < changes.txt             the winner after each update
  nimstream graph game.txt                              tokens on a game graph, cycles included
  nimstream gen --format bits --size 1GiB -o big.bits   a deterministic instance
  nimstream verify                                      the analyzer against game-tree search

Exit status:
  0  success
  1  bad input or an I/O failure (the error names the file, offset, line and column)
  2  bad usage (an unknown option, a contradiction, a value out of range)";

/// Decide and solve Nim on instances of any size, streaming, in bounded memory.
#[derive(Debug, Parser)]
#[command(name = "nimstream", version, about, long_about = None, after_help = AFTER_HELP)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Analyze an instance: who wins, the nim-sum, and a winning move.
    #[command(after_help = analyze::AFTER_HELP)]
    Analyze(analyze::AnalyzeArgs),
    /// Follow updates to an instance: the winner after each `i x` line (set heap i to x).
    Updates(updates::UpdatesArgs),
    /// Merge the partial summaries of a sharded run (analyze --range … --partial) into the report.
    Merge(merge::MergeArgs),
    /// A heap game's Grundy values, their period, and the value of any heap.
    Grundy(grundy::GrundyArgs),
    /// Decide tokens on a game graph, cycles included: win, loss or draw, and a winning move.
    Graph(graph::GraphArgs),
    /// Write an instance: random, deterministic for a seed, in any format.
    Gen(gen::GenArgs),
    /// Convert an instance to another format: the same heaps, in order.
    Convert(convert::ConvertArgs),
    /// Check the analyzer against exhaustive game-tree search, or print the mex table.
    Verify(verify::VerifyArgs),
    /// Play a game out move by move between two strategies.
    Play(play::PlayArgs),
    /// Measure how time and working memory grow with the input size.
    Complexity(complexity::ComplexityArgs),
    /// Print the shell completion script for bash, zsh, fish, powershell or elvish.
    Completions(shell::CompletionsArgs),
    /// Print the manual page (roff), or write every command's page into a folder.
    Man(shell::ManArgs),
}

/// Runs the parsed command line.
pub fn run(cli: Cli) -> Result<(), Error> {
    match cli.command {
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
        Command::Merge(args) => merge::run(args),
    }
}

/// The threads `-j N` asks for, or, without it, as many as the machine
/// runs at once.
pub fn threads(asked: Option<u64>) -> usize {
    asked.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |n| n as usize,
    )
}

/// Parses a format name for `--format`, `--from`, `--to`.
pub fn parse_format(text: &str) -> Result<Format, String> {
    Format::from_name(text).ok_or_else(|| {
        format!("unknown format '{text}': expected bits, hex, dec, unary, u8, u16le, u32le, u64le or nimb")
    })
}

/// Parses `--rule`.
pub fn parse_rule(text: &str) -> Result<Rule, String> {
    Rule::from_name(text).ok_or_else(|| format!("unknown rule '{text}': expected normal or misere"))
}

/// Parses `--game` (and `grundy`'s game).
pub fn parse_game(text: &str) -> Result<Game, String> {
    text.parse()
        .map_err(|e: nimstream::games::GameError| e.to_string())
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
