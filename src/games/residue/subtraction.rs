//! h − s for a heap h of any length and a small s, limb by limb, without
//! holding h.
//!
//! Subtracting s < 2^64 changes limb 0, and, when limb 0 borrows, the run
//! of zero limbs above it (each becomes 2^64 − 1) and the first non-zero
//! limb k above it (one less); every other limb is h's. So what a move on
//! a huge heap needs from the heap is O(1): limb 0, limb k and its index,
//! and the top limb and its index for the bit length. [`BorrowLimbs`]
//! gathers them from limbs seen in any order; [`SmallSubtraction`] then
//! turns any limb of h, or a window of them, into the same limbs of h − s.

use crate::input::HeapValue;

/// What subtracting a small number from a heap needs to know of the heap:
/// its limb 0, its lowest non-zero limb above limb 0, and its highest
/// non-zero limb, each with its index. Gathered in O(1) space from the
/// heap's limbs pushed in any order (each at most once), or from a
/// [`HeapValue`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BorrowLimbs {
    /// Limb 0.
    low: u64,
    /// The index and value of the lowest non-zero limb above limb 0.
    lowest_above: Option<(u64, u64)>,
    /// The index and value of the highest non-zero limb.
    top: Option<(u64, u64)>,
}

impl BorrowLimbs {
    /// The limbs of the heap 0 (push the others to change it).
    pub fn new() -> Self {
        BorrowLimbs::default()
    }

    /// Takes note of limb `index` of the heap.
    pub fn push(&mut self, index: u64, limb: u64) {
        if index == 0 {
            self.low = limb;
        }
        if limb == 0 {
            return;
        }
        if index > 0 && self.lowest_above.is_none_or(|(lowest, _)| index < lowest) {
            self.lowest_above = Some((index, limb));
        }
        if self.top.is_none_or(|(top, _)| index > top) {
            self.top = Some((index, limb));
        }
    }

    /// The limbs of `value`, read with [`HeapValue::limb`]: limb 0, the top
    /// limb, and the limbs between up to the first non-zero one.
    pub fn of_heap(value: &HeapValue<'_>) -> Self {
        let mut limbs = BorrowLimbs::new();
        let count = value.bit_length().div_ceil(64);
        limbs.push(0, value.limb(0));
        if count > 1 {
            limbs.push(count - 1, value.limb(count - 1));
        }
        if let Some((index, limb)) = (1..count)
            .map(|i| (i, value.limb(i)))
            .find(|&(_, l)| l != 0)
        {
            limbs.push(index, limb);
        }
        limbs
    }

    /// The heap's bit length.
    pub fn bit_length(&self) -> u64 {
        self.top
            .map_or(0, |(index, limb)| 64 * index + bit_length(limb))
    }
}

/// The bit length of a limb.
fn bit_length(limb: u64) -> u64 {
    u64::from(64 - limb.leading_zeros())
}

/// h − s for a heap h seen through its [`BorrowLimbs`] and a number s
/// below 2^64: any limb of the difference from the same limb of h, and the
/// difference's bit length.
///
/// ```
/// use nimstream::games::residue::{BorrowLimbs, SmallSubtraction};
///
/// // h = 2^128 (limbs 0, 0, 1); h − 3 = 2^128 − 3.
/// let mut h = BorrowLimbs::new();
/// h.push(2, 1);
/// let difference = SmallSubtraction::new(&h, 3).expect("h ≥ 3");
/// let limbs: Vec<u64> = [0, 0, 1].iter().zip(0..).map(|(&l, i)| difference.limb(i, l)).collect();
/// assert_eq!(limbs, [u64::MAX - 2, u64::MAX, 0]);
/// assert_eq!(difference.bit_length(), 128);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmallSubtraction {
    /// Limb 0 of the difference.
    low: u64,
    /// When limb 0 borrows: the index k of the limb that stops the borrow
    /// and that limb of the difference (limbs 1 .. k are all ones).
    borrow: Option<(u64, u64)>,
    /// The difference's bit length.
    bits: u64,
}

impl SmallSubtraction {
    /// h − s, or `None` when s > h.
    pub fn new(heap: &BorrowLimbs, s: u64) -> Option<Self> {
        let (low, borrows) = heap.low.overflowing_sub(s);
        let borrow = match (borrows, heap.lowest_above) {
            (false, _) => None,
            (true, None) => return None,
            (true, Some((index, limb))) => Some((index, limb - 1)),
        };
        let mut difference = SmallSubtraction {
            low,
            borrow,
            bits: 0,
        };
        difference.bits = difference.bit_length_of(heap);
        Some(difference)
    }

    /// Limb `index` of h − s, given limb `index` of h.
    #[inline]
    pub fn limb(&self, index: u64, heap_limb: u64) -> u64 {
        match self.borrow {
            _ if index == 0 => self.low,
            Some((stop, _)) if index < stop => u64::MAX,
            Some((stop, limb)) if index == stop => limb,
            _ => heap_limb,
        }
    }

    /// Turns `window`, limbs `first ..` of h, into the same limbs of h − s.
    pub fn apply(&self, first: u64, window: &mut [u64]) {
        for (slot, index) in window.iter_mut().zip(first..) {
            *slot = self.limb(index, *slot);
        }
    }

    /// The bit length of h − s.
    pub fn bit_length(&self) -> u64 {
        self.bits
    }

    /// The bit length of h − s: h's, unless the top limb of h is among
    /// the limbs the subtraction changed; then that of the highest
    /// non-zero limb among them.
    fn bit_length_of(&self, heap: &BorrowLimbs) -> u64 {
        let changed_up_to = self.borrow.map_or(0, |(stop, _)| stop);
        match heap.top {
            Some((top, _)) if top > changed_up_to => heap.bit_length(),
            _ => match self.borrow {
                Some((stop, limb)) if limb != 0 => 64 * stop + bit_length(limb),
                Some((stop, _)) if stop > 1 => 64 * stop,
                _ => bit_length(self.low),
            },
        }
    }
}
