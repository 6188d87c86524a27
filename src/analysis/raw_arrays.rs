//! Raw arrays (`u8`, `u16le`, `u32le`, `u64le`) in blocks: one loop over
//! a block of elements instead of one heap at a time.
//!
//! Every element fits in one limb, so a block's nim-sum is a single word,
//! its longest heap's bit length is that of the OR of its elements, and
//! the counting loop has no branches (the compiler vectorises it). Two
//! loops count a block: [`sums`] (XOR, OR, zeros and ones: a few
//! words of state) and [`tally`], which gives the same and also counts
//! the holders of every bit with the column counter, so that one pass
//! gives the winning-move count. The first 1 and the first heap ≥ 2 are looked up
//! afterwards, only when the counts say the block has them.

use super::survey::Survey;
use crate::arch::columns::{self, BlockTally, ColumnCounter};
use crate::arch::raw_sums;
use crate::input::{HeapPos, RawBlock};

/// The XOR of the block's elements, and the tally of their OR, zeros and
/// ones.
pub fn sums(block: &RawBlock<'_>) -> (u64, BlockTally) {
    raw_sums::sums(block.bytes, block.width)
}

/// Counts the holders of every bit of the block's elements into `counter`;
/// returns their XOR, and the tally of their OR, zeros and ones.
pub fn tally(block: &RawBlock<'_>, counter: &mut ColumnCounter) -> (u64, BlockTally) {
    columns::tally(block.bytes, block.width, counter)
}

/// The tally of a block of heaps of two limbs given as those limbs'
/// blocks (element `i` of `low` and `high`: heap `i`'s bits 0-63 and
/// 64-127), the OR that of their low limbs: the heaps equal to 0 and to 1
/// are those whose low limb is and whose high limb is 0. One loop over
/// both, without branches.
pub fn two_limb_tally(low: &RawBlock<'_>, high: &RawBlock<'_>, low_or: u64) -> BlockTally {
    debug_assert!(low.width == 8 && high.width == 8 && low.len() == high.len());
    let (lows, _) = low.bytes.as_chunks::<8>();
    let (highs, _) = high.bytes.as_chunks::<8>();
    let (mut zeros, mut ones) = (0, 0);
    for (&l, &h) in lows.iter().zip(highs) {
        let (l, h) = (u64::from_le_bytes(l), u64::from_le_bytes(h));
        zeros += u64::from(l | h == 0);
        ones += u64::from(l == 1 && h == 0);
    }
    BlockTally {
        or: low_or,
        zeros,
        ones,
    }
}

/// The survey of the block from its tally, to be merged into `before`
/// (the survey of the heaps before it): the first 1 and the first heap
/// ≥ 2 are looked up only when the tally says the block has them and
/// `before` has none.
pub fn survey(block: &RawBlock<'_>, tally: &BlockTally, before: &Survey) -> Survey {
    survey_of(block.len(), tally, before, |wanted| block.first(wanted))
}

/// The survey of `heaps` elements from their tally, to be merged into
/// `before`; `first(wanted)` finds the first element for which `wanted`
/// holds, asked only where `before` lacks it (a merge keeps the earlier).
pub fn survey_of(
    heaps: u64,
    tally: &BlockTally,
    before: &Survey,
    first: impl Fn(fn(u64) -> bool) -> Option<HeapPos>,
) -> Survey {
    let big = heaps - tally.zeros - tally.ones;
    let one_wanted = tally.ones > 0 && before.first_one.is_none();
    let big_wanted = big > 0 && before.first_big.is_none();
    Survey {
        heaps,
        nonzero: heaps - tally.zeros,
        ones: tally.ones,
        big,
        max_bit_length: u64::from(64 - tally.or.leading_zeros()),
        first_one: one_wanted.then(|| first(|v| v == 1)).flatten(),
        first_big: big_wanted.then(|| first(|v| v >= 2)).flatten(),
    }
}

/// How many elements of the block have bit `bit` set.
pub fn holders(block: &RawBlock<'_>, bit: u64) -> u64 {
    if bit >= 64 {
        return 0;
    }
    raw_sums::holders(block.bytes, block.width, 1 << bit)
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
                let block = RawBlock {
                    bytes: &data,
                    width,
                    index: 7,
                    base: 100,
                };
                let (survey, xor, values) = scanned(&data, format);
                let (block_xor, block_tally) = sums(&block);
                assert_eq!(
                    (
                        super::survey(&block, &block_tally, &Survey::default()),
                        block_xor
                    ),
                    (survey.clone(), xor)
                );
                let mut counter = ColumnCounter::default();
                let tallied = tally(&block, &mut counter);
                assert_eq!(tallied, (xor, block_tally), "{format:?} {len}");
                for bit in [0, 1, 7, 15, 31, 63, 64] {
                    let naive = values.iter().filter(|&&v| bit < 64 && v >> bit & 1 == 1);
                    assert_eq!(
                        holders(&block, bit),
                        naive.count() as u64,
                        "{format:?} {bit}"
                    );
                }
            }
        }
    }
}
