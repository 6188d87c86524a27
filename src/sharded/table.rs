//! The Nim part of a partial: the range's nim-sum, as hex, and the table
//! of its top bit positions (how many heaps hold each, and the first that
//! does), built from what the range's pass found and merged across
//! ranges.
//!
//! A range's table covers the positions `low .. max_bit_length`; above
//! them no heap of the range holds a bit (count 0, no holder), below them
//! nothing is known. The merge of two tables covers the positions both
//! know, at most [`TABLE_BITS`] of them from the top: a constant size,
//! whatever the number of ranges merged. When the whole file's msb lies
//! in the merged table, its holders are known and no second phase runs.

use super::marks::{mismatch, Mark};
use super::range_passes::{TopHolders, TABLE_BITS};
use crate::error::Error;
use crate::input::HeapPos;
use crate::nimsum::to_hex;
use serde::{Deserialize, Serialize};

/// What Nim needs of a range: its nim-sum and the holders of its top
/// bit positions.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct NimPart {
    /// The range's nim-sum in lowercase hex (`0` for zero).
    pub(crate) nim_sum: String,
    /// Bit positions `low ..` up to the longest heap are in the table;
    /// above it no heap holds a bit; below it nothing is known.
    pub(crate) low: u64,
    /// How many heaps hold each position of the table, from `low` up.
    pub(crate) counts: Vec<u64>,
    /// The first holder of each position, as a place in `heaps`.
    pub(crate) first: Vec<Option<u32>>,
    /// The distinct first holders, in file order.
    pub(crate) heaps: Vec<Mark>,
}

/// The table of a range from its pass's [`TopHolders`], each first
/// holder marked by `mark` (which finds its line feeds).
pub(crate) fn of_range(
    nim_sum: &[u64],
    top: &TopHolders,
    mut mark: impl FnMut(HeapPos) -> Mark,
) -> NimPart {
    let mut part = NimPart {
        nim_sum: to_hex(nim_sum),
        low: top.low,
        counts: top.counts.clone(),
        ..NimPart::default()
    };
    part.first = top
        .first
        .iter()
        .map(|holder| holder.map(|pos| place_of(&mut part.heaps, mark(pos))))
        .collect();
    part
}

/// The place of `mark` in `heaps` (distinct, in file order), added at
/// the end when it is not there yet.
fn place_of(heaps: &mut Vec<Mark>, mark: Mark) -> u32 {
    match heaps.iter().position(|m| m.index == mark.index) {
        Some(place) => place as u32,
        None => {
            heaps.push(mark);
            (heaps.len() - 1) as u32
        }
    }
}

/// The positions a table covers, `low .. high`.
fn high(part: &NimPart) -> u64 {
    part.low + part.counts.len() as u64
}

/// The count and first holder of position `p` (at least the table's
/// `low`) in a table.
fn holders_of(part: &NimPart, p: u64) -> (u64, Option<Mark>) {
    if p >= high(part) {
        return (0, None);
    }
    let at = (p - part.low) as usize;
    let first = part.first[at].map(|place| part.heaps[place as usize]);
    (part.counts[at], first)
}

/// The count and first holder of position `p`, when the table covers it
/// (always above the longest heap).
pub(crate) fn known(part: &NimPart, p: u64) -> Option<(u64, Option<Mark>)> {
    (p >= part.low).then(|| holders_of(part, p))
}

/// The table of two adjacent ranges: the earlier `mine`, and `theirs`,
/// whose marks `shift` moves to count from `mine`'s start.
pub(crate) fn append(
    mine: NimPart,
    theirs: NimPart,
    shift: impl Fn(Mark) -> Mark,
) -> Result<NimPart, Error> {
    let top = high(&mine).max(high(&theirs));
    let low = mine.low.max(theirs.low).max(top.saturating_sub(TABLE_BITS));
    let mut sum = from_hex(&mine.nim_sum)?;
    let later = from_hex(&theirs.nim_sum)?;
    if sum.len() < later.len() {
        sum.resize(later.len(), 0);
    }
    sum.iter_mut().zip(&later).for_each(|(g, h)| *g ^= h);
    let mut merged = NimPart {
        nim_sum: to_hex(&sum),
        low,
        ..NimPart::default()
    };
    for p in low..top {
        let (count_a, first_a) = holders_of(&mine, p);
        let (count_b, first_b) = holders_of(&theirs, p);
        merged.counts.push(count_a + count_b);
        let first = first_a.or(first_b.map(&shift));
        let place = first.map(|mark| place_of(&mut merged.heaps, mark));
        merged.first.push(place);
    }
    Ok(merged)
}

/// Lowercase or uppercase hex as little-endian limbs without high zero
/// limbs.
pub(crate) fn from_hex(text: &str) -> Result<Vec<u64>, Error> {
    let bad = || mismatch(format!("'{text}' is not a nim-sum in hex"));
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let bytes = text.as_bytes();
    let mut limbs: Vec<u64> = bytes
        .rchunks(16)
        .map(|chunk| u64::from_str_radix(std::str::from_utf8(chunk).expect("ASCII"), 16))
        .collect::<Result<_, _>>()
        .map_err(|_| bad())?;
    while limbs.last() == Some(&0) {
        limbs.pop();
    }
    Ok(limbs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hex_round_trips_across_limbs() {
        for limbs in [vec![], vec![5], vec![0, 1], vec![u64::MAX, 0x10]] {
            let text = to_hex(&limbs);
            assert_eq!(from_hex(&text).unwrap(), limbs, "{text}");
        }
        assert!(from_hex("12g").is_err());
    }
}
