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
//! **Grundy's game** (unequal splits, no take): g(h + q) = g(h) for all
//! p ≤ h < 2p + 2q proves period q from p. By induction on h ≥ 2p + 2q,
//! with g(x + q) = g(x) for p ≤ x < h: an option (a, h − a), a < h − a, of
//! h has h − a ≥ p, so (a, h − a + q) is an option of h + q of the same
//! value. An option (a, c), a < c, of h + q has c − q > (h − q)/2 ≥ p and
//! c − q < h, so g(c) = g(c − q): (a, c − q) is an option of h of the same
//! value unless a = c − q; then h = 2a, a ≥ p + q, and (a − q, c) is one.
//! The Guy–Smith argument fails only there: an equal split is not a move.
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
//! **Past memory.** A check reads a window of the last values (all of
//! them while they are kept, `games::stream` otherwise). A run that reaches
//! the window's first value may go on before it, unseen: it proves
//! nothing, and only a run whose mismatch lies inside the window counts.
//! The least period found that way is still the least of the whole
//! sequence: every period of a periodic sequence has the same least
//! preperiod p, and the least q divides the others, so its run ends at the
//! same mismatch g(p − 1 + q) ≠ g(p − 1), inside the window too.
//!
//! **When to check.** A check that proves nothing knows, for each q, when
//! its run would prove it if no mismatch came: the next check is the
//! earliest of those, and at least n/32 later, so the checks cost O(n) each
//! and O(32 n) in all at worst (a doubling of n each, for a sequence with
//! no long runs), and a period is proven at most n/32 values after it
//! could have been. The Z array takes 4 bytes per value while a check
//! runs, and is freed after.

use super::{Game, Period};

/// The fraction of the values known by which a check at least moves the
/// next one on.
const CHECK_SPACING: u64 = 32;

/// Which theorem proves a period, by what moves the game has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proof {
    /// No splits: k consecutive matches.
    Takes,
    /// Splits (Guy–Smith): matches for all p ≤ h < 2p + q + k.
    Splits,
    /// Unequal splits only (Grundy's game): matches for p ≤ h < 2p + 2q.
    UnequalSplits,
}

/// When to look for a period, and how.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PeriodSearch {
    /// The most tokens a move takes.
    max_take: u64,
    /// The theorem that proves a period.
    proof: Proof,
    /// The number of values at which to check next.
    next_check: u64,
}

impl PeriodSearch {
    /// A search for the values of `game` (`None` for Nim, which takes any
    /// number of tokens).
    pub(crate) fn for_game(game: &Game) -> Option<PeriodSearch> {
        let proof = match (game.splits(), game.unequal_splits()) {
            (_, true) => Proof::UnequalSplits,
            (true, false) => Proof::Splits,
            (false, false) => Proof::Takes,
        };
        let mut search = PeriodSearch {
            max_take: game.max_take()?,
            proof,
            next_check: 0,
        };
        search.next_check = search.values_needed(1, 1);
        Some(search)
    }

    /// Whether a check is due with `values` values known.
    pub(crate) fn is_due(&self, values: u64) -> bool {
        values >= self.next_check
    }

    /// The number of values at which the next check is due.
    pub(crate) fn next_check(&self) -> u64 {
        self.next_check
    }

    /// Sets when the next check is due (a resumed search's).
    pub(crate) fn set_next_check(&mut self, values: u64) {
        self.next_check = values;
    }

    /// The values it takes to prove period `period` from `start` ≥ 1.
    pub(crate) fn values_needed(&self, start: u64, period: u64) -> u64 {
        match self.proof {
            Proof::Takes => start + period + self.max_take,
            Proof::Splits => 2 * start + 2 * period + self.max_take,
            Proof::UnequalSplits => 2 * start + 3 * period + self.max_take,
        }
    }

    /// The least period proven by all the values so far, g(0) first, and
    /// its least preperiod, or `None` (and the next check scheduled).
    pub(crate) fn check(&mut self, values: &[u16]) -> Option<Period> {
        self.check_window(values, 0)
    }

    /// The least period proven by `window`, the last values so far (the
    /// first of them g(`first`)), or `None` (and the next check scheduled).
    /// With `first` = 0 the window holds every value and this is
    /// [`check`](Self::check).
    pub(crate) fn check_window(&mut self, window: &[u16], first: u64) -> Option<Period> {
        let known = first + window.len() as u64;
        // Heap 0 takes no part in a proof (p ≥ 1).
        let skip = usize::from(first == 0).min(window.len());
        let runs = backward_runs(&window[skip..]);
        let seen = (window.len() - skip) as u64;
        let mut earliest = u64::MAX;
        for (period, &run) in (1u64..).zip(runs.iter().skip(1)) {
            let start = known - period - u64::from(run);
            let open = first > 1 && u64::from(run) + period == seen;
            let needed = self.values_needed(start, period);
            if needed <= known && !open {
                return Some(least_preperiod(window, first, start, period));
            }
            earliest = earliest.min(needed);
        }
        self.next_check = earliest.max(known + (known / CHECK_SPACING).max(1));
        None
    }
}

/// The period found from `start` ≥ 1, with the preperiod lowered to 0 when
/// g(period) = g(0) (known only when `window` starts at heap `first` = 0;
/// a start of 1 is seen only then).
fn least_preperiod(window: &[u16], first: u64, start: u64, period: u64) -> Period {
    let preperiod = match first == 0 && start == 1 && window[period as usize] == window[0] {
        true => 0,
        false => start,
    };
    Period { preperiod, period }
}

/// For each q ≥ 1, the number of values counted down from the last of
/// `values` that equal the value q before them, within `values` (index q
/// of the result; index 0 unused): the Z-function of `values` read
/// backwards.
fn backward_runs(values: &[u16]) -> Vec<u32> {
    let len = values.len();
    let at = |i: usize| values[len - 1 - i];
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
