//! A `bits` or `hex` token too long for one read buffer, taken in pieces.
//!
//! Digits are most significant first, so where bit 0 lies is known only
//! at the token's end. Each piece is checked as it arrives and its digits
//! are packed into limbs in reading order, one limb per 64 binary or 16 hex
//! digits counted from the token's start. At the end, the packed limbs are
//! turned in place into the value's little-endian limbs: reversed, and
//! shifted by the digits of the last, partial group.
//!
//! This is how one pass over a file reads a heap of hundreds of millions
//! of bits without holding its text: the packed digits take an eighth
//! (bits) or a half (hex) of the text's size, and nothing else grows.

use super::token::{scan_digits, Digits};
use super::{Format, Heap, HeapScanner, PageReleaser, Scanner};
use crate::error::ParseError;
use crate::nimsum::limbs;
use std::ops::Range;

/// A token being read piece by piece.
#[derive(Debug)]
pub struct LongToken {
    format: Format,
    /// The token's first byte (its `0x`, if any).
    offset: u64,
    /// The first digit.
    digits_start: u64,
    /// The byte after the last one fed.
    next: u64,
    /// Whole groups of digits, in reading order.
    groups: Vec<u64>,
    /// The digits of the group being filled.
    partial: [u8; 64],
    partial_len: usize,
}

/// A long token, read to its end.
#[derive(Debug)]
pub struct LongHeap {
    /// The heap, its value as limbs.
    pub heap: Heap<'static>,
    /// Where its digits are (after a `0x` prefix, leading zeros included).
    pub digits: Range<u64>,
}

impl LongHeap {
    /// The value's little-endian limbs.
    pub fn limbs(self) -> Vec<u64> {
        match self.heap.value {
            super::HeapValue::Limbs(limbs) => limbs,
            _ => unreachable!("a long token is read into limbs"),
        }
    }
}

impl LongToken {
    /// Whether tokens of `format` can be read in pieces.
    pub fn reads(format: Format) -> bool {
        matches!(format, Format::Bits | Format::Hex)
    }

    /// Starts a token with its first piece, which holds no whitespace and
    /// begins at the token's first byte, at absolute offset `base`. The
    /// piece is checked as a token of its own would be (the `0x` prefix
    /// of hex included), so it must be long enough to hold a prefix and a
    /// digit: three bytes. The digits are packed into `spare`, emptied
    /// (the limbs of an earlier long heap, to save allocating anew).
    pub fn start(
        format: Format,
        first: &[u8],
        base: u64,
        mut spare: Vec<u64>,
    ) -> Result<LongToken, ParseError> {
        debug_assert!(LongToken::reads(format) && first.len() >= 3);
        Scanner::new(format, first, base).next_heap()?;
        let prefix = match (format, first) {
            (Format::Hex, [b'0', b'x' | b'X', ..]) => 2,
            _ => 0,
        };
        spare.clear();
        let mut token = LongToken {
            format,
            offset: base,
            digits_start: base + prefix as u64,
            next: base + prefix as u64,
            groups: spare,
            partial: [0; 64],
            partial_len: 0,
        };
        token.pack(&first[prefix..]);
        token.next = base + first.len() as u64;
        Ok(token)
    }

    /// The byte after the last one fed.
    pub fn next(&self) -> u64 {
        self.next
    }

    /// The memory the packed digits take, in bytes.
    pub fn packed_bytes(&self) -> usize {
        8 * self.groups.capacity()
    }

    /// Feeds the next piece of the input: `Some(i)` when the token ends at
    /// `piece[i]` (whitespace), `None` when it may go on, or the first byte
    /// that is neither a digit nor whitespace.
    pub fn feed(&mut self, piece: &[u8]) -> Result<Option<usize>, ParseError> {
        let (digits, expected) = self.digit_class();
        let end = scan_digits(piece, 0, self.next, digits, expected, PageReleaser::NONE)?;
        self.pack(&piece[..end]);
        self.next += end as u64;
        Ok((end < piece.len()).then_some(end))
    }

