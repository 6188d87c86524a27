//! Misère outcomes of sums of heaps by exhaustive game-tree search, from
//! the definition alone: the player who cannot move wins. No quotient, no
//! Grundy value, no XOR: the reference the misère quotients
//! ([`crate::games::misere`]) and `analyze --rule misere` are checked
//! against.
//!
//! ```
//! use nimstream::games::Game;
//! use nimstream::workbench::misere_tree::MisereTree;
//!
//! let kayles: Game = "kayles".parse()?;
//! let mut tree = MisereTree::new(&kayles);
//! // One pin: the player to move must take it and loses.
//! assert!(!tree.player_to_move_wins(&[1]));
//! // No heap at all: the player to move cannot move, and wins.
//! assert!(tree.player_to_move_wins(&[]));
//! # Ok::<(), nimstream::games::GameError>(())
//! ```

use crate::games::{Game, Leave};
use std::collections::HashMap;

/// Misère outcomes of one game's positions, memoised on the sorted
/// multiset of non-empty heaps (packed, [`packed`]).
pub struct MisereTree<'g> {
    game: &'g Game,
    wins: HashMap<Box<[u8]>, bool>,
}

impl<'g> MisereTree<'g> {
    /// An empty memo for `game`.
    pub fn new(game: &'g Game) -> MisereTree<'g> {
        MisereTree {
            game,
            wins: HashMap::new(),
        }
    }

    /// Whether the player to move from `heaps` wins misère play: they
    /// cannot move, or some move leaves a position the opponent loses.
    pub fn player_to_move_wins(&mut self, heaps: &[u64]) -> bool {
        self.wins_at(key(heaps.iter().copied()))
    }

    fn wins_at(&mut self, position: Vec<u64>) -> bool {
        let packed = packed(&position);
        if let Some(&wins) = self.wins.get(&packed) {
            return wins;
        }
        let options = self.options(&position);
        let wins = options.is_empty() || options.into_iter().any(|next| !self.wins_at(next));
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
            let rest = || {
                position
                    .iter()
                    .enumerate()
                    .filter(move |&(i, _)| i != index)
                    .map(|(_, &h)| h)
            };
            for option in self.game.options(heap) {
                let left = match option.leave {
                    Leave::Nothing => key(rest()),
                    Leave::One(a) => key(rest().chain([a])),
                    Leave::Two(a, b) => key(rest().chain([a, b])),
                };
                next.push(left);
            }
        }
        next
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
