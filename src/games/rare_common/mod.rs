//! The mex engine: g(h) for h = 0, 1, 2, … of a subtraction game, an
//! octal game or Grundy's game, each from the values before it, with
//! Winning Ways' rare/common split ("sparse space spells speed") for the
//! moves that split a heap.
//!
//! Moves that leave no heap or one heap cost O(k) per value. A split of
//! m = h − t tokens into (a, m − a) has m/2 options, so the plain mex loop
//! is quadratic: `octal:0.16` needs 510,000 values and ~6·10^10 pairs.
//! The split: a mask M divides the values into two classes by the parity
//! of the bits of v & M, and the class of g(a) ⊕ g(b) is the sum of the
//! classes. For the sparse games the class of 0, called *rare* here, holds
//! only a few hundred heaps; every other heap is *common*. Then
//!
//! - a *common* value can only come from a split with exactly one rare
//!   part, and the rare heaps are listed: every such split is enumerated,
//!   so the least common value that no enumerated option has, c, is the
//!   mex unless a rare value below it is missing;
//! - the rare values below c that no enumerated option has are the
//!   *targets*: the splits with two common parts are walked, a = 1, 2, …,
//!   striking each value met off the targets, only until none is left
//!   (then g(h) = c). The common splits make every rare value below g(h)
//!   quickly, so a walk runs to its end only when g(h) itself is rare, and
//!   then g(h) is the least target left.
//!
//! Any mask gives the right values (with M = 0 every value is rare and the
//! engine is the plain loop that stops early); the mask only decides the
//! speed. It is chosen as the M that makes the fewest heaps rare by the
//! values' histogram (a Walsh–Hadamard transform of the histogram gives
//! that count for every M at once), kept only when at most a quarter of
//! the heaps are rare; its bits that no value holds yet are set (those
//! past the value limit, and of masks as good the largest is taken), so
//! that a new larger value, which comes as the mex of a common heap, is
//! common. (The mask matters more past memory, where it is no longer
//! chosen again: on `octal:0.034` under `--memory 64MiB`, the smaller of
//! two masks as good, frozen at heap 2^22, made the common value 13 rare,
//! and the proof of heap 10,992,248 needed every split.)
//! It is chosen again at doubling heap counts, and sooner when more than
//! one new heap in 8 is rare (the values drift in games whose values
//! grow); the histogram is halved at each choice, so recent heaps weigh
//! more. Choosing again lists the rare heaps anew from every value, so it
//! happens only while every value is kept.
//!
//! **Blocks of eight heaps** (values below 1024, heaps past twice the
//! shortcut, [`SHORTCUT_ALONE`] or [`SHORTCUT_AHEAD`]). The splits whose
//! smaller part is s ≥ 8 — every s up to the shortcut and
//! every rare s — have their larger part at least 8 heaps back, so their
//! values for eight consecutive heaps are known before the first of them
//! is computed: `arch::grundy_pairs::mark_splits` computes them for the
//! block at once, one part against eight heaps. Each heap then adds its
//! splits with s < 8 and the rare heaps found since, and its walk starts
//! past the shortcut, where few targets are left (on `octal:0.161`, about
//! 560 splits walked a heap past 512, instead of 1,000 from 1).
//!
//! **Where the values are.** The engine keeps none: it reads them through
//! [`KeptValues`], all of them ([`Sequence`](super::Sequence)) or the
//! prefix and the last values that `games::stream` keeps. A value it needs
//! and cannot read is a [`Shortfall`].
//!
//! Memory besides the values: the rare heaps (10 bytes each), the parts
//! of a block (8 bytes each), and per possible value a count (8 bytes) and
//! a bit, at most 65,536 of each.

//!
//! The rooms: the engine and what it keeps (this file), where it reads
//! the values (`kept.rs`), the rare/common split and the choice of its
//! mask (`split.rs`), the options of one heap, found before the walk and
//! by it (`walk.rs`), the block pass over eight heaps (`block.rs`), and
//! the second thread that gathers splits ahead (`ahead.rs`).

mod ahead;
mod block;
mod kept;
mod split;
#[cfg(test)]
mod tests;
mod walk;

use super::game::{largest_smaller_part, LEAVE_NOTHING, LEAVE_ONE, LEAVE_TWO};
use super::Game;
use crate::arch::grundy_pairs::{LaneSets, Part, Targets, MAX_VALUES};
use ahead::Ahead;
use block::Block;
use split::{is_common, RareCommon};

pub(crate) use kept::{KeptValues, Shortfall};
pub(crate) use split::best_mask;

/// The smaller parts s ≤ the shortcut of every split are enumerated by the
/// block pass; the walk of a heap starts past them. On one thread, 512 on
/// `octal:0.161` (563 splits walked a heap; 1,024 walks 261 but took 1.05
/// times as long, 256 1.04 times, 2,048 1.4 times).
const SHORTCUT_ALONE: u64 = 512;

