//! A long `bits` or `hex` token read from its end, its limbs XORed into a
//! sum as they come.
//!
//! Digits are most significant first, so read forward a token's bit 0 is
//! known only at its end, and its digits must be held until then
//! ([`LongToken`]). Read backward from its last digit, in chunks
//! whose length is a whole number of limbs (64 binary or 16 hex digits),
//! every chunk is the next limbs of the value, bit-0 aligned: they go
//! straight into a sum, and nothing of the token is held but its top limbs
//! (what the holder counts and the move's candidates look at) and its bit
//! length. The driver reads a range's tokens this way from the range's end
//! (`driver/from_end.rs`).
//!
//! A chunk is checked before its limbs are XORed into the sum (a `bits`
//! chunk as it is converted, in one read: a chunk of digits only is by far
//! the most common): the first non-digit (looking backward) ends the
//! token, at whitespace or at a `0x` prefix that follows whitespace. Any
//! other byte leaves the token to the forward reader, which reports the
//! input's first error; the limbs XORed until then are never read, since
//! the pass fails.

use super::pieces::{digit_class, digits_per_limb, LongToken};
use crate::arch::digits;
use crate::arch::token_end::first_non_digit;
use crate::input::format::Format;
use crate::input::formats::token::is_space;
use std::ops::Range;

/// The most significant limbs a [`SummedHeap`] keeps.
pub const SUMMED_TOP_LIMBS: usize = 4;

/// A token whose value went into a sum, limb by limb, read from its end.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SummedHeap {
    /// The token's first byte (its `0x`, if any).
    pub offset: u64,
    /// Where its digits are (after a `0x` prefix, leading zeros included).
    pub digits: Range<u64>,
    /// The value's bit length.
    pub bits: u64,
    /// Limbs `top - 3 ..= top` of the value, `top` its highest non-zero
    /// limb (zeros below limb 0).
    top: [u64; SUMMED_TOP_LIMBS],
}

impl SummedHeap {
    /// Limb `j` of the value, for `j` among its top [`SUMMED_TOP_LIMBS`]
    /// limbs or above them (0 there).
    pub fn top_limb(&self, j: u64) -> u64 {
        let limbs = self.bits.div_ceil(64);
        if j >= limbs {
            return 0;
        }
        let kept = SUMMED_TOP_LIMBS as u64;
        let slot = (j + kept)
            .checked_sub(limbs)
            .expect("a limb among the top limbs kept");
        self.top[slot as usize]
    }
}

/// What one chunk told of the token read from its end.
#[derive(Debug, PartialEq, Eq)]
pub enum FromEnd {
    /// Its limbs went into the sum; the token goes on below the chunk.
    More,
    /// The token starts in the chunk (or at the chunk's start, where the
    /// zone read backward begins): it is whole.
    Whole(SummedHeap),
    /// The chunk holds a byte that is neither a digit nor the token's
    /// start: the token is left to the forward reader.
    Refused,
}

/// A token being read from its last digit down.
#[derive(Debug)]
pub struct TokenFromEnd {
    format: Format,
    /// The byte after the last digit.
    end: u64,
    /// The limbs XORed so far.
    limbs_done: u64,
    top: TopLimbs,
    /// Where the value of a chunk is built before it is XORed.
    scratch: Vec<u64>,
}

impl TokenFromEnd {
    /// A token whose last digit is the byte before `end`.
    pub fn new(format: Format, end: u64) -> TokenFromEnd {
        debug_assert!(LongToken::reads(format));
        TokenFromEnd {
            format,
            end,
            limbs_done: 0,
            top: TopLimbs::default(),
            scratch: Vec::new(),
        }
    }

    /// The offset of the lowest byte not yet taken.
    pub fn next_end(&self) -> u64 {
        self.end - self.limbs_done * digits_per_limb(self.format) as u64
    }

