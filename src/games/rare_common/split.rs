//! The rare/common split of the values (see the module documentation of
//! [`super`]): the mask, the rare heaps, and the histogram the mask is
//! chosen from, by a Walsh–Hadamard transform ([`best_mask`]).

use super::FIRST_REVIEW;

/// The rare/common split: the mask, the rare heaps and the histogram the
/// mask is chosen from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct RareCommon {
    /// The class mask M; 0 when the split is off.
    pub(super) mask: u16,
    /// The heaps h ≥ 1 whose value is rare, ascending.
    pub(super) rare_heaps: Vec<u64>,
    /// Their values.
    pub(super) rare_values: Vec<u16>,
    /// How many heaps h ≥ 1 have each value, halved at each review.
    pub(super) counts: Vec<u64>,
    /// The heap count at which the mask is chosen again.
    pub(super) next_review: u64,
    /// The number of rare heaps when the mask was last chosen.
    pub(super) rare_at_review: u64,
    /// The heap count when the mask was last chosen.
    pub(super) heaps_at_review: u64,
}

/// Whether `value` is common under `mask` (never, with the split off).
pub(super) fn is_common(mask: u16, value: u16) -> bool {
    (value & mask).count_ones() % 2 == 1
}

impl RareCommon {
    /// Whether `value` is common.
    pub(super) fn is_common(&self, value: u16) -> bool {
        is_common(self.mask, value)
    }

    /// Whether the mask is to be chosen again, with `heaps` values known.
    pub(super) fn review_due(&self, heaps: u64) -> bool {
        heaps >= self.next_review
            || (self.rare_heaps.len() as u64 - self.rare_at_review) * 8
                > heaps - self.heaps_at_review + FIRST_REVIEW
    }

    /// Chooses the mask for `values` (all below `limit`) and lists the
    /// rare heaps under it; returns the mask.
    pub(super) fn review(&mut self, values: &[u16], limit: usize) -> u16 {
        let mask = match best_mask(&self.counts) {
            0 => 0,
            low => low | !((limit - 1) as u16),
        };
        if mask != self.mask {
            self.mask = mask;
            self.rare_heaps.clear();
            self.rare_values.clear();
            if mask != 0 {
                for (heap, &value) in (0u64..).zip(values).skip(1) {
                    if !self.is_common(value) {
                        self.rare_heaps.push(heap);
                        self.rare_values.push(value);
                    }
                }
            }
        }
        let heaps = values.len() as u64;
        self.next_review = 2 * heaps;
        self.rare_at_review = self.rare_heaps.len() as u64;
        self.heaps_at_review = heaps;
        self.counts.iter_mut().for_each(|count| *count /= 2);
        self.mask
    }
}

/// The mask making the fewest heaps rare, by `counts` (a power-of-two
/// length), the largest of those if several do, or 0 when even that mask
/// leaves more than a quarter rare.
///
/// The transform F(M) = Σ_v counts\[v\]·(−1)^|v & M| gives, for every M at
/// once, the rare heaps (total + F(M)) / 2.
pub(crate) fn best_mask(counts: &[u64]) -> u16 {
    let mut transform: Vec<i64> = counts.iter().map(|&count| count as i64).collect();
    let mut width = 1;
    while width < transform.len() {
        for block in transform.chunks_mut(2 * width) {
            let (low, high) = block.split_at_mut(width);
            for (x, y) in low.iter_mut().zip(high) {
                (*x, *y) = (*x + *y, *x - *y);
            }
        }
        width *= 2;
    }
    let total = transform[0];
    // Of masks that make as few heaps rare, the largest: a bit that no
    // value holds yet is then set, so that a value that comes to hold it
    // (as the mex of a common heap) is common.
    let Some((mask, &least)) = transform
        .iter()
        .enumerate()
        .skip(1)
        .min_by_key(|&(mask, &sum)| (sum, std::cmp::Reverse(mask)))
    else {
        return 0;
    };
    let rare = (total + least) / 2;
    if 4 * rare <= total {
        mask as u16
    } else {
        0
    }
}
