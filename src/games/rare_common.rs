//! The mex engine: g(h) for h = 0, 1, 2, … of a subtraction or octal game,
//! each from the values before it, with Winning Ways' rare/common split
//! ("sparse space spells speed") for the moves that split a heap.
//!
//! Moves that leave no heap or one heap cost O(k) per value. A split of
//! m = h − t tokens into (a, m − a) has m/2 options, so the plain mex loop
//! is quadratic: `octal:0.16` needs 510,000 values and ~6·10^10 pairs.
//! The split: a mask M divides the values into two classes by the parity
//! of the bits of v & M, and the class of g(a) ⊕ g(b) is the sum of the
//! classes. For the sparse games the class of 0, called *rare* here, holds
//! only a few hundred heaps; every other heap is *common*. Then
//!
//! - a *common* value can only come from a pair with exactly one rare
//!   part, and the rare heaps are listed: every such pair is enumerated, so
//!   an unmarked common candidate is the mex at once;
//! - a *rare* value comes from two common parts (or two rare ones, also
//!   enumerated): the pairs are scanned, a = 1, 2, … for every split take
//!   at once (a block of 8 values of a at a time), marking every value
//!   seen, only until the candidate is seen. The common pairs make every
//!   rare value below g(h) quickly, so a scan runs to its end only when
//!   g(h) itself is rare, which is rare.
//!
//! Any mask gives the right values (with M = 0 every candidate is rare
//! and the engine is the plain loop that stops early); the mask only
//! decides the speed. It is chosen as the M that makes the fewest heaps
//! rare by the values' histogram (a Walsh–Hadamard transform of the
//! histogram gives that count for every M at once), kept only when at
//! most a quarter of the heaps are rare. It is chosen again at doubling
//! heap counts, and sooner when more than one new heap in 8 is rare (the
//! values drift in games whose values grow); the histogram is halved at
//! each choice, so recent heaps weigh more.
//!
//! Memory besides the 2-byte values: the rare positions (8 bytes each),
//! and per possible value a mark (8 bytes) and a count (8 bytes), at most
//! 65,536 of each.

use super::game::{LEAVE_NOTHING, LEAVE_ONE, LEAVE_TWO};
use super::GameError;

/// The smaller parts a scan looks at, for every split take, before it
/// checks whether it has seen its candidate.
const SCAN_BLOCK: usize = 8;

/// The heap count at which the mask is first chosen.
const FIRST_REVIEW: usize = 256;

/// The takes of a game, by what they leave.
struct Takes {
    /// Takes that may leave no heap (t = h).
    nothing: Vec<usize>,
    /// Takes that may leave one heap (t < h), ascending.
    one: Vec<usize>,
    /// Takes that may leave two non-empty heaps, ascending.
    two: Vec<usize>,
}

/// The values of the options of the heap being computed, as the stamp of
/// that heap against each value.
struct Marks {
    stamps: Vec<u64>,
    stamp: u64,
}

/// The rare/common split: the mask, the rare heaps and the histogram the
/// mask is chosen from.
struct RareCommon {
    /// The class mask M; 0 when the split is off.
    mask: u16,
    /// The heaps h ≥ 1 whose value is rare, ascending; empty when M = 0.
    rare: Vec<usize>,
    /// How many heaps h ≥ 1 have each value, halved at each review.
    counts: Vec<u64>,
    /// The heap count at which the mask is chosen again.
    next_review: usize,
    /// The length of `rare` when the mask was last chosen.
    rare_at_review: usize,
    /// The heap count when the mask was last chosen.
    heaps_at_review: usize,
}

/// Computes a game's values one heap at a time.
pub(crate) struct ValueEngine {
    takes: Takes,
    values: Vec<u16>,
    /// One above the largest value so far, rounded up to a power of two:
    /// every option's value is below it, and the mex at most it.
    value_limit: usize,
    marks: Marks,
    split: RareCommon,
    /// The next smaller part a the scan of every split take looks at.
    cursor: usize,
}

