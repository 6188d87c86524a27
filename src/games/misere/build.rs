//! Q_1, Q_2, …: the heaps added one at a time, each placed by its options
//! (Lemma X of [`super`]) or by a proven model ([`super::model`]).
//!
//! The state is Q_n itself, exact, with Φ_n on every heap ≤ n and, for
//! Lemma X, the classes of every heap's options in Q_n. A heap that
//! extends the quotient can split classes of Q_n (two sums that no heap
//! ≤ n tells apart and H_{n+1} does): Q_{n+1} then gives new classes to
//! the smaller heaps as well, and their option classes are made again.

use super::model::{extend, Explored, Refused};
use super::table::Table;
use crate::games::Game;
use std::collections::HashMap;

/// Q_n, Φ_n and the heaps' option classes.
pub(crate) struct Build {
    game: Game,
    pub(crate) table: Table,
    pub(crate) p_portion: Vec<bool>,
    /// Φ_n(0), …, Φ_n(n).
    pub(crate) pretending: Vec<u16>,
    /// Each set of option classes (in Q_n) of a live heap ≤ n, and the
    /// class of its heaps.
    by_options: HashMap<Vec<u16>, u16>,
    /// The states of the proof of the last quotient a model extended.
    explored: Option<Explored>,
}

/// How a heap was added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Added {
    /// By Lemma X: Q_{n+1} = Q_n, the smaller heaps' classes unchanged.
    ByOptions,
    /// By a proven model: a new quotient, whose classes of the smaller
    /// heaps may differ.
    Extended,
}

/// Why a heap could not be added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blocked {
    /// No candidate was proven within the bounds on the candidates.
    Unproven,
    /// A candidate passed its bound on elements.
    Candidate,
    /// A proof passed its bound on states.
    States,
    /// Q_{n+1} would pass the bound on the order.
    Order,
    /// The candidates passed the bound on the work.
    Work,
}

impl Build {
    /// Q_0 = {1}: only the empty sum (and heap 0), a misère N-position.
    pub(crate) fn new(game: &Game) -> Build {
        Build {
            game: game.clone(),
            table: Table::trivial(),
            p_portion: vec![false],
            pretending: vec![0],
            by_options: HashMap::new(),
            explored: None,
        }
    }

    /// n, the largest heap added.
    pub(crate) fn heaps(&self) -> u64 {
        self.pretending.len() as u64 - 1
    }

    /// The classes in Q_n of the options of heap `h` ≤ n + 1, ascending,
    /// each once: nothing left is 1, one heap its class, two heaps their
    /// product.
    fn option_classes(&self, h: u64) -> Vec<u16> {
        let phi = |a: u64| self.pretending[a as usize];
        self.table.option_classes(&self.game, h, phi)
    }

    /// Adds heap n + 1: Q_{n+1} and Φ_{n+1}, or why not (Q_n kept).
    pub(crate) fn push(
        &mut self,
        max_order: usize,
        max_states: usize,
        work: &mut u64,
    ) -> Result<Added, Blocked> {
        let n = self.heaps() + 1;
        let options = self.option_classes(n);
        // A heap with no move is the empty game: the identity.
        if options.is_empty() {
            self.pretending.push(0);
            return Ok(Added::ByOptions);
        }
        // Lemma X: options in the classes of a smaller heap's options.
        if let Some(&class) = self.by_options.get(&options) {
            self.pretending.push(class);
            return Ok(Added::ByOptions);
        }
        let found = extend(
            &self.game,
            &self.table,
            &self.pretending,
            self.explored.as_ref(),
            max_order,
            max_states,
            work,
        )
        .map_err(|refused| match refused {
            Refused::Unproven => Blocked::Unproven,
            Refused::Candidate => Blocked::Candidate,
            Refused::States => Blocked::States,
            Refused::Order => Blocked::Order,
            Refused::Work => Blocked::Work,
        })?;
        self.table = found.table;
        self.p_portion = found.p_portion;
        self.pretending = found.pretending;
        self.explored = Some(found.explored);
        self.by_options = (1..=n)
            .map(|h| (self.option_classes(h), self.pretending[h as usize]))
            .filter(|(options, _)| !options.is_empty())
            .collect();
        Ok(Added::Extended)
    }
}
