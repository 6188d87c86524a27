//! The first option of a heap, in the order of SPEC section 8, whose value
//! is a given target: the move of a sum of heaps, for heaps of any size.
//! More generally ([`first_option_where`]), the first option whose parts'
//! values pass a test: under misère play the values are the heaps' classes
//! in the misère quotient ([`super::misere`]), and the test is that the
//! product of the parts' classes and the rest of the sum lies in the
//! P-portion.
//!
//! A heap is either exact (a `u64`) or huge (h ≥ 2^64, known only by
//! h mod q, which needs a proven period q). Moves take at most k tokens,
//! so one part left is h − t, and a split leaves (a, h − t − a) with the
//! smaller part a small:
//!
//! **Why a < p + q suffices.** Take a split of m = h − t into (a, m − a)
//! with a ≥ p + q. Then m − a ≥ a ≥ p, and a' = a − q ≥ p leaves the part
//! m − a' = m − a + q ≥ p: both pairs lie in the periodic range, so
//! g(a') ⊕ g(m − a') = g(a) ⊕ g(m − a), and a' comes first in the order.
//! So the first a with a given value, if any, is below p + q, and the
//! search looks at a = 1 … min(m/2, p + q − 1). Without a proven period
//! it looks at all of 1 … m/2, from the table. The argument holds for any
//! test of the two parts' values, not only their XOR. (In Grundy's game
//! a ≠ m − a: the pair (a', m − a') above is unequal too, and a < m/2.)

use super::game::{LEAVE_NOTHING, LEAVE_ONE, LEAVE_TWO};
use super::Sequence;

/// The size of a heap to move on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeapSize {
    /// A heap of this many tokens.
    Exact(u64),
    /// A heap of 2^64 tokens or more, of which only h mod q is known (q the
    /// proven period; every part of it past the preperiod follows the
    /// residue).
    Huge {
        /// h mod q.
        residue: u64,
    },
}

/// The size of a part a move leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartSize {
    /// This many tokens.
    Exact(u64),
    /// The heap's size h less this many tokens (for a huge heap, so the
    /// caller can write the number out).
    HeapMinus(u64),
}

/// What the move found leaves, with the parts' values (Grundy values, or
/// misère classes under [`first_option_where`] on a quotient's classes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoundLeave {
    /// No heap.
    Nothing,
    /// One heap.
    One {
        /// Its size.
        size: PartSize,
        /// Its value.
        grundy: u16,
    },
    /// Two heaps.
    Two {
        /// The smaller part's size.
        smaller: u64,
        /// The smaller part's value.
        smaller_grundy: u16,
        /// The larger part's size (or the equal one's).
        larger: PartSize,
        /// The larger part's value.
        larger_grundy: u16,
    },
}

/// A move found by [`first_option`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FoundMove {
    /// The tokens taken.
    pub take: u64,
    /// What is left.
    pub leave: FoundLeave,
}

/// A heap seen through its game's sequence.
struct Heap<'s> {
    sequence: &'s Sequence,
    size: HeapSize,
}

/// The first option of `heap` (in the order of SPEC section 8) whose
/// value is `target`, or `None` when no option has it.
///
/// Also `None` when the values of the heap's options are unknown: an exact
/// heap past the computed values, or a huge heap, with no proven period
/// (the caller checks that first), and a huge Nim heap.
///
/// ```
/// use nimstream::games::{first_option, FoundLeave, Game, HeapSize, PartSize, Sequence};
///
/// let sequence = Sequence::compute(&"kayles".parse::<Game>()?, 1 << 20)?;
/// // Kayles rows of 7 and 1 pins have values 2 and 1, so G = 3 and the
/// // move on the 7 goes to value 2 ⊕ 3 = 1: knock out two pins, leaving
/// // rows of 2 and 3 (values 2 and 3).
/// let found = first_option(&sequence, HeapSize::Exact(7), 2 ^ 3).unwrap();
/// assert_eq!(found.take, 2);
/// assert_eq!(found.leave, FoundLeave::Two {
///     smaller: 2, smaller_grundy: 2, larger: PartSize::Exact(3), larger_grundy: 3,
/// });
/// # Ok::<(), nimstream::games::GameError>(())
/// ```
pub fn first_option(sequence: &Sequence, heap: HeapSize, target: u16) -> Option<FoundMove> {
    match sequence.game().take_rules() {
        Some(_) => first_option_where(sequence, heap, |values| {
            values.iter().fold(0, |sum, value| sum ^ value) == target
        }),
        None => nim_option(heap, target),
    }
}

