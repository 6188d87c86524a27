//! A heap as a scanner finds it: where it is ([`HeapPos`], [`Heap`]) and
//! its value in the encoding it was read in ([`HeapValue`]), borrowing the
//! digits from the input, validated, with leading zeros stripped.
//!
//! A value can give any 64-bit limb of the heap, so that an accumulator
//! XORs any window of bit positions without converting the whole heap (the
//! one exception is a decimal token of more than 38 digits, which is
//! converted to binary limbs once by `formats/dec`: in place up to 10,000
//! digits, by divide and conquer past that). A short `hex` token may come
//! packed into the scanner's scratch space instead ([`PackedDigits`]).

use super::packed::PackedDigits;
use crate::arch::digits;

/// Where a heap is: its index in the instance and its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeapPos {
    /// 0-based heap index.
    pub index: u64,
    /// 0-based offset of the heap's first byte.
    pub offset: u64,
}

/// One heap as it was found in the input.
#[derive(Clone, Debug)]
pub struct Heap<'a> {
    /// Absolute 0-based offset of the heap's first byte.
    pub offset: u64,
    /// The heap's value, borrowing from the input where it can.
    pub value: HeapValue<'a>,
}

/// A heap's value in the encoding it was read in, normalised so that the
/// most significant digit (or limb, or byte) is non-zero.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HeapValue<'a> {
    /// A value that fits in 128 bits (raw arrays, unary, short decimals).
    Word(u128),
    /// ASCII `0`/`1`, most significant first, no leading `0`.
    Binary(&'a [u8]),
    /// ASCII hex digits of either case, most significant first, no leading `0`.
    Hex(&'a [u8]),
    /// A little-endian magnitude without high zero bytes.
    LeBytes(&'a [u8]),
    /// Little-endian 64-bit limbs without high zero limbs (long decimals).
    Limbs(Vec<u64>),
    /// A short token as its scanner packed it, in the scanner's scratch
    /// space.
    Packed(PackedDigits<'a>),
}

/// Little-endian limbs without their high zero limbs: the form of
/// [`HeapValue::Limbs`]. The one place limbs are trimmed.
pub(crate) fn trimmed(mut limbs: Vec<u64>) -> Vec<u64> {
    limbs.truncate(limbs.iter().rposition(|&w| w != 0).map_or(0, |top| top + 1));
    limbs
}

impl HeapValue<'_> {
    /// The number of bits in the value (0 for zero).
    pub fn bit_length(&self) -> u64 {
        match self {
            HeapValue::Word(w) => u64::from(128 - w.leading_zeros()),
            HeapValue::Binary(digits) => digits.len() as u64,
            HeapValue::Hex(digits) => match digits.first() {
                None => 0,
                Some(&top) => 4 * (digits.len() as u64 - 1) + nibble_bits(top),
            },
            HeapValue::LeBytes(bytes) => match bytes.last() {
                None => 0,
                Some(&top) => 8 * (bytes.len() as u64 - 1) + u64::from(8 - top.leading_zeros()),
            },
            HeapValue::Limbs(limbs) => match limbs.last() {
                None => 0,
                Some(&top) => 64 * (limbs.len() as u64 - 1) + u64::from(64 - top.leading_zeros()),
            },
            HeapValue::Packed(packed) => packed.bits,
        }
    }

    /// True for the value 1.
    pub fn is_one(&self) -> bool {
        self.bit_length() == 1
    }

    /// Limb `index` (bits `64·index .. 64·index + 64`) of the value.
    pub fn limb(&self, index: u64) -> u64 {
        match self {
            HeapValue::Word(w) => match index {
                0 => *w as u64,
                1 => (*w >> 64) as u64,
                _ => 0,
            },
            HeapValue::Binary(digits) => digits::binary_limb(digits, index),
            HeapValue::Hex(digits) => digits::hex_limb(digits, index),
            HeapValue::LeBytes(bytes) => digits::le_bytes_limb(bytes, index),
            HeapValue::Limbs(limbs) => usize::try_from(index)
                .ok()
                .and_then(|i| limbs.get(i).copied())
                .unwrap_or(0),
            HeapValue::Packed(packed) => packed.limb(index),
        }
    }

    /// Bit `position` of the value.
    pub fn bit(&self, position: u64) -> bool {
        self.limb(position / 64) >> (position % 64) & 1 == 1
    }

    /// XORs limbs `first_limb ..` of the value into `window`, one per slot.
    pub fn xor_window(&self, first_limb: u64, window: &mut [u64]) {
        if let HeapValue::Word(w) = self {
            // The common case (raw arrays, unary, short decimals): at most
            // two limbs, and XORing the zero limbs above the value is a no-op.
            let limbs = [*w as u64, (*w >> 64) as u64];
            let skip = usize::try_from(first_limb).map_or(limbs.len(), |f| f.min(limbs.len()));
            for (slot, limb) in window.iter_mut().zip(&limbs[skip..]) {
                *slot ^= limb;
            }
            return;
        }
        let limb_count = self.bit_length().div_ceil(64);
        if first_limb >= limb_count {
            return;
        }
        let span = (limb_count - first_limb).min(window.len() as u64) as usize;
        match self {
            HeapValue::Binary(digits) => {
                digits::xor_binary(digits, first_limb, &mut window[..span])
            }
            HeapValue::Hex(digits) => digits::xor_hex(digits, first_limb, &mut window[..span]),
            HeapValue::LeBytes(bytes) => {
                digits::xor_le_bytes(bytes, first_limb, &mut window[..span])
            }
            HeapValue::Limbs(limbs) => {
                for (slot, limb) in window[..span].iter_mut().zip(&limbs[first_limb as usize..]) {
                    *slot ^= limb;
                }
            }
            HeapValue::Packed(packed) => {
                for (slot, j) in window[..span].iter_mut().zip(first_limb..) {
                    *slot ^= packed.limb(j);
                }
            }
            HeapValue::Word(_) => unreachable!("handled above"),
        }
    }

    /// The value as an owned copy of its limbs (for small heaps kept aside).
    pub fn to_limbs(&self) -> Vec<u64> {
        let mut out = vec![0; self.bit_length().div_ceil(64) as usize];
        self.xor_window(0, &mut out);
        out
    }
}

impl<'a> HeapValue<'a> {
    /// How many input bytes hold one limb, for values that borrow their
    /// digits from the input (`None` for values held as numbers).
    pub(crate) fn bytes_per_limb(&self) -> Option<usize> {
        match self {
            HeapValue::Binary(_) => Some(64),
            HeapValue::Hex(_) => Some(16),
            HeapValue::LeBytes(_) => Some(8),
            HeapValue::Word(_) | HeapValue::Limbs(_) | HeapValue::Packed(_) => None,
        }
    }

    /// The limbs `limbs` of a value read from digits or bytes, as a value
    /// of the same encoding (leading zeros included); `None` for a value
    /// held as a number.
    pub(crate) fn limb_slice(&self, limbs: std::ops::Range<u64>) -> Option<HeapValue<'a>> {
        let bytes = self.limb_bytes(limbs);
        match self {
            HeapValue::Binary(_) => Some(HeapValue::Binary(bytes)),
            HeapValue::Hex(_) => Some(HeapValue::Hex(bytes)),
            HeapValue::LeBytes(_) => Some(HeapValue::LeBytes(bytes)),
            HeapValue::Word(_) | HeapValue::Limbs(_) | HeapValue::Packed(_) => None,
        }
    }

    /// The input bytes that hold limbs `limbs` (empty for values held as
    /// numbers), so that a pass can release them once it has read them.
    pub(crate) fn limb_bytes(&self, limbs: std::ops::Range<u64>) -> &'a [u8] {
        let (bytes, per_limb, msb_first) = match *self {
            HeapValue::Binary(digits) => (digits, 64, true),
            HeapValue::Hex(digits) => (digits, 16, true),
            HeapValue::LeBytes(bytes) => (bytes, 8, false),
            HeapValue::Word(_) | HeapValue::Limbs(_) | HeapValue::Packed(_) => return &[],
        };
        let len = bytes.len() as u64;
        let lo = limbs.start.saturating_mul(per_limb).min(len) as usize;
        let hi = limbs.end.saturating_mul(per_limb).min(len) as usize;
        if msb_first {
            &bytes[bytes.len() - hi..bytes.len() - lo]
        } else {
            &bytes[lo..hi]
        }
    }
}

