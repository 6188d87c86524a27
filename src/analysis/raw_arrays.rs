//! Raw arrays (`u8`, `u16le`, `u32le`, `u64le`) in blocks: one loop over
//! a block of elements instead of one heap at a time.
//!
//! Every element fits in one limb, so a block's nim-sum is a single word,
//! its longest heap's bit length is that of the OR of its elements, and
//! the counting loop has no branches (the compiler vectorises it). Two
//! loops count a block: [`Block::sums`] (XOR, OR, zeros and ones: a few
//! words of state) and [`Block::tally`], which also counts the holders of
//! every bit with the column counter, so that one pass gives the
//! winning-move count. The first 1 and the first heap ≥ 2 are looked up
//! afterwards, only when the counts say the block has them.

use super::survey::Survey;
use crate::arch::columns::{self, load, BlockTally, ColumnCounter};
use crate::input::HeapPos;

/// A block of whole elements, where it lies.
#[derive(Clone, Copy, Debug)]
pub struct Block<'a> {
    /// The elements' bytes.
    pub bytes: &'a [u8],
    /// Bytes per element.
    pub width: usize,
    /// The index of the first element in its range.
    pub index: u64,
    /// The offset of the first element.
    pub base: u64,
}

impl Block<'_> {
    /// The number of elements.
    pub fn len(&self) -> u64 {
        (self.bytes.len() / self.width) as u64
    }

    /// The elements as numbers.
    pub fn elements(&self) -> impl Iterator<Item = u64> + '_ {
        self.bytes.chunks_exact(self.width).map(columns::element)
    }

    /// Where element `i` is.
    pub fn position(&self, i: usize) -> HeapPos {
        HeapPos {
            index: self.index + i as u64,
            offset: self.base + (i * self.width) as u64,
        }
    }

    /// The XOR of the elements, and the tally of their OR, zeros and ones.
    pub fn sums(&self) -> (u64, BlockTally) {
        match self.width {
            1 => sums_fixed::<1>(self.bytes),
            2 => sums_fixed::<2>(self.bytes),
            4 => sums_fixed::<4>(self.bytes),
            _ => sums_fixed::<8>(self.bytes),
        }
    }

    /// Counts the holders of every bit into `counter`, and tallies the
    /// OR, the zeros and the ones.
    pub fn tally(&self, counter: &mut ColumnCounter) -> BlockTally {
        columns::tally(self.bytes, self.width, counter)
    }

    /// The survey of the block from its tally.
    pub fn survey(&self, tally: &BlockTally) -> Survey {
        let heaps = self.len();
        let big = heaps - tally.zeros - tally.ones;
        Survey {
            heaps,
            nonzero: heaps - tally.zeros,
            ones: tally.ones,
            big,
            max_bit_length: u64::from(64 - tally.or.leading_zeros()),
            first_one: (tally.ones > 0).then(|| self.first(|v| v == 1)).flatten(),
            first_big: (big > 0).then(|| self.first(|v| v >= 2)).flatten(),
        }
    }

    /// Where the first element for which `wanted` holds is.
    pub fn first(&self, wanted: impl Fn(u64) -> bool) -> Option<HeapPos> {
        self.elements().position(wanted).map(|i| self.position(i))
    }

    /// How many elements have bit `bit` set.
    pub fn holders(&self, bit: u64) -> u64 {
        if bit >= 64 {
            return 0;
        }
        let mask = 1u64 << bit;
        self.elements().map(|v| u64::from(v & mask != 0)).sum()
    }
}

/// The counting loop of [`Block::sums`], monomorphised per width so that
/// it vectorises.
fn sums_fixed<const W: usize>(data: &[u8]) -> (u64, BlockTally) {
    let (mut xor, mut tally) = (0, BlockTally::default());
    for chunk in data.chunks_exact(W) {
        let v = load::<W>(chunk);
        xor ^= v;
        tally.or |= v;
        tally.zeros += u64::from(v == 0);
        tally.ones += u64::from(v == 1);
    }
    (xor, tally)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Format, HeapScanner, Scanner};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The generic path: one heap at a time through the scanner.
    fn scanned(data: &[u8], format: Format) -> (Survey, u64, Vec<u64>) {
        let mut scanner = Scanner::new(format, data, 100);
        let (mut survey, mut xor, mut values) = (Survey::default(), 0u64, Vec::new());
        while let Some(heap) = scanner.next_heap().unwrap() {
            survey.record_length(
                values.len() as u64 + 7,
                heap.offset,
                heap.value.bit_length(),
            );
            xor ^= heap.value.limb(0);
            values.push(heap.value.limb(0));
        }
        (survey, xor, values)
    }

    #[test]
    fn block_loops_equal_the_scanner_on_random_arrays() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for format in [Format::U8, Format::U16le, Format::U32le, Format::U64le] {
            let width = format.raw_width().expect("a raw format");
            for len in (0..70).chain([1000, 4099]) {
                let small = rng.random_bool(0.5);
                let data: Vec<u8> = (0..len * width)
                    .map(|i| match (small, i % width) {
                        (true, 0) => rng.random_range(0..3),
                        (true, _) => 0,
                        _ => rng.random(),
                    })
                    .collect();
                let block = Block {
                    bytes: &data,
                    width,
                    index: 7,
                    base: 100,
                };
                let (survey, xor, values) = scanned(&data, format);
                let (block_xor, tally) = block.sums();
                assert_eq!((block.survey(&tally), block_xor), (survey.clone(), xor));
                let mut counter = ColumnCounter::default();
                assert_eq!(block.tally(&mut counter), tally, "{format:?} {len}");
                for bit in [0, 1, 7, 15, 31, 63, 64] {
                    let naive = values.iter().filter(|&&v| bit < 64 && v >> bit & 1 == 1);
                    assert_eq!(block.holders(bit), naive.count() as u64, "{format:?} {bit}");
                }
            }
        }
    }
}
