//! The misère quotient of a game as the pass reads it: each heap's *kind*,
//! its class in the quotient together with the classes of its options.
//!
//! Two heaps of one kind are alike for the analysis: they have one class,
//! so they weigh the same in the product, and the same classes of options,
//! so one has a move into the P-portion beside the rest of the sum iff
//! the other does. The pass counts the heaps of each kind and keeps the
//! first of each ([`super::fold`]); the product and the move's heap follow
//! from those ([`super::decide`]).
//!
//! **Kinds past the heaps computed.** With Φ's period q proven from p at
//! n = `heaps_computed` (the periodicity theorem of
//! [`crate::games::misere`]), every heap m > n has the class of m − q and
//! options whose classes pair up with those of m − q: its kind is that of
//! m − q. So kinds are periodic with period q as well, from the least
//! preperiod p_k their table shows (the table's heaps up to n, the proof
//! past it), and a heap of any size, exact or known by its residue modulo
//! q, has a kind: the kinds are a value sequence
//! ([`crate::games::Sequence`]) that the Grundy machinery reads as it
//! reads values (tables, periods, residues).

use crate::error::Error;
use crate::games::misere::Quotient;
use crate::games::{Game, Period, Sequence};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// A game's misère quotient with the kinds of its heaps.
#[derive(Debug)]
pub(crate) struct Kinds {
    pub(crate) quotient: Quotient,
    /// Φ as a value sequence (the classes of the parts a move leaves).
    pub(crate) classes: Sequence,
    /// Each heap's kind, as a value sequence.
    pub(crate) kinds: Sequence,
    /// Each kind's class.
    pub(crate) class: Vec<u16>,
    /// Each kind's options' classes, ascending, each once.
    pub(crate) options: Vec<Vec<u16>>,
}

impl Kinds {
    /// The kinds of the heaps of `quotient`'s game.
    pub(crate) fn new(quotient: Quotient) -> Kinds {
        let n = quotient.heaps_computed();
        let mut found: HashMap<(u16, Vec<u16>), u16> = HashMap::new();
        let (mut class, mut options) = (Vec::new(), Vec::new());
        let values: Vec<u16> = (0..=n)
            .map(|h| {
                let key = (
                    quotient.class_of(h).expect("a heap ≤ n"),
                    quotient.option_classes(h),
                );
                let fresh = class.len() as u16;
                *found.entry(key.clone()).or_insert_with(|| {
                    class.push(key.0);
                    options.push(key.1);
                    fresh
                })
            })
            .collect();
        let period = quotient.period().map(|Period { period, .. }| Period {
            preperiod: least_preperiod(&values, period),
            period,
        });
        let game = quotient.game().clone();
        Kinds {
            classes: quotient.as_sequence(),
            kinds: Sequence::from_parts(game, values, period),
            class,
            options,
            quotient,
        }
    }

    /// The class of `kind`.
    pub(crate) fn class_of_kind(&self, kind: u16) -> u16 {
        self.class[kind as usize]
    }
}

/// The least p with `values[h] = values[h + q]` for every p ≤ h ≤ n − q
/// (the table ends at n; past it the proof holds).
fn least_preperiod(values: &[u16], q: u64) -> u64 {
    let q = q as usize;
    let mut p = values.len() - q;
    while p > 0 && values[p - 1] == values[p - 1 + q] {
        p -= 1;
    }
    p as u64
}

/// The quotients a process keeps, the most recently used last.
const KEPT: usize = 4;

/// The kinds of `game`'s heaps from its quotient computed up to
/// `max_heap` heaps: the last [`KEPT`] asked for are kept, so that many
/// analyses under a few games in a process (`verify --game --rule
/// misere`, the ranges of a sharded run, a library user's loop) compute
/// each once.
pub(crate) fn kinds_of(game: &Game, max_heap: u64) -> Result<Arc<Kinds>, Error> {
    static KEPT_KINDS: Mutex<Vec<(u64, Arc<Kinds>)>> = Mutex::new(Vec::new());
    let mut kept = KEPT_KINDS
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let found = kept
        .iter()
        .position(|(max, kinds)| *max == max_heap && kinds.quotient.game() == game);
    if let Some(at) = found {
        let entry = kept.remove(at);
        kept.push(entry);
        return Ok(Arc::clone(&kept[kept.len() - 1].1));
    }
    let kinds = Arc::new(Kinds::new(Quotient::compute(game, max_heap)?));
    if kept.len() == KEPT {
        kept.remove(0);
    }
    kept.push((max_heap, Arc::clone(&kinds)));
    Ok(kinds)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Kinds past the heaps computed follow the period: a heap's kind is
    /// that of the heap a period below, by the search of every option.
    #[test]
    fn kinds_are_periodic_past_the_heaps_computed() {
        let quotient = Quotient::compute(&"kayles".parse().unwrap(), 4096).unwrap();
        let n = quotient.heaps_computed();
        let kinds = Kinds::new(quotient);
        let period = kinds.kinds.period().expect("Kayles' period is proven");
        assert_eq!(period.period, 12);
        assert!(period.preperiod + period.period <= n + 1);
        for h in n + 1..n + 40 {
            let kind = kinds.kinds.value(h).unwrap();
            assert_eq!(
                kinds.class_of_kind(kind),
                kinds.quotient.class_of(h).unwrap()
            );
            assert_eq!(
                kinds.options[kind as usize],
                kinds.quotient.option_classes(h)
            );
            assert_eq!(kind, kinds.kinds.value(h - 12).unwrap());
        }
    }
}
