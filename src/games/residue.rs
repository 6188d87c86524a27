//! A heap's residue modulo a game's period, in one streaming pass with O(1)
//! state, and the exact move of taking a few tokens from a huge heap.
//!
//! A heap h past a game's preperiod p has the Grundy value
//! g(p + (h − p) mod q) (SPEC section 8), so every heap needs h mod q. A
//! [`Modulus`] holds q (1 ≤ q ≤ 2^32, so that every residue, and the
//! product of two, fits in a `u64`) with what makes reduction a few
//! multiplications: a Barrett reciprocal ⌊(2^64 − 1)/q⌋ and the powers
//! 2^(64j) and 10^(19j) mod q for a block of j.
//!
//! **Reduction.** x mod q for a `u64` x is `x − ⌊x·m/2^64⌋·q` with one
//! conditional subtraction (m ≥ 2^64/q − 1, so the estimate is at most one
//! short): two multiplications, no division and no branch. This is the
//! whole cost of a raw `u64le` heap, about two cycles where a hardware
//! `div` takes tens. A `u128` is split into halves, h·(2^64 mod q) + l.
//!
//! **Long heaps** are folded Horner-style from the most significant end,
//! a block of 32 limbs at a time:
//! r ← (r·2^2048 + Σ_j limb_j·2^(64j)) mod q. The products of a block are
//! independent and summed exactly in a `u128` (each is below 2^96); only
//! the block's reduction and one multiplication sit on the chain from
//! block to block, so the loop runs near the multiplier's throughput, about
//! 1.5 cycles a limb, rather than at a reduction's latency (blocks of 8 ran
//! at two thirds of the speed; adding r·2^2048 to the sum before its one
//! reduction lengthens the chain and was slower still). A short block
//! costs nothing extra: r·2^(64t) for t limbs. Digits are turned into
//! limbs by the crate's kernels (`arch::digits`, AVX2 where the CPU has
//! it), a window of 32 limbs per call, read front to back: the short top
//! limb first, then whole windows in memory order (a kernel reads a
//! window's digits from its end). Out of cache, windows of 64 limbs made
//! `hex` tokens of 1–4,096 bits 2.5 times slower (tokens of 33–64 limbs
//! read backwards whole) and windows of 8 or 16 made long `bits` tokens
//! slower; 32 was within noise of the best for both. Decimal digits are
//! read in chunks of 19 (10^19 < 2^64) with the SWAR parser of the `dec`
//! scanner, and folded the same way with the powers of 10^19.
//!
//! **Streaming.** [`DigitsResidue`] takes binary, hex or decimal digits in
//! pieces cut anywhere, most significant first: the digits of an
//! unfinished chunk wait as a number (at most one chunk), whole chunks of
//! a piece go through the block fold, and [`DigitsResidue::finish`] folds
//! the last short chunk with radix^len. Its state is four words.
//!
//! **The move.** Taking s tokens from a heap h of gigabytes changes only
//! the limbs a borrow reaches: [`BorrowLimbs`] gathers, as the heap
//! streams by, its low limb and its lowest non-zero limb above it, and
//! [`SmallSubtraction`] then gives any limb of h − s from the same limb of
//! h, and the bit length of h − s, so that h − s is written out window by
//! window like h itself (`subtraction.rs`).

mod streamed;
mod subtraction;
#[cfg(test)]
mod tests;

pub use streamed::{DigitsResidue, Radix};
pub use subtraction::{BorrowLimbs, SmallSubtraction};

use crate::arch::digits;
use crate::input::source::page_release::{PageReleaser, RELEASE_STEP_BYTES};
use crate::input::{parse8, HeapValue, PackedDigits};
use std::convert::Infallible;

/// Limbs (or decimal chunks) summed per reduction of the block fold.
const BLOCK: usize = 32;

/// Limbs converted per call of a digit kernel.
const WINDOW: usize = 32;

/// Decimal digits per chunk: the most whose value always fits in a `u64`.
const DECIMAL_CHUNK: usize = 19;

/// The largest modulus a [`Modulus`] takes: 2^32.
pub const MAX_MODULUS: u64 = 1 << 32;

