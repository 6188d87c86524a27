//! The winning move after each update (`--moves`): which heap, as
//! [`crate::analysis::rules::choose_move`] chooses it, and how many heaps
//! admit one.
//!
//! Two ways, by what FILE holds:
//!
//! - **Every heap of FILE fits in 64 bits** ([`HolderLookup::Words`]): the
//!   holders of each bit 0 to 63 are counted and the OR tree of
//!   [`super::holders`] leads to the first heap holding a bit, in
//!   O(log n) plus one block of heaps read. The msb of a nim-sum past
//!   bit 63 can only come from updated heaps longer than 64 bits; they
//!   are kept in order and searched there. Misère's heap ≥ 2 is the first whose bits 1 to 63 are not
//!   all 0 (or a long updated heap), its lone 1-heap the first with bit 0.
//! - **FILE has a longer heap** ([`HolderLookup::Search`]): counting the holders
//!   of a bit past 63 would need a counter per bit of the longest heap,
//!   so each move is found by a search over the heaps in order (the
//!   updated ones from the map), counting the holders of the msb: one
//!   read of FILE per update. The winner and the nim-sum stay O(w).

use super::file_heaps::FileHeaps;
use super::held::{HeapRef, NimSum};
use super::holders::{OrTree, WordHolderCounts};
use super::index::HeapIndex;
use super::updated::Updated;
use crate::analysis::rules::{choose_move, Counts, MoveFinder};
use crate::analysis::Rule;
use crate::error::Error;
use crate::input::HeapValue;
use std::collections::BTreeSet;
use std::ops::ControlFlow;

/// What finding the move keeps between updates.
#[derive(Debug)]
pub(super) enum HolderLookup {
    /// Every heap of FILE fits in 64 bits.
    Words {
        /// The holders of each bit 0 to 63, over every heap's low word.
        counts: Box<WordHolderCounts>,
        /// The OR of each block of heaps' low words (a superset).
        tree: OrTree,
        /// The updated heaps longer than 64 bits, in order.
        long_updated: BTreeSet<u64>,
    },
    /// FILE has a heap longer than 64 bits: a search per move.
    Search,
}

/// The heap a move is played on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Chosen {
    /// Its index.
    pub heap: u64,
    /// Its value's limbs.
    pub from: Vec<u64>,
    /// Its offset in FILE, unless an update set it.
    pub offset: Option<u64>,
    /// What to leave on it.
    pub target: Target,
}

/// The value a move leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Target {
    /// The heap ⊕ the nim-sum.
    XorSum,
    /// This value.
    Value(u64),
}

/// The heaps a search looks for.
#[derive(Clone, Copy, Debug)]
enum Wanted {
    /// Holding bit `bit`, counting them.
    Bit(u64),
    /// At least 2.
    Big,
    /// Equal to 1.
    One,
}

impl Wanted {
    fn holds(self, value: &HeapRef<'_>) -> bool {
        match self {
            Wanted::Bit(bit) => value.bit(bit),
            Wanted::Big => value.bit_length() >= 2,
            Wanted::One => value.bit_length() == 1,
        }
    }
}

impl HolderLookup {
    /// Follows heap `heap` going from `old` to `new`.
    pub(super) fn replace(
        &mut self,
        heap: u64,
        index: &HeapIndex,
        old: &HeapRef<'_>,
        new: &HeapRef<'_>,
    ) {
        let HolderLookup::Words {
            counts,
            tree,
            long_updated,
        } = self
        else {
            return;
        };
        let new_low = new.low();
        counts.replace(old.low(), new_low);
        tree.add(index.block_of(heap), new_low);
        if new.bit_length() > 64 {
            long_updated.insert(heap);
        } else {
            long_updated.remove(&heap);
        }
    }

    /// Starts fetching the tree's leaf over heap `heap` (a hint).
    pub(super) fn prefetch(&self, heap: u64, index: &HeapIndex) {
        if let HolderLookup::Words { tree, .. } = self {
            tree.prefetch_leaf(index.block_of(heap));
        }
    }

    /// The number of heaps that admit a winning move, and the heap of
    /// the deterministic one (SPEC section 1, chosen by
    /// [`choose_move`]).
    pub(super) fn find(
        &mut self,
        file: &FileHeaps<'_>,
        updated: &Updated,
        counts: Counts,
        sum: &NimSum,
        rule: Rule,
    ) -> Result<(u64, Option<Chosen>), Error> {
        let msb = sum.is_nonzero().then(|| sum.bit_length() - 1);
        let mut finder = Finder {
            holders: self,
            file,
            updated,
            counts,
        };
        let (count, chosen) = choose_move(rule, counts, msb, &mut finder)?;
        Ok((count, chosen.flatten()))
    }
}

/// How a position finds the move's heap: through the holder counts and
/// the OR tree, or a search over the heaps in order.
struct Finder<'h, 'f> {
    holders: &'h mut HolderLookup,
    file: &'h FileHeaps<'f>,
    updated: &'h Updated,
    counts: Counts,
}

