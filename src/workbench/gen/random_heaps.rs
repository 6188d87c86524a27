//! The random draws of `gen`: a heap's bit length and limbs, and a uniform
//! number below a bound, exactly as the scheme on [`gen`](super) says, so
//! that a seed fixes the output for good.

use super::BitRange;
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Random heaps drawn by the scheme documented on [`gen`](super).
pub(super) struct RandomHeaps {
    rng: ChaCha8Rng,
    bits: BitRange,
    limbs: Vec<u64>,
}

impl RandomHeaps {
    pub(super) fn new(seed: u64, bits: BitRange) -> RandomHeaps {
        RandomHeaps {
            rng: ChaCha8Rng::seed_from_u64(seed),
            bits,
            limbs: Vec::new(),
        }
    }

    /// The next random heap, as little-endian limbs with a non-zero top limb.
    pub(super) fn next(&mut self) -> &[u64] {
        let span = self.bits.high - self.bits.low + 1;
        let bit_length = self.bits.low + below(&mut self.rng, span);
        let count = bit_length.div_ceil(64);
        self.limbs.clear();
        self.limbs.extend((0..count).map(|_| self.rng.next_u64()));
        if let Some(top) = self.limbs.last_mut() {
            let top_bits = bit_length - 64 * (count - 1);
            let mask = u64::MAX >> (64 - top_bits);
            *top = (*top & mask) | 1 << (top_bits - 1);
        }
        &self.limbs
    }
}

/// A uniform number in `0 .. n` (`n ≥ 1`), by Lemire's multiply-and-reject.
fn below(rng: &mut ChaCha8Rng, n: u64) -> u64 {
    if n == 1 {
        return 0;
    }
    let threshold = n.wrapping_neg() % n;
    loop {
        let product = u128::from(rng.next_u64()) * u128::from(n);
        if product as u64 >= threshold {
            return (product >> 64) as u64;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::encode::Magnitude;

    #[test]
    fn random_heaps_have_their_top_bit_set_and_lengths_in_range() {
        let bits = BitRange { low: 0, high: 130 };
        let mut heaps = RandomHeaps::new(3, bits);
        let mut lengths = std::collections::BTreeSet::new();
        for _ in 0..2000 {
            let length = heaps.next().bit_length();
            assert!(length <= 130);
            assert_eq!(heaps.limbs.len() as u64, length.div_ceil(64));
            lengths.insert(length);
        }
        assert!(lengths.contains(&0) && lengths.contains(&130) && lengths.contains(&64));
    }

    #[test]
    fn below_stays_below_and_reaches_both_ends() {
        let mut rng = ChaCha8Rng::seed_from_u64(0);
        let draws: Vec<u64> = (0..500).map(|_| below(&mut rng, 5)).collect();
        assert!(draws.iter().all(|&d| d < 5));
        assert!(draws.contains(&0) && draws.contains(&4));
        assert_eq!(below(&mut rng, 1), 0);
    }
}