/// A modulus q, 1 ≤ q ≤ 2^32 ([`MAX_MODULUS`]), with what makes reducing
/// by it fast. Residues are below q, so they fit in a `u32`; they are
/// handed out as `u64`, the width they are computed in.
///
/// ```
/// use nimstream::games::residue::Modulus;
/// use nimstream::input::HeapValue;
///
/// let twelve = Modulus::new(12).expect("1 ≤ 12 ≤ 2^32");
/// // 2^70 = 1180591620717411303424 ≡ 4 (mod 12), in every encoding.
/// assert_eq!(twelve.of_heap(&HeapValue::Word(1 << 70)), 4);
/// assert_eq!(twelve.of_heap(&HeapValue::Hex(b"400000000000000000")), 4);
/// assert_eq!(twelve.of_decimal(b"1180591620717411303424"), 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Modulus {
    /// q itself.
    modulus: u64,
    /// ⌊(2^64 − 1)/q⌋: the Barrett reciprocal.
    reciprocal: u64,
    /// 2^(64j) mod q for j = 0 ..= BLOCK: the weights of a block's limbs.
    limb_powers: [u64; BLOCK + 1],
    /// 10^(19j) mod q for j = 0 ..= BLOCK: the weights of a block's
    /// decimal chunks.
    chunk_powers: [u64; BLOCK + 1],
}

impl Modulus {
    /// The modulus `q`, or `None` unless 1 ≤ q ≤ 2^32.
    pub fn new(q: u64) -> Option<Modulus> {
        if !(1..=MAX_MODULUS).contains(&q) {
            return None;
        }
        let mut modulus = Modulus {
            modulus: q,
            reciprocal: u64::MAX / q,
            limb_powers: [0; BLOCK + 1],
            chunk_powers: [0; BLOCK + 1],
        };
        let two_to_64 = modulus.reduce_u64(modulus.reduce_u64(u64::MAX) + 1);
        let ten_to_19 = modulus.reduce_u64(10u64.pow(DECIMAL_CHUNK as u32));
        modulus.limb_powers = modulus.powers(two_to_64);
        modulus.chunk_powers = modulus.powers(ten_to_19);
        Some(modulus)
    }

    /// q.
    pub fn get(&self) -> u64 {
        self.modulus
    }

    /// base^j mod q for j = 0 ..= BLOCK (`base` below q).
    fn powers(&self, base: u64) -> [u64; BLOCK + 1] {
        let mut powers = [self.reduce_u64(1); BLOCK + 1];
        for j in 1..=BLOCK {
            powers[j] = self.reduce_u64(powers[j - 1] * base);
        }
        powers
    }

    /// x mod q, with two multiplications.
    #[inline]
    pub fn reduce_u64(&self, x: u64) -> u64 {
        let estimate = ((u128::from(x) * u128::from(self.reciprocal)) >> 64) as u64;
        // x − estimate·q < 2q: the estimate is at most one short. Below q,
        // subtracting q wraps to above it: `min` keeps whichever is below
        // q, with no branch to mispredict on random heaps.
        let rest = x - estimate * self.modulus;
        rest.min(rest.wrapping_sub(self.modulus))
    }

    /// x mod q, as (high mod q)·(2^64 mod q) + (low mod q), at most
    /// (q − 1)² + q − 1 < 2^64, reduced once more.
    #[inline]
    pub fn reduce_u128(&self, x: u128) -> u64 {
        let high = self.reduce_u64((x >> 64) as u64);
        let low = self.reduce_u64(x as u64);
        self.reduce_u64(high * self.limb_powers[1] + low)
    }

    /// The residue of a number given as little-endian limbs.
    pub fn of_limbs(&self, limbs: &[u64]) -> u64 {
        self.fold_limbs(0, limbs)
    }

    /// The residue of a heap, in whatever encoding its scanner gave it.
    /// Inlined for a raw array's element, where a call would cost more
    /// than the reduction.
    #[inline(always)]
    pub fn of_heap(&self, value: &HeapValue<'_>) -> u64 {
        match value {
            HeapValue::Word(word) => self.of_word(*word),
            digits => self.of_digit_heap(digits),
        }
    }

    /// [`Modulus::of_heap`] for a heap that may lie in a memory map:
    /// a long one is read a step at a time from the top, each step's
    /// pages released behind it (`pages`), so that a heap of gigabytes
    /// keeps the resident size bounded; each step's residue joins the
    /// rest's as r·2^(64n) + r_step.
    pub fn of_heap_releasing(&self, value: &HeapValue<'_>, pages: PageReleaser<'_>) -> u64 {
        let limbs = value.bit_length().div_ceil(64);
        if value.limb_bytes(0..limbs).len() < RELEASE_STEP_BYTES {
            return self.of_heap(value);
        }
        let mut residue = 0;
        let stepped = pages.in_steps(value, 0..limbs, |range| {
            let step = value
                .limb_slice(range.clone())
                .expect("a value of digits or bytes");
            let shifted = self.reduce_u64(residue * self.two_to_64_to_the(range.end - range.start));
            residue = self.reduce_u64(shifted + self.of_heap(&step));
            Ok::<(), Infallible>(())
        });
        stepped.unwrap_or_else(|never| match never {});
        residue
    }

