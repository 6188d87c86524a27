//! A `bits` or `hex` token too long for one read buffer, taken in pieces.
//!
//! Digits are most significant first, so where bit 0 lies is known only
//! at the token's end. Each piece is checked as it arrives and its digits
//! are packed into limbs in reading order, one limb per 64 binary or 16 hex
//! digits counted from the token's start. Once the token ends, its
//! length is known, and each limb of the value is two neighbouring groups
//! (counted from the last), shifted by the bits of the last, partial group:
//! the value is XORed into a sum straight from the groups, or turned into
//! little-endian limbs in place.
//!
//! This is how one pass over a file reads a long token that short ones
//! follow in its range, and how the folds that drain tokens read every
//! long token: the packed digits take an eighth (bits) or a half (hex) of
//! the text's size, and nothing else grows. The long tokens at a range's
//! end are read from their end instead, with nothing held
//! ([`super::from_end`]).

use crate::arch::digits;
use crate::arch::token_end::Digits;
use crate::error::ParseError;
use crate::input::format::Format;
use crate::input::formats::any::Scanner;
use crate::input::formats::token::scan_digits;
use crate::input::formats::{bits, hex};
use crate::input::heap::trimmed;
use crate::input::scanner::HeapScanner;
use crate::input::source::page_release::PageReleaser;
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
    /// The token's first byte.
    pub offset: u64,
    /// Where its digits are (after a `0x` prefix, leading zeros included).
    pub digits: Range<u64>,
    /// The groups of digits in reading order, the last one possibly short.
    groups: Vec<u64>,
    /// The bits of the last group (64 when it is whole).
    last_bits: u32,
    /// The value's bit length.
    bits: u64,
}

/// The end of a long token whose whole groups went, as it was read, to a
/// fold that drains them ([`LongToken::drain_into`]): where it is, and
/// its last, partial group.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LongTail {
    /// The token's first byte.
    pub offset: u64,
    /// Where its digits are (after a `0x` prefix, leading zeros included).
    pub digits: Range<u64>,
    /// The value of the digits after the last whole group.
    pub last: u64,
    /// Their bits (0 when the digits ended with a whole group).
    pub last_bits: u32,
}

impl LongHeap {
    /// The value's bit length.
    pub fn bit_length(&self) -> u64 {
        self.bits
    }

    /// Limb `j` of the value (0 above it).
    pub fn limb(&self, j: u64) -> u64 {
        let n = self.groups.len() as u64;
        if j >= n {
            return 0;
        }
        let group = |i: u64| self.groups[(n - 1 - i) as usize];
        if self.last_bits == 64 {
            return group(j);
        }
        let above = if j + 1 < n {
            group(j + 1) << self.last_bits
        } else {
            0
        };
        match j {
            0 => group(0) | above,
            _ => group(j) >> (64 - self.last_bits) | above,
        }
    }

    /// The number of limbs the value spans, high zero limbs included.
    pub fn limbs(&self) -> usize {
        self.groups.len()
    }

    /// XORs the value into `sum`, which must have [`LongHeap::limbs`] limbs
    /// or more.
    pub fn xor_into(&self, sum: &mut [u64]) {
        let g = &self.groups;
        let Some((&low, _)) = g.split_last() else {
            return;
        };
        if self.last_bits == 64 {
            for (s, &q) in sum.iter_mut().zip(g.iter().rev()) {
                *s ^= q;
            }
            return;
        }
        let (up, down) = (self.last_bits, 64 - self.last_bits);
        let above = g.len().checked_sub(2).map_or(0, |i| g[i] << up);
        sum[0] ^= low | above;
        // Limb j ≥ 1 is group j shifted down and group j + 1 shifted up,
        // counting groups from the last: a window over the reversed groups.
        for (s, pair) in sum[1..].iter_mut().zip(g.windows(2).rev().skip(1)) {
            *s ^= pair[1] >> down | pair[0] << up;
        }
        if let [top, _, ..] = g.as_slice() {
            sum[g.len() - 1] ^= top >> down;
        }
    }

    /// The value's little-endian limbs, turned from the groups in place.
    pub fn into_limbs(self) -> Vec<u64> {
        let mut value = self.groups;
        value.reverse();
        if self.last_bits < 64 {
            shift_above_first(&mut value, self.last_bits);
        }
        trimmed(value)
    }

