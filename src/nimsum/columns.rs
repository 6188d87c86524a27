//! Column counts of raw arrays: for each of the 64 bit positions, how many
//! elements have that bit set, in the same loop that counts the zeros and
//! the ones and ORs the elements together.
//!
//! The column counts give the nim-sum (their parities), the winning-move
//! count of normal play (the count of the msb's column) and the longest
//! heap, so one pass over a raw array is enough. Counting 64 columns per
//! element one bit at a time would cost far more than reading the element;
//! instead the loop keeps Harley–Seal carry-save adders: 32 elements
//! (eight vectors of four 64-bit lanes) reduce to one "eights" word per
//! lane with seven carry-save steps. Eight such words reduce the same way
//! to one "sixty-fours" word, and only that word is added into bit-sliced
//! counters: the carry through those planes is the slow part (about eight
//! rounds, one per bit a carry may ripple), so it runs once per 256
//! elements. That is a handful of word operations per element.
//!
//! The loop is written once on `[u64; 4]` lanes; the compiler vectorises
//! it. It is compiled twice: for the baseline target and, behind runtime
//! feature detection, with AVX2. The two must agree with each other and
//! with the obvious per-bit loop ([`tally_reference`]); the tests check
//! all three on random arrays of every width.

/// Four 64-bit lanes, one vector register under AVX2.
type Lanes = [u64; 4];

/// Elements per carry-save step: eight vectors of four lanes.
pub const STEP: usize = 32;

/// Bit-sliced planes of the "sixty-fours" counters: plane p has weight
/// 64·2^p, so 40 planes count up to 2^46 elements per lane, far past any
/// file.
const PLANES: usize = 40;

/// Per-column counts of every element fed so far.
#[derive(Clone, Debug)]
pub struct ColumnCounter {
    ones: Lanes,
    twos: Lanes,
    fours: Lanes,
    /// "Eights" words not yet reduced, each of weight 8.
    pending: [Lanes; 8],
    pending_len: usize,
    /// The second level's running words, of weights 8, 16 and 32.
    eights: Lanes,
    sixteens: Lanes,
    thirty_twos: Lanes,
    sixty_fours: [Lanes; PLANES],
    /// Elements outside whole steps, counted bit by bit.
    loose: [u64; 64],
}

impl Default for ColumnCounter {
    fn default() -> Self {
        ColumnCounter {
            ones: [0; 4],
            twos: [0; 4],
            fours: [0; 4],
            pending: [[0; 4]; 8],
            pending_len: 0,
            eights: [0; 4],
            sixteens: [0; 4],
            thirty_twos: [0; 4],
            sixty_fours: [[0; 4]; PLANES],
            loose: [0; 64],
        }
    }
}

/// What one call of [`tally`] saw in its block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockTally {
    /// The OR of the block's elements.
    pub or: u64,
    /// Elements equal to 0.
    pub zeros: u64,
    /// Elements equal to 1.
    pub ones: u64,
}

impl ColumnCounter {
    /// `columns[b]`: how many elements have bit b set.
    pub fn columns(&self) -> [u64; 64] {
        let mut columns = self.loose;
        for (b, column) in columns.iter_mut().enumerate() {
            let bit = |lanes: &Lanes| lanes.iter().map(|w| w >> b & 1).sum::<u64>();
            *column += bit(&self.ones) + 2 * bit(&self.twos) + 4 * bit(&self.fours);
            let pending = &self.pending[..self.pending_len];
            *column += 8 * pending.iter().map(bit).sum::<u64>();
            *column += 8 * bit(&self.eights) + 16 * bit(&self.sixteens);
            *column += 32 * bit(&self.thirty_twos);
            for (p, plane) in self.sixty_fours.iter().enumerate() {
                *column += (64 * bit(plane)) << p;
            }
        }
        columns
    }

    /// Takes one "eights" word per lane; every eighth reduces the pending
    /// ones to a "sixty-fours" word for the planes.
    #[inline(always)]
    fn add_eights(&mut self, eights: Lanes) {
        self.pending[self.pending_len] = eights;
        self.pending_len += 1;
        if self.pending_len == self.pending.len() {
            self.pending_len = 0;
            let (sixty_fours, eights, sixteens, thirty_twos) =
                fold8(self.eights, self.sixteens, self.thirty_twos, &self.pending);
            (self.eights, self.sixteens, self.thirty_twos) = (eights, sixteens, thirty_twos);
            self.add_sixty_fours(sixty_fours);
        }
    }

