//! Q_1, Q_2, …: the heaps added one at a time, each either placed by its
//! options (Lemma X of [`super`]) or by a proven extension
//! ([`super::extend`]).
//!
//! **A working monoid finer than Q_n.** A heap can tell apart sums that
//! the smaller heaps could not: in misère Kayles, two rows of 5 pins are
//! ≡ the empty row in Q_8 (c² = 1), but a row of 9 pins tells them apart.
//! Q_{n−1} × ⟨x⟩ then decides no sum of A_n right, and no candidate built
//! on it is proven. So the build keeps a monoid W_n that refines Q_n,
//! proven like it (each of its elements decides the outcome of its sums,
//! and it is a congruence), in which the powers of chosen heaps are kept
//! apart (`keep`): when a heap is refused, the quotient is built again
//! from heap 1 keeping the powers of one more heap that extended it, the
//! latest first. Q_n is W_n reduced by the outcomes
//! ([`Build::quotient`]).

use super::extend::{extend, Extended, HeapType, Refused};
use super::table::{Congruence, Table};
use crate::games::{Game, Leave};
use std::collections::{BTreeSet, HashMap};

/// The working monoid W_n of the heaps added so far (see the module
/// docs).
pub(crate) struct Build {
    game: Game,
    /// The heaps whose powers W keeps apart.
    keep: BTreeSet<u64>,
    /// The heaps that extended W, in order.
    pub(crate) extended: Vec<u64>,
    pub(crate) table: Table,
    pub(crate) p_portion: Vec<bool>,
    /// Each element's powers of the kept heaps, which W keeps apart.
    signatures: Vec<Vec<u8>>,
    /// Φ(0), Φ(1), …: each heap's class.
    pub(crate) pretending: Vec<u16>,
    /// The kinds of live heaps, by the classes of their options.
    types: Vec<HeapType>,
    /// Each set of option classes seen, and the class of its heaps.
    by_options: HashMap<Vec<u16>, u16>,
}

/// Why a heap could not be added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Blocked {
    /// No candidate for it was proven.
    Unproven,
    /// Its proof passed the bound on states.
    States,
    /// Q_n would pass the bound on the order.
    Order,
}

impl Build {
    /// Q_0 = {1}: only the empty sum (and heap 0), a misère N-position.
    pub(crate) fn new(game: &Game, keep: BTreeSet<u64>) -> Build {
        Build {
            game: game.clone(),
            keep,
            extended: Vec::new(),
            table: Table::trivial(),
            p_portion: vec![false],
            signatures: vec![Vec::new()],
            pretending: vec![0],
            types: Vec::new(),
            by_options: HashMap::from([(Vec::new(), 0)]),
        }
    }

    /// The largest heap added.
    pub(crate) fn heaps(&self) -> u64 {
        self.pretending.len() as u64 - 1
    }

    /// The classes in Q_{n−1} of the options of H_n, n the next heap:
    /// nothing left is 1, one heap its class, two heaps their product.
    fn option_classes(&self, n: u64) -> Vec<u16> {
        let phi = |h: u64| self.pretending[h as usize];
        let mut classes: Vec<u16> = self
            .game
            .options(n)
            .map(|option| match option.leave {
                Leave::Nothing => 0,
                Leave::One(h) => phi(h),
                Leave::Two(a, b) => self.table.mul(phi(a), phi(b)),
            })
            .collect();
        classes.sort_unstable();
        classes.dedup();
        classes
    }

    /// Adds the next heap H_n: Q_n and Φ(n), or why not (Q_{n−1} kept).
    pub(crate) fn push(&mut self, max_order: usize, max_states: usize) -> Result<(), Blocked> {
        let n = self.heaps() + 1;
        let options = self.option_classes(n);
        // Lemma X: a heap whose options have the classes of another's
        // options is equivalent to it, and leaves the quotient as it is.
        // A heap with no move is the empty game: the identity, kept or not.
        // A kept heap is never put in another's class.
        let kept = self.keep.contains(&n) && !options.is_empty();
        if options.is_empty() {
            self.pretending.push(0);
            return Ok(());
        }
        if let Some(&class) = self.by_options.get(&options).filter(|_| !kept) {
            self.pretending.push(class);
            return Ok(());
        }
        let found = extend(
            &self.table,
            &self.signatures,
            &self.types,
            &options,
            n,
            kept,
            max_states,
        )
        .map_err(|refused| match refused {
            Refused::Unproven => Blocked::Unproven,
            Refused::States => Blocked::States,
        })?;
        if found.table.order() > max_order {
            return Err(Blocked::Order);
        }
        self.take(found, options, n);
        self.extended.push(n);
        Ok(())
    }

    /// Q_n: W_n reduced by the outcomes, and each element of W_n's class.
    pub(crate) fn quotient(&self) -> (Table, Vec<u16>, Vec<bool>) {
        let generators: Vec<u32> = self
            .types
            .iter()
            .map(|kind| u32::from(kind.class))
            .collect();
        let p = &self.p_portion;
        let congruence = Congruence::refine(
            self.table.order(),
            |u, w| u32::from(self.table.mul(u as u16, w as u16)),
            &generators,
            |m| u32::from(p[m as usize]),
        );
        let p_portion = congruence.members.iter().map(|&m| p[m as usize]).collect();
        (congruence.table, congruence.class, p_portion)
    }

    /// Moves every class into Q_n and adds H_n's kind.
    fn take(&mut self, found: Extended, options: Vec<u16>, n: u64) {
        let old = |class: u16| found.old[class as usize];
        for class in &mut self.pretending {
            *class = old(*class);
        }
        for kind in &mut self.types {
            kind.class = old(kind.class);
            // Q_{n−1}'s elements stay apart in Q_n: still distinct.
            kind.options
                .iter_mut()
                .for_each(|option| *option = old(*option));
            kind.options.sort_unstable();
        }
        let mut options: Vec<u16> = options.iter().map(|&o| old(o)).collect();
        options.sort_unstable();
        self.types.push(HeapType {
            class: found.heap,
            tokens: n,
            options,
        });
        self.pretending.push(found.heap);
        self.by_options = self
            .types
            .iter()
            .map(|kind| (kind.options.clone(), kind.class))
            .chain([(Vec::new(), 0)])
            .collect();
        self.table = found.table;
        self.p_portion = found.p_portion;
        self.signatures = found.signatures;
    }
}