    /// Takes the chunk of bytes just below [`TokenFromEnd::next_end`],
    /// starting at offset `lo`: a whole number of limbs unless it holds
    /// the token's start or starts at `floor`, where the zone read
    /// backward begins (a token's first byte). `before` gives the two
    /// bytes below `lo` when a prefix must be checked there. The limbs go
    /// to `xor(first_limb, limbs)`.
    pub fn take(
        &mut self,
        chunk: &[u8],
        lo: u64,
        floor: u64,
        before: [Option<u8>; 2],
        xor: impl FnOnce(u64, &[u64]),
    ) -> FromEnd {
        debug_assert_eq!(lo + chunk.len() as u64, self.next_end());
        if self.format == Format::Bits && self.take_checked(chunk) {
            // Digits only: the token goes on below the chunk, or starts at
            // `floor`.
            self.hand_over(xor);
            return match lo == floor {
                true => FromEnd::Whole(self.summed(floor, floor)),
                false => FromEnd::More,
            };
        }
        let digits = digit_class(self.format);
        let stop = match first_non_digit(chunk, 0, digits) {
            end if end == chunk.len() => None,
            _ => chunk.iter().rposition(|&b| !digits.is_digit(b)),
        };
        let first_digit = stop.map_or(0, |i| i + 1);
        if self.limbs_done == 0 && first_digit > 0 {
            // Shorter than a chunk: not worth reading from the end.
            return FromEnd::Refused;
        }
        self.xor_digits(&chunk[first_digit..], xor);
        let digits_start = lo + first_digit as u64;
        let Some(i) = stop else {
            if lo == floor {
                return FromEnd::Whole(self.summed(floor, digits_start));
            }
            return FromEnd::More;
        };
        let at = lo + i as u64;
        match chunk[i] {
            byte if is_space(byte) => FromEnd::Whole(self.summed(digits_start, digits_start)),
            b'x' | b'X' if self.format == Format::Hex && at > floor => {
                let below = |k: usize| match i.checked_sub(k) {
                    Some(j) => Some(chunk[j]),
                    None => before[k - i - 1],
                };
                let zero_first = below(1) == Some(b'0');
                let after_space = at - 1 == floor || below(2).is_some_and(is_space);
                match zero_first && after_space {
                    true => FromEnd::Whole(self.summed(at - 1, digits_start)),
                    false => FromEnd::Refused,
                }
            }
            _ => FromEnd::Refused,
        }
    }

    /// Converts a chunk of binary digits into the scratch limbs, checking
    /// them as it goes (one read of the chunk): false if a byte is not a
    /// digit, the scratch then left to [`TokenFromEnd::xor_digits`].
    fn take_checked(&mut self, chunk: &[u8]) -> bool {
        self.clear_scratch(chunk.len());
        digits::xor_binary_checked(chunk, &mut self.scratch)
    }

    /// Zeroed scratch limbs for `digits` digits.
    fn clear_scratch(&mut self, digits: usize) {
        let limbs = digits.div_ceil(digits_per_limb(self.format));
        self.scratch.clear();
        self.scratch.resize(limbs, 0);
    }

    /// XORs the value of `digits`, the next limbs from the end, into the
    /// sum, keeping the top limbs.
    fn xor_digits(&mut self, digits: &[u8], xor: impl FnOnce(u64, &[u64])) {
        self.clear_scratch(digits.len());
        match self.format {
            Format::Hex => digits::xor_hex(digits, 0, &mut self.scratch),
            _ => digits::xor_binary(digits, 0, &mut self.scratch),
        }
        self.hand_over(xor);
    }

    /// Hands the scratch limbs, the next from the end, to `xor`, keeping
    /// the top limbs.
    fn hand_over(&mut self, xor: impl FnOnce(u64, &[u64])) {
        let limbs = self.scratch.len() as u64;
        // High zero limbs change no sum: they are not XORed, so that
        // leading zeros do not lengthen it.
        let used = self
            .scratch
            .iter()
            .rposition(|&l| l != 0)
            .map_or(0, |top| top + 1);
        if used > 0 {
            xor(self.limbs_done, &self.scratch[..used]);
        }
        self.top.push(self.limbs_done, &self.scratch);
        self.limbs_done += limbs;
    }

    /// The token, once its start is found: its first byte at `offset`, its
    /// first digit at `digits_start`.
    fn summed(&self, offset: u64, digits_start: u64) -> SummedHeap {
        SummedHeap {
            offset,
            digits: digits_start..self.end,
            bits: self.top.bit_length(),
            top: self.top.window,
        }
    }
}

/// The top limbs of a value whose limbs come from limb 0 up.
#[derive(Debug, Default)]
struct TopLimbs {
    /// The last limbs pushed, the latest last.
    last: [u64; SUMMED_TOP_LIMBS],
    /// The highest non-zero limb so far.
    top: Option<u64>,
    /// Limbs `top - 3 ..= top`.
    window: [u64; SUMMED_TOP_LIMBS],
}

impl TopLimbs {
    /// Takes limbs `first ..` of the value.
    fn push(&mut self, first: u64, limbs: &[u64]) {
        const KEPT: usize = SUMMED_TOP_LIMBS;
        if let Some(i) = limbs.iter().rposition(|&l| l != 0) {
            // The window ends at limb i of this chunk: its lower limbs are
            // in the chunk or among the last of the ones before.
            for (t, slot) in self.window.iter_mut().enumerate() {
                *slot = match (i + t + 1).checked_sub(KEPT) {
                    Some(j) => limbs[j],
                    None => self.last[i + t + 1],
                };
            }
            self.top = Some(first + i as u64);
        }
        let take = limbs.len().min(KEPT);
        self.last.rotate_left(take);
        self.last[KEPT - take..].copy_from_slice(&limbs[limbs.len() - take..]);
    }

    fn bit_length(&self) -> u64 {
        self.top.map_or(0, |top| {
            64 * top + 64 - u64::from(self.window[KEPT_TOP].leading_zeros())
        })
    }
}

