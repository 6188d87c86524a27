//! The AVX-512 loop, on 512-bit vectors of the array's bytes.
//!
//! Hand-written intrinsics rather than the portable loop recompiled with
//! AVX-512: that loop holds one element per 64-bit lane, so it would still
//! widen narrow elements and compare every element with 0 and 1 at every
//! step, and whether it got 512-bit registers and `vpternlogq` would be
//! up to the compiler's tuning. Here the vectors are 512 bits, each
//! carry-save adder is two `vpternlogq`, the bytes are counted as they
//! lie, and the zero and one counts are skipped for whole steps (or, for
//! 8-byte elements where they are common, kept in vectors).
//!
//! The AVX-512 intrinsics and target features are stable since Rust 1.89,
//! hence the crate's `rust-version`.

use super::carry_save::{self, Carries};
use super::BlockTally;
use std::arch::x86_64::*;

/// Bytes per vector.
const VECTOR: usize = 64;
/// Bytes per carry-save step: eight vectors.
const STEP_BYTES: usize = 8 * VECTOR;

/// `vpternlogq` truth tables: bit (a·4 + b·2 + c) of the immediate is
/// the result for input bits a, b, c.
const XOR3: i32 = 0x96;
const MAJORITY: i32 = 0xE8;
const OR3: i32 = 0xFE;

/// The first two levels of a [`Carries<8>`] held in registers for one
/// call, with the call's OR and zero and one counts. The pending
/// carries stay in the [`Carries`] (each is written once and read
/// once), and so does the top level, used once per 512 vectors.
struct Kernel {
    low: [__m512i; 3],
    middle: [__m512i; 3],
    pending_len: [usize; 2],
    xor: __m512i,
    or: __m512i,
    zeros: u64,
    units: u64,
    /// Where the small elements are counted in vectors (`IN_VECTORS`):
    /// per lane, the elements at most 1 and the sum of those, that is
    /// the ones, each in two vectors (even and odd vectors of a step),
    /// so that no chain of additions is longer than four a step.
    small: [__m512i; 2],
    ones: [__m512i; 2],
}

/// Counts the elements of `data` (of `W` bytes) into `carries`, the
/// columns of the bytes read as 64-bit words; the elements 0 and 1 in
/// vectors at every step if `IN_VECTORS` (`W` = 8 only), else by a test
/// of each step's minimum.
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
pub(super) fn tally<const W: usize, const IN_VECTORS: bool>(
    data: &[u8],
    carries: &mut Carries<8>,
) -> (u64, BlockTally) {
    assert!(
        W == 8 || !IN_VECTORS,
        "counted in vectors: 8-byte elements only"
    );
    let data = &data[..data.len() - data.len() % W];
    let mut kernel = Kernel::resume(carries);
    let (steps, rest) = data.as_chunks::<STEP_BYTES>();
    // The last bytes as a step of their own, padded with zero
    // elements: they add nothing to the columns or the OR, and the
    // zeros they add are taken off below. One loop over both keeps
    // one call of `step`, which the compiler then inlines.
    let mut last = [0u8; STEP_BYTES];
    last[..rest.len()].copy_from_slice(rest);
    let last = &[last][..usize::from(!rest.is_empty())];
    for step in steps.iter().chain(last) {
        kernel.step::<W, IN_VECTORS>(load_step(step), carries);
    }
    if IN_VECTORS {
        let sum = |v: [__m512i; 2]| _mm512_reduce_add_epi64(_mm512_add_epi64(v[0], v[1])) as u64;
        let (small, ones) = (sum(kernel.small), sum(kernel.ones));
        kernel.zeros += small - ones;
        kernel.units += ones;
    }
    if !rest.is_empty() {
        kernel.zeros -= ((STEP_BYTES - rest.len()) / W) as u64;
    }
    kernel.suspend(carries);
    let tally = BlockTally {
        or: fold_or::<W>(_mm512_reduce_or_epi64(kernel.or) as u64),
        zeros: kernel.zeros,
        ones: kernel.units,
    };
    (fold_xor::<W>(reduce_xor(kernel.xor)), tally)
}

