//! `nimstream play`: a game played out between two strategies, one line per
//! move, and the result.

use super::analyze::{parse_format_choice, FormatChoice};
use super::progress::MoveProgress;
use crate::error::Error;
use crate::workbench::play::{
    parse_heap_list, play_out, read_heaps, stopped_note, summary, Console, Ending, Game, Sides,
    Strategy, Transcript,
};
use crate::Rule;
use clap::{ArgGroup, Args};
use num_bigint::BigUint;
use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;

/// Options of `play`.
#[derive(Debug, Args)]
#[command(group(ArgGroup::new("start").required(true).args(["heaps", "file"])))]
pub(crate) struct PlayArgs {
    /// The instance to start from (`-` for standard input, with --format).
    pub file: Option<PathBuf>,
    /// The starting heaps, comma-separated, e.g. 3,4,5.
    #[arg(long, value_name = "LIST", value_parser = parse_heaps)]
    pub heaps: Option<HeapList>,
    /// Format of FILE: auto, bits, hex, dec, unary, u8, u16le, u32le, u64le, nimb.
    #[arg(short, long, default_value = "auto", value_parser = parse_format_choice, conflicts_with = "heaps")]
    pub format: FormatChoice,
    /// Play convention: normal or misere.
    #[arg(short, long, default_value = "normal", value_parser = super::parse_rule)]
    pub rule: Rule,
    /// The first player's strategy: optimal, delay, random or human.
    #[arg(long, value_name = "S", default_value = "optimal", value_parser = parse_strategy)]
    pub first: Strategy,
    /// The second player's strategy: optimal, delay, random or human.
    #[arg(long, value_name = "S", default_value = "optimal", value_parser = parse_strategy)]
    pub second: Strategy,
    /// Seed of the random strategy.
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub seed: u64,
    /// Stop after this many moves.
    #[arg(long, value_name = "N", default_value_t = 1_000_000)]
    pub max_moves: u64,
    /// Print only the last line.
    #[arg(short, long)]
    pub quiet: bool,
}

/// `--heaps`: the starting heaps.
#[derive(Clone, Debug)]
pub(crate) struct HeapList(pub Vec<BigUint>);

fn parse_heaps(text: &str) -> Result<HeapList, String> {
    parse_heap_list(text).map(HeapList)
}

fn parse_strategy(text: &str) -> Result<Strategy, String> {
    Strategy::from_name(text).ok_or_else(|| {
        format!("unknown strategy '{text}': expected optimal, delay, random or human")
    })
}

/// Runs `play`: the moves, then the result, on standard output; a human
/// side reads standard input and is prompted on standard error.
pub(crate) fn run(args: PlayArgs) -> Result<(), Error> {
    let heaps = match (args.heaps, args.file) {
        (Some(list), _) => list.0,
        (None, Some(file)) => read_heaps(&file, args.format.0)?,
        (None, None) => return Err(Error::Usage("play needs --heaps LIST or a FILE".into())),
    };
    let mut game = Game::new(heaps, args.rule);
    let typed = io::stdin().is_terminal();
    let console = Console::new(Box::new(io::stdin().lock()), Box::new(io::stderr()), typed);
    let human = [args.first, args.second].contains(&Strategy::Human);
    let mut sides = Sides::new(args.first, args.second, args.seed, console);
    let transcript = Transcript::for_game(&game);
    let mut out = io::stdout().lock();
    // A bar when nothing else shows the game going on: no move lines on
    // the terminal, and no person prompted there.
    let bar = MoveProgress::start(args.max_moves, !human && (args.quiet || !out.is_terminal()));
    let ending = play_out(&mut game, &mut sides, args.max_moves, |position, take| {
        bar.moved(position.moves() + 1);
        if args.quiet {
            return Ok(());
        }
        writeln!(out, "{}", transcript.move_line(position, take)).map_err(stdout_error)
    });
    bar.finish();
    let ending = ending?;
    if !args.quiet {
        writeln!(out, "{}", transcript.position(&game)).map_err(stdout_error)?;
        if ending == Ending::Stopped {
            writeln!(out, "{}", stopped_note(&game, args.max_moves)).map_err(stdout_error)?;
        }
    }
    writeln!(out, "{}", summary(game.moves(), ending)).map_err(stdout_error)
}

fn stdout_error(error: io::Error) -> Error {
    Error::io("<stdout>", error)
}
