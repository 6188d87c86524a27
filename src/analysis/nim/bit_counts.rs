//! Exact counts of the heaps holding each bit position, for a stream:
//! it is read once, so the count of the nim-sum's msb must be at hand
//! for whichever position that turns out to be (see `holder_counts.rs`
//! for the counts of an input read again).

use crate::arch::columns::{self, BlockTally, ColumnCounter};
use crate::input::{HeapValue, RawBlock};

/// Exact counts of the heaps holding each bit position: bit-sliced
/// counters (plane p holds bit p of each position's count; plane 0 is the
/// nim-sum), fed [`STAGED`] heaps at a time.
///
/// Adding one limb straight into the planes ripples a carry through about
/// seven of them, since some lane of 64 still carries. So heaps are staged
/// eight at a time, and each limb position's eight words are summed by a
/// carry-save tree into a 4-bit bit-sliced number that is added into the
/// planes: the ripple is paid once per eight heaps (Harley–Seal's
/// reduction, as in [`crate::arch::columns`], whose 32-heap steps would
/// need 2 KiB of counters per limb position of a stream's longest heap,
/// where this needs 72 bytes: eight staged words and a carry). Blocks of
/// heaps of at most 128 bits (short tokens, raw arrays) are counted by
/// that column loop, into a column counter for each of limb positions 0
/// and 1. Lean counters, for small budgets, add each heap at once and
/// stage nothing, and count blocks heap by heap.
#[derive(Debug, Default)]
pub struct BitCounts {
    /// `planes[p][j]`: bit p of the counts of limb position j's 64 bits.
    planes: Vec<Vec<u64>>,
    /// `staged[k][j]`: limb j of the k-th staged heap (0 past its end):
    /// a heap is staged as a copy of its limbs, and the staged words of
    /// one limb position are added across the rows.
    staged: [Vec<u64>; STAGED],
    /// Heaps staged.
    len: usize,
    /// Limb positions the staged heaps reach.
    reach: usize,
    /// Limb positions 0 and 1 of the blocks counted by the column loop.
    columns: [Option<Box<ColumnCounter>>; 2],
    /// Whether heaps go straight into the planes.
    lean: bool,
    /// The carries out of the first planes, one per limb position, while
    /// staged heaps are added (kept to be reused).
    carries: Vec<u64>,
}

/// Heaps staged before they are added into the planes.
const STAGED: usize = 8;

/// The planes a sum of [`STAGED`] heaps' words reaches: 8 takes 4 bits.
const SUM_PLANES: usize = 4;

/// A carry-save adder: the sum and the carry of three words, lane by lane.
#[inline(always)]
fn carry_save(a: u64, b: u64, c: u64) -> (u64, u64) {
    let ab = a ^ b;
    (ab ^ c, (a & b) | (c & ab))
}

/// The lane-by-lane sum of eight words as a bit-sliced number: bit p of
/// each lane's count in word p.
#[inline(always)]
fn sum_of_eight(w: &[u64; STAGED]) -> [u64; 4] {
    // Weight 1: seven words to a sum and three carries, then the eighth.
    let (s_a, c_a) = carry_save(w[0], w[1], w[2]);
    let (s_b, c_b) = carry_save(w[3], w[4], w[5]);
    let (s_c, c_c) = carry_save(s_a, s_b, w[6]);
    let (ones, c_d) = (s_c ^ w[7], s_c & w[7]);
    // Weight 2: four carries; weight 4: two.
    let (t_a, d_a) = carry_save(c_a, c_b, c_c);
    let (twos, d_b) = (t_a ^ c_d, t_a & c_d);
    [ones, twos, d_a ^ d_b, d_a & d_b]
}

impl BitCounts {
    /// Counters that stage heaps, or `lean` ones that do not.
    pub fn new(lean: bool) -> BitCounts {
        BitCounts {
            lean,
            ..BitCounts::default()
        }
    }

    /// Adds the counts of `other`.
    pub fn merge(&mut self, mut other: BitCounts) {
        self.flush();
        other.flush();
        for (mine, theirs) in self.columns.iter_mut().zip(&mut other.columns) {
            if let Some(theirs) = theirs.take() {
                let mine = mine.get_or_insert_with(Box::default);
                mine.add_columns(&theirs.columns());
            }
        }
        let limbs = other.planes.iter().map(Vec::len).max().unwrap_or(0);
        for j in 0..limbs {
            let digits = other
                .planes
                .iter()
                .map(|row| row.get(j).copied().unwrap_or(0));
            self.add_to_planes(j, digits);
        }
    }

    /// Counts one heap. Little-endian values (`nimb` records, long
    /// decimals) are walked limb by limb in order rather than each limb
    /// looked up.
    pub fn add(&mut self, value: &HeapValue<'_>) {
        match value {
            HeapValue::LeBytes(bytes) => {
                let whole = bytes.chunks_exact(8);
                let top = whole.remainder();
                let words = whole.map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes")));
                let top = (!top.is_empty()).then(|| columns::element(top));
                self.add_words(bytes.len().div_ceil(8), words.chain(top))
            }
            HeapValue::Limbs(limbs) => self.add_words(limbs.len(), limbs.iter().copied()),
            _ => self.add_limbs(value.bit_length(), |j| value.limb(j)),
        }
    }

