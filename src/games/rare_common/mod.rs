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

mod ahead;

use super::game::{largest_smaller_part, LEAVE_NOTHING, LEAVE_ONE, LEAVE_TWO};
use super::Game;
use crate::arch::grundy_pairs::{
    mark_splits, scan_splits, LaneSets, Part, Targets, LANES, MAX_VALUES,
};
use ahead::{Ahead, CHUNK};

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

/// Where the engine reads the values computed so far.
pub(crate) trait KeptValues {
    /// How many values are computed: g(0) … g(n − 1).
    fn computed(&self) -> u64;

    /// The longest kept run of values ending just before heap `end`
    /// (≤ n): g(end − len) … g(end − 1).
    fn run_before(&self, end: u64) -> &[u16];

    /// The longest kept run of values starting at heap `start` (empty
    /// when g(`start`) is not kept).
    fn run_from(&self, start: u64) -> &[u16];

    /// g(`heap`), if kept.
    fn value(&self, heap: u64) -> Option<u16> {
        self.run_from(heap).first().copied()
    }
}

impl KeptValues for [u16] {
    fn computed(&self) -> u64 {
        self.len() as u64
    }

    fn run_before(&self, end: u64) -> &[u16] {
        &self[..end as usize]
    }

    fn run_from(&self, start: u64) -> &[u16] {
        self.get(start as usize..).unwrap_or(&[])
    }
}

/// Why the engine could not give the next value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shortfall {
    /// The value of `heap` is past 65,535, the largest a table holds.
    TooLarge {
        /// The heap.
        heap: u64,
    },
    /// The proof of `heap`'s value reads g(`needs`), which is not kept.
    Forgotten {
        /// The heap being proven.
        heap: u64,
        /// The heap whose value it needed.
        needs: u64,
    },
}

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

/// The rare/common split: the mask, the rare heaps and the histogram the
/// mask is chosen from.
#[derive(Clone, Debug, PartialEq, Eq)]
struct RareCommon {
    /// The class mask M; 0 when the split is off.
    mask: u16,
    /// The heaps h ≥ 1 whose value is rare, ascending.
    rare_heaps: Vec<u64>,
    /// Their values.
    rare_values: Vec<u16>,
    /// How many heaps h ≥ 1 have each value, halved at each review.
    counts: Vec<u64>,
    /// The heap count at which the mask is chosen again.
    next_review: u64,
    /// The number of rare heaps when the mask was last chosen.
    rare_at_review: u64,
    /// The heap count when the mask was last chosen.
    heaps_at_review: u64,
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

/// The splits of the current block of eight heaps known before it.
#[derive(Clone, Debug)]
struct Block {
    /// The first heap, a multiple of 8; `None` when no block is ready.
    first: Option<u64>,
    /// The values of its enumerated splits, per heap.
    sets: LaneSets,
    /// How many of the rare heaps it enumerated (those listed after are
    /// each heap's own work).
    rare_done: usize,
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

    /// Marks the options found before the walk: from the block, or from
    /// the moves leaving one heap or none and the rare splits. Returns
    /// where the walk starts.
    fn start_heap<K: KeptValues + ?Sized>(
        &mut self,
        heap: u64,
        kept: &K,
    ) -> Result<u64, Shortfall> {
        let first = heap - heap % LANES as u64;
        if heap.is_multiple_of(CHUNK) && self.block_fits(heap) {
            self.hand_over(heap, kept);
        }
        if self.block.first != Some(first) && self.block_fits(first) {
            self.prepare_block(first, kept);
        }
        let block = self.block.first == Some(first);
        self.seen.words.fill(0);
        if block {
            let lane = (heap - first) as usize;
            for (w, word) in self.seen.words.iter_mut().enumerate() {
                *word = self.block.sets.word(w, lane);
            }
        }
        self.mark_single_heaps(heap, kept)?;
        let rare_from = if block { self.block.rare_done } else { 0 };
        for index in 0..self.takes.two.len() {
            let take = self.takes.two[index];
            let Some(rest) = heap.checked_sub(take).filter(|&rest| rest >= 2) else {
                continue;
            };
            if block {
                self.mark_short_splits(heap, rest, kept)?;
            }
            self.mark_rare_splits(heap, rest, rare_from, kept)?;
        }
        Ok(match block {
            true => self.shortcut + 1,
            false => 1,
        })
    }

