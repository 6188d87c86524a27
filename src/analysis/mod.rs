//! The analysis: the rules of SPEC section 1 over the heaps that the
//! driver ([`crate::input::driver`]) reads and pushes into folds. Two
//! algorithms, as the budget decides ([`budget`]):
//!
//! - **One pass** ([`one_pass`]) keeps, besides the survey and the
//!   nim-sum, the counts of the heaps holding the top bits and the first
//!   holder of every bit, among which the move's heap is. A stream, which
//!   can be read only once, is always analysed so; so is an input read at
//!   any offset under a budget that holds the pass's buffers (the
//!   default), on all threads.
//! - **Windowed passes** ([`windows`]), for smaller budgets and `--memory
//!   log`: the same fold keeping no candidates surveys the input, then one
//!   pass per window of the nim-sum, most significant first, and one
//!   first-holder search ([`holders`]) once the msb is known. Working
//!   memory is one window and a few counters.
//!
//! [`run`] carries on from the first pass, whichever it was: a one pass
//! that met a heap longer than its window, or whose counts do not reach
//! the msb, goes on with exactly the passes the windowed algorithm would
//! run from there, never from byte 0 again. The move is found by
//! [`moves`] from the nim-sum's windows as they arrive, and the facts
//! ([`facts`]) go to the report.

mod budget;
mod candidates;
mod concluded;
mod facts;
mod game_holders;
mod game_run;
mod game_sums;
mod holder_counts;
mod holders;
mod misere;
mod moves;
mod one_pass;
mod ranged;
mod raw_arrays;
pub(crate) mod rules;
mod run;
mod streamed_values;
mod survey;
mod windows;

#[cfg(test)]
mod tests;

pub use budget::{parse_byte_size, MemoryBudget};
pub use concluded::{
    conclude_game, conclude_nim, past_values_error, Landmark, WholeGame, WholeNim,
};
pub use facts::{Facts, GameFacts, GameMoveFacts, MoveFacts, Number, Stats};
pub use misere::{
    conclude_misere, misere_kinds, misere_span, MisereFacts, MisereMoveFacts, MisereSpan,
    WholeMisere,
};
pub use ranged::{
    game_span, holders_span, nim_span, GameSpan, NimSpan, SpanHolder, TopHolders, TABLE_BITS,
};
pub use rules::{Player, Rule};
pub use run::analyze;
pub use survey::Survey;

use crate::games::Game;
use crate::input::source::cancel::Cancel;
use crate::input::Format;
use std::path::PathBuf;

/// The default of `--max-values`: 2^24 values.
pub const DEFAULT_MAX_VALUES: u64 = 1 << 24;

/// How to analyze: the options of `nimstream analyze`.
#[derive(Clone, Debug)]
pub struct Options {
    /// The input format; `None` detects it from the extension or magic.
    pub format: Option<Format>,
    /// Normal or misère play.
    pub rule: Rule,
    /// The game played on each heap (SPEC section 8); under misère play a
    /// game other than Nim is decided by its misère quotient (SPEC section
    /// 12).
    pub game: Game,
    /// The most values of the game's sequence computed looking for its
    /// period; under misère play, the most heaps its misère quotient is
    /// computed for (at most `games::misere::MAX_HEAPS`).
    pub max_values: u64,
    /// The working-memory budget for the nim-sum window.
    pub memory: MemoryBudget,
    /// Stop as soon as the winner is known.
    pub decide: bool,
    /// Values up to this many bits are written into the report.
    pub inline_bits: u64,
    /// Write the whole nim-sum here as `bits` text.
    pub nim_sum_out: Option<PathBuf>,
    /// Write the move's target value here as `bits` text.
    pub move_out: Option<PathBuf>,
    /// Worker threads.
    pub threads: usize,
    /// Read regular files with plain reads instead of a memory map (each
    /// pass reads the file again).
    pub no_mmap: bool,
    /// Stops the analysis once raised, from another thread (see
    /// [`Cancel`]); the default never does.
    pub cancel: Cancel,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            format: None,
            rule: Rule::Normal,
            game: Game::Nim,
            max_values: DEFAULT_MAX_VALUES,
            memory: MemoryBudget::default(),
            decide: false,
            inline_bits: 4096,
            nim_sum_out: None,
            move_out: None,
            threads: 1,
            no_mmap: false,
            cancel: Cancel::default(),
        }
    }
}
