//! The search for the least proven period of a value sequence, run at
//! checkpoints as the values come in.
//!
//! **The proofs** (SPEC section 8), with k the most tokens a move takes and
//! p ≥ 1: without splits, g(h + q) = g(h) for k consecutive h ≥ p proves
//! period q from p; with splits (Guy–Smith), g(h + q) = g(h) for all
//! p ≤ h < 2p + q + k. Either way, with n values known, period q is proven
//! from p iff the run of matches g(h) = g(h − q) ending at the last value
//! starts at h = p + q and n reaches [`PeriodSearch::values_needed`].
//!
//! **Every run at once.** Read backwards from the last value, the sequence
//! g(n − 1), g(n − 2), …, g(1) is a word V, and the run of period q is the
//! longest common prefix of V and V shifted by q: the Z-function of V,
//! computed in O(n) for every q together. A check at n takes the least q
//! whose run proves it. That q is the least period of the whole sequence
//! (the least period q0 divides any period and has the same least
//! preperiod, so its run is at least as long and it is proven too), and
//! its run's start is the least preperiod p ≥ 1; the preperiod is 0 when
//! p = 1 and g(q) = g(0).
//!
//! **When to check.** A check that proves nothing knows, for each q, when
//! its run would prove it if no mismatch came: the next check is the
//! earliest of those, and at least n/32 later, so the checks cost O(n) each
//! and O(32 n) in all at worst (a doubling of n each, for a sequence with
//! no long runs), and a period is proven at most n/32 values after it
//! could have been. The Z array takes 4 bytes per value while a check
//! runs, and is freed after.

use super::Period;

/// The fraction of the values known by which a check at least moves the
/// next one on.
const CHECK_SPACING: u64 = 32;

/// When to look for a period, and how.
pub(crate) struct PeriodSearch {
    /// The most tokens a move takes.
    max_take: u64,
    /// Whether the game splits heaps (the Guy–Smith proof).
    splits: bool,
    /// The number of values at which to check next.
    next_check: u64,
}

impl PeriodSearch {
    /// A search for a game whose moves take at most `max_take` tokens and
    /// split heaps when `splits`.
    pub(crate) fn new(max_take: u64, splits: bool) -> PeriodSearch {
        let mut search = PeriodSearch {
            max_take,
            splits,
            next_check: 0,
        };
        search.next_check = search.values_needed(1, 1);
        search
    }

    /// Whether a check is due with `values` values known.
    pub(crate) fn is_due(&self, values: usize) -> bool {
        values as u64 >= self.next_check
    }

    /// The values it takes to prove period `period` from `start` ≥ 1.
    fn values_needed(&self, start: u64, period: u64) -> u64 {
        if self.splits {
            2 * start + 2 * period + self.max_take
        } else {
            start + period + self.max_take
        }
    }

    /// The least period proven by `values` and its least preperiod, or
    /// `None` (and the next check scheduled).
    pub(crate) fn check(&mut self, values: &[u16]) -> Option<Period> {
        let known = values.len() as u64;
        let runs = backward_runs(values);
        let mut earliest = u64::MAX;
        for (period, &run) in (1u64..).zip(runs.iter().skip(1)) {
            let start = known - period - u64::from(run);
            let needed = self.values_needed(start, period);
            if needed <= known {
                return Some(least_preperiod(values, start, period));
            }
            earliest = earliest.min(needed);
        }
        self.next_check = earliest.max(known + (known / CHECK_SPACING).max(1));
        None
    }
}

/// The period found from `start` ≥ 1, with the preperiod lowered to 0 when
/// g(period) = g(0).
fn least_preperiod(values: &[u16], start: u64, period: u64) -> Period {
    let preperiod = if start == 1 && values[period as usize] == values[0] {
        0
    } else {
        start
    };
    Period { preperiod, period }
}

/// For each q ≥ 1, the number of h counted down from the last value with
/// g(h) = g(h − q) and h − q ≥ 1 (index q of the result; index 0 unused):
/// the Z-function of g(n − 1), g(n − 2), …, g(1).
fn backward_runs(values: &[u16]) -> Vec<u32> {
    let len = values.len().saturating_sub(1);
    let at = |i: usize| values[values.len() - 1 - i];
    let mut runs = vec![0u32; len];
    let (mut box_start, mut box_end) = (0, 0);
    for i in 1..len {
        let mut run = if i < box_end {
            (box_end - i).min(runs[i - box_start] as usize)
        } else {
            0
        };
        while i + run < len && at(run) == at(i + run) {
            run += 1;
        }
        runs[i] = run as u32;
        if i + run > box_end {
            (box_start, box_end) = (i, i + run);
        }
    }
    runs
}