    /// The token's value, once it has ended.
    pub fn finish(mut self) -> LongHeap {
        let group_bits = 64 / digits_per_limb(self.format) as u32;
        let last_bits = group_bits * self.partial_len as u32;
        if self.partial_len > 0 {
            let partial = &self.partial[..self.partial_len];
            self.groups.push(match self.format {
                Format::Hex => limbs::parse_hex(partial),
                _ => limbs::parse_binary(partial),
            });
        }
        let mut value = self.groups;
        value.reverse();
        if last_bits > 0 {
            shift_above_first(&mut value, last_bits);
        }
        while value.last() == Some(&0) {
            value.pop();
        }
        LongHeap {
            heap: Heap {
                offset: self.offset,
                value: super::HeapValue::Limbs(value),
            },
            digits: self.digits_start..self.next,
        }
    }

    /// Where bit `position` of the checked digits at `digits` is: the
    /// offset of the digit holding it and which bit of that digit's value;
    /// `None` above the digits.
    pub fn bit_place(format: Format, digits: &Range<u64>, position: u64) -> Option<(u64, u32)> {
        let bits_per_digit = match format {
            Format::Hex => 4,
            _ => 1,
        };
        let from_end = position / bits_per_digit;
        let at = digits.end.checked_sub(from_end + 1)?;
        (at >= digits.start).then_some((at, (position % bits_per_digit) as u32))
    }

    /// The value of a checked digit.
    pub fn digit_value(format: Format, digit: u8) -> u8 {
        match format {
            Format::Hex => limbs::hex_digit_value(digit),
            _ => digit & 1,
        }
    }

    fn digit_class(&self) -> (Digits, &'static str) {
        match self.format {
            Format::Hex => (Digits::Hex, super::hex::EXPECTED),
            _ => (Digits::Binary, super::bits::EXPECTED),
        }
    }

    /// Packs checked digits: the partial group first, then whole groups.
    fn pack(&mut self, mut digits: &[u8]) {
        let per_group = digits_per_limb(self.format);
        if self.partial_len > 0 {
            let take = (per_group - self.partial_len).min(digits.len());
            self.partial[self.partial_len..self.partial_len + take]
                .copy_from_slice(&digits[..take]);
            self.partial_len += take;
            digits = &digits[take..];
            if self.partial_len < per_group {
                return;
            }
            let partial = self.partial;
            self.push_groups(&partial[..per_group]);
            self.partial_len = 0;
        }
        let whole = digits.len() - digits.len() % per_group;
        self.push_groups(&digits[..whole]);
        let rest = &digits[whole..];
        self.partial[..rest.len()].copy_from_slice(rest);
        self.partial_len = rest.len();
    }

    /// Appends whole groups of digits. The limb kernels read a digit
    /// string from its end, so the new limbs come out last group first.
    fn push_groups(&mut self, digits: &[u8]) {
        let start = self.groups.len();
        let count = digits.len() / digits_per_limb(self.format);
        self.groups.resize(start + count, 0);
        let slots = &mut self.groups[start..];
        match self.format {
            Format::Hex => limbs::xor_hex(digits, 0, slots),
            _ => limbs::xor_binary(digits, 0, slots),
        }
        slots.reverse();
    }
}

/// The digits of a token format per 64-bit limb.
pub fn digits_per_limb(format: Format) -> usize {
    match format {
        Format::Hex => 16,
        _ => 64,
    }
}