/// The first option of `heap` (in the order of SPEC section 8) whose
/// parts' values (none, one, or the smaller part's and the larger's, as
/// `sequence` gives them) pass `wanted`, or `None` when no option does,
/// the values of its options are unknown (as for [`first_option`]), or
/// the game is Nim (its options are not listed).
///
/// ```
/// use nimstream::games::{first_option_where, misere::Quotient, FoundLeave, Game, HeapSize};
///
/// // Misère 0.75: a lone heap of 5 (class c) moves to a P-position by
/// // taking one token and leaving two heaps of 2 (b · b = b², in the
/// // P-portion).
/// let q = Quotient::compute(&"octal:0.75".parse::<Game>()?, 4096)?;
/// let classes = q.as_sequence();
/// let found = first_option_where(&classes, HeapSize::Exact(5), |parts| {
///     q.is_p(parts.iter().fold(0, |product, &class| q.mul(product, class)))
/// })
/// .unwrap();
/// assert_eq!(found.take, 1);
/// assert!(matches!(found.leave, FoundLeave::Two { smaller: 2, .. }));
/// # Ok::<(), nimstream::games::GameError>(())
/// ```
pub fn first_option_where(
    sequence: &Sequence,
    heap: HeapSize,
    wanted: impl Fn(&[u16]) -> bool,
) -> Option<FoundMove> {
    let rules = sequence.game().take_rules()?;
    let heap = Heap {
        sequence,
        size: heap,
    };
    if !heap.is_known() {
        return None;
    }
    rules
        .iter()
        .find_map(|&(take, digit)| heap.option_of_take(take, digit, &wanted))
}

/// The one Nim option with value `target`: leave `target` tokens.
fn nim_option(heap: HeapSize, target: u16) -> Option<FoundMove> {
    let HeapSize::Exact(size) = heap else {
        return None;
    };
    let left = u64::from(target);
    let leave = match left {
        0 => FoundLeave::Nothing,
        _ => FoundLeave::One {
            size: PartSize::Exact(left),
            grundy: target,
        },
    };
    (left < size).then(|| FoundMove {
        take: size - left,
        leave,
    })
}

impl Heap<'_> {
    /// Whether the values of every option of the heap are known.
    fn is_known(&self) -> bool {
        match self.size {
            HeapSize::Exact(size) => self.sequence.value(size).is_some(),
            HeapSize::Huge { .. } => self.sequence.period().is_some(),
        }
    }

    /// The size of the heap less `tokens`, `None` if that is below 0.
    fn minus(&self, tokens: u64) -> Option<PartSize> {
        match self.size {
            HeapSize::Exact(size) => size.checked_sub(tokens).map(PartSize::Exact),
            HeapSize::Huge { .. } => Some(PartSize::HeapMinus(tokens)),
        }
    }

    /// The value of a part of size `part`.
    fn value_of(&self, part: PartSize) -> Option<u16> {
        match (part, self.size) {
            (PartSize::Exact(size), _) => self.sequence.value(size),
            (PartSize::HeapMinus(tokens), HeapSize::Huge { residue }) => {
                let period = self.sequence.period()?.period;
                let residue = (residue % period + period - tokens % period) % period;
                self.sequence.value_at_residue(residue)
            }
            (PartSize::HeapMinus(tokens), HeapSize::Exact(size)) => {
                self.sequence.value(size - tokens)
            }
        }
    }

    /// The first move taking `take` tokens, allowed by `digit`, whose
    /// parts' values pass `wanted`.
    fn option_of_take(
        &self,
        take: u64,
        digit: u8,
        wanted: &impl Fn(&[u16]) -> bool,
    ) -> Option<FoundMove> {
        let rest = self.minus(take)?;
        let found = |leave| Some(FoundMove { take, leave });
        if rest == PartSize::Exact(0) {
            return match digit & LEAVE_NOTHING != 0 && wanted(&[]) {
                true => found(FoundLeave::Nothing),
                false => None,
            };
        }
        if digit & LEAVE_ONE != 0 {
            let grundy = self.value_of(rest)?;
            if wanted(&[grundy]) {
                return found(FoundLeave::One { size: rest, grundy });
            }
        }
        if digit & LEAVE_TWO != 0 {
            return self.first_split(take, rest, wanted).and_then(found);
        }
        None
    }

    /// The first split of the `rest` left by taking `take` into two
    /// non-empty parts whose values pass `wanted`.
    fn first_split(
        &self,
        take: u64,
        rest: PartSize,
        wanted: &impl Fn(&[u16]) -> bool,
    ) -> Option<FoundLeave> {
        let window = self
            .sequence
            .period()
            .map_or(u64::MAX, |period| period.preperiod + period.period - 1);
        let last = match rest {
            PartSize::Exact(size) => {
                let largest = self.sequence.game().largest_smaller_part(size);
                largest.min(window)
            }
            PartSize::HeapMinus(_) => window,
        };
        (1..=last).find_map(|smaller| {
            let larger = self.minus(take + smaller)?;
            let smaller_grundy = self.sequence.value(smaller)?;
            let larger_grundy = self.value_of(larger)?;
            wanted(&[smaller_grundy, larger_grundy]).then_some(FoundLeave::Two {
                smaller,
                smaller_grundy,
                larger,
                larger_grundy,
            })
        })
    }
}