/// Bits in the value of one hex digit character (its bit length).
fn nibble_bits(digit: u8) -> u64 {
    u64::from(8 - digits::hex_digit_value(digit).leading_zeros())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_lengths_of_every_encoding_agree() {
        assert_eq!(HeapValue::Word(5).bit_length(), 3);
        assert_eq!(HeapValue::Binary(b"101").bit_length(), 3);
        assert_eq!(HeapValue::Hex(b"5").bit_length(), 3);
        assert_eq!(HeapValue::Hex(b"1f").bit_length(), 5);
        assert_eq!(HeapValue::LeBytes(&[0xff, 0x01]).bit_length(), 9);
        assert_eq!(HeapValue::Limbs(vec![0, 1]).bit_length(), 65);
        assert_eq!(HeapValue::Binary(b"").bit_length(), 0);
    }

    #[test]
    fn limb_bytes_are_the_digits_that_limb_reads() {
        let digits: Vec<u8> = (0..150).map(|i| b'0' + (i % 3 == 0) as u8).collect();
        let value = HeapValue::Binary(&digits);
        assert_eq!(value.limb_bytes(0..1), &digits[86..]);
        assert_eq!(value.limb_bytes(1..3), &digits[..86]);
        assert_eq!(value.limb_bytes(2..9), &digits[..22]);
        let hex = HeapValue::Hex(b"123456789abcdef01");
        assert_eq!(hex.limb_bytes(1..2), b"1");
        let le = [1u8; 20];
        assert_eq!(HeapValue::LeBytes(&le).limb_bytes(1..5).len(), 12);
        assert!(HeapValue::Word(7).limb_bytes(0..1).is_empty());
    }

    #[test]
    fn word_windows_match_limb_by_limb_xors() {
        for w in [0, 1, u128::from(u64::MAX), 1 << 64, u128::MAX] {
            let value = HeapValue::Word(w);
            for first in 0..4u64 {
                for len in 0..4 {
                    let mut fast = vec![0u64; len];
                    value.xor_window(first, &mut fast);
                    let slow: Vec<u64> =
                        (first..first + len as u64).map(|i| value.limb(i)).collect();
                    assert_eq!(fast, slow, "{w} {first} {len}");
                }
            }
        }
    }

    #[test]
    fn windows_of_a_word_split_at_limb_boundaries() {
        let value = HeapValue::Word((3u128 << 64) | 7);
        let mut window = [0u64; 2];
        value.xor_window(0, &mut window);
        assert_eq!(window, [7, 3]);
        let mut high = [0u64; 1];
        value.xor_window(1, &mut high);
        assert_eq!(high, [3]);
    }
}
