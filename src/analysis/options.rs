//! How to analyze: the options of `nimstream analyze` ([`Options`]), the
//! one value every entry point takes.

use super::budget::{MemoryBudget, Plan, Shape};
use super::rules::Rule;
use crate::games::Game;
use crate::input::format::Format;
use crate::input::source::cancel::Cancel;
use crate::input::source::Input;
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

impl Options {
    /// What an analysis of `input` in `format` reads off the budget, on
    /// the threads the options allow.
    pub(crate) fn plan(&self, input: &Input<'_>, format: Format) -> Plan {
        self.memory.plan(&Shape::of(input, format, self.threads))
    }
}
