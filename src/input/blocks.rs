//! Blocks of heaps that the driver hands a fold whole, so that the fold
//! counts them with loops the compiler vectorises instead of taking each
//! heap between two parses:
//!
//! - [`RawBlock`]: whole elements of a raw array, where they lie;
//! - [`WordBlock`]: short heaps a text scanner parsed ahead into a
//!   [`WordBuffer`] (`formats/block_path.rs`, with the kernels of
//!   [`short_tokens`](crate::arch::short_tokens)), in a loop that does
//!   nothing else. Each of the two limbs of the heaps is kept as
//!   little-endian bytes, a raw array of `u64le` ([`WordBlock::limb`]), so
//!   that a fold counts it with the loops of raw arrays.

use super::heap::{Heap, HeapPos, HeapValue};
use crate::arch::columns::element;
use crate::arch::short_tokens::ShortHeaps;

/// Where a scanner parses a block of heaps of at most 128 bits: the
/// buffer the block kernels write ([`ShortHeaps`]), with room past
/// [`WORDS_PER_BLOCK`] heaps for a run's last 64-byte block.
#[derive(Default)]
pub struct WordBuffer {
    heaps: ShortHeaps,
}

/// Heaps per block: a scanner stops parsing once it holds this many, or
/// the fewer [`WordBuffer::set_most`] asks for (see
/// [`SHORT_HEAPS`](crate::arch::short_tokens::SHORT_HEAPS)).
pub const WORDS_PER_BLOCK: usize = crate::arch::short_tokens::SHORT_HEAPS;

impl WordBuffer {
    /// Whether it holds [`WordBuffer::most`] heaps or more (at first
    /// [`WORDS_PER_BLOCK`]).
    #[inline(always)]
    pub fn is_full(&self) -> bool {
        self.heaps.is_full()
    }

    /// Whether it holds no heap.
    pub fn is_empty(&self) -> bool {
        self.heaps.is_empty()
    }

    /// The number of heaps held.
    pub fn len(&self) -> usize {
        self.heaps.len()
    }

    /// Appends the heap `value` whose first byte is at `offset`; the
    /// buffer must not be full.
    #[inline(always)]
    pub fn push(&mut self, offset: u64, value: u128) {
        self.heaps.push(offset, value);
    }

    /// The OR of the heaps' bits 64-127.
    pub fn high_or(&self) -> u64 {
        self.heaps.high_or()
    }

    /// The heaps at which a run of blocks stops (see
    /// [`ShortHeaps::most`]).
    pub fn most(&self) -> usize {
        self.heaps.most()
    }

    /// Sets the heaps at which a run of blocks stops (see
    /// [`ShortHeaps::set_most`]).
    pub fn set_most(&mut self, most: usize) {
        self.heaps.set_most(most);
    }

    /// The buffer the block kernels write.
    pub(crate) fn heaps_mut(&mut self) -> &mut ShortHeaps {
        &mut self.heaps
    }

    /// The heaps held, the first being the `index`-th of its range.
    pub fn block(&self, index: u64) -> WordBlock<'_> {
        WordBlock {
            limbs: [self.heaps.limb(0), self.heaps.limb(1)],
            offsets: self.heaps.offsets(),
            high_or: self.heaps.high_or(),
            index,
        }
    }

    /// Empties the buffer.
    pub fn clear(&mut self) {
        self.heaps.clear();
    }
}

/// Consecutive heaps of at most 128 bits of one range, parsed ahead.
#[derive(Clone, Copy, Debug)]
pub struct WordBlock<'b> {
    /// Bits 0-63, then bits 64-127, of each heap, little-endian.
    limbs: [&'b [u8]; 2],
    /// Each heap's first byte.
    pub offsets: &'b [u64],
    /// The OR of the heaps' bits 64-127.
    pub high_or: u64,
    /// The index of the first heap in its range.
    pub index: u64,
}