    /// Marks the values of the moves that leave no heap or one heap.
    fn mark_single_heaps<K: KeptValues + ?Sized>(
        &mut self,
        heap: u64,
        kept: &K,
    ) -> Result<(), Shortfall> {
        if self.takes.nothing.contains(&heap) {
            self.seen.insert(0);
        }
        for &take in self.takes.one.iter().take_while(|&&take| take < heap) {
            let value = value_of(kept, heap, heap - take)?;
            self.seen.insert(value);
        }
        Ok(())
    }

    /// Marks the splits of `rest` whose smaller part is below 8 (in a
    /// block, the others are the block's).
    fn mark_short_splits<K: KeptValues + ?Sized>(
        &mut self,
        heap: u64,
        rest: u64,
        kept: &K,
    ) -> Result<(), Shortfall> {
        let last = self.takes.largest_smaller(rest).min(LANES as u64 - 1);
        for part in 1..=last {
            let value = value_of(kept, heap, part)? ^ value_of(kept, heap, rest - part)?;
            self.seen.insert(value);
        }
        Ok(())
    }

    /// Marks the values of the splits of `rest` with a rare part, from the
    /// rare heap at index `from` on.
    fn mark_rare_splits<K: KeptValues + ?Sized>(
        &mut self,
        heap: u64,
        rest: u64,
        from: usize,
        kept: &K,
    ) -> Result<(), Shortfall> {
        let heaps = &self.split.rare_heaps[from..];
        let values = &self.split.rare_values[from..];
        // The larger parts rest − r, read backwards from one kept run.
        let run = kept.run_before(rest);
        for (&rare, &value) in heaps
            .iter()
            .zip(values)
            .take_while(|&(&rare, _)| rare < rest)
        {
            if !self.takes.splits_into(rest, rare) {
                continue;
            }
            let other = match run.len() as u64 >= rare {
                true => run[run.len() - rare as usize],
                false => value_of(kept, heap, rest - rare)?,
            };
            self.seen.insert(value ^ other);
        }
        Ok(())
    }

    /// The least common value that no option found has, or the value
    /// limit when every common value below it is an option's (or none is
    /// common).
    fn least_unseen_common(&self) -> usize {
        self.seen
            .words
            .iter()
            .zip(&self.common.words)
            .enumerate()
            .find_map(|(w, (&seen, &common))| {
                let free = common & !seen;
                (free != 0).then(|| 64 * w + free.trailing_zeros() as usize)
            })
            .unwrap_or(self.value_limit)
    }

    /// Makes the targets the rare values below `ceiling` that no option
    /// found has.
    fn aim_below(&mut self, ceiling: usize) {
        self.targets.clear();
        for (w, (&seen, &common)) in self.seen.words.iter().zip(&self.common.words).enumerate() {
            if 64 * w >= ceiling {
                break;
            }
            let below = match ceiling - 64 * w {
                64.. => u64::MAX,
                bits => (1 << bits) - 1,
            };
            let mut free = !seen & !common & below;
            while free != 0 {
                self.targets
                    .add((64 * w + free.trailing_zeros() as usize) as u16);
                free &= free - 1;
            }
        }
    }

