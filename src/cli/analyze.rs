//! `nimstream analyze FILE`: the main job; with `--range START..END
//! --partial`, one range's share of a sharded run (docs/cluster.md).

use super::compressed;
use super::names::{check_output_name, Content};
use super::progress::AnalysisProgress;
use crate::error::Error;
use crate::games::Game;
use crate::report::human;
use crate::sharded;
use crate::{analyze_path, MemoryBudget, Options, DEFAULT_MAX_VALUES};
use crate::{Format, Rule};
use clap::Args;
use std::io::Write;
use std::ops::Range;
use std::path::PathBuf;

/// Options of `analyze`.
#[derive(Debug, Args)]
pub(crate) struct AnalyzeArgs {
    /// The instance to analyze (`-` for standard input).
    pub file: PathBuf,
    /// Input format: auto, bits, hex, dec, unary, u8, u16le, u32le, u64le, nimb.
    #[arg(short, long, default_value = "auto", value_parser = parse_format_choice)]
    pub format: FormatChoice,
    /// Play convention: normal or misere.
    #[arg(short, long, default_value = "normal", value_parser = super::parse_rule)]
    pub rule: Rule,
    /// The game on each heap: nim, sub:S (e.g. sub:1,3,4), octal:D (e.g. octal:0.77), kayles, dawsons-kayles, dawsons-chess.
    #[arg(short, long, default_value = "nim", value_parser = super::parse_game)]
    pub game: Game,
    /// Values of the game's sequence computed at most, looking for its period.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_VALUES)]
    pub max_values: u64,
    /// Print the report as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Working-memory budget for the nim-sum: bytes (KiB, MiB, GiB suffixes), at least 64, or `log`.
    #[arg(long, default_value = "1GiB", value_parser = parse_memory)]
    pub memory: MemoryBudget,
    /// Stop as soon as the winner is known.
    #[arg(long)]
    pub decide: bool,
    /// Values up to this many bits are written into the report.
    #[arg(long, default_value_t = 4096, value_name = "N")]
    pub inline_bits: u64,
    /// Write the whole nim-sum to FILE as bits text.
    #[arg(long, value_name = "FILE")]
    pub nim_sum_out: Option<PathBuf>,
    /// Write the move's target value to FILE as bits text.
    #[arg(long, value_name = "FILE")]
    pub move_out: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(short = 'j', long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<u64>,
    /// Read a regular file with plain reads instead of a memory map (each pass reads it again).
    #[arg(long)]
    pub no_mmap: bool,
    /// Analyze only the heaps whose first byte lies in bytes START..END (with --partial).
    #[arg(long, value_name = "START..END", value_parser = parse_range, requires = "partial")]
    pub range: Option<Range<u64>>,
    /// Print the range's partial summary, one JSON object, for `nimstream merge`.
    #[arg(long, requires = "range", conflicts_with_all = ["decide", "nim_sum_out", "move_out"])]
    pub partial: bool,
    /// The second phase of a sharded run: PLAN is the file (or `-`) where `merge` printed it.
    #[arg(long, value_name = "PLAN", requires = "partial")]
    pub phase2: Option<PathBuf>,
}

/// `--format`: a format, or detection.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FormatChoice(pub Option<Format>);

/// Parses `--format`: `auto` or a format name.
pub(super) fn parse_format_choice(text: &str) -> Result<FormatChoice, String> {
    if text.eq_ignore_ascii_case("auto") {
        return Ok(FormatChoice(None));
    }
    super::parse_format(text).map(|f| FormatChoice(Some(f)))
}

/// Parses `-j`: a whole number of threads, at least 1.
pub(super) fn parse_threads(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(0) => Err("at least 1 thread is needed".to_string()),
        Ok(n) => Ok(n),
        Err(_) => Err(format!("'{text}' is not a number of threads")),
    }
}

/// Parses `--memory`.
pub(super) fn parse_memory(text: &str) -> Result<MemoryBudget, String> {
    text.parse()
}

/// Parses `--range START..END` (byte offsets).
fn parse_range(text: &str) -> Result<Range<u64>, String> {
    let bad = || format!("'{text}' is not a byte range: expected START..END, e.g. 0..1048576");
    let (start, end) = text.split_once("..").ok_or_else(bad)?;
    let number = |t: &str| t.trim().parse::<u64>().map_err(|_| bad());
    Ok(number(start)?..number(end)?)
}

/// Runs `analyze` and prints the report.
pub(crate) fn run(args: AnalyzeArgs) -> Result<(), Error> {
    for (flag, path) in [
        ("--nim-sum-out", &args.nim_sum_out),
        ("--move-out", &args.move_out),
    ] {
        if let Some(path) = path {
            check_output_name(flag, path, Content::Instance(Format::Bits))?;
        }
    }
    let threads = super::threads(args.threads);
    let format = args.format.0;
    let options = Options {
        format,
        rule: args.rule,
        game: args.game,
        max_values: args.max_values,
        memory: args.memory,
        decide: args.decide,
        inline_bits: args.inline_bits,
        nim_sum_out: args.nim_sum_out,
        move_out: args.move_out,
        threads,
        no_mmap: args.no_mmap,
        ..Options::default()
    };
    if let Some(range) = args.range {
        let partial = match &args.phase2 {
            None => sharded::analyze_range(&args.file, range, &options)?,
            Some(plan) => {
                let plan = one_plan(plan)?;
                sharded::holders_range(&args.file, range, &plan, &options)?
            }
        };
        return print(partial.to_json() + "\n");
    }
    compressed::refuse(&args.file, "analyze", format)?;
    let bar = AnalysisProgress::start(args.json);
    let report = analyze_path(&args.file, &options);
    bar.finish();
    let report = report.map_err(|e| compressed::explained(e, &args.file, "analyze", format))?;
    print(match args.json {
        true => report.to_json() + "\n",
        false => human::render(&report),
    })
}

/// The plan of `--phase2`: the one partial in the file (or `-`).
fn one_plan(path: &std::path::Path) -> Result<sharded::Partial, Error> {
    let mut all = sharded::read_partials(path)?;
    match all.len() {
        1 => Ok(all.remove(0)),
        n => Err(Error::Usage(format!(
            "{}: holds {n} partials; --phase2 takes the one plan `merge` printed",
            path.display()
        ))),
    }
}

/// Writes `text` to standard output.
fn print(text: String) -> Result<(), Error> {
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| Error::io("<stdout>", e))
}
