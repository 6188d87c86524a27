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
/// multiset of non-empty heaps.
pub struct MisereTree<'g> {
    game: &'g Game,
    wins: HashMap<Vec<u64>, bool>,
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
        if let Some(&wins) = self.wins.get(&position) {
            return wins;
        }
        let options = self.options(&position);
        let wins = options.is_empty() || options.into_iter().any(|next| !self.wins_at(next));
        self.wins.insert(position, wins);
        wins
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

/// The non-empty heaps, ascending.
fn key(heaps: impl Iterator<Item = u64>) -> Vec<u64> {
    let mut key: Vec<u64> = heaps.filter(|&h| h > 0).collect();
    key.sort_unstable();
    key
}
