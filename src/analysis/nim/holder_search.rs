//! The first-holder search: a pass that finds the first heap whose bit
//! `b` is set (the move's heap, for b the nim-sum's msb) and, when asked,
//! counts the heaps holding it (`winning_moves`).
//!
//! The windowed passes run it once the msb is known, and so does the one
//! pass when what it kept falls short (the msb below the top positions it
//! counted). When only the first holder is wanted the pass stops there.
//! On several threads each range finds its own first holder and the
//! earliest wins.

use crate::analysis::raw_arrays;
use crate::error::Error;
use crate::input::driver::{At, Fold, Needs};
use crate::input::{Heap, HeapPos, RawBlock, WordBlock};

/// Finds the first heap holding a bit, and counts the holders.
#[derive(Clone, Debug)]
pub struct HolderSearch {
    bit: u64,
    counting: bool,
    /// Heaps holding the bit (when counting).
    pub count: u64,
    /// The first of them.
    pub first: Option<HeapPos>,
}

impl HolderSearch {
    /// A search for the first holder of `bit`, counting them all when
    /// `counting`.
    pub fn new(bit: u64, counting: bool) -> HolderSearch {
        HolderSearch {
            bit,
            counting,
            count: 0,
            first: None,
        }
    }
}

impl Fold for HolderSearch {
    fn needs(&self) -> Needs {
        Needs::WORDS
    }

    #[inline]
    fn heap(&mut self, index: u64, heap: &Heap<'_>, _: &mut At<'_>) -> Result<(), Error> {
        if heap.value.bit(self.bit) {
            self.count += 1;
            self.first.get_or_insert(HeapPos {
                index,
                offset: heap.offset,
            });
        }
        Ok(())
    }

    fn raw_elements(&mut self, block: RawBlock<'_>) -> Result<(), Error> {
        if self.counting {
            self.count += raw_arrays::holders(&block, self.bit);
        }
        if self.first.is_none() && self.bit < 64 {
            let mask = 1u64 << self.bit;
            self.first = block.first(|v| v & mask != 0);
        }
        Ok(())
    }

    /// Counts the holders in the limb of the block that holds the bit,
    /// with the loop of raw arrays.
    fn words(&mut self, block: WordBlock<'_>, _: &mut At<'_>) -> Result<(), Error> {
        let Some(limb) = block.limb(self.bit / 64) else {
            // No heap of the block has the bit.
            return Ok(());
        };
        let bit = self.bit % 64;
        if self.counting {
            self.count += raw_arrays::holders(&limb, bit);
        }
        if self.first.is_none() {
            let found = limb.elements().position(|v| v >> bit & 1 == 1);
            self.first = found.map(|i| block.position(i));
        }
        Ok(())
    }

    fn done(&self) -> bool {
        !self.counting && self.first.is_some()
    }

    fn merge(&mut self, later: HolderSearch, heaps_before: u64) -> Result<(), Error> {
        self.count += later.count;
        if self.first.is_none() {
            self.first = later.first.map(|pos| HeapPos {
                index: pos.index + heaps_before,
                offset: pos.offset,
            });
        }
        Ok(())
    }
}