/// The shortcut with a second thread: the walk is the engine's own work,
/// the block pass mostly the second thread's, so a longer shortcut moves
/// work from the first to the second.
const SHORTCUT_AHEAD: u64 = 768;

/// The longest shortcut.
pub(crate) const SHORTCUT: u64 = SHORTCUT_AHEAD;

/// Splits walked at a time, for each split take in turn.
const WALK_CHUNK: usize = 512;

/// The heap count at which the mask is first chosen.
const FIRST_REVIEW: u64 = 256;

/// The values below 1024 fit the block pass.
const BLOCK_VALUES: usize = MAX_VALUES;

/// The heap from which a second thread gathers splits ahead (`ahead.rs`),
/// when allowed: past it a run is long enough to pay for a thread.
const AHEAD_FROM: u64 = 4096;

/// The values the second thread keeps a copy of, at least: the parts it
/// reads lie this far back at most (the rare heaps past it are the
/// engine's).
const AHEAD_RING: usize = 1 << 16;

/// The moves of a game, by what they leave.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Takes {
    /// Takes that may leave no heap (t = h).
    nothing: Vec<u64>,
    /// Takes that may leave one heap (t < h), ascending.
    one: Vec<u64>,
    /// Takes that may leave two non-empty heaps, ascending.
    two: Vec<u64>,
    /// Whether the two heaps must be unequal (Grundy's game).
    unequal: bool,
}

impl Takes {
    /// The largest smaller part of a split of `rest` tokens.
    fn largest_smaller(&self, rest: u64) -> u64 {
        largest_smaller_part(rest, self.unequal)
    }

    /// Whether (part, rest − part) is a split, for part < rest.
    fn splits_into(&self, rest: u64, part: u64) -> bool {
        !(self.unequal && 2 * part == rest)
    }
}

/// A set of values below the value limit, one bit each.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
struct ValueSet {
    words: Vec<u64>,
}

impl ValueSet {
    /// Adds `value`.
    #[inline]
    fn insert(&mut self, value: u16) {
        let v = usize::from(value);
        self.words[v / 64] |= 1 << (v % 64);
    }
}

/// What a checkpoint saves of an engine; the rest follows from the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct EngineState {
    /// The value limit (a power of two).
    pub(crate) value_limit: u64,
    /// The class mask.
    pub(crate) mask: u16,
    /// The rare heaps, ascending.
    pub(crate) rare_heaps: Vec<u64>,
    /// Their values.
    pub(crate) rare_values: Vec<u16>,
    /// The histogram the mask is chosen from.
    pub(crate) counts: Vec<u64>,
    /// When the mask is chosen again: the heap count, and the rare heaps
    /// and heaps at the last choice.
    pub(crate) review: [u64; 3],
}

/// Computes a game's values one heap at a time.
pub(crate) struct ValueEngine {
    takes: Takes,
    /// One above the largest value so far, rounded up to a power of two:
    /// every option's value is below it, and the mex at most it.
    value_limit: usize,
    split: RareCommon,
    /// The values of the options found for the heap at hand.
    seen: ValueSet,
    /// The common values below the value limit.
    common: ValueSet,
    /// The rare values a walk looks for.
    targets: Targets,
    /// The smaller parts the block pass enumerates: 8 … the shortcut, then
    /// the rare heaps past it, with their values.
    parts: Vec<Part>,
    block: Block,
    /// The walk's cursors, kept to reuse their memory.
    cursors: Vec<(u64, u64, u64)>,
    /// Whether a second thread may gather splits ahead.
    two_threads: bool,
    /// The largest smaller part the block pass enumerates.
    shortcut: u64,
    /// The second thread, once started.
    ahead: Option<Ahead>,
}

impl ValueEngine {
    /// An engine for `game`, with no values yet; `None` for Nim, whose
    /// values need no engine (g(h) = h).
    pub(crate) fn for_game(game: &Game) -> Option<ValueEngine> {
        let rules = game.take_rules()?;
        let takes_with = |bit: u8| -> Vec<u64> {
            rules
                .iter()
                .filter(|&&(_, digit)| digit & bit != 0)
                .map(|&(take, _)| take)
                .collect()
        };
        let takes = Takes {
            nothing: takes_with(LEAVE_NOTHING),
            one: takes_with(LEAVE_ONE),
            two: takes_with(LEAVE_TWO),
            unequal: game.unequal_splits(),
        };
        let mut engine = ValueEngine {
            takes,
            value_limit: 1,
            split: RareCommon {
                mask: 0,
                rare_heaps: Vec::new(),
                rare_values: Vec::new(),
                counts: vec![0; 1],
                next_review: FIRST_REVIEW,
                rare_at_review: 0,
                heaps_at_review: 0,
            },
            seen: ValueSet::default(),
            common: ValueSet::default(),
            targets: Targets::new(1),
            parts: Vec::new(),
            block: Block {
                first: None,
                sets: LaneSets::new(0),
                rare_done: 0,
            },
            cursors: Vec::new(),
            two_threads: false,
            shortcut: SHORTCUT_ALONE,
            ahead: None,
        };
        engine.set_threads(std::thread::available_parallelism().map_or(1, |n| n.get()));
        engine.grow_value_limit(2);
        Some(engine)
    }

