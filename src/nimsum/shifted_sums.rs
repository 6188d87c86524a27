//! A nim-sum of values that arrive shifted: packed digit groups, whose
//! value is the groups shifted right by a multiple of 4 bits
//! ([`crate::input::PackedDigits`]).
//!
//! Shifting and XOR commute, so the groups of every value with the same
//! shift are XORed as they are, into one sum per shift, and each of the 16
//! sums is shifted once when the nim-sum is read. XORing a token then
//! costs one pass over its groups, with no shift per token.

use super::xor_at;
use crate::input::{shifted_limb, PackedDigits};

/// Sums of groups, one per shift of 0, 4, …, 60 bits.
#[derive(Clone, Debug, Default)]
pub struct ByShift {
    sums: [Vec<u64>; 16],
}

impl ByShift {
    /// XORs a packed value into the sum of its shift.
    #[inline]
    pub fn xor(&mut self, packed: &PackedDigits<'_>) {
        xor_at(
            &mut self.sums[(packed.shift / 4) as usize],
            0,
            packed.groups,
        );
    }

    /// XORs every sum, shifted, into `nim_sum` (grown as needed), and
    /// empties them.
    pub fn drain_into(&mut self, nim_sum: &mut Vec<u64>) {
        for (k, sum) in self.sums.iter_mut().enumerate() {
            let sum = std::mem::take(sum);
            if nim_sum.len() < sum.len() {
                nim_sum.resize(sum.len(), 0);
            }
            let shift = 4 * k as u32;
            for (j, slot) in (0..).zip(nim_sum.iter_mut().take(sum.len())) {
                *slot ^= shifted_limb(&sum, shift, j);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The value of packed groups, computed bit by bit.
    fn value_bits(groups: &[u64], shift: u32) -> Vec<bool> {
        let bits = 64 * groups.len();
        (shift as usize..bits)
            .map(|b| groups[b / 64] >> (b % 64) & 1 == 1)
            .collect()
    }

    #[test]
    fn shifted_sums_give_the_xor_of_the_shifted_values() {
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            state
        };
        let mut by_shift = ByShift::default();
        let mut expected = vec![false; 64 * 8];
        for _ in 0..200 {
            let len = (next() % 8 + 1) as usize;
            let shift = 4 * (next() % 16) as u32;
            let mut groups: Vec<u64> = (0..len).map(|_| next()).collect();
            groups[0] &= u64::MAX << shift;
            for (e, bit) in expected.iter_mut().zip(value_bits(&groups, shift)) {
                *e ^= bit;
            }
            let packed = PackedDigits {
                groups: &groups,
                shift,
                bits: 0,
            };
            by_shift.xor(&packed);
        }
        let mut nim_sum = vec![0; 2];
        by_shift.drain_into(&mut nim_sum);
        let got: Vec<bool> = (0..64 * 8)
            .map(|b| nim_sum.get(b / 64).is_some_and(|l| l >> (b % 64) & 1 == 1))
            .collect();
        assert_eq!(got, expected);
        assert!(by_shift.sums.iter().all(Vec::is_empty));
    }
}
