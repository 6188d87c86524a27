//! The heaps the updates have set (FILE is never written, so their values
//! are kept here): a table keyed by heap index.
//!
//! It is an open-addressing table with linear probing, at most half full,
//! of 16-byte slots: the heap index and, for a value of up to 64 bits, the
//! value itself; a longer value lives in a list of boxed limbs and its
//! slot holds its place there (the index's top bit marks it). Four slots
//! share a cache line, so a lookup touches one line, or two.
//!
//! A table of our own rather than `HashMap` for one reason: a stream of
//! updates to random heaps of a large file waits on a cache miss for the
//! table at every update, and only a table whose slot for an index is
//! known can have that slot fetched ahead ([`Updated::prefetch`]) while
//! the updates before it are applied. The hash is a multiplication by
//! 2^64/φ (Fibonacci hashing), whose top bits spread runs of indices;
//! the indices come from the user, who gains nothing from collisions.

use super::held::HeapRef;
use crate::arch::prefetch::prefetch;

/// A slot's heap when the slot is empty (no heap has this index).
const EMPTY: u64 = u64::MAX;

/// Set in a slot's heap when its value is in the list of long values.
const LONG: u64 = 1 << 63;

/// The smallest table, in slots.
const MIN_SLOTS: usize = 16;

/// One slot: a heap index (`EMPTY`, or with `LONG` set) and its value (or
/// the place of its limbs).
#[derive(Clone, Copy, Debug)]
struct Slot {
    heap: u64,
    value: u64,
}

/// The heaps set by updates, with their values.
#[derive(Debug, Default)]
pub(super) struct Updated {
    slots: Vec<Slot>,
    /// Heaps in the table.
    len: usize,
    /// The values longer than 64 bits (an empty box where one was freed).
    long_values: Vec<Box<[u64]>>,
    /// Places in `long_values` free for reuse.
    free: Vec<u64>,
}

impl Updated {
    /// The slot where `heap`'s probe starts.
    fn home(&self, heap: u64) -> usize {
        let bits = self.slots.len().trailing_zeros();
        (heap.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - bits)) as usize
    }

    /// The slot holding `heap`, or the empty slot where it would go.
    fn find(&self, heap: u64) -> usize {
        let mask = self.slots.len() - 1;
        let mut at = self.home(heap);
        loop {
            let slot = self.slots[at];
            if slot.heap == EMPTY || slot.heap & !LONG == heap {
                return at;
            }
            at = (at + 1) & mask;
        }
    }

    /// Heap `heap`'s value, if an update set it.
    pub(super) fn get(&self, heap: u64) -> Option<HeapRef<'_>> {
        if self.slots.is_empty() {
            return None;
        }
        let slot = self.slots[self.find(heap)];
        match slot.heap {
            EMPTY => None,
            long if long & LONG != 0 => {
                Some(HeapRef::Limbs(&self.long_values[slot.value as usize]))
            }
            _ => Some(HeapRef::Word(slot.value)),
        }
    }

    /// Whether an update set heap `heap`.
    pub(super) fn contains(&self, heap: u64) -> bool {
        !self.slots.is_empty() && self.slots[self.find(heap)].heap != EMPTY
    }

    /// Sets heap `heap` to the value whose limbs are `limbs` (high zero
    /// limbs allowed).
    pub(super) fn set(&mut self, heap: u64, limbs: &[u64]) {
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let at = self.find(heap);
        let old = self.slots[at];
        if old.heap == EMPTY {
            self.len += 1;
        } else if old.heap & LONG != 0 {
            self.long_values[old.value as usize] = Box::default();
            self.free.push(old.value);
        }
        let used = limbs.iter().rposition(|&w| w != 0).map_or(0, |top| top + 1);
        self.slots[at] = match used {
            0 | 1 => Slot {
                heap,
                value: limbs.first().copied().unwrap_or(0),
            },
            _ => Slot {
                heap: heap | LONG,
                value: self.keep_long(&limbs[..used]),
            },
        };
    }

    /// Keeps a long value; returns its place.
    fn keep_long(&mut self, limbs: &[u64]) -> u64 {
        match self.free.pop() {
            Some(place) => {
                self.long_values[place as usize] = limbs.into();
                place
            }
            None => {
                self.long_values.push(limbs.into());
                self.long_values.len() as u64 - 1
            }
        }
    }

    /// Doubles the slots (16 at first) and puts every heap in its new
    /// place.
    fn grow(&mut self) {
        let slots = (2 * self.slots.len()).max(MIN_SLOTS);
        let empty = Slot {
            heap: EMPTY,
            value: 0,
        };
        let old = std::mem::replace(&mut self.slots, vec![empty; slots]);
        for slot in old.into_iter().filter(|slot| slot.heap != EMPTY) {
            let at = self.find(slot.heap & !LONG);
            self.slots[at] = slot;
        }
    }

    /// Starts fetching the slot where `heap`'s lookup starts (a hint).
    pub(super) fn prefetch(&self, heap: u64) {
        if !self.slots.is_empty() {
            let at = self.home(heap);
            prefetch(&self.slots[at..at + 1]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;
    use std::collections::HashMap;

    #[test]
    fn the_table_holds_what_a_map_holds() {
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let mut table = Updated::default();
        let mut map: HashMap<u64, Vec<u64>> = HashMap::new();
        for step in 0..20_000 {
            let heap = match step % 3 {
                0 => rng.random_range(0..64),
                _ => rng.random_range(0..1 << 40) * 1024,
            };
            let limbs: Vec<u64> = match rng.random_range(0..4) {
                0 => vec![],
                1 => vec![rng.random(), 0],
                2 => vec![rng.random(), rng.random_range(1..9)],
                _ => vec![rng.random(), rng.random(), 0, rng.random_range(1..9)],
            };
            table.set(heap, &limbs);
            map.insert(heap, crate::input::trimmed(limbs));
            if step % 97 == 0 {
                for (&heap, limbs) in &map {
                    let found = table.get(heap).expect("a heap set is found");
                    assert_eq!(found.to_limbs(), *limbs, "heap {heap}");
                }
            }
            assert!(!table.contains(heap + 1) || map.contains_key(&(heap + 1)));
        }
        assert_eq!(table.len, map.len());
        let kept = table.long_values.iter().filter(|v| !v.is_empty()).count();
        assert_eq!(kept, map.values().filter(|v| v.len() > 1).count());
    }
}