    /// Counts one heap of `bits` bits whose limb `j` is `limb(j)`.
    pub fn add_limbs(&mut self, bits: u64, limb: impl Fn(u64) -> u64) {
        let limbs = bits.div_ceil(64) as usize;
        self.add_words(limbs, (0..limbs).map(|j| limb(j as u64)));
    }

    /// Counts one heap of `limbs` limbs, from the lowest `words`.
    fn add_words(&mut self, limbs: usize, words: impl Iterator<Item = u64>) {
        if self.lean {
            for (j, word) in words.enumerate() {
                self.add_to_planes(j, std::iter::once(word));
            }
            return;
        }
        let row = &mut self.staged[self.len];
        if row.len() < limbs {
            row.resize(limbs, 0);
        }
        for (slot, word) in row.iter_mut().zip(words) {
            *slot = word;
        }
        self.reach = self.reach.max(limbs);
        self.len += 1;
        if self.len == STAGED {
            self.flush();
        }
    }

    /// Adds the staged heaps into the planes, plane by plane: each limb
    /// position's 4-bit sum into the first four planes, then the carries
    /// into the next plane while any limb position still carries. (Limb
    /// position by limb position, each carry rippled through planes found
    /// and grown one at a time, took most of a stream's time on `nimb`
    /// records of 64 to 4,096 bits.)
    fn flush(&mut self) {
        let reach = self.reach;
        for p in 0..SUM_PLANES {
            self.plane(p, reach);
        }
        for row in &mut self.staged {
            if row.len() < reach {
                row.resize(reach, 0);
            }
        }
        let mut carries = std::mem::take(&mut self.carries);
        carries.clear();
        carries.resize(reach, 0);
        let staged = self.staged.each_ref().map(|row| &row[..reach]);
        let [ones, twos, fours, eights, ..] = &mut self.planes[..] else {
            unreachable!("plane() made {SUM_PLANES} planes")
        };
        let rows = (ones[..reach].iter_mut(), twos[..reach].iter_mut());
        let rows = rows
            .0
            .zip(rows.1)
            .zip(fours[..reach].iter_mut().zip(&mut eights[..reach]));
        for (j, ((one, two), (four, eight))) in rows.enumerate() {
            let digits = sum_of_eight(&staged.map(|row| row[j]));
            let mut carry = 0;
            for (count, digit) in [one, two, four, eight].into_iter().zip(digits) {
                (*count, carry) = carry_save(*count, digit, carry);
            }
            carries[j] = carry;
        }
        for row in &mut self.staged {
            row[..reach].fill(0);
        }
        let mut p = SUM_PLANES;
        while carries.iter().any(|&carry| carry != 0) {
            for (count, carry) in self.plane(p, reach).iter_mut().zip(&mut carries) {
                (*count, *carry) = (*count ^ *carry, *count & *carry);
            }
            p += 1;
        }
        self.carries = carries;
        (self.len, self.reach) = (0, 0);
    }

    /// Plane `p`'s first `reach` limb positions, made as needed.
    fn plane(&mut self, p: usize, reach: usize) -> &mut [u64] {
        if self.planes.len() <= p {
            self.planes.resize_with(p + 1, Vec::new);
        }
        let row = &mut self.planes[p];
        if row.len() < reach {
            row.resize(reach, 0);
        }
        &mut row[..reach]
    }

    /// Adds the bit-sliced number `digits` (lane by lane: its p-th word
    /// holds bit p) to limb position `j`'s counts.
    fn add_to_planes(&mut self, j: usize, mut digits: impl Iterator<Item = u64>) {
        let mut carry = 0u64;
        let mut p = 0;
        loop {
            let addend = digits.next();
            if addend.is_none() && carry == 0 {
                return;
            }
            if p == self.planes.len() {
                self.planes.push(Vec::new());
            }
            let row = &mut self.planes[p];
            if row.len() <= j {
                row.resize(j + 1, 0);
            }
            let (sum, out) = carry_save(row[j], addend.unwrap_or(0), carry);
            (row[j], carry) = (sum, out);
            p += 1;
        }
    }

    /// How many heaps have bit `position` set.
    pub fn count(&self, position: u64) -> u64 {
        let (limb, bit) = ((position / 64) as usize, position % 64);
        let planes: u64 = self
            .planes
            .iter()
            .enumerate()
            .map(|(p, row)| (row.get(limb).map_or(0, |w| w >> bit & 1)) << p)
            .sum();
        let holds = |row: &&Vec<u64>| row.get(limb).is_some_and(|w| w >> bit & 1 == 1);
        let staged = self.staged.iter().filter(holds).count() as u64;
        let columns = match self.columns.get(limb) {
            Some(Some(counter)) => counter.columns()[bit as usize],
            _ => 0,
        };
        planes + staged + columns
    }