    /// Walks the splits of `heap`, a = `from`, `from` + 1, …, for every
    /// split take in turn a chunk at a time, striking their values off the
    /// targets. Returns whether every target was struck off (false: every
    /// split was walked).
    fn walk<K: KeptValues + ?Sized>(
        &mut self,
        heap: u64,
        from: u64,
        kept: &K,
    ) -> Result<bool, Shortfall> {
        let mut cursors = std::mem::take(&mut self.cursors);
        cursors.clear();
        cursors.extend(
            self.takes
                .two
                .iter()
                .filter_map(|&take| heap.checked_sub(take))
                .map(|rest| (rest, from, self.takes.largest_smaller(rest)))
                .filter(|&(_, next, last)| next <= last),
        );
        let walked = self.walk_cursors(heap, &mut cursors, kept);
        self.cursors = cursors;
        walked
    }

    /// Walks from each cursor (rest, next smaller part, last smaller part)
    /// in turn, a chunk at a time: [`walk`](Self::walk)'s loop.
    fn walk_cursors<K: KeptValues + ?Sized>(
        &mut self,
        heap: u64,
        cursors: &mut Vec<(u64, u64, u64)>,
        kept: &K,
    ) -> Result<bool, Shortfall> {
        while !cursors.is_empty() {
            for (rest, next, last) in cursors.iter_mut() {
                let smaller = kept.run_from(*next);
                let larger = kept.run_before(*rest - *next + 1);
                let wanted = (*last - *next + 1).min(WALK_CHUNK as u64) as usize;
                let len = wanted.min(smaller.len()).min(larger.len());
                if len == 0 {
                    let needs = match smaller.is_empty() {
                        true => *next,
                        false => *rest - *next,
                    };
                    return Err(Shortfall::Forgotten { heap, needs });
                }
                if scan_splits(
                    &smaller[..len],
                    &larger[larger.len() - len..],
                    &mut self.targets,
                ) {
                    return Ok(true);
                }
                *next += len as u64;
            }
            cursors.retain(|&(_, next, last)| next <= last);
        }
        Ok(false)
    }

    /// Whether heap `first` can start a block: values below 1024 and every
    /// split of a part up to the shortcut a split of each of its heaps.
    fn block_fits(&self, first: u64) -> bool {
        let lowest_rest = first.saturating_sub(self.takes.two.last().copied().unwrap_or(0));
        self.value_limit <= BLOCK_VALUES
            && !self.takes.two.is_empty()
            && lowest_rest > 2 * (self.shortcut + LANES as u64)
    }

    /// At the start of chunk `chunk`: starts the second thread when it is
    /// due, takes the splits it gathered for this chunk and asks for the
    /// next.
    fn hand_over<K: KeptValues + ?Sized>(&mut self, chunk: u64, kept: &K) {
        if !self.two_threads || chunk < AHEAD_FROM || !self.list_parts(kept) {
            return;
        }
        if self.ahead.is_none() {
            self.ahead = Ahead::start(self.takes.two.clone(), AHEAD_RING);
        }
        if let Some(ahead) = &mut self.ahead {
            ahead.next_chunk(chunk, kept.run_before(chunk), &self.parts, self.value_limit);
        }
    }

    /// Lists the parts of the block pass, the prefix's (once) and the rare
    /// heaps found since; false when the prefix's are not kept.
    fn list_parts<K: KeptValues + ?Sized>(&mut self, kept: &K) -> bool {
        if self.parts.is_empty() {
            let Some(shortcut) = kept
                .run_from(LANES as u64)
                .get(..=(self.shortcut as usize - LANES))
            else {
                return false;
            };
            self.parts = (LANES as u32..)
                .zip(shortcut)
                .map(|(size, &value)| Part { size, value })
                .collect();
        }
        self.list_rare_parts();
        true
    }

