//! Plays a game of Nim out, move by move, between two strategies, on heaps
//! held as big integers.
//!
//! A [`Game`] is the heaps, the rule and the number of moves made (which
//! says whose turn it is). [`Sides`] chooses each move with the strategy of
//! the player to move: [`Strategy::Optimal`] asks the analyzer for its
//! winning move, [`Strategy::Delay`] is the paper's delaying strategy,
//! [`Strategy::Random`] draws from a seeded ChaCha8 generator, and
//! [`Strategy::Human`] reads `HEAP COUNT` lines from a [`Console`] (or
//! `q`, and the player quits).
//! [`play_out`] runs the game; [`Transcript`] lays out its lines.
//!
//! The optimal strategy renders the position as `dec` text and analyzes it
//! afresh on every move, which is simple and plenty fast for the games a
//! person watches, not for heaps of millions of digits.
//!
//! This file holds the game and the loop that plays it; `strategy.rs` the
//! strategies and the sides, `console.rs` a person's moves, `transcript.rs`
//! the lines printed, and `starting_heaps.rs` the heaps a game starts from
//! (a `--heaps` list or an instance file).

mod console;
mod starting_heaps;
mod strategy;
mod transcript;

pub use console::Console;
pub use starting_heaps::{parse_heap_list, read_heaps};
pub use strategy::{Sides, Strategy};
pub use transcript::{stopped_note, summary, Transcript};

use crate::error::Error;
use crate::{Player, Rule};
use num_bigint::BigUint;
use num_traits::Zero;

/// One move: take `count` tokens from heap `heap` (0-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Take {
    /// The heap's index.
    pub heap: usize,
    /// How many tokens are taken (at least 1).
    pub count: BigUint,
}

/// A game in progress: the heaps, the rule, and how many moves were made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    heaps: Vec<BigUint>,
    rule: Rule,
    moves: u64,
}

impl Game {
    /// A game starting from `heaps`, the first player to move.
    pub fn new(heaps: Vec<BigUint>, rule: Rule) -> Game {
        Game {
            heaps,
            rule,
            moves: 0,
        }
    }

    /// The heaps now.
    pub fn heaps(&self) -> &[BigUint] {
        &self.heaps
    }

    /// The play convention.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// How many moves have been made.
    pub fn moves(&self) -> u64 {
        self.moves
    }

    /// Whose turn it is.
    pub fn to_move(&self) -> Player {
        if self.moves.is_multiple_of(2) {
            Player::First
        } else {
            Player::Second
        }
    }

    /// The winner once no move is left (every heap empty), else `None`. The
    /// player who cannot move loses under normal play and wins under misère.
    pub fn winner(&self) -> Option<Player> {
        if self.heaps.iter().any(|heap| !heap.is_zero()) {
            return None;
        }
        let stuck = self.to_move();
        Some(match self.rule {
            Rule::Normal => opponent(stuck),
            Rule::Misere => stuck,
        })
    }

    /// The XOR of the heaps (shown beside each position).
    pub fn nim_sum(&self) -> BigUint {
        self.heaps
            .iter()
            .fold(BigUint::zero(), |sum, heap| sum ^ heap)
    }

    /// Why `take` is not a legal move here, if it is not.
    pub fn check(&self, take: &Take) -> Result<(), String> {
        let Some(heap) = self.heaps.get(take.heap) else {
            return Err(match self.heaps.len() {
                0 => "there are no heaps".to_string(),
                n => format!("there is no heap {} (heaps are 0 to {})", take.heap, n - 1),
            });
        };
        if take.count.is_zero() {
            return Err("a move takes at least one token".to_string());
        }
        if take.count > *heap {
            return Err(format!(
                "heap {} has only {heap}, cannot take {}",
                take.heap, take.count
            ));
        }
        Ok(())
    }

    /// Makes the move `take`, if it is legal.
    pub fn apply(&mut self, take: &Take) -> Result<(), String> {
        self.check(take)?;
        self.heaps[take.heap] -= &take.count;
        self.moves += 1;
        Ok(())
    }
}