impl Kernel {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn resume(carries: &Carries<8>) -> Kernel {
        let [low, middle, _] = &carries.running;
        Kernel {
            low: [load(&low[0]), load(&low[1]), load(&low[2])],
            middle: [load(&middle[0]), load(&middle[1]), load(&middle[2])],
            pending_len: carries.pending_len,
            xor: _mm512_setzero_si512(),
            or: _mm512_setzero_si512(),
            zeros: 0,
            units: 0,
            small: [_mm512_setzero_si512(); 2],
            ones: [_mm512_setzero_si512(); 2],
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn suspend(&self, carries: &mut Carries<8>) {
        let [low, middle, _] = &mut carries.running;
        for (words, &v) in low.iter_mut().zip(&self.low) {
            store(words, v);
        }
        for (words, &v) in middle.iter_mut().zip(&self.middle) {
            store(words, v);
        }
        carries.pending_len = self.pending_len;
    }

    /// Adds eight vectors: their XOR and OR, their zeros and ones, and
    /// their words into the carry-save adders.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    fn step<const W: usize, const IN_VECTORS: bool>(
        &mut self,
        v: [__m512i; 8],
        carries: &mut Carries<8>,
    ) {
        let xor_a = _mm512_ternarylogic_epi64::<XOR3>(v[0], v[1], v[2]);
        let xor_b = _mm512_ternarylogic_epi64::<XOR3>(v[3], v[4], v[5]);
        let xor_c = _mm512_ternarylogic_epi64::<XOR3>(v[6], v[7], self.xor);
        self.xor = _mm512_ternarylogic_epi64::<XOR3>(xor_a, xor_b, xor_c);
        let or_a = _mm512_ternarylogic_epi64::<OR3>(v[0], v[1], v[2]);
        let or_b = _mm512_ternarylogic_epi64::<OR3>(v[3], v[4], v[5]);
        let or_c = _mm512_ternarylogic_epi64::<OR3>(v[6], v[7], self.or);
        self.or = _mm512_ternarylogic_epi64::<OR3>(or_a, or_b, or_c);

        // Where elements 0 and 1 are common (`IN_VECTORS`), each lane
        // counts those at most 1 and adds them up (the ones): two masked
        // operations a vector. Bytes are 0 or 1 too often for a test to
        // pay; other widths are counted only when the step's minimum is
        // at most 1, out of line so that the common step stays small.
        if IN_VECTORS {
            for (k, &x) in v.iter().enumerate() {
                let small = _mm512_cmple_epu64_mask(x, _mm512_set1_epi64(1));
                let (count, ones) = (&mut self.small[k % 2], &mut self.ones[k % 2]);
                *count = _mm512_mask_sub_epi64(*count, small, *count, _mm512_set1_epi64(-1));
                *ones = _mm512_mask_add_epi64(*ones, small, *ones, x);
            }
        } else if W == 1 {
            let (zeros, units) = count_small::<W>(v);
            self.zeros += zeros;
            self.units += units;
        } else if at_most::<W>(min8::<W>(&v), splat_one::<W>()) {
            // A copy made here, not `v` itself: passing `v` would keep
            // it in memory on the common path too.
            let copy = [v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]];
            let (zeros, units) = count_small_cold::<W>(copy);
            self.zeros += zeros;
            self.units += units;
        }

        let eights = fold8(&mut self.low, &v);
        store(&mut carries.pending[0][self.pending_len[0]], eights);
        self.pending_len[0] += 1;
        if self.pending_len[0] == 8 {
            self.pending_len[0] = 0;
            let pending = load8(&carries.pending[0]);
            let sixty_fours = fold8(&mut self.middle, &pending);
            store(&mut carries.pending[1][self.pending_len[1]], sixty_fours);
            self.pending_len[1] += 1;
            if self.pending_len[1] == 8 {
                self.pending_len[1] = 0;
                add_top(carries);
            }
        }
    }
}

/// The zero and one elements of eight vectors of `W`-byte elements.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
fn count_small<const W: usize>(v: [__m512i; 8]) -> (u64, u64) {
    let (zero, one) = (_mm512_setzero_si512(), splat_one::<W>());
    let (mut zeros, mut units) = (0, 0);
    for x in v {
        zeros += u64::from(count_equal::<W>(x, zero));
        units += u64::from(count_equal::<W>(x, one));
    }
    (zeros, units)
}

/// [`count_small`] kept out of the loop, for widths where it is rare.
#[cold]
#[inline(never)]
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
fn count_small_cold<const W: usize>(v: [__m512i; 8]) -> (u64, u64) {
    count_small::<W>(v)
}

/// Folds the eight pending "sixty-fours" vectors into the top level
/// and its carry out into the planes: once per 512 vectors, so out of
/// line (and with no registers of the loop to save).
#[inline(never)]
#[target_feature(enable = "avx512f")]
fn add_top(carries: &mut Carries<8>) {
    let top = &mut carries.running[2];
    let mut running = [load(&top[0]), load(&top[1]), load(&top[2])];
    let mut carry = fold8(&mut running, &load8(&carries.pending[1]));
    for (words, &v) in top.iter_mut().zip(&running) {
        store(words, v);
    }
    for plane in carries.planes.iter_mut() {
        let words = load(plane);
        store(plane, _mm512_xor_si512(words, carry));
        carry = _mm512_and_si512(words, carry);
        if _mm512_test_epi64_mask(carry, carry) == 0 {
            return;
        }
    }
    unreachable!("a counter plane overflowed past 2^49 vectors per lane");
}

/// The eight-word fold of [`carry_save::fold8_with`] on vectors.
#[inline]
#[target_feature(enable = "avx512f")]
fn fold8(running: &mut [__m512i; 3], v: &[__m512i; 8]) -> __m512i {
    carry_save::fold8_with(running, v, |a, b, c| csa(a, b, c))
}

