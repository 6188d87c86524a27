//! The block pass: the splits of eight heaps at once whose smaller part
//! is s ≥ 8 (every s up to the shortcut, and every rare s), known before
//! the first of them is computed (see the module documentation of
//! [`super`], "Blocks of eight heaps").

use super::ahead::Ahead;
use super::kept::KeptValues;
use super::{ValueEngine, AHEAD_FROM, AHEAD_RING, BLOCK_VALUES};
use crate::arch::grundy_pairs::{mark_splits, LaneSets, Part, LANES};

/// The splits of the current block of eight heaps known before it.
#[derive(Clone, Debug)]
pub(super) struct Block {
    /// The first heap, a multiple of 8; `None` when no block is ready.
    pub(super) first: Option<u64>,
    /// The values of its enumerated splits, per heap.
    pub(super) sets: LaneSets,
    /// How many of the rare heaps it enumerated (those listed after are
    /// each heap's own work).
    pub(super) rare_done: usize,
}

impl ValueEngine {
    /// Whether heap `first` can start a block: values below 1024 and every
    /// split of a part up to the shortcut a split of each of its heaps.
    pub(super) fn block_fits(&self, first: u64) -> bool {
        let lowest_rest = first.saturating_sub(self.takes.two.last().copied().unwrap_or(0));
        self.value_limit <= BLOCK_VALUES
            && !self.takes.two.is_empty()
            && lowest_rest > 2 * (self.shortcut + LANES as u64)
    }

    /// At the start of chunk `chunk`: starts the second thread when it is
    /// due, takes the splits it gathered for this chunk and asks for the
    /// next.
    pub(super) fn hand_over<K: KeptValues + ?Sized>(&mut self, chunk: u64, kept: &K) {
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
    pub(super) fn list_parts<K: KeptValues + ?Sized>(&mut self, kept: &K) -> bool {
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
    pub(super) fn prepare_block<K: KeptValues + ?Sized>(&mut self, first: u64, kept: &K) {
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
    pub(super) fn prefix_parts(&self) -> usize {
        self.shortcut as usize + 1 - LANES
    }

    /// Appends to `parts` the rare heaps past the shortcut not yet in it.
    pub(super) fn list_rare_parts(&mut self) {
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
}