    /// Adds one "sixty-fours" word per lane into the bit-sliced planes.
    fn add_sixty_fours(&mut self, mut carry: Lanes) {
        for plane in self.sixty_fours.iter_mut() {
            let sum = xor(*plane, carry);
            carry = and(*plane, carry);
            *plane = sum;
            if carry == [0; 4] {
                return;
            }
        }
        unreachable!("a counter plane overflowed past 2^46 elements per lane");
    }

    /// Adds 32 elements (eight vectors of four lanes) by carry-save steps.
    #[inline(always)]
    fn step(&mut self, v: &[Lanes; 8]) {
        let (eights, ones, twos, fours) = fold8(self.ones, self.twos, self.fours, v);
        (self.ones, self.twos, self.fours) = (ones, twos, fours);
        self.add_eights(eights);
    }

    /// Adds 32 words at once.
    pub fn add_words(&mut self, words: &[u64; STEP]) {
        let v: [Lanes; 8] = std::array::from_fn(|k| std::array::from_fn(|l| words[4 * k + l]));
        self.step(&v);
    }

    /// Adds one word.
    pub fn add_word(&mut self, value: u64) {
        self.add_loose(value);
    }

    /// Adds counts made elsewhere: `columns[b]` more elements hold bit b.
    pub fn add_columns(&mut self, columns: &[u64; 64]) {
        for (loose, &c) in self.loose.iter_mut().zip(columns) {
            *loose += c;
        }
    }

    fn add_loose(&mut self, value: u64) {
        let mut rest = value;
        while rest != 0 {
            self.loose[rest.trailing_zeros() as usize] += 1;
            rest &= rest - 1;
        }
    }
}

/// Counts the elements of `data`, little-endian elements of `width` bytes
/// (1, 2, 4 or 8; `data` holds whole elements), into `counter`; returns the
/// block's OR and its zero and one counts. Uses AVX2 when the CPU has it.
pub fn tally(data: &[u8], width: usize, counter: &mut ColumnCounter) -> BlockTally {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above; the function
        // only differs from the portable one in the instructions it may use.
        return unsafe { tally_avx2(data, width, counter) };
    }
    tally_portable(data, width, counter)
}

/// [`tally`] compiled for the baseline target only.
pub fn tally_portable(data: &[u8], width: usize, counter: &mut ColumnCounter) -> BlockTally {
    match width {
        1 => tally_width::<1>(data, counter),
        2 => tally_width::<2>(data, counter),
        4 => tally_width::<4>(data, counter),
        _ => tally_width::<8>(data, counter),
    }
}

/// [`tally`] compiled with AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub unsafe fn tally_avx2(data: &[u8], width: usize, counter: &mut ColumnCounter) -> BlockTally {
    match width {
        1 => tally_width::<1>(data, counter),
        2 => tally_width::<2>(data, counter),
        4 => tally_width::<4>(data, counter),
        _ => tally_width::<8>(data, counter),
    }
}

/// The obvious loop, bit by bit: the reference the fast ones are tested
/// against.
pub fn tally_reference(data: &[u8], width: usize, counter: &mut ColumnCounter) -> BlockTally {
    let mut block = BlockTally::default();
    for chunk in data.chunks_exact(width) {
        let value = element(chunk);
        block.or |= value;
        block.zeros += u64::from(value == 0);
        block.ones += u64::from(value == 1);
        counter.add_loose(value);
    }
    block
}

#[inline(always)]
fn tally_width<const W: usize>(data: &[u8], counter: &mut ColumnCounter) -> BlockTally {
    let steps = data.chunks_exact(STEP * W);
    let tail = steps.remainder();
    let (mut or, mut zeros, mut ones) = ([0u64; 4], [0u64; 4], [0u64; 4]);
    for step in steps {
        let v: [Lanes; 8] = std::array::from_fn(|k| {
            std::array::from_fn(|lane| load::<W>(&step[(4 * k + lane) * W..]))
        });
        for vector in &v {
            for lane in 0..4 {
                or[lane] |= vector[lane];
                zeros[lane] += u64::from(vector[lane] == 0);
                ones[lane] += u64::from(vector[lane] == 1);
            }
        }
        counter.step(&v);
    }
    let mut block = BlockTally {
        or: or.iter().fold(0, |a, b| a | b),
        zeros: zeros.iter().sum(),
        ones: ones.iter().sum(),
    };
    let rest = tally_reference(tail, W, counter);
    block.or |= rest.or;
    block.zeros += rest.zeros;
    block.ones += rest.ones;
    block
}