    /// Lets a second thread gather splits ahead (`threads` ≥ 2), or not;
    /// by default it may when the machine has two cores or more.
    pub(crate) fn set_threads(&mut self, threads: usize) {
        self.two_threads = threads > 1;
        if !self.two_threads {
            self.ahead = None;
        }
        let shortcut = match self.two_threads {
            true => SHORTCUT_AHEAD,
            false => SHORTCUT_ALONE,
        };
        if shortcut != self.shortcut {
            self.shortcut = shortcut;
            self.parts.clear();
            self.block.first = None;
            if let Some(ahead) = &mut self.ahead {
                ahead.forget_parts();
            }
        }
    }

    /// The state a checkpoint saves.
    pub(crate) fn state(&self) -> EngineState {
        let split = &self.split;
        EngineState {
            value_limit: self.value_limit as u64,
            mask: split.mask,
            rare_heaps: split.rare_heaps.clone(),
            rare_values: split.rare_values.clone(),
            counts: split.counts.clone(),
            review: [
                split.next_review,
                split.rare_at_review,
                split.heaps_at_review,
            ],
        }
    }

    /// The engine of `game` in a saved `state`; `None` for Nim, or a state
    /// that cannot be an engine's (a value limit that is no power of two
    /// from 2 to 65,536, a histogram of another length, rare heaps not
    /// matching their values).
    pub(crate) fn restore(game: &Game, state: EngineState) -> Option<ValueEngine> {
        let mut engine = ValueEngine::for_game(game)?;
        let limit = usize::try_from(state.value_limit).ok()?;
        let fits = limit.is_power_of_two()
            && (2..=1 << 16).contains(&limit)
            && state.counts.len() == limit
            && state.rare_heaps.len() == state.rare_values.len();
        if !fits {
            return None;
        }
        engine.grow_value_limit(limit);
        let [next_review, rare_at_review, heaps_at_review] = state.review;
        engine.split = RareCommon {
            mask: state.mask,
            rare_heaps: state.rare_heaps,
            rare_values: state.rare_values,
            counts: state.counts,
            next_review,
            rare_at_review,
            heaps_at_review,
        };
        engine.set_common(state.mask);
        Some(engine)
    }

    /// The value of heap n = `kept.computed()`, from the values before it.
    pub(crate) fn next_value<K: KeptValues + ?Sized>(
        &mut self,
        kept: &K,
    ) -> Result<u16, Shortfall> {
        let heap = kept.computed();
        let walk_from = self.start_heap(heap, kept)?;
        let ceiling = self.least_unseen_common();
        self.aim_below(ceiling);
        let value = match self.targets.left() {
            0 => ceiling,
            // Every target struck off: the ceiling; else the least left.
            _ => match self.walk(heap, walk_from, kept)? {
                true => ceiling,
                false => self.targets.least().map_or(ceiling, usize::from),
            },
        };
        u16::try_from(value).map_err(|_| Shortfall::TooLarge { heap })
    }

    /// Counts `value` as g(`heap`) (the heap after the last one recorded),
    /// listing the heap if it is rare. `all`, every value so far when they
    /// are all kept, lets the mask be chosen again when due.
    pub(crate) fn record(&mut self, heap: u64, value: u16, all: Option<&[u16]>) {
        if usize::from(value) >= self.value_limit {
            self.grow_value_limit((usize::from(value) + 1).next_power_of_two());
        }
        if heap > 0 {
            self.split.counts[usize::from(value)] += 1;
            if self.split.mask != 0 && !self.split.is_common(value) {
                self.split.rare_heaps.push(heap);
                self.split.rare_values.push(value);
            }
        }
        let heaps = heap + 1;
        if let Some(all) = all.filter(|_| self.split.review_due(heaps)) {
            let mask = self.split.review(all, self.value_limit);
            self.set_common(mask);
            self.parts.clear();
            self.block.first = None;
            if let Some(ahead) = &mut self.ahead {
                ahead.forget_parts();
            }
        }
    }

    /// Raises the value limit to `limit` (a power of two).
    fn grow_value_limit(&mut self, limit: usize) {
        self.value_limit = limit;
        let words = limit.div_ceil(64).max(BLOCK_VALUES / 64);
        self.seen.words.resize(words, 0);
        self.split.counts.resize(limit, 0);
        self.targets = Targets::new(limit);
        self.set_common(self.split.mask);
        self.block.first = None;
    }

    /// Sets the common values below the value limit for `mask`.
    fn set_common(&mut self, mask: u16) {
        self.common.words = vec![0; self.seen.words.len()];
        for value in 0..self.value_limit.min(1 << 16) {
            if is_common(mask, value as u16) {
                self.common.insert(value as u16);
            }
        }
    }
}