    /// 2^(64n) mod q, by squaring.
    fn two_to_64_to_the(&self, mut n: u64) -> u64 {
        let (mut result, mut base) = (self.reduce_u64(1), self.limb_powers[1]);
        while n > 0 {
            if n & 1 == 1 {
                result = self.reduce_u64(result * base);
            }
            base = self.reduce_u64(base * base);
            n >>= 1;
        }
        result
    }

    /// (residue·2^(64n) + the number the n `groups` spell, most
    /// significant first) mod q: the Horner step over the packed groups of
    /// a digit string, in reading order.
    pub fn fold_groups(&self, residue: u64, groups: &[u64]) -> u64 {
        groups.chunks(BLOCK).fold(residue, |r, chunk| {
            let mut block = [0u64; BLOCK];
            for (slot, &group) in block.iter_mut().zip(chunk.iter().rev()) {
                *slot = group;
            }
            self.fold_block(r, &block[..chunk.len()], &self.limb_powers)
        })
    }

    /// (residue·2^bits + value) mod q, for a value of at most `bits` ≤ 64
    /// bits: the Horner step over a short last group.
    pub fn fold_bits(&self, residue: u64, value: u64, bits: u32) -> u64 {
        let power = match bits {
            64 => self.limb_powers[1],
            _ => self.reduce_u64(1 << bits),
        };
        self.reduce_u64(self.reduce_u64(residue * power) + self.reduce_u64(value))
    }

    /// The residue of a heap given as digits, bytes or limbs.
    fn of_digit_heap(&self, value: &HeapValue<'_>) -> u64 {
        match value {
            HeapValue::Word(word) => self.of_word(*word),
            HeapValue::Limbs(limbs) => self.of_limbs(limbs),
            HeapValue::Binary(digits) => self.of_digits(digits, 64, digits::xor_binary),
            HeapValue::Hex(digits) => self.of_digits(digits, 16, digits::xor_hex),
            HeapValue::LeBytes(bytes) => self.of_le_bytes(bytes),
            HeapValue::Packed(packed) => self.of_packed(packed),
        }
    }

    /// The residue of validated ASCII decimal digits of any length,
    /// most significant first (leading zeros allowed).
    pub fn of_decimal(&self, digits: &[u8]) -> u64 {
        let mut residue = DigitsResidue::new(self, Radix::Decimal);
        residue.feed(digits);
        residue.finish()
    }

    /// The residue of a heap held as a number: one reduction for a raw
    /// array's element.
    #[inline]
    fn of_word(&self, word: u128) -> u64 {
        match u64::try_from(word) {
            Ok(small) => self.reduce_u64(small),
            Err(_) => self.reduce_u128(word),
        }
    }

    /// The residue of a digit string with `per_limb` digits per limb, most
    /// significant first, whose limbs `xor_limbs` XORs into a window (the
    /// `arch::digits` kernels' interface): the short top limb, then the
    /// whole ones front to back.
    #[inline]
    fn of_digits(
        &self,
        digits: &[u8],
        per_limb: usize,
        xor_limbs: impl Fn(&[u8], u64, &mut [u64]),
    ) -> u64 {
        let (top, whole) = digits.split_at(digits.len() % per_limb);
        let mut top_limb = [0];
        xor_limbs(top, 0, &mut top_limb);
        let residue = self.reduce_u64(top_limb[0]);
        if whole.is_empty() {
            return residue;
        }
        self.fold_digit_limbs(residue, whole, per_limb, xor_limbs)
    }

    /// (residue·2^(64n) + the n limbs that `digits` spell) mod q, for
    /// `digits` n whole limbs of `per_limb` digits long, most significant
    /// first. Read front to back, a window of limbs per kernel call, so
    /// that memory is read in the order the prefetcher expects.
    #[inline]
    fn fold_digit_limbs(
        &self,
        mut residue: u64,
        digits: &[u8],
        per_limb: usize,
        xor_limbs: impl Fn(&[u8], u64, &mut [u64]),
    ) -> u64 {
        let mut window = [0u64; WINDOW];
        for piece in digits.chunks(WINDOW * per_limb) {
            let window = &mut window[..piece.len() / per_limb];
            window.fill(0);
            xor_limbs(piece, 0, window);
            residue = self.fold_limbs(residue, window);
        }
        residue
    }

