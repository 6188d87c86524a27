//! Nim-sum arithmetic on little-endian 64-bit limbs: the window
//! accumulator (the XOR of every heap's bits in one window of bit
//! positions), the sums of packed tokens kept per shift ([`ByShift`]), the
//! XOR of two limb vectors, bit lengths and top bits.
//!
//! A window is limb-aligned: it covers bits `64·first_limb ..
//! 64·(first_limb + len)`. The windowed passes run one window per pass,
//! from the most significant end; the one pass keeps the whole nim-sum as
//! one vector.

mod shifted_sums;

pub use shifted_sums::ByShift;

use crate::arch::xor_limbs;
use crate::input::{HeapValue, PageReleaser};

/// The XOR of a fixed window of bit positions over many heaps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WindowAccumulator {
    first_limb: u64,
    limbs: Vec<u64>,
}

impl WindowAccumulator {
    /// A zero window of `len` limbs starting at limb `first_limb`.
    pub fn new(first_limb: u64, len: usize) -> Self {
        WindowAccumulator {
            first_limb,
            limbs: vec![0; len],
        }
    }

    /// XORs the heap's bits in this window into it; `pages` releases the
    /// input behind a long heap.
    #[inline]
    pub fn xor(&mut self, value: &HeapValue<'_>, pages: PageReleaser<'_>) {
        pages.xor_window(value, self.first_limb, &mut self.limbs);
    }

    /// Merges another accumulator of the same window (partial results combine
    /// by XOR, in any order).
    pub fn merge(&mut self, other: &WindowAccumulator) {
        debug_assert_eq!(self.first_limb, other.first_limb);
        for (mine, theirs) in self.limbs.iter_mut().zip(&other.limbs) {
            *mine ^= theirs;
        }
    }

    /// The window's limbs, least significant first.
    pub fn into_limbs(self) -> Vec<u64> {
        self.limbs
    }
}

/// The position of the highest set bit of `limbs`, the limbs of a number
/// from limb `first_limb` up (`None` when they are all zero).
pub fn highest_bit(first_limb: u64, limbs: &[u64]) -> Option<u64> {
    let top = limbs.iter().rposition(|&limb| limb != 0)?;
    let within = 63 - u64::from(limbs[top].leading_zeros());
    Some(64 * (first_limb + top as u64) + within)
}

/// The bit length of little-endian limbs.
pub fn bit_length(limbs: &[u64]) -> u64 {
    highest_bit(0, limbs).map_or(0, |top| top + 1)
}

/// Little-endian limbs as lowercase hex, without leading zeros (`0` for
/// zero): the `hex` of the reports and of sharded partials. The text is
/// sized up front, since a string grown while it is formatted costs as
/// much as the rest of an update of `nimstream updates`.
pub fn to_hex(limbs: &[u64]) -> String {
    use std::fmt::Write;
    let used = &limbs[..limbs.iter().rposition(|&w| w != 0).map_or(0, |top| top + 1)];
    let Some((top, rest)) = used.split_last() else {
        return "0".to_string();
    };
    let mut hex = String::with_capacity(16 * used.len());
    let _ = write!(hex, "{top:x}");
    for limb in rest.iter().rev() {
        let _ = write!(hex, "{limb:016x}");
    }
    hex
}

/// XORs `limbs` into `sum` from limb `first` up, growing `sum` with zeros
/// where it is shorter.
pub fn xor_at(sum: &mut Vec<u64>, first: usize, limbs: &[u64]) {
    let end = first + limbs.len();
    if sum.len() < end {
        sum.resize(end, 0);
    }
    xor_limbs::xor_into(&mut sum[first..], limbs);
}

/// XORs `other` into `sum`, keeping the longer of the two vectors as the
/// sum, so that nothing is allocated; returns the other one, whose memory
/// can be reused.
pub fn xor_keeping_longer(sum: &mut Vec<u64>, mut other: Vec<u64>) -> Vec<u64> {
    if other.len() > sum.len() {
        std::mem::swap(sum, &mut other);
    }
    xor_limbs::xor_into(sum, &other);
    other
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_has_no_leading_zeros_and_pads_every_lower_limb() {
        assert_eq!(to_hex(&[]), "0");
        assert_eq!(to_hex(&[0, 0]), "0");
        assert_eq!(to_hex(&[0x1f]), "1f");
        assert_eq!(to_hex(&[0, 1]), "10000000000000000");
        assert_eq!(to_hex(&[0xab, 0x10, 0]), "1000000000000000ab");
    }

    #[test]
    fn a_xor_b_equals_c_implies_a_xor_c_equals_b() {
        let a = HeapValue::Binary(b"1011011101111011111011111101111111");
        let b = HeapValue::Hex(b"ffffffffffffffffff");
        let mut c = WindowAccumulator::new(0, 2);
        c.xor(&a, PageReleaser::NONE);
        c.xor(&b, PageReleaser::NONE);
        let mut check = WindowAccumulator::new(0, 2);
        check.xor(&a, PageReleaser::NONE);
        check.merge(&c);
        assert_eq!(check.into_limbs(), [u64::MAX, 0xff]);
    }

    #[test]
    fn windows_see_only_their_limbs() {
        let value = HeapValue::Limbs(vec![1, 2, 3]);
        let mut middle = WindowAccumulator::new(1, 1);
        middle.xor(&value, PageReleaser::NONE);
        let limbs = middle.into_limbs();
        assert_eq!(limbs, [2]);
        assert_eq!(highest_bit(1, &limbs), Some(65));
    }

    #[test]
    fn lengths_and_top_bits_ignore_high_zero_limbs() {
        assert_eq!(bit_length(&[5, 0, 0]), 3);
        assert_eq!(bit_length(&[0, 1]), 65);
        assert_eq!(bit_length(&[]), 0);
        assert_eq!(highest_bit(2, &[0, 2]), Some(64 * 3 + 1));
    }
}
