//! The AVX2 loop for 64-bit elements (heaps read as `u64le`, and the
//! short-token heaps of text), written with intrinsics.
//!
//! The portable loop compiled for AVX2 keeps the first carry-save level
//! in memory between steps and splits its zero and one counts into
//! 128-bit halves; here the level's three running words, the OR and the
//! counts stay in registers for the whole block, and the XOR is the
//! lowest of those words (the parity of every column), so that a step of
//! 32 elements is eight loads, seven carry-save adders (five operations
//! each), eight ORs and sixteen compare-and-subtracts.

use super::carry_save::{self, Carries};
use super::{BlockTally, STEP};
use std::arch::x86_64::*;

/// Bytes per step: eight vectors of four 64-bit elements.
const STEP_BYTES: usize = 8 * STEP;

/// Counts the 64-bit little-endian elements of `data` (whole steps of
/// [`STEP`] elements) into `carries`; returns their XOR, OR, and zero and
/// one counts.
#[target_feature(enable = "avx2")]
pub(super) fn tally_words(data: &[u8], carries: &mut Carries<4>) -> (u64, BlockTally) {
    let (steps, rest) = data.as_chunks::<STEP_BYTES>();
    debug_assert!(rest.is_empty(), "whole steps only");
    let start = carries.running[0].map(|lanes| load(&lanes));
    let mut low = start;
    let (zero, one) = (_mm256_setzero_si256(), _mm256_set1_epi64x(1));
    let (mut or, mut zeros, mut ones) = (zero, zero, zero);
    for step in steps {
        let v: [__m256i; 8] = std::array::from_fn(|k| {
            // SAFETY: `step` holds eight 32-byte vectors; an unaligned
            // load of the k-th.
            unsafe { _mm256_loadu_si256(step.as_ptr().add(32 * k).cast()) }
        });
        for &x in &v {
            or = _mm256_or_si256(or, x);
            // A lane that is equal is all ones, -1: subtracting counts it.
            zeros = _mm256_sub_epi64(zeros, _mm256_cmpeq_epi64(x, zero));
            ones = _mm256_sub_epi64(ones, _mm256_cmpeq_epi64(x, one));
        }
        let eights = carry_save::fold8_with(&mut low, &v, |a, b, c| csa(a, b, c));
        carries.add_eights(words(eights));
    }
    carries.running[0] = low.map(|v| words(v));
    let xor = words(_mm256_xor_si256(start[0], low[0]));
    let tally = BlockTally {
        or: words(or).iter().fold(0, |a, b| a | b),
        zeros: words(zeros).iter().sum(),
        ones: words(ones).iter().sum(),
    };
    (xor.iter().fold(0, |a, b| a ^ b), tally)
}

/// A carry-save adder on every bit: returns (carry, sum).
#[inline]
#[target_feature(enable = "avx2")]
fn csa(a: __m256i, b: __m256i, c: __m256i) -> (__m256i, __m256i) {
    let u = _mm256_xor_si256(a, b);
    let carry = _mm256_or_si256(_mm256_and_si256(a, b), _mm256_and_si256(u, c));
    (carry, _mm256_xor_si256(u, c))
}

/// Four lanes as a vector.
#[inline]
#[target_feature(enable = "avx2")]
fn load(lanes: &[u64; 4]) -> __m256i {
    // SAFETY: `lanes` is 32 bytes; an unaligned load.
    unsafe { _mm256_loadu_si256(lanes.as_ptr().cast()) }
}

/// A vector as four lanes.
#[inline]
#[target_feature(enable = "avx2")]
fn words(v: __m256i) -> [u64; 4] {
    let mut lanes = [0u64; 4];
    // SAFETY: `lanes` is 32 bytes; an unaligned store.
    unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v) };
    lanes
}
