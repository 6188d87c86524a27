//! The survey: what one pass learns about the heaps without looking at
//! their bits beyond the length: counts, the longest heap, and where the
//! first 1-heap and the first heap ≥ 2 are (the misère moves need them).
//!
//! Surveys of consecutive pieces of an input merge associatively.

use super::rules::Counts;
use crate::input::HeapPos;

/// Counts and landmarks of an instance (or of a piece of one).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Survey {
    /// All heaps.
    pub heaps: u64,
    /// Heaps > 0.
    pub nonzero: u64,
    /// Heaps = 1.
    pub ones: u64,
    /// Heaps ≥ 2.
    pub big: u64,
    /// The longest heap's bit length (0 when every heap is 0).
    pub max_bit_length: u64,
    /// The first heap equal to 1.
    pub first_one: Option<HeapPos>,
    /// The first heap of size 2 or more.
    pub first_big: Option<HeapPos>,
}

impl Survey {
    /// Counts one heap of `bits` bits, the `index`-th, at `offset`.
    #[inline]
    pub fn record_length(&mut self, index: u64, offset: u64, bits: u64) {
        self.heaps += 1;
        self.max_bit_length = self.max_bit_length.max(bits);
        let pos = HeapPos { index, offset };
        match bits {
            0 => {}
            1 => {
                self.nonzero += 1;
                self.ones += 1;
                self.first_one.get_or_insert(pos);
            }
            _ => {
                self.nonzero += 1;
                self.big += 1;
                self.first_big.get_or_insert(pos);
            }
        }
    }

    /// Appends the survey of the piece that follows this one.
    pub fn merge(&mut self, later: &Survey) {
        self.heaps += later.heaps;
        self.nonzero += later.nonzero;
        self.ones += later.ones;
        self.big += later.big;
        self.max_bit_length = self.max_bit_length.max(later.max_bit_length);
        self.first_one = self.first_one.or(later.first_one);
        self.first_big = self.first_big.or(later.first_big);
    }

    /// Appends the survey of the piece that follows this one, whose heap
    /// indices were counted from 0 rather than from `heaps_before`.
    pub fn merge_after(&mut self, later: &Survey, heaps_before: u64) {
        let shift = |pos: Option<HeapPos>| {
            pos.map(|p| HeapPos {
                index: p.index + heaps_before,
                offset: p.offset,
            })
        };
        let later = Survey {
            first_one: shift(later.first_one),
            first_big: shift(later.first_big),
            ..later.clone()
        };
        self.merge(&later);
    }

    /// The counts the rules need.
    pub fn counts(&self) -> Counts {
        Counts {
            ones: self.ones,
            big: self.big,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(survey: &mut Survey, index: usize, value: u128) {
        let bits = u64::from(128 - value.leading_zeros());
        survey.record_length(index as u64, 10 * index as u64, bits);
    }

    #[test]
    fn merging_two_halves_equals_surveying_the_whole() {
        let values = [0u128, 1, 5, 1, 0, 9];
        let mut whole = Survey::default();
        for (i, &v) in values.iter().enumerate() {
            record(&mut whole, i, v);
        }
        let mut first = Survey::default();
        let mut second = Survey::default();
        for (i, &v) in values.iter().enumerate() {
            let half = if i < 3 { &mut first } else { &mut second };
            record(half, i, v);
        }
        first.merge(&second);
        assert_eq!(first, whole);
        assert_eq!(
            whole.first_big,
            Some(HeapPos {
                index: 2,
                offset: 20
            })
        );
        assert_eq!((whole.ones, whole.big, whole.nonzero), (2, 2, 4));
    }
}
