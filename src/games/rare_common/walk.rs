//! The options of one heap: those found before the walk (from the
//! block, the moves leaving one heap or none, the rare splits), the least
//! common value none of them has, and the walk over the splits of two
//! common parts striking the rare targets below it.

use super::ahead::CHUNK;
use super::kept::{value_of, KeptValues, Shortfall};
use super::{ValueEngine, WALK_CHUNK};
use crate::arch::grundy_pairs::{scan_splits, LANES};

impl ValueEngine {
    /// Marks the options found before the walk: from the block, or from
    /// the moves leaving one heap or none and the rare splits. Returns
    /// where the walk starts.
    pub(super) fn start_heap<K: KeptValues + ?Sized>(
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
    pub(super) fn mark_single_heaps<K: KeptValues + ?Sized>(
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
    pub(super) fn mark_short_splits<K: KeptValues + ?Sized>(
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
    pub(super) fn mark_rare_splits<K: KeptValues + ?Sized>(
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
    pub(super) fn least_unseen_common(&self) -> usize {
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
    pub(super) fn aim_below(&mut self, ceiling: usize) {
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
    pub(super) fn walk<K: KeptValues + ?Sized>(
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
    pub(super) fn walk_cursors<K: KeptValues + ?Sized>(
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
}
