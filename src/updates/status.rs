//! What a position reports after an update ([`Status`], one line of
//! `updates --json`), and the numbers in it, built from limbs: a value of
//! up to 64 bits is written straight from its word, a longer one in hex
//! limb by limb and in decimal through num-bigint, and one past
//! `--inline-bits` by its bit length alone.

use super::moves::{Chosen, Target};
use crate::analysis::Player;
use crate::report::Value;
use serde::Serialize;
use std::fmt::Write;

/// The position after an update: one line of `updates --json`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Status {
    /// How many updates were applied (0: the position in FILE).
    pub update: u64,
    /// The heap the last update set (`None` for the position in FILE).
    pub heap: Option<u64>,
    /// Who wins with perfect play.
    pub winner: Player,
    /// The XOR of all heaps.
    pub nim_sum: Value,
    /// How many heaps admit a winning move (with `moves` only).
    pub winning_moves: Option<u64>,
    /// The deterministic winning move (with `moves` only; `None` also
    /// when there is none).
    #[serde(rename = "move")]
    pub winning_move: Option<UpdateMove>,
}

/// The winning move after an update.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct UpdateMove {
    /// 0-based heap index.
    pub heap: u64,
    /// 0-based offset of the heap's first byte in FILE (`None` once an
    /// update has set the heap, even to the value it had).
    pub offset: Option<u64>,
    /// 1-based line of that byte (text formats; `None` as `offset`).
    pub line: Option<u64>,
    /// The heap's value.
    pub from: Value,
    /// The value to leave on the heap.
    pub to: Value,
    /// The number of tokens taken.
    pub remove: Value,
}

/// What a line without `--moves` shows, the nim-sum borrowed from the
/// position (see [`super::render::write_summary`]).
pub(super) struct Summary<'p> {
    /// How many updates were applied.
    pub update: u64,
    /// The heap the last update set.
    pub heap: Option<u64>,
    /// Who wins.
    pub winner: Player,
    /// The nim-sum's limbs, the top one non-zero.
    pub nim_sum: &'p [u64],
    /// Values up to this many bits are written out.
    pub inline_bits: u64,
}

impl UpdateMove {
    /// The move on the heap `chosen`, under the nim-sum `sum`; `line`:
    /// the line the heap starts on in FILE.
    pub(super) fn new(chosen: Chosen, sum: &[u64], line: Option<u64>, inline_bits: u64) -> Self {
        let to = match chosen.target {
            Target::XorSum => xor(&chosen.from, sum),
            Target::Value(value) => vec![value],
        };
        let remove = minus(&chosen.from, &to);
        UpdateMove {
            heap: chosen.heap,
            offset: chosen.offset,
            line,
            from: value_of(&chosen.from, inline_bits),
            to: value_of(&to, inline_bits),
            remove: value_of(&remove, inline_bits),
        }
    }
}

/// `a ⊕ b`, limb by limb.
fn xor(a: &[u64], b: &[u64]) -> Vec<u64> {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let mut out = long.to_vec();
    for (slot, limb) in out.iter_mut().zip(short) {
        *slot ^= limb;
    }
    out
}

/// `a − b`, for `a ≥ b`.
fn minus(a: &[u64], b: &[u64]) -> Vec<u64> {
    let mut out = a.to_vec();
    let mut borrow = false;
    for (i, slot) in out.iter_mut().enumerate() {
        let (partial, first) = slot.overflowing_sub(b.get(i).copied().unwrap_or(0));
        let (difference, second) = partial.overflowing_sub(u64::from(borrow));
        *slot = difference;
        borrow = first || second;
    }
    debug_assert!(!borrow, "a move takes at most the heap");
    out
}

/// A number as the reports write it: its digits when it has at most
/// `inline_bits` bits (decimal through num-bigint past 64 bits).
pub(super) fn value_of(limbs: &[u64], inline_bits: u64) -> Value {
    let bit_length = crate::nimsum::bit_length(limbs);
    if bit_length > inline_bits {
        return Value {
            bit_length,
            hex: None,
            dec: None,
        };
    }
    let used = &limbs[..bit_length.div_ceil(64) as usize];
    let hex = crate::nimsum::to_hex(used);
    let dec = match used {
        [] => "0".to_string(),
        [word] => {
            // Sized up front: a string grown while it is formatted costs
            // as much as the rest of an update.
            let mut dec = String::with_capacity(20);
            let _ = write!(dec, "{word}");
            dec
        }
        long => {
            let bytes: Vec<u8> = long.iter().flat_map(|l| l.to_le_bytes()).collect();
            num_bigint::BigUint::from_bytes_le(&bytes).to_string()
        }
    };
    Value {
        bit_length,
        hex: Some(hex),
        dec: Some(dec),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_written_out_up_to_the_inline_bits() {
        let big = value_of(&[0, 1, 0], 4096);
        assert_eq!(big.bit_length, 65);
        assert_eq!(big.hex.as_deref(), Some("10000000000000000"));
        assert_eq!(big.dec.as_deref(), Some("18446744073709551616"));
        assert_eq!(value_of(&[], 0).hex.as_deref(), Some("0"));
        assert_eq!(value_of(&[0x1ff], 8).dec, None);
        assert_eq!(value_of(&[0xff], 8).dec.as_deref(), Some("255"));
    }

    #[test]
    fn a_move_leaves_the_heap_xor_the_sum_and_takes_the_difference() {
        // 2^64 + 3 ⊕ (2^64 + 1) = 2: take 2^64 + 1.
        let chosen = Chosen {
            heap: 5,
            from: vec![3, 1],
            offset: Some(40),
            target: Target::XorSum,
        };
        let m = UpdateMove::new(chosen, &[1, 1], Some(2), 4096);
        assert_eq!(m.to.dec.as_deref(), Some("2"));
        assert_eq!(m.remove.dec.as_deref(), Some("18446744073709551617"));
        assert_eq!((m.heap, m.offset, m.line), (5, Some(40), Some(2)));
        let emptied = Chosen {
            heap: 0,
            from: vec![1],
            offset: None,
            target: Target::Value(0),
        };
        assert_eq!(
            UpdateMove::new(emptied, &[], None, 64)
                .remove
                .dec
                .as_deref(),
            Some("1")
        );
    }
}