impl ValueEngine {
    /// An engine for the game with these (t, digit) take rules (see
    /// `Game::take_rules`), with no values yet.
    pub(crate) fn new(rules: &[(u64, u8)]) -> ValueEngine {
        let takes_with = |bit: u8| -> Vec<usize> {
            rules
                .iter()
                .filter(|&&(_, digit)| digit & bit != 0)
                .map(|&(take, _)| take as usize)
                .collect()
        };
        let takes = Takes {
            nothing: takes_with(LEAVE_NOTHING),
            one: takes_with(LEAVE_ONE),
            two: takes_with(LEAVE_TWO),
        };
        ValueEngine {
            takes,
            values: Vec::new(),
            value_limit: 1,
            marks: Marks {
                stamps: vec![0; 2],
                stamp: 0,
            },
            split: RareCommon {
                mask: 0,
                rare: Vec::new(),
                counts: vec![0; 1],
                next_review: FIRST_REVIEW,
                rare_at_review: 0,
                heaps_at_review: 0,
            },
            cursor: 1,
        }
    }

    /// The values computed so far, g(0) first.
    pub(crate) fn values(&self) -> &[u16] {
        &self.values
    }

    /// The values computed, given up.
    pub(crate) fn into_values(self) -> Vec<u16> {
        self.values
    }

    /// Computes the next value, g(h) for h = the number of values so far.
    ///
    /// Fails when the value is past 65,535.
    pub(crate) fn push_next(&mut self) -> Result<(), GameError> {
        let heap = self.values.len();
        self.marks.stamp += 1;
        self.mark_single_heaps(heap);
        self.mark_rare_pairs(heap);
        self.cursor = 1;
        let value = self.mex(heap)?;
        self.push(value);
        Ok(())
    }

    /// Marks the values of the moves that leave no heap or one heap.
    fn mark_single_heaps(&mut self, heap: usize) {
        if self.takes.nothing.contains(&heap) {
            self.marks.mark(0);
        }
        for &take in self.takes.one.iter().take_while(|&&take| take < heap) {
            self.marks.mark(self.values[heap - take]);
        }
    }

    /// Marks the values of every split whose parts include a rare heap.
    fn mark_rare_pairs(&mut self, heap: usize) {
        for &take in &self.takes.two {
            let Some(rest) = heap.checked_sub(take) else {
                break;
            };
            for &rare in self.split.rare.iter().take_while(|&&rare| rare < rest) {
                self.marks
                    .mark(self.values[rare] ^ self.values[rest - rare]);
            }
        }
    }

    /// The least value of no option of `heap`.
    fn mex(&mut self, heap: usize) -> Result<u16, GameError> {
        let mut candidate = 0;
        while self.marks.is_marked(candidate)
            || (!self.split.is_common(candidate) && self.scan_for(heap, candidate))
        {
            candidate += 1;
        }
        u16::try_from(candidate).map_err(|_| {
            GameError::new(format!(
                "the Grundy value of heap {heap} is past 65535, the largest value a table holds"
            ))
        })
    }

    /// Goes on scanning the splits of `heap`, marking every value seen,
    /// until `candidate` is seen (true) or every split was seen (false).
    fn scan_for(&mut self, heap: usize, candidate: usize) -> bool {
        while !self.marks.is_marked(candidate) {
            let block = self.cursor..self.cursor + SCAN_BLOCK;
            let mut scanned = false;
            for &take in &self.takes.two {
                let Some(rest) = heap.checked_sub(take) else {
                    break;
                };
                for smaller in block.start..block.end.min(rest / 2 + 1) {
                    scanned = true;
                    self.marks
                        .mark(self.values[smaller] ^ self.values[rest - smaller]);
                }
            }
            if !scanned {
                return false;
            }
            self.cursor = block.end;
        }
        true
    }

