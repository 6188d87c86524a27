//! Blocks of short heaps: a scanner whose heaps are mostly short (`dec`)
//! parses them a block at a time into a [`WordBuffer`], in a loop that
//! does nothing else, and the driver hands the fold the whole block
//! ([`WordBlock`]). A fold then counts the block with loops that the
//! compiler vectorises, the way it counts a block of a raw array, instead
//! of taking each heap between two parses.
//!
//! The low limbs are kept as little-endian bytes, so that a block whose
//! heaps all fit in 64 bits is counted by the same column loops as a raw
//! array of `u64le`.

use super::{Heap, HeapPos, HeapValue, RawBlock};

/// Heaps per block: 256 make 6 KiB of buffer, well inside the first-level
/// cache, and few enough that the fold's per-block work is small.
pub const WORDS_PER_BLOCK: usize = 256;

/// Where a scanner parses a block of heaps of at most 128 bits.
pub struct WordBuffer {
    /// Bits 0-63 of each heap, little-endian.
    low: [u8; 8 * WORDS_PER_BLOCK],
    /// Bits 64-127 of each heap.
    high: [u64; WORDS_PER_BLOCK],
    /// Each heap's first byte.
    offsets: [u64; WORDS_PER_BLOCK],
    len: usize,
    /// The OR of `high`, so that a fold knows at once whether every heap
    /// fits in 64 bits.
    high_or: u64,
}

impl Default for WordBuffer {
    fn default() -> Self {
        WordBuffer {
            low: [0; 8 * WORDS_PER_BLOCK],
            high: [0; WORDS_PER_BLOCK],
            offsets: [0; WORDS_PER_BLOCK],
            len: 0,
            high_or: 0,
        }
    }
}

impl WordBuffer {
    /// Whether no more heaps fit.
    #[inline(always)]
    pub fn is_full(&self) -> bool {
        self.len == WORDS_PER_BLOCK
    }

    /// Whether it holds no heap.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Appends the heap `value` whose first byte is at `offset`; the
    /// buffer must not be full.
    #[inline(always)]
    pub fn push(&mut self, offset: u64, value: u128) {
        let i = self.len;
        self.low[8 * i..8 * i + 8].copy_from_slice(&(value as u64).to_le_bytes());
        let high = (value >> 64) as u64;
        self.high[i] = high;
        self.high_or |= high;
        self.offsets[i] = offset;
        self.len = i + 1;
    }

    /// The heaps held, the first being the `index`-th of its range.
    pub fn block(&self, index: u64) -> WordBlock<'_> {
        WordBlock {
            low: &self.low[..8 * self.len],
            high: &self.high[..self.len],
            offsets: &self.offsets[..self.len],
            high_or: self.high_or,
            index,
        }
    }

    /// Empties the buffer.
    pub fn clear(&mut self) {
        self.len = 0;
        self.high_or = 0;
    }
}

/// Consecutive heaps of at most 128 bits of one range, parsed ahead.
#[derive(Clone, Copy, Debug)]
pub struct WordBlock<'b> {
    /// Bits 0-63 of each heap, little-endian.
    pub low: &'b [u8],
    /// Bits 64-127 of each heap.
    pub high: &'b [u64],
    /// Each heap's first byte.
    pub offsets: &'b [u64],
    /// The OR of `high`.
    pub high_or: u64,
    /// The index of the first heap in its range.
    pub index: u64,
}

impl WordBlock<'_> {
    /// The number of heaps.
    pub fn len(&self) -> usize {
        self.high.len()
    }

    /// Whether the block holds no heap.
    pub fn is_empty(&self) -> bool {
        self.high.is_empty()
    }

    /// Heap `i`'s value.
    #[inline]
    pub fn value(&self, i: usize) -> u128 {
        let low = u64::from_le_bytes(self.low[8 * i..8 * i + 8].try_into().expect("8 bytes"));
        u128::from(self.high[i]) << 64 | u128::from(low)
    }

    /// Where heap `i` is.
    pub fn position(&self, i: usize) -> HeapPos {
        HeapPos {
            index: self.index + i as u64,
            offset: self.offsets[i],
        }
    }

    /// Heap `i` as a heap.
    pub fn heap(&self, i: usize) -> Heap<'static> {
        Heap {
            offset: self.offsets[i],
            value: HeapValue::Word(self.value(i)),
        }
    }

    /// The low limbs as a block of a `u64le` array (its offsets are not
    /// the heaps'), when every heap fits in 64 bits.
    pub fn as_raw(&self) -> Option<RawBlock<'_>> {
        (self.high_or == 0).then_some(RawBlock {
            bytes: self.low,
            width: 8,
            index: self.index,
            base: 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_buffer_gives_back_its_heaps_and_knows_when_they_fit_a_limb() {
        let mut buffer = WordBuffer::default();
        let values: Vec<u128> = (0..WORDS_PER_BLOCK as u128).map(|i| i * i * 977).collect();
        for (i, &v) in values.iter().enumerate() {
            assert!(!buffer.is_full());
            buffer.push(10 * i as u64 + 3, v);
        }
        assert!(buffer.is_full());
        let block = buffer.block(40);
        assert_eq!(block.len(), WORDS_PER_BLOCK);
        for (i, &v) in values.iter().enumerate() {
            assert_eq!(block.value(i), v);
            assert_eq!(block.heap(i).value, HeapValue::Word(v));
            assert_eq!(block.position(i).index, 40 + i as u64);
            assert_eq!(block.position(i).offset, 10 * i as u64 + 3);
        }
        let raw = block.as_raw().expect("every heap fits in 64 bits");
        assert!(raw.elements().map(u128::from).eq(values.iter().copied()));
        buffer.clear();
        assert!(buffer.is_empty());
        buffer.push(0, 5);
        buffer.push(9, 1 << 64 | 2);
        let block = buffer.block(0);
        assert_eq!((block.len(), block.value(1)), (2, 1 << 64 | 2));
        assert!(block.as_raw().is_none());
    }
}
