//! `verify --game G`: the analyzer under a heap game against exhaustive
//! game-tree search, with no Grundy value and no XOR anywhere.
//!
//! A position is the multiset of its non-empty heaps; its successors come
//! from the game's own definition of a move ([`Game::options`]): take
//! tokens from one heap, leaving 0 to 2 heaps. The player to move wins iff
//! some successor is lost for the opponent (normal play). [`check_game`]
//! runs the real analyzer on every instance of up to `max_heaps` heaps of
//! at most `max_size` tokens and checks its winner, and that its move is
//! one of the game's options and leaves a lost position.
//!
//! ```
//! use nimstream::games::Game;
//! use nimstream::workbench::verify_game::check_game;
//!
//! let check = check_game(&"kayles".parse::<Game>()?, 2, 5);
//! assert_eq!(check.instances, 1 + 6 + 36);
//! assert!(check.disagreements.is_empty());
//! # Ok::<(), nimstream::Error>(())
//! ```

use crate::games::{Game, Leave};
use crate::input::Format;
use crate::report::{GameMove, Value};
use crate::workbench::play::player_name;
use crate::{analyze_bytes, Options, Player};
use std::collections::HashMap;

/// Win/lose labels of positions of one game, found by search.
struct GameTree<'g> {
    game: &'g Game,
    labels: HashMap<Vec<u64>, bool>,
}

impl GameTree<'_> {
    /// True when the player to move from `heaps` wins with perfect play.
    fn wins(&mut self, heaps: &[u64]) -> bool {
        let key = position_key(heaps.iter().copied());
        self.label(key)
    }

    fn label(&mut self, key: Vec<u64>) -> bool {
        if let Some(&wins) = self.labels.get(&key) {
            return wins;
        }
        let children = self.successors(&key);
        let wins = children.into_iter().any(|child| !self.label(child));
        self.labels.insert(key, wins);
        wins
    }

    /// Every position one move away from `key`.
    fn successors(&self, key: &[u64]) -> Vec<Vec<u64>> {
        let mut children = Vec::new();
        for (index, &heap) in key.iter().enumerate() {
            if index > 0 && key[index - 1] == heap {
                continue;
            }
            for option in self.game.options(heap) {
                children.push(after(key, index, &option.leave));
            }
        }
        children
    }
}

/// The position left when heap `index` of `heaps` is replaced by `leave`.
fn after(heaps: &[u64], index: usize, leave: &Leave) -> Vec<u64> {
    let rest = heaps
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != index)
        .map(|(_, &h)| h);
    position_key(rest.chain(leave_heaps(leave)))
}

/// The heaps a move leaves.
fn leave_heaps(leave: &Leave) -> Vec<u64> {
    match *leave {
        Leave::Nothing => vec![],
        Leave::One(a) => vec![a],
        Leave::Two(a, b) => vec![a, b],
    }
}

/// The non-empty heaps in ascending order.
fn position_key(heaps: impl Iterator<Item = u64>) -> Vec<u64> {
    let mut key: Vec<u64> = heaps.filter(|&h| h > 0).collect();
    key.sort_unstable();
    key
}

/// The outcome of checking one game.
#[derive(Debug)]
pub struct GameCheck {
    /// The game, canonical.
    pub game: String,
    /// How many instances were analyzed.
    pub instances: u64,
    /// Every answer the search contradicts: the heaps and what is wrong.
    pub disagreements: Vec<(Vec<u64>, String)>,
}

/// Runs the analyzer under `game` on every sequence of 0 to `max_heaps`
/// heaps of 0 to `max_size` tokens and checks each answer against the
/// search: the winner, and that the move is legal and leaves a lost
/// position.
pub fn check_game(game: &Game, max_heaps: usize, max_size: u64) -> GameCheck {
    let mut tree = GameTree {
        game,
        labels: HashMap::new(),
    };
    let options = Options {
        game: game.clone(),
        ..Options::default()
    };
    let mut check = GameCheck {
        game: game.to_string(),
        instances: 0,
        disagreements: Vec::new(),
    };
    for heaps in instances(max_heaps, max_size) {
        check.instances += 1;
        if let Some(problem) = check_instance(&mut tree, &options, &heaps) {
            check.disagreements.push((heaps, problem));
        }
    }
    check
}

/// Every sequence of 0 to `max_heaps` heaps of 0 to `max_size`, shorter
/// first.
fn instances(max_heaps: usize, max_size: u64) -> impl Iterator<Item = Vec<u64>> {
    (0..=max_heaps).flat_map(move |len| {
        let count = (max_size + 1).pow(len as u32);
        (0..count).map(move |mut n| {
            let mut heaps = vec![0; len];
            for heap in heaps.iter_mut().rev() {
                *heap = n % (max_size + 1);
                n /= max_size + 1;
            }
            heaps
        })
    })
}