    /// The memory of the groups, to pack another token into.
    pub fn into_buffer(self) -> Vec<u64> {
        self.groups
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
        if self.format != Format::Bits {
            return self.check_and_pack(piece);
        }
        // Binary digits are checked and packed in one go, 64 at a time,
        // once the partial group is complete; the bytes around are checked
        // first and packed after.
        let head = ((64 - self.partial_len) % 64).min(piece.len());
        if let Some(end) = self.check_and_pack(&piece[..head])? {
            return Ok(Some(end));
        }
        let packed = digits::pack_binary_groups(&piece[head..], &mut self.groups);
        self.next += packed as u64;
        let rest = head + packed;
        let end = self.check_and_pack(&piece[rest..])?;
        Ok(end.map(|end| rest + end))
    }

    /// [`LongToken::feed`] in two steps: the token's end, then its digits.
    fn check_and_pack(&mut self, piece: &[u8]) -> Result<Option<usize>, ParseError> {
        let (digits, expected) = self.digit_class();
        let end = scan_digits(piece, 0, self.next, digits, expected, PageReleaser::NONE)?;
        self.pack(&piece[..end]);
        self.next += end as u64;
        Ok((end < piece.len()).then_some(end))
    }

    /// Hands the whole groups packed so far to `take`, in reading order,
    /// and forgets them: a fold that needs each digit once keeps no copy
    /// of the token.
    pub fn drain_into(&mut self, take: impl FnOnce(&[u64])) {
        take(&self.groups);
        self.groups.clear();
    }

    /// The token, once it has ended, its whole groups drained
    /// ([`LongToken::drain_into`]); gives back its buffer, for the next.
    pub fn finish_drained(self) -> (LongTail, Vec<u64>) {
        debug_assert!(
            self.groups.is_empty(),
            "whole groups are drained before the end"
        );
        let group_bits = 64 / digits_per_limb(self.format) as u32;
        let partial = &self.partial[..self.partial_len];
        let last = match self.format {
            Format::Hex => digits::parse_hex(partial),
            _ => digits::parse_binary(partial),
        };
        let tail = LongTail {
            offset: self.offset,
            digits: self.digits_start..self.next,
            last,
            last_bits: group_bits * self.partial_len as u32,
        };
        (tail, self.groups)
    }

    /// The token, once it has ended.
    pub fn finish(mut self) -> LongHeap {
        let group_bits = 64 / digits_per_limb(self.format) as u32;
        let last_bits = match self.partial_len {
            0 => 64,
            digits => {
                let partial = &self.partial[..digits];
                self.groups.push(match self.format {
                    Format::Hex => digits::parse_hex(partial),
                    _ => digits::parse_binary(partial),
                });
                group_bits * digits as u32
            }
        };
        let mut heap = LongHeap {
            offset: self.offset,
            digits: self.digits_start..self.next,
            groups: self.groups,
            last_bits,
            bits: 0,
        };
        let top = (0..heap.limbs() as u64).rev().find(|&j| heap.limb(j) != 0);
        heap.bits = top.map_or(0, |j| 64 * j + 64 - u64::from(heap.limb(j).leading_zeros()));
        heap
    }

    /// Where bit `position` of the checked digits at `digits` is: the
    /// offset of the digit holding it and which bit of that digit's value;
    /// `None` above the digits.
    pub fn bit_place(format: Format, digits: &Range<u64>, position: u64) -> Option<(u64, u32)> {
        let bits_per_digit = bits_per_digit(format);
        let from_end = position / bits_per_digit;
        let at = digits.end.checked_sub(from_end + 1)?;
        (at >= digits.start).then_some((at, (position % bits_per_digit) as u32))
    }

    /// The value of a checked digit.
    pub fn digit_value(format: Format, digit: u8) -> u8 {
        match format {
            Format::Hex => digits::hex_digit_value(digit),
            _ => digit & 1,
        }
    }

    fn digit_class(&self) -> (Digits, &'static str) {
        let expected = match self.format {
            Format::Hex => hex::EXPECTED,
            _ => bits::EXPECTED,
        };
        (digit_class(self.format), expected)
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
            Format::Hex => digits::xor_hex(digits, 0, slots),
            _ => digits::xor_binary(digits, 0, slots),
        }
        slots.reverse();
    }
}

/// The digits of a token format (`bits` or `hex`) per 64-bit limb.
pub(crate) fn digits_per_limb(format: Format) -> usize {
    match format {
        Format::Hex => 16,
        _ => 64,
    }
}

/// The bits of one digit of a token format.
pub(crate) fn bits_per_digit(format: Format) -> u64 {
    match format {
        Format::Hex => 4,
        _ => 1,
    }
}

/// The class of a token format's digits.
pub(crate) fn digit_class(format: Format) -> Digits {
    match format {
        Format::Hex => Digits::Hex,
        _ => Digits::Binary,
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
mod tests;
