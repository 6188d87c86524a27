//! What the pass of a game other than Nim keeps for the move besides
//! the Grundy sum: the first heap holding each bit of the values
//! ([`Holders`]: the move's heap, the first whose value has the sum's
//! msb, is among them whatever the sum turns out to be), and the longest
//! tokens ([`LongTokens`]), whose bytes the count of the move's line can
//! skip. Both merge across ranges: the earlier range's holders win.

use crate::games::residue::BorrowLimbs;
use crate::games::HeapSize;
use crate::input::HeapPos;
use std::ops::Range;

/// Bits of a Grundy value (the table holds 2-byte values).
pub const VALUE_BITS: usize = 16;

/// The first heap whose value holds a bit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    /// Where it is.
    pub pos: HeapPos,
    /// Its line, when the pass counted lines (a stream of a text format).
    pub line: Option<u64>,
    /// Its size, as the value sequence takes it.
    pub size: HeapSize,
    /// Its Grundy value.
    pub grundy: u16,
    /// Its bit length.
    pub bits: u64,
    /// Its limbs, kept on a stream for a heap of more than 64 bits (`None`
    /// when it was longer than the stream's window).
    pub limbs: Option<Vec<u64>>,
    /// What subtracting a few tokens needs of it (its low limbs and top),
    /// kept on a stream where its limbs are not: enough for the report's
    /// bit lengths without `--move-out`.
    pub borrow: Option<BorrowLimbs>,
}

/// The holders of a range: distinct heaps, and which holds each bit.
#[derive(Debug, Default)]
pub struct Holders {
    /// The heaps, in file order.
    pub heaps: Vec<Holder>,
    /// For each bit, its holder's place in `heaps`.
    by_bit: [Option<u8>; VALUE_BITS],
    /// The bits that have a holder.
    held: u16,
}

impl Holders {
    /// Adds `holder` as the holder of the bits of `value` not held yet,
    /// if there are any.
    pub fn add(&mut self, holder: Holder, value: u16) {
        let bits = value & !self.held;
        if bits == 0 {
            return;
        }
        let place = self.heaps.len() as u8;
        self.heaps.push(holder);
        (0..VALUE_BITS)
            .filter(|bit| bits >> bit & 1 == 1)
            .for_each(|bit| self.by_bit[bit] = Some(place));
        self.held |= bits;
    }

    /// Whether every bit of `value` has a holder.
    pub fn hold_all_of(&self, value: u16) -> bool {
        value & !self.held == 0
    }

    /// The bits `heaps[place]` holds.
    fn bits_of(&self, place: usize) -> u16 {
        (0..VALUE_BITS).fold(0, |bits, bit| {
            bits | u16::from(self.by_bit[bit] == Some(place as u8)) << bit
        })
    }

    /// Appends the holders of the range that follows, `shift` moving
    /// their positions into this range's count: they hold the bits this
    /// range's holders do not.
    pub fn append(&mut self, later: Holders, shift: impl Fn(HeapPos) -> HeapPos) {
        let bits: Vec<u16> = (0..later.heaps.len()).map(|p| later.bits_of(p)).collect();
        for (mut holder, bits) in later.heaps.into_iter().zip(bits) {
            holder.pos = shift(holder.pos);
            self.add(holder, bits);
        }
    }

    /// The first heap whose value holds `bit`.
    pub fn of_bit(&self, bit: u32) -> Option<&Holder> {
        let place = self.by_bit[bit as usize]?;
        Some(&self.heaps[usize::from(place)])
    }
}

/// The longest tokens a pass notes, whose bytes hold no line feed: the
/// move's line is counted without reading them.
const LONG_TOKENS: usize = 16;

/// The byte ranges of the [`LONG_TOKENS`] longest tokens noted, which
/// the line count of the move's heap can skip.
#[derive(Debug, Default)]
pub struct LongTokens {
    ranges: Vec<Range<u64>>,
}

impl LongTokens {
    /// Notes the `len` digits of a token at `offset`.
    pub fn note(&mut self, offset: u64, len: u64) {
        let shortest = self.ranges.iter().map(|r| r.end - r.start).min();
        match (self.ranges.len() < LONG_TOKENS, shortest) {
            (true, _) => self.ranges.push(offset..offset + len),
            (false, Some(short)) if len > short => {
                let at = self.ranges.iter().position(|r| r.end - r.start == short);
                self.ranges[at.expect("the shortest is there")] = offset..offset + len;
            }
            _ => {}
        }
    }

    /// Notes the tokens of the range that follows.
    pub fn append(&mut self, later: LongTokens) {
        for range in later.ranges {
            self.note(range.start, range.end - range.start);
        }
    }

    /// The ranges, in file order.
    pub fn in_order(mut self) -> Vec<Range<u64>> {
        self.ranges.sort_by_key(|r| r.start);
        self.ranges
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_tokens_are_kept_in_file_order() {
        let mut tokens = LongTokens::default();
        // Tokens of lengths 1..=20 at offsets 100·k, in a shuffled order.
        for k in [
            7u64, 19, 3, 12, 1, 20, 5, 16, 9, 14, 2, 18, 11, 6, 15, 4, 13, 8, 17, 10,
        ] {
            tokens.note(100 * k, k);
        }
        let kept = tokens.in_order();
        let want: Vec<Range<u64>> = (5..=20).map(|k| 100 * k..100 * k + k).collect();
        assert_eq!(kept, want);
    }
}