    /// The residue of little-endian bytes, top window first.
    fn of_le_bytes(&self, bytes: &[u8]) -> u64 {
        self.fold_windows(0, bytes.len().div_ceil(8) as u64, |first, window| {
            digits::xor_le_bytes(bytes, first, window)
        })
    }

    /// The residue of a packed `hex` token: its groups G as limbs, with
    /// the shift applied at the last one. The value is
    /// G_above·2^(64 − shift) + (group 0 >> shift), G_above the groups
    /// above group 0 (the shifted-out bits of group 0 are zero).
    fn of_packed(&self, packed: &PackedDigits<'_>) -> u64 {
        let Some((&low, above)) = packed.groups.split_first() else {
            return 0;
        };
        let residue = self.fold_limbs(0, above);
        let high = u128::from(residue) << (64 - packed.shift);
        self.reduce_u128(high + u128::from(low >> packed.shift))
    }

    /// Folds limbs `limbs − 1` down to 0 into `residue`, a window at a
    /// time: `fill` XORs limbs `first ..` into a zeroed window.
    #[inline]
    fn fold_windows(&self, mut residue: u64, limbs: u64, fill: impl Fn(u64, &mut [u64])) -> u64 {
        let mut window = [0u64; WINDOW];
        let mut top = limbs;
        while top > 0 {
            let first = top.saturating_sub(WINDOW as u64);
            let window = &mut window[..(top - first) as usize];
            window.fill(0);
            fill(first, window);
            residue = self.fold_limbs(residue, window);
            top = first;
        }
        residue
    }

    /// (residue·2^(64·n) + the n little-endian `limbs`) mod q.
    #[inline]
    fn fold_limbs(&self, residue: u64, limbs: &[u64]) -> u64 {
        let mut blocks = limbs.rchunks_exact(BLOCK);
        let residue = blocks.by_ref().fold(residue, |r, block| {
            self.fold_block(r, block, &self.limb_powers)
        });
        self.fold_block(residue, blocks.remainder(), &self.limb_powers)
    }

    /// (residue·B^n + Σ_j block\[j\]·B^j) mod q for a block of n ≤ BLOCK
    /// little-endian chunks, given `powers[j]` = B^j mod q. The products
    /// are summed exactly (each below 2^96), then reduced once.
    #[inline(always)]
    fn fold_block(&self, residue: u64, block: &[u64], powers: &[u64; BLOCK + 1]) -> u64 {
        let sum: u128 = block
            .iter()
            .zip(powers)
            .map(|(&chunk, &power)| u128::from(chunk) * u128::from(power))
            .sum();
        // residue·power + (sum mod q) ≤ (q − 1)² + q − 1 < 2^64.
        self.reduce_u64(residue * powers[block.len()] + self.reduce_u128(sum))
    }

    /// (residue·10^(19n) + the n decimal chunks of `digits`) mod q, for
    /// `digits` a multiple of 19 digits long.
    fn fold_decimal_chunks(&self, residue: u64, digits: &[u8]) -> u64 {
        let mut blocks = digits.chunks_exact(BLOCK * DECIMAL_CHUNK);
        let residue = blocks
            .by_ref()
            .fold(residue, |r, block| self.fold_decimal_block(r, block));
        self.fold_decimal_block(residue, blocks.remainder())
    }

    /// [`Self::fold_block`] over the (at most BLOCK) decimal chunks of
    /// `digits`, the first chunk most significant.
    #[inline(always)]
    fn fold_decimal_block(&self, residue: u64, digits: &[u8]) -> u64 {
        let mut chunks = [0u64; BLOCK];
        let count = digits.len() / DECIMAL_CHUNK;
        for (slot, chunk) in chunks[..count]
            .iter_mut()
            .rev()
            .zip(digits.chunks_exact(DECIMAL_CHUNK))
        {
            *slot = decimal_chunk(chunk);
        }
        self.fold_block(residue, &chunks[..count], &self.chunk_powers)
    }
}

/// The value of at most 19 validated ASCII decimal digits, eight at a time.
#[inline]
fn decimal_chunk(digits: &[u8]) -> u64 {
    debug_assert!(digits.len() <= DECIMAL_CHUNK);
    let mut eights = digits.chunks_exact(8);
    let value = eights.by_ref().fold(0, |value, eight| {
        let word = u64::from_le_bytes(eight.try_into().expect("chunks of eight"));
        value * 100_000_000 + parse8(word)
    });
    eights
        .remainder()
        .iter()
        .fold(value, |value, &digit| value * 10 + u64::from(digit - b'0'))
}
