//! The values an update session holds: a heap's value wherever it comes
//! from (an update, or FILE), and the nim-sum, kept whole as limbs.
//!
//! The nim-sum changes by `old ⊕ new` at each update: O(w) word
//! operations for w the limbs of the two values, trimming its top only
//! when those limbs reach it, so an update of a short heap costs the same
//! under a nim-sum of a million bits.

use crate::input::HeapValue;

/// A heap's value: set by an update, or read from FILE (borrowing it).
#[derive(Clone, Debug)]
pub(super) enum HeapRef<'a> {
    /// An updated value of at most 64 bits.
    Word(u64),
    /// An updated value of more than 64 bits.
    Limbs(&'a [u64]),
    /// A value read from FILE.
    File(HeapValue<'a>),
}

impl HeapRef<'_> {
    /// The number of bits (0 for zero).
    pub(super) fn bit_length(&self) -> u64 {
        match self {
            HeapRef::Word(w) => u64::from(64 - w.leading_zeros()),
            HeapRef::Limbs(limbs) => crate::nimsum::bit_length(limbs),
            HeapRef::File(value) => value.bit_length(),
        }
    }

    /// Bits 0 to 63.
    pub(super) fn low(&self) -> u64 {
        match self {
            HeapRef::Word(w) => *w,
            HeapRef::Limbs(limbs) => limbs.first().copied().unwrap_or(0),
            HeapRef::File(value) => value.limb(0),
        }
    }

    /// Bit `position`.
    pub(super) fn bit(&self, position: u64) -> bool {
        let limb = match self {
            HeapRef::Word(w) => {
                if position < 64 {
                    *w
                } else {
                    0
                }
            }
            HeapRef::Limbs(limbs) => usize::try_from(position / 64)
                .ok()
                .and_then(|i| limbs.get(i).copied())
                .unwrap_or(0),
            HeapRef::File(value) => value.limb(position / 64),
        };
        limb >> (position % 64) & 1 == 1
    }

    /// XORs the value into `limbs`, which must hold its limbs (none for
    /// zero).
    pub(super) fn xor_into(&self, limbs: &mut [u64]) {
        match self {
            HeapRef::Word(0) => {}
            HeapRef::Word(w) => limbs[0] ^= w,
            HeapRef::Limbs(value) => {
                for (slot, limb) in limbs.iter_mut().zip(value.iter()) {
                    *slot ^= limb;
                }
            }
            HeapRef::File(value) => value.xor_window(0, limbs),
        }
    }

    /// The value's limbs, the top one non-zero.
    pub(super) fn to_limbs(&self) -> Vec<u64> {
        let mut limbs = vec![0; self.bit_length().div_ceil(64) as usize];
        self.xor_into(&mut limbs);
        limbs
    }
}

/// The nim-sum of every heap, whole: little-endian limbs, the top one
/// non-zero (none for zero).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct NimSum {
    limbs: Vec<u64>,
}

impl NimSum {
    /// The nim-sum whose limbs are `limbs` (high zero limbs allowed).
    pub(super) fn new(limbs: Vec<u64>) -> NimSum {
        NimSum {
            limbs: crate::input::trimmed(limbs),
        }
    }

    /// Replaces `old` by `new` in the sum: O(limbs of the two values).
    pub(super) fn replace(&mut self, old: &HeapRef<'_>, new: &HeapRef<'_>) {
        let touched = old.bit_length().max(new.bit_length()).div_ceil(64) as usize;
        if self.limbs.len() < touched {
            self.limbs.resize(touched, 0);
        }
        old.xor_into(&mut self.limbs[..touched]);
        new.xor_into(&mut self.limbs[..touched]);
        if touched == self.limbs.len() {
            // The top was touched: trim it, looking at touched limbs only.
            let used = self.limbs[..touched].iter().rposition(|&w| w != 0);
            self.limbs.truncate(used.map_or(0, |top| top + 1));
        }
    }

    /// The limbs, the top one non-zero.
    pub(super) fn limbs(&self) -> &[u64] {
        &self.limbs
    }

    /// The bit length (0 for zero).
    pub(super) fn bit_length(&self) -> u64 {
        self.limbs.last().map_or(0, |top| {
            64 * self.limbs.len() as u64 - u64::from(top.leading_zeros())
        })
    }

    /// Whether the sum is non-zero.
    pub(super) fn is_nonzero(&self) -> bool {
        !self.limbs.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sum_of(values: &[&[u64]]) -> Vec<u64> {
        let mut sum = vec![0u64; values.iter().map(|v| v.len()).max().unwrap_or(0)];
        for value in values {
            for (s, v) in sum.iter_mut().zip(value.iter()) {
                *s ^= v;
            }
        }
        NimSum::new(sum).limbs
    }

    #[test]
    fn replacing_a_value_is_xoring_out_the_old_and_in_the_new() {
        // a ⊕ b = c ⇒ replacing a by 0 in c leaves b; 64 and 65 bits,
        // u64::MAX limbs, and a top that cancels.
        let a: &[u64] = &[u64::MAX, 1];
        let b: &[u64] = &[u64::MAX];
        let mut sum = NimSum::new(sum_of(&[a, b]));
        assert_eq!(sum.limbs(), [0, 1]);
        sum.replace(&HeapRef::Limbs(a), &HeapRef::Word(0));
        assert_eq!(sum.limbs(), b);
        assert_eq!(sum.bit_length(), 64);
        sum.replace(&HeapRef::Word(u64::MAX), &HeapRef::Limbs(&[0, 0, 4]));
        assert_eq!(sum.limbs(), [0, 0, 4]);
        sum.replace(&HeapRef::Limbs(&[0, 0, 4]), &HeapRef::Word(0));
        assert!(!sum.is_nonzero());
        assert_eq!(sum.bit_length(), 0);
    }

    #[test]
    fn a_short_update_leaves_a_long_top_alone() {
        let mut sum = NimSum::new(vec![7, 0, 0, 1 << 63]);
        sum.replace(&HeapRef::Word(7), &HeapRef::Word(0));
        assert_eq!(sum.limbs(), [0, 0, 0, 1 << 63]);
        assert_eq!(sum.bit_length(), 256);
    }

    #[test]
    fn values_read_alike_wherever_they_come_from() {
        let file = HeapRef::File(HeapValue::Binary(b"1101"));
        assert_eq!((file.bit_length(), file.low(), file.bit(2)), (4, 13, true));
        assert_eq!(HeapRef::Limbs(&[0, 2]).to_limbs(), [0, 2]);
        assert!(HeapRef::Limbs(&[0, 2]).bit(65));
        assert!(!HeapRef::Word(1).bit(64));
    }
}
