//! `nimstream updates FILE`: live updates, the winner after each `i x` line
//! (set heap i to x).

use super::analyze::{parse_format_choice, FormatChoice};
use crate::error::Error;
use crate::updates::{serve, BadLines, Position, Style, UpdateOptions};
use crate::Rule;
use clap::Args;
use std::fs::File;
use std::io::{IsTerminal, Read};
use std::path::PathBuf;

/// Options of `updates`.
#[derive(Debug, Args)]
pub(crate) struct UpdatesArgs {
    /// The instance (a regular file: the updates come on standard input).
    pub file: PathBuf,
    /// Input format: auto, bits, hex, dec, unary, u8, u16le, u32le, u64le, nimb.
    #[arg(short, long, default_value = "auto", value_parser = parse_format_choice)]
    pub format: FormatChoice,
    /// Play convention: normal or misere.
    #[arg(short, long, default_value = "normal", value_parser = super::parse_rule)]
    pub rule: Rule,
    /// After each update, also count the winning moves and give the move.
    #[arg(long)]
    pub moves: bool,
    /// Print one JSON object a line.
    #[arg(long)]
    pub json: bool,
    /// Read the updates (`i x` lines: set heap i, 0-based, to x) from UFILE instead of standard input.
    #[arg(long, value_name = "UFILE")]
    pub updates: Option<PathBuf>,
    /// Values up to this many bits are written out in full.
    #[arg(long, default_value_t = 4096, value_name = "N")]
    pub inline_bits: u64,
    /// Worker threads for the first read of FILE (default: all cores).
    #[arg(short = 'j', long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub threads: Option<u64>,
}

/// Runs `updates`: the position in FILE, then a line per update.
pub(crate) fn run(args: UpdatesArgs) -> Result<(), Error> {
    let threads = super::threads(args.threads);
    let options = UpdateOptions {
        format: args.format.0,
        rule: args.rule,
        moves: args.moves,
        inline_bits: args.inline_bits,
        threads,
    };
    let (mut stream, name): (Box<dyn Read>, String) = match &args.updates {
        Some(path) if path.as_os_str() != "-" => {
            let name = path.display().to_string();
            let file = File::open(path).map_err(|e| Error::io(&name, e))?;
            (Box::new(file), name)
        }
        _ => (Box::new(std::io::stdin().lock()), "-".to_string()),
    };
    let mut position = Position::open(&args.file, &options)?;
    let style = if args.json { Style::Json } else { Style::Human };
    // A person typing at a terminal is told about a bad line and goes on;
    // a script's file or pipe stops at it.
    let typed = name == "-" && std::io::stdin().is_terminal();
    let mut stderr = std::io::stderr();
    let bad_lines = match typed {
        true => BadLines::Report(&mut stderr),
        false => BadLines::Stop,
    };
    serve(
        &mut position,
        &mut stream,
        &name,
        &mut std::io::stdout().lock(),
        style,
        bad_lines,
    )
}