    /// Enumerates, for the eight heaps from `first`, the splits whose
    /// smaller part is listed in `parts` and whose larger part is kept:
    /// those the second thread gathered, and the rest here.
    fn prepare_block<K: KeptValues + ?Sized>(&mut self, first: u64, kept: &K) {
        self.block.first = None;
        if !self.list_parts(kept) {
            return;
        }
        // Only parts below half of every rest split as parts of every heap
        // (unequal ones too); the parts found past them are each heap's.
        let lowest_rest = first - self.takes.two.last().copied().unwrap_or(0);
        let mut usable = self
            .parts
            .partition_point(|part| 2 * u64::from(part.size) < lowest_rest);
        for &take in &self.takes.two {
            let larger = kept.run_before(first - take);
            usable = usable.min(
                self.parts
                    .partition_point(|part| part.size as usize <= larger.len()),
            );
        }
        if usable < self.prefix_parts() {
            return;
        }
        let gathered = self.ahead.as_ref().and_then(|ahead| ahead.sets_for(first));
        let (here, covered) = match gathered {
            // Sets made before the value limit grew are too narrow.
            Some((from, to, sets)) if from <= usable && 64 * sets.words() >= self.value_limit => {
                self.block.sets = *sets;
                ([0..from, to.min(usable)..usable], usable.max(to))
            }
            _ => {
                self.block.sets = LaneSets::new(self.value_limit);
                ([0..usable, usable..usable], usable)
            }
        };
        for &take in &self.takes.two {
            let larger = kept.run_before(first - take);
            for parts in &here {
                mark_splits(larger, 0, &self.parts[parts.clone()], &mut self.block.sets);
            }
        }
        let rare_parts = covered - self.prefix_parts();
        self.block.rare_done = self
            .split
            .rare_heaps
            .partition_point(|&rare| rare <= self.shortcut)
            + rare_parts;
        self.block.first = Some(first);
    }

    /// How many parts the prefix gives: 8 … the shortcut.
    fn prefix_parts(&self) -> usize {
        self.shortcut as usize + 1 - LANES
    }