/// Eight words of equal weight w folded into running words of weights w,
/// 2w and 4w by seven carry-save steps: returns the word of weight 8w and
/// the new running words.
#[inline(always)]
fn fold8(ones: Lanes, twos: Lanes, fours: Lanes, v: &[Lanes; 8]) -> (Lanes, Lanes, Lanes, Lanes) {
    let (twos_a, ones) = csa(ones, v[0], v[1]);
    let (twos_b, ones) = csa(ones, v[2], v[3]);
    let (fours_a, twos) = csa(twos, twos_a, twos_b);
    let (twos_a, ones) = csa(ones, v[4], v[5]);
    let (twos_b, ones) = csa(ones, v[6], v[7]);
    let (fours_b, twos) = csa(twos, twos_a, twos_b);
    let (eights, fours) = csa(fours, fours_a, fours_b);
    (eights, ones, twos, fours)
}

/// A carry-save adder on every bit of four lanes: returns (carry, sum).
#[inline(always)]
fn csa(a: Lanes, b: Lanes, c: Lanes) -> (Lanes, Lanes) {
    let u = xor(a, b);
    let carry = std::array::from_fn(|i| (a[i] & b[i]) | (u[i] & c[i]));
    (carry, xor(u, c))
}

#[inline(always)]
fn xor(a: Lanes, b: Lanes) -> Lanes {
    std::array::from_fn(|i| a[i] ^ b[i])
}

#[inline(always)]
fn and(a: Lanes, b: Lanes) -> Lanes {
    std::array::from_fn(|i| a[i] & b[i])
}

/// The little-endian element of `W` bytes at the start of `bytes`.
#[inline(always)]
pub fn load<const W: usize>(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..W].copy_from_slice(&bytes[..W]);
    u64::from_le_bytes(word)
}

/// A little-endian element of up to 8 bytes.
pub fn element(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(word)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Random elements with many zeros, ones and all-ones, as raw bytes.
    fn sample(rng: &mut ChaCha8Rng, width: usize, count: usize) -> Vec<u8> {
        let mask = if width == 8 {
            u64::MAX
        } else {
            (1 << (8 * width)) - 1
        };
        (0..count)
            .flat_map(|_| {
                let value = match rng.random_range(0..5) {
                    0 => 0,
                    1 => 1,
                    2 => u64::MAX,
                    3 => 1 << rng.random_range(0..64),
                    _ => rng.random(),
                } & mask;
                value.to_le_bytes()[..width].to_vec()
            })
            .collect()
    }

    #[test]
    fn fast_loops_agree_with_the_bit_by_bit_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(64);
        for width in [1, 2, 4, 8] {
            for count in [0, 1, 31, 32, 33, 64, 1000, 4099] {
                let data = sample(&mut rng, width, count);
                let mut reference = ColumnCounter::default();
                let expected = tally_reference(&data, width, &mut reference);
                let mut portable = ColumnCounter::default();
                assert_eq!(tally_portable(&data, width, &mut portable), expected);
                assert_eq!(portable.columns(), reference.columns(), "{width} {count}");
                let mut dispatched = ColumnCounter::default();
                assert_eq!(tally(&data, width, &mut dispatched), expected);
                assert_eq!(dispatched.columns(), reference.columns());
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    let mut avx2 = ColumnCounter::default();
                    // SAFETY: AVX2 was detected just above.
                    let got = unsafe { tally_avx2(&data, width, &mut avx2) };
                    assert_eq!(got, expected);
                    assert_eq!(avx2.columns(), reference.columns());
                }
            }
        }
    }

    #[test]
    fn counts_accumulate_across_blocks_and_carry_through_the_planes() {
        let data = [u64::MAX.to_le_bytes(); 4096].concat();
        let mut counter = ColumnCounter::default();
        for _ in 0..300 {
            tally(&data, 8, &mut counter);
        }
        assert_eq!(counter.columns(), [300 * 4096; 64]);
    }

    #[test]
    fn columns_give_the_xor_of_the_elements() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let data = sample(&mut rng, 8, 777);
        let mut counter = ColumnCounter::default();
        tally(&data, 8, &mut counter);
        let from_columns = counter
            .columns()
            .iter()
            .enumerate()
            .fold(0u64, |x, (b, &c)| x | (c & 1) << b);
        let direct = data.chunks_exact(8).fold(0, |x, c| x ^ element(c));
        assert_eq!(from_columns, direct);
    }
}
