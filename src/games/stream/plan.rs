//! How many values a streamed run keeps under `--memory`: the prefix (P
//! values from g(0)) and the ring of the last values (R), and, the other
//! way, the `--memory` that keeps what a stopped proof needed.
//!
//! The bytes: 2 a value of the prefix, 4 a value of the ring (written
//! twice), and 4 a value of the window a period check reads (the Z array
//! of `period.rs`: the whole prefix while it holds every value, the ring
//! after), so 10 a value with P = R. A reserve covers the rest of the
//! process: the program, the per-value tables, the output buffers (16 MiB,
//! or half of a smaller budget).

use crate::games::rare_common::SHORTCUT;

/// What the rest of the process takes, at most.
const RESERVE: u64 = 16 << 20;

/// The bytes each kept value costs, P = R.
const BYTES_PER_VALUE: u64 = 10;

/// The fewest values a run keeps at each end.
pub const MIN_KEPT: u64 = 64;

/// How many values a streamed run keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// P: the prefix g(0) … g(P − 1).
    pub prefix: u64,
    /// R: the last R values.
    pub ring: u64,
}

impl Limits {
    /// What `bytes` of memory keep: P = R, the most the budget holds, or
    /// `None` when that is below [`MIN_KEPT`].
    ///
    /// ```
    /// use nimstream::games::stream::Limits;
    ///
    /// let limits = Limits::for_memory(256 << 20).unwrap();
    /// assert_eq!(limits.prefix, limits.ring);
    /// assert!(limits.memory() <= 256 << 20 && limits.prefix > 20 << 20);
    /// assert_eq!(Limits::for_memory(1000), None);
    /// ```
    pub fn for_memory(bytes: u64) -> Option<Limits> {
        let reserve = RESERVE.min(bytes / 2);
        let kept = (bytes - reserve) / BYTES_PER_VALUE;
        (kept >= MIN_KEPT).then_some(Limits {
            prefix: kept,
            ring: kept,
        })
    }

    /// The memory these limits take, the reserve included.
    pub fn memory(&self) -> u64 {
        let kept = 2 * self.prefix + 4 * self.ring + 4 * self.prefix.max(self.ring);
        kept + RESERVE.min(kept)
    }

    /// The least `--memory` whose limits keep g(`heap`) for the proof of
    /// heap n: in the prefix (P > `heap`) or in the ring (R ≥ n − `heap`),
    /// whichever takes less, with an eighth more for the heaps after
    /// (a walk reads both ends about as far), and at least the block's
    /// `SHORTCUT` parts of the block pass; rounded up to a MiB.
    pub fn memory_to_keep(heap: u64, n: u64) -> u64 {
        let needed = (heap + 1).min(n - heap);
        let kept = (needed + needed / 8 + MIN_KEPT).max(SHORTCUT + 8 + MIN_KEPT);
        let limits = Limits {
            prefix: kept,
            ring: kept,
        };
        limits.memory().next_multiple_of(1 << 20)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_holds_what_it_keeps_and_the_suggestion_keeps_enough() {
        for bytes in [64 << 10, 1 << 20, 17 << 20, 256 << 20, 1 << 30] {
            let limits = Limits::for_memory(bytes).unwrap();
            assert!(limits.memory() <= bytes, "{bytes}");
            assert!(Limits::for_memory(bytes + (1 << 20)).unwrap().prefix >= limits.prefix);
        }
        for (heap, n) in [
            (5_000_000, 10_000_000),
            (10, 9_000_000),
            (8_999_000, 9_000_000),
        ] {
            let memory = Limits::memory_to_keep(heap, n);
            let limits = Limits::for_memory(memory).unwrap();
            assert!(
                limits.prefix > heap || limits.ring >= n - heap,
                "{heap} {n}"
            );
        }
    }
}