/// Analyzes one instance as `dec` text; what the search contradicts.
fn check_instance(tree: &mut GameTree<'_>, options: &Options, heaps: &[u64]) -> Option<String> {
    let text: Vec<String> = heaps.iter().map(u64::to_string).collect();
    let text = text.join(" ") + "\n";
    let report = match analyze_bytes(text.as_bytes(), Format::Dec, "<verify>", options) {
        Ok(report) => report,
        Err(error) => return Some(format!("the analyzer failed: {error}")),
    };
    let winner = match tree.wins(heaps) {
        true => Player::First,
        false => Player::Second,
    };
    if report.winner != winner {
        return Some(format!(
            "winner: the analyzer says {}, the search says {}",
            player_name(report.winner),
            player_name(winner)
        ));
    }
    match (&report.game_move, winner) {
        (Some(chosen), _) => check_move(tree, heaps, chosen),
        (None, Player::First) => Some("move: the analyzer gives none".to_string()),
        (None, Player::Second) => None,
    }
}

/// What is wrong with the analyzer's move: it must be one of the game's
/// options on its heap, and leave a lost position.
fn check_move(tree: &mut GameTree<'_>, heaps: &[u64], chosen: &GameMove) -> Option<String> {
    let index = usize::try_from(chosen.heap)
        .ok()
        .filter(|&i| i < heaps.len());
    let Some(index) = index else {
        return Some(format!("move: heap {} does not exist", chosen.heap));
    };
    let left: Option<Vec<u64>> = chosen.leave.iter().map(small_value).collect();
    let Some(left) = left else {
        return Some("move: a part left is not a small number".to_string());
    };
    let legal = tree
        .game
        .options(heaps[index])
        .any(|option| option.take == chosen.take && leave_heaps(&option.leave) == left);
    if !legal {
        return Some(format!(
            "move: taking {} from heap {index} of {} leaving {left:?} is not a move of {}",
            chosen.take, heaps[index], tree.game
        ));
    }
    let key = after(heaps, index, &leave_of(&left));
    match tree.label(key) {
        true => Some(format!(
            "move: taking {} from heap {index} leaving {left:?} leaves the opponent a won position",
            chosen.take
        )),
        false => None,
    }
}

/// The leave of the parts `left`.
fn leave_of(left: &[u64]) -> Leave {
    match *left {
        [] => Leave::Nothing,
        [a] => Leave::One(a),
        [a, b, ..] => Leave::Two(a, b),
    }
}

/// A report value as a `u64`, when it is inlined and small enough.
fn small_value(value: &Value) -> Option<u64> {
    value.dec.as_deref()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_of_the_spec_agrees_with_the_search_on_small_instances() {
        for game in [
            "kayles",
            "dawsons-kayles",
            "sub:1,3,4",
            "octal:4.7",
            "octal:0.16",
        ] {
            let check = check_game(&game.parse().unwrap(), 2, 8);
            assert_eq!(check.instances, 1 + 9 + 81, "{game}");
            assert!(
                check.disagreements.is_empty(),
                "{game}: {:?}",
                check.disagreements
            );
        }
    }

    #[test]
    fn the_search_labels_kayles_positions_from_the_rules() {
        let game: Game = "kayles".parse().unwrap();
        let mut tree = GameTree {
            game: &game,
            labels: HashMap::new(),
        };
        // One row of 3 pins: knocking the middle one leaves 1 + 1, lost.
        assert!(tree.wins(&[3]));
        // Two equal rows: the second player mirrors.
        assert!(!tree.wins(&[2, 2]));
        assert!(!tree.wins(&[]));
    }

    #[test]
    fn a_wrong_move_is_caught() {
        let game: Game = "kayles".parse().unwrap();
        let mut tree = GameTree {
            game: &game,
            labels: HashMap::new(),
        };
        let value = |n: u64| Value {
            bit_length: u64::from(64 - n.leading_zeros()),
            hex: Some(format!("{n:x}")),
            dec: Some(n.to_string()),
        };
        let wrong = GameMove {
            heap: 0,
            offset: 0,
            line: Some(1),
            from: value(3),
            from_grundy: 3,
            take: 1,
            leave: vec![value(2)],
            to_grundy: 0,
        };
        assert!(check_move(&mut tree, &[3], &wrong).is_some());
        let right = GameMove {
            leave: vec![value(1), value(1)],
            ..wrong
        };
        assert_eq!(check_move(&mut tree, &[3], &right), None);
    }
}