/// The window's top limb.
const KEPT_TOP: usize = SUMMED_TOP_LIMBS - 1;

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    /// Reads the token ending at the end of `text` backward in chunks of
    /// `chunk` bytes (a multiple of 64), down to `floor`: what it ended
    /// with and the sum it XORed into zeros.
    fn from_end(format: Format, text: &[u8], floor: usize, chunk: usize) -> (FromEnd, Vec<u64>) {
        let mut token = TokenFromEnd::new(format, text.len() as u64);
        let mut sum = vec![0u64; 1];
        loop {
            let hi = token.next_end() as usize;
            let lo = hi.saturating_sub(chunk).max(floor);
            let before = [1, 2].map(|k| lo.checked_sub(k).filter(|&i| i >= floor).map(|i| text[i]));
            let xor =
                |first: u64, limbs: &[u64]| crate::nimsum::xor_at(&mut sum, first as usize, limbs);
            match token.take(&text[lo..hi], lo as u64, floor as u64, before, xor) {
                FromEnd::More => continue,
                done => return (done, sum),
            }
        }
    }

    fn value(limbs: &[u64]) -> BigUint {
        BigUint::from_slice(
            &limbs
                .iter()
                .flat_map(|&l| [l as u32, (l >> 32) as u32])
                .collect::<Vec<_>>(),
        )
    }

    fn random_digits(state: &mut u64, len: usize, alphabet: &[u8]) -> Vec<u8> {
        (0..len)
            .map(|_| {
                *state ^= *state << 13;
                *state ^= *state >> 7;
                *state ^= *state << 17;
                alphabet[(*state % alphabet.len() as u64) as usize]
            })
            .collect()
    }

    #[test]
    fn every_length_modulo_a_limb_gives_the_value_and_its_top() {
        let mut state = 0x9E37_79B9_7F4A_7C15;
        for (format, alphabet, radix) in [
            (Format::Bits, &b"01"[..], 2),
            (Format::Hex, &b"0123456789abcdefABCDEF"[..], 16),
        ] {
            let per_limb = digits_per_limb(format);
            for len in 64..64 + 4 * per_limb + 1 {
                for (zeros, lead) in [(0, " "), (3, "\n"), (200, "  "), (0, "\t0x"), (70, " 0X")] {
                    if lead.ends_with(['x', 'X']) && format == Format::Bits {
                        continue;
                    }
                    let digits = random_digits(&mut state, len, alphabet);
                    let mut text = b"1".to_vec();
                    text.extend_from_slice(lead.as_bytes());
                    let start = text.len() - lead.trim().len();
                    text.extend(std::iter::repeat_n(b'0', zeros));
                    text.extend_from_slice(&digits);
                    let expected = BigUint::parse_bytes(&digits, radix).unwrap();
                    for (chunk, floor) in [(64, 0), (64, start), (128, start), (192, 0)] {
                        let (done, sum) = from_end(format, &text, floor, chunk);
                        // A token shorter than a chunk is refused, unless
                        // the chunk reaches the floor, its plain first digit.
                        let at_floor = floor == start && lead.trim().is_empty();
                        if zeros + len < chunk && !at_floor {
                            assert_eq!(done, FromEnd::Refused);
                            continue;
                        }
                        let FromEnd::Whole(heap) = done else {
                            panic!("{format:?} {len} {zeros} {lead:?} {chunk}: {done:?}");
                        };
                        assert_eq!(heap.offset, start as u64);
                        let digits_start = (start + lead.trim().len()) as u64;
                        assert_eq!(heap.digits, digits_start..text.len() as u64);
                        assert_eq!(value(&sum), expected);
                        assert_eq!(heap.bits, expected.bits());
                        let limbs = heap.bits.div_ceil(64);
                        for j in limbs.saturating_sub(4)..limbs + 2 {
                            assert_eq!(heap.top_limb(j), sum.get(j as usize).copied().unwrap_or(0));
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn short_tokens_and_bad_bytes_are_refused() {
        let short = b" 1011";
        assert_eq!(from_end(Format::Bits, short, 0, 64).0, FromEnd::Refused);
        let mut long = b"1 ".to_vec();
        long.extend(std::iter::repeat_n(b'1', 300));
        for bad in [b'2', b'x', 0x0c] {
            let mut text = long.clone();
            text[100] = bad;
            assert_eq!(from_end(Format::Bits, &text, 0, 64).0, FromEnd::Refused);
        }
        // A `0x` that does not start a token.
        for lead in [&b"10x"[..], b"0xx", b" x"] {
            let mut text = lead.to_vec();
            text.extend(std::iter::repeat_n(b'f', 300));
            assert_eq!(
                from_end(Format::Hex, &text, 0, 64).0,
                FromEnd::Refused,
                "{lead:?}"
            );
        }
        // The zone's floor starts a token, prefix or not.
        let mut text = b"0x".to_vec();
        text.extend(std::iter::repeat_n(b'f', 300));
        assert!(
            matches!(from_end(Format::Hex, &text, 0, 64).0, FromEnd::Whole(h) if h.offset == 0)
        );
    }
}