    /// Appends to `parts` the rare heaps past the shortcut not yet in it.
    fn list_rare_parts(&mut self) {
        let shortcut = self.shortcut;
        let listed = self.parts.len() - self.prefix_parts();
        let past = self
            .split
            .rare_heaps
            .partition_point(|&rare| rare <= shortcut);
        let heaps = &self.split.rare_heaps[past + listed..];
        let values = &self.split.rare_values[past + listed..];
        let fits = heaps
            .iter()
            .take_while(|&&rare| rare <= u64::from(u32::MAX))
            .count();
        self.parts.extend(
            heaps[..fits]
                .iter()
                .zip(values)
                .map(|(&rare, &value)| Part {
                    size: rare as u32,
                    value,
                }),
        );
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

/// g(`needs`), read for the proof of `heap`.
fn value_of<K: KeptValues + ?Sized>(kept: &K, heap: u64, needs: u64) -> Result<u16, Shortfall> {
    kept.value(needs)
        .ok_or(Shortfall::Forgotten { heap, needs })
}

/// Whether `value` is common under `mask` (never, with the split off).
fn is_common(mask: u16, value: u16) -> bool {
    (value & mask).count_ones() % 2 == 1
}

impl RareCommon {
    /// Whether `value` is common.
    fn is_common(&self, value: u16) -> bool {
        is_common(self.mask, value)
    }

    /// Whether the mask is to be chosen again, with `heaps` values known.
    fn review_due(&self, heaps: u64) -> bool {
        heaps >= self.next_review
            || (self.rare_heaps.len() as u64 - self.rare_at_review) * 8
                > heaps - self.heaps_at_review + FIRST_REVIEW
    }

    /// Chooses the mask for `values` (all below `limit`) and lists the
    /// rare heaps under it; returns the mask.
    fn review(&mut self, values: &[u16], limit: usize) -> u16 {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An engine with values pushed in by hand.
    fn engine_with(game: &Game, values: &[u16]) -> ValueEngine {
        let mut engine = ValueEngine::for_game(game).unwrap();
        for (heap, &value) in (0u64..).zip(values) {
            engine.record(heap, value, Some(&values[..=heap as usize]));
        }
        engine
    }

    #[test]
    fn a_value_past_65535_is_an_error_naming_the_heap() {
        // Splits without taking: g(a) = a − 1 up to a = 65536 and 0 past
        // it make the splits of heap 131073 take every value below 65536.
        let mut values = vec![0];
        values.extend(0..=u16::MAX);
        values.extend(std::iter::repeat_n(0, 65536));
        let game: Game = "octal:4.1".parse().unwrap();
        let mut engine = ValueEngine::for_game(&game).unwrap();
        engine.takes = Takes {
            nothing: vec![],
            one: vec![],
            two: vec![0],
            unequal: false,
        };
        for (heap, &value) in (0u64..).zip(&values) {
            engine.record(heap, value, None);
        }
        let error = engine.next_value(&values[..]).unwrap_err();
        assert_eq!(error, Shortfall::TooLarge { heap: 131_073 });
    }

    #[test]
    fn a_value_not_kept_is_a_shortfall_naming_the_heap_it_needs() {
        /// The first `prefix` values and the last `last` ones.
        struct Gappy<'v> {
            values: &'v [u16],
            prefix: usize,
            last: usize,
        }
        impl KeptValues for Gappy<'_> {
            fn computed(&self) -> u64 {
                self.values.len() as u64
            }
            fn run_before(&self, end: u64) -> &[u16] {
                let start = self.values.len() - self.last;
                match end as usize {
                    end if end <= self.prefix => &self.values[..end],
                    end if end > start => &self.values[start..end],
                    _ => &[],
                }
            }
            fn run_from(&self, start: u64) -> &[u16] {
                let start = start as usize;
                match start < self.prefix {
                    true => &self.values[start..self.prefix],
                    false if start >= self.values.len() - self.last => &self.values[start..],
                    false => &[],
                }
            }
        }
        // Kayles (no sparse split): every value needs every split.
        let kayles: Game = "kayles".parse().unwrap();
        let values: Vec<u16> = vec![0, 1, 2, 3, 1, 4, 3, 2, 1, 4, 2, 6, 4, 1, 2, 7, 1, 4, 3, 2];
        let mut engine = engine_with(&kayles, &values);
        let gappy = Gappy {
            values: &values,
            prefix: 4,
            last: 4,
        };
        let shortfall = engine.next_value(&gappy).unwrap_err();
        assert_eq!(shortfall, Shortfall::Forgotten { heap: 20, needs: 4 });
        assert_eq!(engine.next_value(&values[..]), Ok(1));
    }

    #[test]
    fn the_mask_makes_the_fewest_heaps_rare() {
        // Values 2 and 3 common, 0 and 1 rare: mask 2 (3 would make 1 and
        // 2 common, 3 rare).
        assert_eq!(best_mask(&[1, 2, 50, 40]), 2);
        // Evenly spread values have no sparse split.
        assert_eq!(best_mask(&[10, 10, 10, 10]), 0);
        // No value holds bit 0: masks 2 and 3 make as few rare, and 3
        // makes a value 1 or 3, should one come, common.
        assert_eq!(best_mask(&[1, 0, 50, 0]), 3);
        assert_eq!(best_mask(&[5]), 0);
    }

    #[test]
    fn the_mask_chosen_makes_larger_values_common() {
        let mut split = RareCommon {
            mask: 0,
            rare_heaps: Vec::new(),
            rare_values: Vec::new(),
            counts: vec![1, 2, 50, 40],
            next_review: 0,
            rare_at_review: 0,
            heaps_at_review: 0,
        };
        let values = [0, 2, 3, 2, 0, 1];
        assert_eq!(split.review(&values, 4), 0xFFFE);
        assert!(is_common(0xFFFE, 4) && is_common(0xFFFE, 129) && !is_common(0xFFFE, 6));
        assert_eq!(
            (split.rare_heaps, split.rare_values),
            (vec![4, 5], vec![0, 1])
        );
    }
}
