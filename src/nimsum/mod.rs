//! The window accumulator: the XOR of every heap's bits in one window of bit
//! positions, held as little-endian 64-bit limbs.
//!
//! A window is limb-aligned: it covers bits `64·first_limb ..
//! 64·(first_limb + len)`. The analysis runs one window per pass, from the
//! most significant end; when every heap fits in one window, a
//! [`GrowingAccumulator`] computes the whole nim-sum during the survey.

mod shifted;

pub use shifted::ByShift;

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

    /// A window holding limbs that were already computed.
    pub fn from_limbs(first_limb: u64, limbs: Vec<u64>) -> Self {
        WindowAccumulator { first_limb, limbs }
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

    /// The index of the window's lowest limb.
    pub fn first_limb(&self) -> u64 {
        self.first_limb
    }

    /// The window's limbs, least significant first.
    pub fn limbs(&self) -> &[u64] {
        &self.limbs
    }

    /// The absolute position of the highest set bit, if any.
    pub fn highest_bit(&self) -> Option<u64> {
        let top = self.limbs.iter().rposition(|&limb| limb != 0)?;
        let within = 63 - u64::from(self.limbs[top].leading_zeros());
        Some(64 * (self.first_limb + top as u64) + within)
    }
}

/// The whole nim-sum from bit 0 up, grown as longer heaps arrive, until it
/// would pass its limb budget; then it gives up and frees its limbs.
#[derive(Debug)]
pub struct GrowingAccumulator {
    limbs: Vec<u64>,
    max_limbs: u64,
    overflowed: bool,
}

impl GrowingAccumulator {
    /// An empty accumulator that may grow to `max_limbs` limbs.
    pub fn new(max_limbs: u64) -> Self {
        GrowingAccumulator {
            limbs: Vec::new(),
            max_limbs,
            overflowed: false,
        }
    }

    /// XORs a whole heap in (`pages` releases the input behind a long
    /// heap); returns false (and stops for good) once a heap needs more
    /// limbs than the budget allows.
    #[inline]
    pub fn xor(&mut self, value: &HeapValue<'_>, pages: PageReleaser<'_>) -> bool {
        if self.overflowed {
            return false;
        }
        let needed = value.bit_length().div_ceil(64);
        if needed > self.max_limbs {
            self.overflowed = true;
            self.limbs = Vec::new();
            return false;
        }
        let needed = needed as usize;
        if needed > self.limbs.len() {
            self.grow(needed);
        }
        pages.xor_window(value, 0, &mut self.limbs[..needed]);
        true
    }

    /// Grows to at least `needed` limbs, doubling but never past the budget.
    fn grow(&mut self, needed: usize) {
        let target = needed
            .max(2 * self.limbs.len())
            .min(self.max_limbs as usize)
            .max(needed);
        self.limbs.reserve_exact(target - self.limbs.len());
        self.limbs.resize(target, 0);
    }

    /// The nim-sum, unless some heap was longer than the budget.
    pub fn finish(self) -> Option<WindowAccumulator> {
        (!self.overflowed).then(|| WindowAccumulator::from_limbs(0, self.limbs))
    }
}

/// XORs `other` into `sum`, keeping the longer of the two vectors as the
/// sum, so that nothing is allocated; returns the other one, whose memory
/// can be reused.
pub fn xor_keeping_longer(sum: &mut Vec<u64>, mut other: Vec<u64>) -> Vec<u64> {
    if other.len() > sum.len() {
        std::mem::swap(sum, &mut other);
    }
    for (s, o) in sum.iter_mut().zip(&other) {
        *s ^= o;
    }
    other
}

#[cfg(test)]
mod tests {
    use super::*;

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
        assert_eq!(check.limbs(), &[u64::MAX, 0xff]);
    }

    #[test]
    fn windows_see_only_their_limbs() {
        let value = HeapValue::Limbs(vec![1, 2, 3]);
        let mut middle = WindowAccumulator::new(1, 1);
        middle.xor(&value, PageReleaser::NONE);
        assert_eq!(middle.limbs(), &[2]);
        assert_eq!(middle.highest_bit(), Some(65));
    }

    #[test]
    fn the_growing_accumulator_gives_up_past_its_budget() {
        let mut small = GrowingAccumulator::new(1);
        assert!(small.xor(&HeapValue::Word(u128::from(u64::MAX)), PageReleaser::NONE));
        assert!(!small.xor(&HeapValue::Word(1 << 64), PageReleaser::NONE));
        assert!(small.finish().is_none());

        let mut fits = GrowingAccumulator::new(2);
        fits.xor(&HeapValue::Word(3), PageReleaser::NONE);
        fits.xor(&HeapValue::Word(1 << 64), PageReleaser::NONE);
        assert_eq!(fits.finish().unwrap().limbs(), &[3, 1]);
    }
}