/// A carry-save adder on every bit: returns (carry, sum).
#[inline]
#[target_feature(enable = "avx512f")]
fn csa(a: __m512i, b: __m512i, c: __m512i) -> (__m512i, __m512i) {
    (
        _mm512_ternarylogic_epi64::<MAJORITY>(a, b, c),
        _mm512_ternarylogic_epi64::<XOR3>(a, b, c),
    )
}

/// The element-wise minimum of eight vectors of `W`-byte elements.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn min8<const W: usize>(v: &[__m512i; 8]) -> __m512i {
    let min = |a, b| match W {
        1 => _mm512_min_epu8(a, b),
        2 => _mm512_min_epu16(a, b),
        4 => _mm512_min_epu32(a, b),
        _ => _mm512_min_epu64(a, b),
    };
    min(
        min(min(v[0], v[1]), min(v[2], v[3])),
        min(min(v[4], v[5]), min(v[6], v[7])),
    )
}

/// Whether some `W`-byte element of `v` is at most the same element of
/// `bound`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn at_most<const W: usize>(v: __m512i, bound: __m512i) -> bool {
    match W {
        1 => _mm512_cmple_epu8_mask(v, bound) != 0,
        2 => _mm512_cmple_epu16_mask(v, bound) != 0,
        4 => _mm512_cmple_epu32_mask(v, bound) != 0,
        _ => _mm512_cmple_epu64_mask(v, bound) != 0,
    }
}

/// How many `W`-byte elements of `v` equal the same element of `x`.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
fn count_equal<const W: usize>(v: __m512i, x: __m512i) -> u32 {
    match W {
        1 => _mm512_cmpeq_epi8_mask(v, x).count_ones(),
        2 => _mm512_cmpeq_epi16_mask(v, x).count_ones(),
        4 => _mm512_cmpeq_epi32_mask(v, x).count_ones(),
        _ => _mm512_cmpeq_epi64_mask(v, x).count_ones(),
    }
}

/// Every `W`-byte element 1.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn splat_one<const W: usize>() -> __m512i {
    match W {
        1 => _mm512_set1_epi8(1),
        2 => _mm512_set1_epi16(1),
        4 => _mm512_set1_epi32(1),
        _ => _mm512_set1_epi64(1),
    }
}

/// The XOR of a vector's eight words.
#[inline]
#[target_feature(enable = "avx512f")]
fn reduce_xor(v: __m512i) -> u64 {
    let mut words = [0u64; 8];
    store(&mut words, v);
    words.iter().fold(0, |a, b| a ^ b)
}

/// The XOR of the `W`-byte elements packed in a word.
#[inline]
fn fold_xor<const W: usize>(word: u64) -> u64 {
    fold_elements::<W>(word, |a, b| a ^ b)
}

/// The OR of the `W`-byte elements packed in a word.
#[inline]
fn fold_or<const W: usize>(word: u64) -> u64 {
    fold_elements::<W>(word, |a, b| a | b)
}

/// The `W`-byte elements packed in a word combined by `op` (OR or XOR),
/// halves into halves.
#[inline]
fn fold_elements<const W: usize>(mut word: u64, op: impl Fn(u64, u64) -> u64) -> u64 {
    let bits = 8 * W;
    let mut shift = 32;
    while shift >= bits {
        word = op(word, word >> shift);
        shift /= 2;
    }
    if bits == 64 {
        word
    } else {
        word & ((1 << bits) - 1)
    }
}

/// The eight vectors of a step.
#[inline]
#[target_feature(enable = "avx512f")]
fn load_step(step: &[u8; STEP_BYTES]) -> [__m512i; 8] {
    let mut v = [_mm512_setzero_si512(); 8];
    for (k, vector) in v.iter_mut().enumerate() {
        // SAFETY: bytes 64·k .. 64·k + 64 (k < 8) lie inside `step`,
        // and the unaligned load has no alignment requirement.
        *vector = unsafe { _mm512_loadu_si512(step.as_ptr().add(k * VECTOR).cast()) };
    }
    v
}

/// Eight vectors from memory.
#[inline]
#[target_feature(enable = "avx512f")]
fn load8(words: &[[u64; 8]; 8]) -> [__m512i; 8] {
    let mut v = [_mm512_setzero_si512(); 8];
    for (vector, words) in v.iter_mut().zip(words) {
        *vector = load(words);
    }
    v
}

#[inline]
#[target_feature(enable = "avx512f")]
fn load(words: &[u64; 8]) -> __m512i {
    // SAFETY: `words` is 64 readable bytes, and the unaligned load has
    // no alignment requirement.
    unsafe { _mm512_loadu_si512(words.as_ptr().cast()) }
}

#[inline]
#[target_feature(enable = "avx512f")]
fn store(words: &mut [u64; 8], v: __m512i) {
    // SAFETY: `words` is 64 writable bytes, and the unaligned store has
    // no alignment requirement.
    unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), v) }
}