impl WordBlock<'_> {
    /// The number of heaps.
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// Whether the block holds no heap.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Heap `i`'s value.
    #[inline]
    pub fn value(&self, i: usize) -> u128 {
        let [low, high] = self.limbs.map(|limb| {
            u128::from(u64::from_le_bytes(
                limb[8 * i..8 * i + 8].try_into().expect("8 bytes"),
            ))
        });
        high << 64 | low
    }

    /// The XOR of the heaps.
    pub fn xor(&self) -> u128 {
        let [low, high] = self.limbs.map(|limb| {
            let words = limb.chunks_exact(8);
            let xor = words.fold(0, |x, w| {
                x ^ u64::from_le_bytes(w.try_into().expect("8 bytes"))
            });
            u128::from(xor)
        });
        high << 64 | low
    }

    /// The first heap from `from` on whose bits 64-127 are not all 0.
    /// Eight heaps' high limbs at a time, ORed (a loop the compiler turns
    /// into vector loads): one heap at a time, the search was half of the
    /// one pass's time in its blocks of short hex with a 17-digit token
    /// after every 64.
    pub fn next_wide(&self, from: usize) -> Option<usize> {
        let high = &self.limbs[1][8 * from..];
        let (eights, rest) = high.as_chunks::<64>();
        let nonzero = |bytes: &[u8]| bytes.iter().fold(0, |or, &b| or | b) != 0;
        let eight = eights.iter().position(|eight| nonzero(eight));
        let (start, bytes) = match eight {
            Some(e) => (8 * e, &eights[e][..]),
            None => (8 * eights.len(), rest),
        };
        let within = bytes.chunks_exact(8).position(nonzero)?;
        Some(from + start + within)
    }

    /// Heaps `from` to `to` (not included), whose bits 64-127 are all 0,
    /// as a block of their own.
    pub fn narrow_run(&self, from: usize, to: usize) -> WordBlock<'_> {
        debug_assert!((from..to).all(|i| self.value(i) >> 64 == 0));
        WordBlock {
            limbs: self.limbs.map(|limb| &limb[8 * from..8 * to]),
            offsets: &self.offsets[from..to],
            high_or: 0,
            index: self.index + from as u64,
        }
    }

    /// Where heap `i` is.
    pub fn position(&self, i: usize) -> HeapPos {
        HeapPos {
            index: self.index + i as u64,
            offset: self.offsets[i],
        }
    }

    /// Where the first heap `wanted` holds for is, a heap wider than 64
    /// bits taken as `u64::MAX`: what the survey asks of a heap (is it 1,
    /// is it 2 or more) a wide heap answers as `u64::MAX` does.
    pub fn first(&self, wanted: impl Fn(u64) -> bool) -> Option<HeapPos> {
        let saturated = |v: u128| u64::try_from(v).unwrap_or(u64::MAX);
        let found = (0..self.len()).position(|i| wanted(saturated(self.value(i))));
        found.map(|i| self.position(i))
    }

    /// Heap `i` as a heap.
    pub fn heap(&self, i: usize) -> Heap<'static> {
        Heap {
            offset: self.offsets[i],
            value: HeapValue::Word(self.value(i)),
        }
    }

    /// Limb `j` of every heap (bits `64·j ..`) as a block of a `u64le`
    /// array, whose element `i` is heap `i`'s (the array's offsets are not
    /// the heaps'); `None` past the second limb, which is 0 in every heap.
    pub fn limb(&self, j: u64) -> Option<RawBlock<'_>> {
        let bytes = *self.limbs.get(usize::try_from(j).ok()?)?;
        Some(RawBlock {
            bytes,
            width: 8,
            index: self.index,
            base: 0,
        })
    }
}

/// Whole elements of a raw array, where they lie: what the driver hands a
/// fold in one piece, so that it may count them with one loop.
#[derive(Clone, Copy, Debug)]
pub struct RawBlock<'a> {
    /// The elements' bytes.
    pub bytes: &'a [u8],
    /// Bytes per element.
    pub width: usize,
    /// The index of the first element in its range.
    pub index: u64,
    /// The offset of the first element.
    pub base: u64,
}

