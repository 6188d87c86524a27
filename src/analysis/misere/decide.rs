//! The winner and the move, from the counts of the heaps of each kind and
//! the first heap of each ([`super::fold`]).
//!
//! **The product.** A sum's class is the product of its heaps' classes
//! (the quotient is a commutative monoid: SPEC section 12), so it is
//! ∏ c^(n_c) over the classes c, n_c the heaps of class c. The player to
//! move loses iff it lies in the P-portion.
//!
//! **The move's heap.** SPEC section 12's move is on the lowest-index heap
//! with an option that moves the sum into the P-portion. A heap of class c
//! is beside the rest of the sum, whose product is r_c = ∏ c'^(n_c' −
//! [c' = c]) whichever heap of class c it is, and its options move the sum
//! to r_c·o for each class o of its options. So a heap has such an option
//! iff its kind does ([`winning`]), and the move's heap is the first
//! heap of the winning kind whose first heap comes first. Its option is the
//! first, in SPEC section 8's order, whose parts' classes times r_c lie in
//! the P-portion ([`first_option_where`], on heaps of any size).

use super::kinds::Kinds;
use crate::analysis::game::holders::Holder;
use crate::error::Error;
use crate::games::misere::Quotient;
use crate::games::{first_option_where, FoundMove};

/// The product of the classes of `counts[k]` heaps of each kind k.
pub(crate) fn product(kinds: &Kinds, counts: &[u64]) -> u16 {
    let q = &kinds.quotient;
    powers(kinds, counts)
        .iter()
        .enumerate()
        .fold(0, |product, (class, &n)| {
            q.mul(product, q.pow(class as u16, n))
        })
}

/// The number of heaps of each class.
fn powers(kinds: &Kinds, counts: &[u64]) -> Vec<u64> {
    let mut powers = vec![0u64; kinds.quotient.order()];
    for (kind, &count) in counts.iter().enumerate() {
        powers[kinds.class_of_kind(kind as u16) as usize] += count;
    }
    powers
}

/// The product of the rest of the sum beside one heap of each class
/// (meaningful for the classes some heap has).
fn rests(q: &Quotient, powers: &[u64]) -> Vec<u16> {
    (0..powers.len())
        .map(|beside| {
            powers.iter().enumerate().fold(0, |product, (class, &n)| {
                let n = n - u64::from(class == beside && n > 0);
                q.mul(product, q.pow(class as u16, n))
            })
        })
        .collect()
}

/// The move found: the heap, its option, and the product after it.
#[derive(Debug)]
pub(crate) struct MisereMove<'f> {
    pub(crate) heap: &'f Holder,
    pub(crate) found: FoundMove,
    pub(crate) to_product: u16,
}

/// Whether no heap of the sum has a move (the player to move then wins
/// by having none).
pub(crate) fn stuck(kinds: &Kinds, counts: &[u64]) -> bool {
    (0..counts.len()).all(|kind| counts[kind] == 0 || kinds.options[kind].is_empty())
}

/// SPEC section 12's move (see the module docs), or `None` when the sum's
/// product lies in the P-portion (every move then leaves a win) or no
/// heap has a move. `firsts[k]` is the first heap of kind k, of the
/// `counts[k]` heaps.
pub(crate) fn winning_move<'f>(
    kinds: &Kinds,
    counts: &[u64],
    firsts: &'f [Option<Holder>],
) -> Result<Option<MisereMove<'f>>, Error> {
    let q = &kinds.quotient;
    if q.is_p(product(kinds, counts)) || stuck(kinds, counts) {
        return Ok(None);
    }
    let rests = rests(q, &powers(kinds, counts));
    let heap = (0..counts.len())
        .filter(|&kind| counts[kind] > 0 && winning(kinds, &rests, kind))
        .filter_map(|kind| firsts[kind].as_ref())
        .min_by_key(|holder| holder.pos.index);
    let Some(heap) = heap else {
        return Err(Error::Check(
            "no heap has a move into the P-portion, though the sum's product lies outside it"
                .into(),
        ));
    };
    let rest = rests[kinds.class_of_kind(heap.grundy) as usize];
    let after = |parts: &[u16]| {
        parts
            .iter()
            .fold(rest, |product, &part| q.mul(product, part))
    };
    let found = first_option_where(&kinds.classes, heap.size, |parts| q.is_p(after(parts)))
        .ok_or_else(|| {
            Error::Check(format!(
                "heap {} has no option into the P-portion, though its kind has one",
                heap.pos.index
            ))
        })?;
    let to_product = after(&leave_classes(&found));
    Ok(Some(MisereMove {
        heap,
        found,
        to_product,
    }))
}

/// Whether a heap of `kind` has an option into the P-portion beside the
/// rest of the sum.
fn winning(kinds: &Kinds, rests: &[u16], kind: usize) -> bool {
    let q = &kinds.quotient;
    let rest = rests[kinds.class[kind] as usize];
    kinds.options[kind].iter().any(|&o| q.is_p(q.mul(rest, o)))
}

/// The classes of the parts a move leaves.
fn leave_classes(found: &FoundMove) -> Vec<u16> {
    use crate::games::FoundLeave;
    match found.leave {
        FoundLeave::Nothing => vec![],
        FoundLeave::One { grundy, .. } => vec![grundy],
        FoundLeave::Two {
            smaller_grundy,
            larger_grundy,
            ..
        } => vec![smaller_grundy, larger_grundy],
    }
}
