//! What a run counts as its values go by: how many heaps hold each value,
//! the last heap that held it, the largest value; from these, at the end,
//! the rare values (SPEC section 13).
//!
//! The rare values are defined from the counts alone, the same way
//! whatever the engine did on the way: the class mask M is the one that
//! puts the fewest heaps 1 … n − 1 in the class of 0 (the engine's choice,
//! `rare_common::best_mask`, on the whole histogram), kept when that class
//! holds at most a quarter of them; the rare values are the values of that
//! class that some heap holds, and the last rare heap the last heap that
//! holds one. A sequence with no such mask has no rare values.

use crate::games::rare_common::best_mask;
use std::fmt::Write;

/// Counts of the values of heaps 1, 2, … as they are computed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ValueStats {
    /// How many heaps h ≥ 1 hold each value.
    counts: Vec<u64>,
    /// The last heap h ≥ 1 that holds each value (0: none).
    last_heap: Vec<u64>,
}

/// The rare values of a sequence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RareValues {
    /// The class mask M: v is rare when v & M has an even number of bits.
    pub mask: u16,
    /// The rare values some heap h ≥ 1 holds, ascending.
    pub values: Vec<u16>,
    /// The last heap h ≥ 1 whose value is rare, if any.
    pub last_rare_heap: Option<u64>,
}

impl ValueStats {
    /// Counts g(`heap`) = `value`, for heap ≥ 1.
    #[inline]
    pub(crate) fn count(&mut self, heap: u64, value: u16) {
        let v = usize::from(value);
        if v >= self.counts.len() {
            let len = (v + 1).next_power_of_two();
            self.counts.resize(len, 0);
            self.last_heap.resize(len, 0);
        }
        self.counts[v] += 1;
        self.last_heap[v] = heap;
    }

    /// How many heaps hold each value, value 0 first (up to the largest).
    pub(crate) fn counts(&self) -> &[u64] {
        let used = self
            .counts
            .iter()
            .rposition(|&c| c > 0)
            .map_or(0, |v| v + 1);
        &self.counts[..used]
    }

    /// The largest value counted (0 when none was).
    pub(crate) fn largest(&self) -> u16 {
        self.counts().len().saturating_sub(1) as u16
    }

    /// The lines `value count` of every value some heap holds, under a
    /// line `# heaps 2^k`: the frequencies of heaps 1 … 2^k once heap 2^k
    /// is counted.
    pub(crate) fn frequencies_text(&self, k: u32) -> String {
        let mut text = format!("# heaps 2^{k}\n");
        for (value, &count) in self.counts().iter().enumerate() {
            if count > 0 {
                let _ = writeln!(text, "{value} {count}");
            }
        }
        text
    }

    /// The rare values, by the mask that makes the fewest heaps rare, or
    /// `None` when no mask makes at most a quarter of them rare.
    pub(crate) fn rare(&self) -> Option<RareValues> {
        let counts = self.counts();
        if counts.is_empty() {
            return None;
        }
        let mut padded = counts.to_vec();
        padded.resize(counts.len().next_power_of_two().max(2), 0);
        let mask = best_mask(&padded);
        if mask == 0 {
            return None;
        }
        let rare: Vec<u16> = (counts.iter().enumerate())
            .map(|(value, &count)| (value as u16, count))
            .filter(|&(value, count)| count > 0 && (value & mask).count_ones().is_multiple_of(2))
            .map(|(value, _)| value)
            .collect();
        let last_rare_heap = rare.iter().map(|&v| self.last_heap[usize::from(v)]).max();
        Some(RareValues {
            mask,
            values: rare,
            last_rare_heap,
        })
    }

    /// The state saved in a checkpoint: the counts and last heaps.
    pub(crate) fn parts(&self) -> (&[u64], &[u64]) {
        (&self.counts, &self.last_heap)
    }

    /// Stats restored from a checkpoint's parts (of equal length).
    pub(crate) fn from_parts(counts: Vec<u64>, last_heap: Vec<u64>) -> ValueStats {
        ValueStats { counts, last_heap }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_frequencies_and_rare_values_follow_the_heaps() {
        let mut stats = ValueStats::default();
        // Values 2 and 3 common (mask 2), 0 and 1 rare.
        let values = [2, 3, 2, 0, 3, 2, 3, 3, 2, 1, 3, 2];
        for (heap, &value) in (1u64..).zip(&values) {
            stats.count(heap, value);
        }
        assert_eq!(stats.counts(), [1, 1, 5, 5]);
        assert_eq!(stats.largest(), 3);
        assert_eq!(
            stats.frequencies_text(3),
            "# heaps 2^3\n0 1\n1 1\n2 5\n3 5\n"
        );
        let rare = stats.rare().unwrap();
        assert_eq!(
            rare,
            RareValues {
                mask: 2,
                values: vec![0, 1],
                last_rare_heap: Some(10),
            }
        );
        let mut even = ValueStats::default();
        (1u64..=8).for_each(|heap| even.count(heap, (heap % 4) as u16));
        assert_eq!(even.rare(), None);
        assert_eq!(ValueStats::default().rare(), None);
    }
}
