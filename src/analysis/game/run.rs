//! An analysis under a game other than Nim (SPEC section 8), from start to
//! end: one pass of [`GameSum`] through the driver, then the move on the
//! first heap whose value holds the Grundy sum's msb.
//!
//! The pass reads as the budget's first pass does, except that a token
//! longer than a read is never packed whole: its residue needs each digit
//! once, so its groups are folded as the reads bring them
//! ([`crate::input::driver::Fold::long_groups`]), and with no period to
//! fold them by it is read where it lies (it has no value then anyway).

use super::moves::Mover;
use super::sums::{game_reads, GameShared, GameSum};
use crate::analysis::facts::{Facts, GameFacts, GameMoveFacts, Stats};
use crate::analysis::options::Options;
use crate::analysis::rules::Player;
use crate::analysis::survey::Survey;
use crate::error::Error;
use crate::games::{Game, Sequence};
use crate::input::driver::{self};
use crate::input::source::Input;
use crate::input::Format;
use crate::working_memory::MemoryMeter;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Analyzes `input`, read as `format`, as a sum of heaps of the game of
/// `options` under normal play.
pub(crate) fn analyze_game(
    input: &mut Input<'_>,
    format: Format,
    options: &Options,
) -> Result<Facts, Error> {
    let sequence = sequence_of(&options.game, options.max_values)?;
    let sequence = sequence.as_ref();
    let plan = options.plan(input, format);
    let meter = MemoryMeter::start();
    let started = Instant::now();
    let (reads, mut cost) = game_reads(&plan);
    let stream = input.random_access().is_none();
    let shared = GameShared::new(sequence, &plan, stream);
    let folded = driver::run(input, format, &reads, || GameSum::new(&shared))?;
    cost.count_pass(&folded);
    let mut pass = folded.fold.finish();
    let no_lf = std::mem::take(&mut pass.long_tokens).in_order();
    if let Some(past) = pass.past_values {
        let message = past_values_message(past.pos.index, sequence);
        return Err(input.error_at(format, past.pos.offset, message, past.line_col));
    }
    let mut mover = Mover::new(input, format, options, &mut cost);
    let winning_move = match options.decide {
        true => None,
        false => mover.winning_move(&pass, sequence, &no_lf)?,
    };
    input.check_unchanged()?;
    cost.working_memory_bytes = meter.peak_bytes();
    cost.seconds = started.elapsed().as_secs_f64();
    Ok(game_facts(
        pass.survey,
        sequence,
        pass.grundy_sum,
        winning_move,
        cost,
    ))
}

/// The facts of a game other than Nim under normal play: the player to
/// move wins when the Grundy sum is not 0.
pub(crate) fn game_facts(
    survey: Survey,
    sequence: &Sequence,
    grundy_sum: u16,
    winning_move: Option<GameMoveFacts>,
    stats: Stats,
) -> Facts {
    let winner = match grundy_sum {
        0 => Player::Second,
        _ => Player::First,
    };
    Facts {
        survey,
        nim_sum: None,
        msb: None,
        winner,
        winning_moves: None,
        winning_move: None,
        misere: None,
        game: Some(GameFacts {
            game: sequence.game().to_string(),
            period: sequence.period(),
            values_computed: sequence.values_computed(),
            grundy_sum,
            winning_move,
        }),
        stats,
    }
}

/// Refuses what only Nim has: `--nim-sum-out`.
pub(crate) fn refuse_nim_only(options: &Options) -> Result<(), Error> {
    let game = &options.game;
    if options.nim_sum_out.is_some() {
        return Err(Error::Usage(format!(
            "--nim-sum-out is for Nim: under {game} the sum is of Grundy values, \
             and the report holds it (grundy_sum)"
        )));
    }
    Ok(())
}

/// The value sequence of `game` computed up to `max_values`: the last one
/// asked for is kept, so that many analyses under one game in a process
/// (`verify --game`, a library user's loop) compute it once. A table is 2
/// bytes a value (about 1 MB for `octal:0.16`).
pub(crate) fn sequence_of(game: &Game, max_values: u64) -> Result<Arc<Sequence>, Error> {
    static LAST: Mutex<Option<(u64, Arc<Sequence>)>> = Mutex::new(None);
    let mut last = LAST.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some((max, sequence)) = &*last {
        if *max == max_values && sequence.game() == game {
            return Ok(Arc::clone(sequence));
        }
    }
    let sequence = Arc::new(Sequence::compute(game, max_values)?);
    *last = Some((max_values, Arc::clone(&sequence)));
    Ok(sequence)
}

/// The error for a heap past the computed values of a game with no
/// proven period.
pub(crate) fn past_values_message(index: u64, sequence: &Sequence) -> String {
    format!(
        "heap {index} lies past the {} values computed for {}, which has no period \
         proven within them; raise --max-values",
        sequence.values_computed(),
        sequence.game()
    )
}