/// Turns `[q₀, q₁, …]`, where q₀ holds the low `low_bits` bits (0 < low_bits
/// < 64) and each later limb the next 64, into plain little-endian limbs.
fn shift_above_first(q: &mut [u64], low_bits: u32) {
    let up = |limb: u64| limb << low_bits;
    let down = |limb: u64| limb >> (64 - low_bits);
    let Some(&second) = q.get(1) else {
        return;
    };
    q[0] |= up(second);
    for i in 1..q.len() {
        let above = q.get(i + 1).copied().unwrap_or(0);
        q[i] = down(q[i]) | up(above);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::HeapValue;
    use num_bigint::BigUint;

    /// Reads `text` (one token, then optionally whitespace and more) in
    /// pieces of `step` bytes after a first piece of `first` bytes.
    fn read(format: Format, text: &[u8], first: usize, step: usize) -> Result<LongHeap, u64> {
        let spare = vec![7; 3];
        let mut token =
            LongToken::start(format, &text[..first], 100, spare).map_err(|e| e.offset)?;
        let mut at = first;
        while at < text.len() {
            let piece = &text[at..text.len().min(at + step)];
            if token.feed(piece).map_err(|e| e.offset)?.is_some() {
                break;
            }
            at += piece.len();
        }
        Ok(token.finish())
    }

    fn value_of(heap: &LongHeap) -> BigUint {
        let HeapValue::Limbs(limbs) = &heap.heap.value else {
            unreachable!("long tokens are read into limbs")
        };
        BigUint::from_slice(
            &limbs
                .iter()
                .flat_map(|&l| [l as u32, (l >> 32) as u32])
                .collect::<Vec<_>>(),
        )
    }

    fn random_digits(seed: u64, len: usize, alphabet: &[u8]) -> Vec<u8> {
        let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..len)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                alphabet[(state % alphabet.len() as u64) as usize]
            })
            .collect()
    }

    #[test]
    fn pieces_of_any_size_give_the_value_of_the_whole_token() {
        for (format, alphabet, radix) in [
            (Format::Bits, &b"01"[..], 2),
            (Format::Hex, &b"0123456789abcdefABCDEF"[..], 16),
        ] {
            for len in [3, 4, 15, 16, 17, 63, 64, 65, 127, 128, 129, 300, 1000] {
                let digits = random_digits(len as u64, len, alphabet);
                let expected = BigUint::parse_bytes(&digits, radix).unwrap();
                for (first, step) in [(3, 1), (3, 7), (4, 64), (len, 5), (len.min(70), 33)] {
                    let mut text = digits.clone();
                    text.extend_from_slice(b"\n1");
                    let heap = read(format, &text, first.min(len), step).unwrap();
                    assert_eq!(value_of(&heap), expected, "{format:?} {len} {first} {step}");
                    assert_eq!(heap.digits, 100..100 + len as u64);
                    assert_eq!(heap.heap.offset, 100);
                }
            }
        }
    }

    #[test]
    fn leading_zeros_and_prefixes_do_not_count() {
        let heap = read(Format::Bits, b"000000000101", 4, 3).unwrap();
        assert_eq!(value_of(&heap), BigUint::from(5u8));
        let heap = read(Format::Hex, b"0x00ff ", 3, 2).unwrap();
        assert_eq!(value_of(&heap), BigUint::from(255u8));
        let heap = read(Format::Hex, b"0x00ff ", 6, 2).unwrap();
        assert_eq!(value_of(&heap), BigUint::from(255u8));
        assert_eq!(heap.digits, 102..106);
        let zero = read(Format::Hex, b"0X0000", 4, 1).unwrap();
        assert_eq!(zero.heap.value.bit_length(), 0);
    }

    #[test]
    fn bad_bytes_are_reported_at_their_offset() {
        assert_eq!(read(Format::Bits, b"0110201", 3, 2).unwrap_err(), 104);
        assert_eq!(read(Format::Bits, b"01x", 3, 2).unwrap_err(), 102);
        assert_eq!(read(Format::Hex, b"0xg1", 4, 2).unwrap_err(), 102);
        assert_eq!(read(Format::Hex, b"00x1", 4, 2).unwrap_err(), 102);
        assert_eq!(read(Format::Hex, b"abcd0x", 4, 2).unwrap_err(), 105);
    }

    #[test]
    fn the_partial_group_shift_carries_across_limbs() {
        let mut q = vec![0b1, u64::MAX, 1];
        shift_above_first(&mut q, 1);
        assert_eq!(q, vec![u64::MAX, 3, 0]);
    }
}