    /// Appends `value` as the next heap's, growing the per-value tables
    /// and reviewing the mask when due.
    fn push(&mut self, value: u16) {
        let heap = self.values.len();
        self.values.push(value);
        if usize::from(value) >= self.value_limit {
            self.value_limit = (usize::from(value) + 1).next_power_of_two();
            self.marks.stamps.resize(self.value_limit + 1, 0);
            self.split.counts.resize(self.value_limit, 0);
        }
        if heap > 0 {
            self.split.record(heap, value);
        }
        if self.split.review_due(self.values.len()) {
            self.split.review(&self.values);
        }
    }
}

impl Marks {
    /// Marks `value` as the value of an option of the current heap.
    fn mark(&mut self, value: u16) {
        self.stamps[usize::from(value)] = self.stamp;
    }

    /// Whether `value` is the value of an option of the current heap.
    fn is_marked(&self, value: usize) -> bool {
        self.stamps[value] == self.stamp
    }
}

impl RareCommon {
    /// Whether `value` is common (never, with the split off).
    fn is_common(&self, value: usize) -> bool {
        (value & usize::from(self.mask)).count_ones() % 2 == 1
    }

    /// Counts the value of `heap` (≥ 1), listing the heap if it is rare.
    fn record(&mut self, heap: usize, value: u16) {
        self.counts[usize::from(value)] += 1;
        if self.mask != 0 && !self.is_common(usize::from(value)) {
            self.rare.push(heap);
        }
    }

    /// Whether the mask is to be chosen again, with `heaps` values known.
    fn review_due(&self, heaps: usize) -> bool {
        heaps >= self.next_review
            || (self.rare.len() - self.rare_at_review) * 8
                > heaps - self.heaps_at_review + FIRST_REVIEW
    }

    /// Chooses the mask for `values` and lists the rare heaps under it.
    fn review(&mut self, values: &[u16]) {
        let mask = best_mask(&self.counts);
        if mask != self.mask {
            self.mask = mask;
            self.rare = match mask {
                0 => Vec::new(),
                _ => (1..values.len())
                    .filter(|&heap| !self.is_common(usize::from(values[heap])))
                    .collect(),
            };
        }
        self.next_review = 2 * values.len();
        self.rare_at_review = self.rare.len();
        self.heaps_at_review = values.len();
        self.counts.iter_mut().for_each(|count| *count /= 2);
    }
}

/// The mask making the fewest heaps rare, by `counts` (a power-of-two
/// length), or 0 when even that mask leaves more than a quarter rare.
///
/// The transform F(M) = Σ_v counts\[v\]·(−1)^|v & M| gives, for every M at
/// once, the rare heaps (total + F(M)) / 2.
fn best_mask(counts: &[u64]) -> u16 {
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
    let Some((mask, &least)) = transform
        .iter()
        .enumerate()
        .skip(1)
        .min_by_key(|&(_, &sum)| sum)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_past_65535_is_an_error_naming_the_heap() {
        // Splits without taking: g(a) = a − 1 up to a = 65536 and 0 past
        // it make the splits of heap 131073 take every value below 65536.
        let mut engine = ValueEngine::new(&[(0, LEAVE_TWO)]);
        engine.push(0);
        (0..=u16::MAX).for_each(|value| engine.push(value));
        (0..65536).for_each(|_| engine.push(0));
        let error = engine.push_next().unwrap_err().to_string();
        assert!(error.contains("heap 131073 is past 65535"), "{error}");
    }

    #[test]
    fn the_mask_makes_the_fewest_heaps_rare() {
        // Values 2 and 3 common, 0 and 1 rare: mask 2 (3 would make 1 and
        // 2 common, 3 rare).
        assert_eq!(best_mask(&[1, 2, 50, 40]), 2);
        // Evenly spread values have no sparse split.
        assert_eq!(best_mask(&[10, 10, 10, 10]), 0);
        assert_eq!(best_mask(&[5]), 0);
    }
}
