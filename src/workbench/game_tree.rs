//! Outcomes of sums of heaps by exhaustive game-tree search, from the
//! definition alone: under normal play the player who cannot move loses,
//! under misère play they win. No Grundy value, no quotient, no XOR: the
//! reference `verify --game` checks the analyzer against, and the misère
//! quotients ([`crate::games::misere`]) are checked against.
//!
//! A position is the multiset of its non-empty heaps; its options come
//! from the game's own definition of a move ([`Game::options`]): take
//! tokens from one heap, leaving 0 to 2 heaps.
//!
//! ```
//! use nimstream::games::Game;
//! use nimstream::workbench::game_tree::GameTree;
//! use nimstream::Rule;
//!
//! let kayles: Game = "kayles".parse()?;
//! let mut misere = GameTree::new(&kayles, Rule::Misere);
//! // One pin: the player to move must take it and loses.
//! assert!(!misere.player_to_move_wins(&[1]));
//! // No heap at all: the player to move cannot move, and wins.
//! assert!(misere.player_to_move_wins(&[]));
//! // Under normal play, both the other way round.
//! let mut normal = GameTree::new(&kayles, Rule::Normal);
//! assert!(normal.player_to_move_wins(&[1]) && !normal.player_to_move_wins(&[]));
//! # Ok::<(), nimstream::games::GameError>(())
//! ```

use crate::analysis::Rule;
use crate::games::{Game, Leave};
use std::collections::HashMap;

/// Outcomes of one game's positions under one rule, memoised on the
/// sorted multiset of non-empty heaps (packed: a byte for each heap below
/// 128).
pub struct GameTree<'g> {
    game: &'g Game,
    rule: Rule,
    wins: HashMap<Box<[u8]>, bool>,
}

impl<'g> GameTree<'g> {
    /// An empty memo for `game` under `rule`.
    pub fn new(game: &'g Game, rule: Rule) -> GameTree<'g> {
        GameTree {
            game,
            rule,
            wins: HashMap::new(),
        }
    }

    /// The game.
    pub fn game(&self) -> &'g Game {
        self.game
    }

    /// Whether the player to move from `heaps` wins: some move leaves a
    /// position the opponent loses, or (misère play) there is no move.
    pub fn player_to_move_wins(&mut self, heaps: &[u64]) -> bool {
        self.wins_at(key(heaps.iter().copied()))
    }

    fn wins_at(&mut self, position: Vec<u64>) -> bool {
        let packed = packed(&position);
        if let Some(&wins) = self.wins.get(&packed) {
            return wins;
        }
        let options = self.options(&position);
        let stuck = options.is_empty() && self.rule == Rule::Misere;
        let wins = stuck || options.into_iter().any(|next| !self.wins_at(next));
        self.wins.insert(packed, wins);
        wins
    }

    /// The number of positions decided so far.
    pub fn positions(&self) -> usize {
        self.wins.len()
    }

    /// Every position one move away, from the game's definition of a move.
    pub fn options(&self, position: &[u64]) -> Vec<Vec<u64>> {
        let mut next = Vec::new();
        for (index, &heap) in position.iter().enumerate() {
            if index > 0 && position[index - 1] == heap {
                continue;
            }
            for option in self.game.options(heap) {
                next.push(after(position, index, &option.leave));
            }
        }
        next
    }
}

/// The position left when heap `index` of `heaps` is replaced by what a
/// move leaves, as a sorted list of non-empty heaps.
pub fn after(heaps: &[u64], index: usize, leave: &Leave) -> Vec<u64> {
    let rest = heaps
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != index)
        .map(|(_, &h)| h);
    key(rest.chain(leave_heaps(leave)))
}

/// The heaps a move leaves.
pub fn leave_heaps(leave: &Leave) -> Vec<u64> {
    match *leave {
        Leave::Nothing => vec![],
        Leave::One(a) => vec![a],
        Leave::Two(a, b) => vec![a, b],
    }
}

/// A sorted list of heaps as the memo's key: each heap in base 128, low
/// digits first, the top bit marking every digit but a heap's last (a
/// byte for each heap below 128, which the positions searched mostly
/// are).
fn packed(heaps: &[u64]) -> Box<[u8]> {
    let mut bytes = Vec::with_capacity(heaps.len());
    for &heap in heaps {
        let mut rest = heap;
        while rest >= 0x80 {
            bytes.push((rest & 0x7f) as u8 | 0x80);
            rest >>= 7;
        }
        bytes.push(rest as u8);
    }
    bytes.into_boxed_slice()
}

/// The non-empty heaps, ascending.
fn key(heaps: impl Iterator<Item = u64>) -> Vec<u64> {
    let mut key: Vec<u64> = heaps.filter(|&h| h > 0).collect();
    key.sort_unstable();
    key
}