impl RawBlock<'_> {
    /// The number of elements.
    pub fn len(&self) -> u64 {
        (self.bytes.len() / self.width) as u64
    }

    /// The elements as numbers.
    pub fn elements(&self) -> impl Iterator<Item = u64> + '_ {
        self.bytes.chunks_exact(self.width).map(element)
    }

    /// Where element `i` is.
    pub fn position(&self, i: usize) -> HeapPos {
        HeapPos {
            index: self.index + i as u64,
            offset: self.base + (i * self.width) as u64,
        }
    }

    /// Where the first element for which `wanted` holds is.
    pub fn first(&self, wanted: impl Fn(u64) -> bool) -> Option<HeapPos> {
        self.elements().position(wanted).map(|i| self.position(i))
    }

    /// Element `i` as a heap.
    pub fn heap(&self, i: usize, value: u64) -> Heap<'static> {
        Heap {
            offset: self.base + (i * self.width) as u64,
            value: HeapValue::Word(u128::from(value)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_next_wide_heap_is_the_first_with_high_bits_from_where_it_is_asked() {
        for wide in [
            vec![],
            vec![0],
            vec![7],
            vec![8, 9],
            vec![3, 40, 41, 70],
            vec![99],
        ] {
            let mut buffer = WordBuffer::default();
            for i in 0..100 {
                let high = u128::from(wide.contains(&i)) << (64 + i % 64);
                buffer.push(i as u64, high | i as u128);
            }
            let block = buffer.block(0);
            for from in 0..100 {
                let expected = wide.iter().copied().find(|&i| i >= from);
                assert_eq!(block.next_wide(from), expected, "{wide:?} from {from}");
            }
            if let Some(&first) = wide.first() {
                let run = block.narrow_run(0, first);
                assert_eq!((run.len(), run.index, run.high_or), (first, 0, 0));
            }
        }
    }

    #[test]
    fn a_buffer_set_to_fewer_heaps_is_full_there_and_keeps_its_bounds() {
        let mut buffer = WordBuffer::default();
        assert_eq!(buffer.most(), WORDS_PER_BLOCK);
        buffer.set_most(3);
        for i in 0..3 {
            assert!(!buffer.is_full());
            buffer.push(i, 1);
        }
        assert!(buffer.is_full());
        buffer.set_most(0);
        assert_eq!(buffer.most(), 1);
        buffer.set_most(10 * WORDS_PER_BLOCK);
        assert_eq!(buffer.most(), WORDS_PER_BLOCK);
    }

    #[test]
    fn a_buffer_gives_back_its_heaps_and_knows_when_they_fit_a_limb() {
        let mut buffer = WordBuffer::default();
        let values: Vec<u128> = (0..WORDS_PER_BLOCK as u128).map(|i| i * i * 977).collect();
        for (i, &v) in values.iter().enumerate() {
            assert!(!buffer.is_full());
            assert_eq!(buffer.len(), i);
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
        assert_eq!(block.high_or, 0);
        assert_eq!(block.xor(), values.iter().fold(0, |x, v| x ^ v));
        let low = block.limb(0).expect("the low limbs");
        assert!(low.elements().map(u128::from).eq(values.iter().copied()));
        assert!(block
            .limb(1)
            .expect("the high limbs")
            .elements()
            .all(|w| w == 0));
        assert!(block.limb(2).is_none());
        assert_eq!(block.first(|v| v > 977 * 9).map(|p| p.index), Some(44));
        buffer.clear();
        assert!(buffer.is_empty());
        buffer.push(0, 5);
        buffer.push(9, 1 << 64 | 2);
        let block = buffer.block(0);
        assert_eq!((block.len(), block.value(1)), (2, 1 << 64 | 2));
        assert_eq!((block.high_or, block.xor()), (1, 1 << 64 | 7));
        // The wide heap's low limb is 2, but the heap is past 5.
        assert_eq!(block.first(|v| v > 5).map(|p| p.index), Some(1));
        let high: Vec<u64> = block.limb(1).expect("the high limbs").elements().collect();
        assert_eq!(high, [0, 1]);
    }
}