impl Finder<'_, '_> {
    /// How many heaps are `wanted` (exact for a bit), and the first, as a
    /// move that leaves `target`.
    fn first(&mut self, wanted: Wanted, target: Target) -> Result<(u64, Option<Chosen>), Error> {
        let (file, updated) = (self.file, self.updated);
        let (holders, found) = match self.holders {
            HolderLookup::Words {
                counts: bits,
                tree,
                long_updated,
            } => match wanted {
                Wanted::Bit(bit) if bit < 64 => {
                    let found = first_in_tree(tree, 1 << bit, file, updated)?;
                    (bits.0[bit as usize], found)
                }
                Wanted::Bit(_) => among_long(long_updated, updated, wanted),
                Wanted::Big => match long_updated.first() {
                    Some(&heap) => (1, Some(updated_heap(updated, heap))),
                    None => (1, first_in_tree(tree, !1, file, updated)?),
                },
                Wanted::One => (self.counts.ones, first_in_tree(tree, 1, file, updated)?),
            },
            HolderLookup::Search => search(file, updated, wanted)?,
        };
        let chosen = found.map(|(heap, from, offset)| Chosen {
            heap,
            from,
            offset,
            target,
        });
        Ok((holders, chosen))
    }
}

impl MoveFinder for Finder<'_, '_> {
    type Move = Option<Chosen>;

    fn on_msb_holder(&mut self, msb: u64) -> Result<(u64, Option<Chosen>), Error> {
        self.first(Wanted::Bit(msb), Target::XorSum)
    }

    fn on_first_big(&mut self, target: u64) -> Result<Option<Chosen>, Error> {
        Ok(self.first(Wanted::Big, Target::Value(target))?.1)
    }

    fn on_first_one(&mut self) -> Result<Option<Chosen>, Error> {
        Ok(self.first(Wanted::One, Target::Value(0))?.1)
    }
}

/// A heap found: index, limbs, offset in FILE unless updated.
type Found = (u64, Vec<u64>, Option<u64>);

/// An updated heap, found.
fn updated_heap(updated: &Updated, heap: u64) -> Found {
    let value = updated.get(heap).expect("an updated heap is in the table");
    (heap, value.to_limbs(), None)
}

/// The heap's value: updated, or as FILE has it.
fn current<'a>(updated: &'a Updated, heap: u64, in_file: &HeapValue<'a>) -> HeapRef<'a> {
    match updated.get(heap) {
        Some(value) => value,
        None => HeapRef::File(in_file.clone()),
    }
}

/// The first heap whose low word has a bit of `mask`: the leftmost
/// block whose OR has one, scanned; a block that has none any more gets
/// its exact OR, and the descent starts again.
fn first_in_tree(
    tree: &mut OrTree,
    mask: u64,
    file: &FileHeaps<'_>,
    updated: &Updated,
) -> Result<Option<Found>, Error> {
    while let Some(block) = tree.leftmost(mask) {
        let mut exact = 0;
        let mut found = None;
        file.scan(file.index().block_heaps(block), |heap, in_file, offset| {
            let low = match updated.get(heap) {
                Some(value) => value.low(),
                None => in_file.limb(0),
            };
            exact |= low;
            if low & mask == 0 {
                return ControlFlow::Continue(());
            }
            let value = current(updated, heap, in_file);
            let offset = (!updated.contains(heap)).then_some(offset);
            found = Some((heap, value.to_limbs(), offset));
            ControlFlow::Break(())
        })?;
        if found.is_some() {
            return Ok(found);
        }
        tree.set(block, exact);
    }
    Ok(None)
}

/// Among the long updated heaps: how many hold the bit, and the first.
fn among_long(
    long_updated: &BTreeSet<u64>,
    updated: &Updated,
    wanted: Wanted,
) -> (u64, Option<Found>) {
    let mut holders = long_updated
        .iter()
        .filter(|&&heap| updated.get(heap).is_some_and(|value| wanted.holds(&value)));
    let first = holders.next().map(|&heap| updated_heap(updated, heap));
    (u64::from(first.is_some()) + holders.count() as u64, first)
}

/// Every heap in order: how many are wanted (for a bit), and the first.
fn search(
    file: &FileHeaps<'_>,
    updated: &Updated,
    wanted: Wanted,
) -> Result<(u64, Option<Found>), Error> {
    let counting = matches!(wanted, Wanted::Bit(_));
    let mut holders = 0;
    let mut first = None;
    file.scan(0..file.index().heaps(), |heap, in_file, offset| {
        let value = current(updated, heap, in_file);
        if wanted.holds(&value) {
            holders += 1;
            if first.is_none() {
                let offset = (!updated.contains(heap)).then_some(offset);
                first = Some((heap, value.to_limbs(), offset));
            }
            if !counting {
                return ControlFlow::Break(());
            }
        }
        ControlFlow::Continue(())
    })?;
    Ok((holders, first))
}
