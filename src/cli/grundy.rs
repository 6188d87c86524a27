//! `nimstream grundy GAME`: a game's value sequence and its period.

use super::names::{check_output_name, Content};
use clap::Args;
use nimstream::error::Error;
use nimstream::games::misere::{Quotient, DEFAULT_MAX_HEAP};
use nimstream::games::Game;
use nimstream::workbench::grundy::Table;
use nimstream::workbench::grundy_misere;
use nimstream::Rule;
use nimstream::DEFAULT_MAX_VALUES;
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

/// Options of `grundy`.
#[derive(Debug, Args)]
pub struct GrundyArgs {
    /// The game: nim, sub:S (e.g. sub:1,3,4), octal:D (e.g. octal:0.16), kayles, dawsons-kayles, dawsons-chess.
    #[arg(value_parser = super::parse_game)]
    pub game: Game,
    /// Values shown (past the values computed, from the proven period).
    #[arg(long, value_name = "N", default_value_t = 120)]
    pub values: u64,
    /// Values computed at most, looking for the period.
    #[arg(long, value_name = "M", default_value_t = DEFAULT_MAX_VALUES)]
    pub max_values: u64,
    /// A heap (a decimal of any length) whose value to print; repeatable.
    #[arg(long = "heap", value_name = "H")]
    pub heaps: Vec<String>,
    /// Write `heap,grundy` for every computed value to FILE.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Draw g(h) against h over the computed values to FILE (SVG).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Play convention: normal (the value sequence) or misere (the misère quotient).
    #[arg(long, value_parser = super::parse_rule, default_value = "normal")]
    pub rule: Rule,
    /// Under misere: heaps computed at most, looking for the period.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_HEAP)]
    pub max_heap: u64,
}

/// Runs `grundy`.
pub fn run(args: GrundyArgs) -> Result<(), Error> {
    let named = [
        (&args.csv, "--csv", Content::Csv),
        (&args.svg, "--svg", Content::Svg),
    ];
    for (path, flag, content) in named {
        path.as_ref()
            .map_or(Ok(()), |path| check_output_name(flag, path, content))?;
    }
    if args.rule == Rule::Misere {
        return run_misere(&args);
    }
    // --max-values bounds the computation; --values only what is shown.
    let table = Table::compute(&args.game, args.max_values)?;
    let heaps = args
        .heaps
        .iter()
        .map(|heap| Ok((heap.clone(), table.heap_value(heap)?)))
        .collect::<Result<Vec<(String, u16)>, Error>>()?;
    if let Some(path) = &args.csv {
        write_file(path, table.csv().as_bytes())?;
    }
    if let Some(path) = &args.svg {
        table.svg(path)?;
    }
    let shown = usize::try_from(args.values).unwrap_or(usize::MAX);
    let text = match args.json {
        true => table.json(shown, &heaps) + "\n",
        false => {
            let mut text = table.render(shown);
            for (heap, grundy) in &heaps {
                text += &format!("g({heap}) = {grundy}\n");
            }
            text
        }
    };
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| Error::io("<stdout>", e))
}

/// `grundy GAME --rule misere`: the misère quotient (SPEC section 12).
fn run_misere(args: &GrundyArgs) -> Result<(), Error> {
    let started = Instant::now();
    let q = Quotient::compute(&args.game, args.max_heap)?;
    let seconds = started.elapsed().as_secs_f64();
    let text = match args.json {
        true => grundy_misere::json(&q, seconds) + "\n",
        false => grundy_misere::render(
            &q,
            seconds,
            usize::try_from(args.values).unwrap_or(usize::MAX),
        ),
    };
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| Error::io("<stdout>", e))
}

fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<(), Error> {
    std::fs::write(path, bytes).map_err(|e| Error::io(path.display().to_string(), e))
}
