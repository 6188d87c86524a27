//! The one entry of the analysis: which pipeline reads an input, by the
//! game and the rule of the options.

use super::facts::Facts;
use super::game::run::{analyze_game, refuse_nim_only};
use super::misere::analyze_misere;
use super::nim::run::analyze_nim;
use super::options::Options;
use super::rules::Rule;
use crate::error::Error;
use crate::games::Game;
use crate::input::driver::progress;
use crate::input::format::Format;
use crate::input::source::Input;

/// Analyzes `input`, read as `format`, under the game and rule of
/// `options`.
pub(crate) fn analyze(
    input: &mut Input<'_>,
    format: Format,
    options: &Options,
) -> Result<Facts, Error> {
    // The first pass reads the whole input; more passes are planned as
    // they are found to be needed (the windows).
    progress::plan(input.size().unwrap_or(0));
    if options.game == Game::Nim {
        return analyze_nim(input, format, options);
    }
    refuse_nim_only(options)?;
    match options.rule {
        Rule::Normal => analyze_game(input, format, options),
        Rule::Misere => analyze_misere(input, format, options),
    }
}