/// The other player.
fn opponent(player: Player) -> Player {
    match player {
        Player::First => Player::Second,
        Player::Second => Player::First,
    }
}

/// `first` or `second`.
pub(crate) fn player_name(player: Player) -> &'static str {
    match player {
        Player::First => "first",
        Player::Second => "second",
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// No move was left; this player won.
    Won(Player),
    /// The move limit was reached first.
    Stopped,
    /// This player, a human side, quit.
    Quit(Player),
}

/// Plays `game` until no move is left or `max_moves` moves have been made.
/// `record` sees each position with the move about to be made from it.
///
/// A strategy other than `human` that picks an illegal move is a bug, and
/// ends the game with [`Error::Check`].
pub fn play_out(
    game: &mut Game,
    sides: &mut Sides,
    max_moves: u64,
    mut record: impl FnMut(&Game, &Take) -> Result<(), Error>,
) -> Result<Ending, Error> {
    loop {
        if let Some(winner) = game.winner() {
            return Ok(Ending::Won(winner));
        }
        if game.moves() >= max_moves {
            return Ok(Ending::Stopped);
        }
        let Some(take) = sides.choose(game)? else {
            return Ok(Ending::Quit(game.to_move()));
        };
        record(game, &take)?;
        let mover = player_name(game.to_move());
        game.apply(&take).map_err(|reason| {
            Error::Check(format!(
                "the {mover} player's strategy chose an illegal move: {reason}"
            ))
        })?;
    }
}

/// The heaps in decimal, joined by `separator`.
fn dec_text(heaps: &[BigUint], separator: &str) -> String {
    let tokens: Vec<String> = heaps.iter().map(BigUint::to_string).collect();
    tokens.join(separator)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;

    pub(super) fn heaps(values: &[u32]) -> Vec<BigUint> {
        values.iter().map(|&v| BigUint::from(v)).collect()
    }

    #[test]
    fn the_optimal_player_wins_against_delay_under_misere() {
        let mut game = Game::new(heaps(&[3, 4, 5]), Rule::Misere);
        let console = Console::new(Box::new(io::empty()), Box::new(io::sink()), false);
        let mut sides = Sides::new(Strategy::Optimal, Strategy::Delay, 0, console);
        let ending = play_out(&mut game, &mut sides, 1000, |_, _| Ok(())).unwrap();
        assert_eq!(ending, Ending::Won(Player::First));
    }

    pub(super) fn quiet_console(input: &'static str, typed: bool) -> Console {
        Console::new(Box::new(input.as_bytes()), Box::new(io::sink()), typed)
    }

    fn play(values: &[u32], rule: Rule, first: Strategy, second: Strategy) -> (Game, Ending) {
        let mut game = Game::new(heaps(values), rule);
        let mut sides = Sides::new(first, second, 7, quiet_console("", false));
        let ending = play_out(&mut game, &mut sides, 1_000_000, |_, _| Ok(())).unwrap();
        (game, ending)
    }

    #[test]
    fn an_empty_game_is_won_by_the_rule_alone() {
        let game = Game::new(Vec::new(), Rule::Normal);
        assert_eq!(game.winner(), Some(Player::Second));
        let game = Game::new(heaps(&[0, 0]), Rule::Misere);
        assert_eq!(game.winner(), Some(Player::First));
    }

    #[test]
    fn optimal_wins_from_three_four_five_in_both_rules() {
        for rule in [Rule::Normal, Rule::Misere] {
            for second in [Strategy::Delay, Strategy::Random, Strategy::Optimal] {
                let (_, ending) = play(&[3, 4, 5], rule, Strategy::Optimal, second);
                assert_eq!(ending, Ending::Won(Player::First), "{rule} {second:?}");
            }
        }
    }

    #[test]
    fn a_losing_optimal_player_delays_to_the_end() {
        let (game, ending) = play(&[3, 3], Rule::Normal, Strategy::Optimal, Strategy::Optimal);
        assert_eq!((game.moves(), ending), (6, Ending::Won(Player::Second)));
    }
}