    /// Counts a block of heaps of at most 64 bits with the column loop of
    /// raw arrays and returns the block's XOR and tally; `None` for lean
    /// counters (the block is then counted heap by heap).
    #[inline]
    pub fn tally_raw(&mut self, block: &RawBlock<'_>) -> Option<(u64, BlockTally)> {
        if self.lean {
            return None;
        }
        Some(self.tally_limb(0, block))
    }

    /// Counts limbs 0 and 1 of a block of heaps of at most 128 bits, given
    /// as those limbs' blocks, with the column loop of raw arrays, and
    /// returns each limb's XOR and tally; `None` for lean counters (the
    /// block is then counted heap by heap).
    pub fn tally_pair(&mut self, limbs: [&RawBlock<'_>; 2]) -> Option<[(u64, BlockTally); 2]> {
        if self.lean {
            return None;
        }
        Some([self.tally_limb(0, limbs[0]), self.tally_limb(1, limbs[1])])
    }

    /// Counts `block` as limb position `j` (0 or 1) of its heaps with the
    /// column loop; returns its XOR and tally.
    fn tally_limb(&mut self, j: usize, block: &RawBlock<'_>) -> (u64, BlockTally) {
        let counter = self.columns[j].get_or_insert_with(Box::default);
        columns::tally(block.bytes, block.width, counter)
    }
}

/// The tests' heaps and their reference counts, which `holder_counts.rs`'s
/// tests share.
#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A heap of these limbs, the lowest first.
    pub(in crate::analysis::nim) fn value(limbs: &[u64]) -> HeapValue<'static> {
        HeapValue::Limbs(crate::input::trimmed(limbs.to_vec()))
    }

    /// `count` heaps of 0 to 5 limbs, random bits and lengths.
    pub(in crate::analysis::nim) fn heaps(seed: u64, count: usize) -> Vec<Vec<u64>> {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        (0..count)
            .map(|_| {
                let len = rng.random_range(0..6);
                (0..len)
                    .map(|_| rng.random::<u64>() >> rng.random_range(0..64))
                    .collect()
            })
            .collect()
    }

    /// How many of `heaps` hold bit `position`, heap by heap.
    pub(in crate::analysis::nim) fn naive(heaps: &[Vec<u64>], position: u64) -> u64 {
        heaps.iter().filter(|h| value(h).bit(position)).count() as u64
    }

    #[test]
    fn every_count_is_exact() {
        let heaps = heaps(1, 500);
        for lean in [false, true] {
            // Counts read with heaps staged, and after every flush.
            for len in [500, 496] {
                let mut counts = BitCounts::new(lean);
                heaps[..len].iter().for_each(|h| counts.add(&value(h)));
                for position in 0..6 * 64 {
                    assert_eq!(counts.count(position), naive(&heaps[..len], position));
                }
            }
        }
    }

    #[test]
    fn counts_past_the_staged_words_carry_through_every_plane() {
        // 70,001 heaps of all ones in their low limb, some with a second
        // limb: counts that ripple through 17 planes, staged words left.
        for lean in [false, true] {
            ones_and_a_second_limb(BitCounts::new(lean));
        }
    }

    fn ones_and_a_second_limb(mut counts: BitCounts) {
        let (low, high) = (value(&[u64::MAX]), value(&[u64::MAX, 1 << 63 | 5]));
        for k in 0..70_001u64 {
            counts.add(if k % 3 == 0 { &high } else { &low });
        }
        assert!((0..64).all(|bit| counts.count(bit) == 70_001));
        assert_eq!(counts.count(64), 23_334);
        assert_eq!(counts.count(66), 23_334);
        assert_eq!(counts.count(65), 0);
        assert_eq!(counts.count(127), 23_334);
        assert_eq!(counts.count(128), 0);
    }

    #[test]
    fn blocks_counted_in_columns_add_to_the_heaps_counted_one_by_one() {
        let long = heaps(4, 300);
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let words: Vec<u64> = (0..1000)
            .map(|_| rng.random::<u64>() >> rng.random_range(0..64))
            .collect();
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let block = |range: std::ops::Range<usize>| RawBlock {
            bytes: &bytes[8 * range.start..8 * range.end],
            width: 8,
            index: 0,
            base: 0,
        };
        let mut all: Vec<Vec<u64>> = long.clone();
        all.extend(words.iter().map(|&w| vec![w]));
        for lean in [false, true] {
            let (mut first, mut second) = (BitCounts::new(lean), BitCounts::new(lean));
            long[..150].iter().for_each(|h| first.add(&value(h)));
            let tally = first.tally_raw(&block(0..600));
            assert_eq!(tally.is_none(), lean);
            if lean {
                words[..600]
                    .iter()
                    .for_each(|&w| first.add_limbs(64, |_| w));
            }
            long[150..].iter().for_each(|h| second.add(&value(h)));
            if second.tally_raw(&block(600..1000)).is_none() {
                words[600..]
                    .iter()
                    .for_each(|&w| second.add_limbs(64, |_| w));
            }
            first.merge(second);
            for position in 0..6 * 64 {
                assert_eq!(first.count(position), naive(&all, position), "{position}");
            }
        }
    }
}
