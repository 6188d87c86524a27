//! The AVX2 loop: four elements a step, one per 64-bit lane, reduced as
//! the AVX-512 loop reduces them, or, for a period of at most 64, by a
//! weighted sum of their bytes first. AVX2 has no unsigned 64-bit compare or
//! minimum: an element is compared with the table's length with both
//! sign bits flipped, and a correction keeps rest − kq where that is not
//! negative (the rest is below 2^35, so its sign says which is smaller).

use super::{by_portable, BlockValues, WordValues};
use crate::arch::columns::BlockTally;
use std::arch::x86_64::*;

/// How a step reduces modulo q, chosen once per call.
const MASK: u8 = 0;
/// 32-bit Barrett: elements narrower than 8 bytes, below 2^32.
const NARROW: u8 = 1;
/// 64-bit Barrett from 32-bit pieces.
const WIDE: u8 = 2;
/// A weighted sum of the bytes, then 32-bit Barrett: 8-byte elements and
/// a period of at most [`SMALL_PERIOD`] (`kayles`'s is 12).
const SMALL: u8 = 3;

/// The largest period [`SMALL`] reduces by: its byte weights, below it,
/// are signed bytes whose pairs of products with bytes fit 16 signed bits
/// (2 · 255 · 63 < 2^15).
const SMALL_PERIOD: u64 = 64;

/// The constants of the reduction modulo q, one per lane.
struct Reduction {
    preperiod: __m256i,
    period: __m256i,
    twice_period: __m256i,
    /// q − 1: the residue of a power-of-two period.
    mask: __m256i,
    /// The low and the high 32 bits of ⌊(2^64 − 1)/q⌋.
    reciprocal_low: __m256i,
    reciprocal_high: __m256i,
    /// ⌊(2^32 − 1)/q⌋.
    reciprocal_32: __m256i,
    low_32: __m256i,
    /// 256^i mod q for byte i of every lane (a small period's), else 0.
    byte_weights: __m256i,
}

impl Reduction {
    #[inline]
    #[target_feature(enable = "avx2")]
    fn new(table: &WordValues<'_>) -> Reduction {
        let splat = |x: u64| _mm256_set1_epi64x(x as i64);
        Reduction {
            preperiod: splat(table.preperiod),
            period: splat(table.period),
            twice_period: splat(2 * table.period),
            mask: splat(table.period.wrapping_sub(1)),
            reciprocal_low: splat(table.reciprocal & 0xFFFF_FFFF),
            reciprocal_high: splat(table.reciprocal >> 32),
            reciprocal_32: splat(table.reciprocal_32),
            low_32: splat(0xFFFF_FFFF),
            byte_weights: splat(byte_weights(table.period)),
        }
    }

    /// (h − p) mod q in every lane, by the reduction `KIND` (for `W`-byte
    /// elements).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn residue<const KIND: u8>(&self, h: __m256i) -> __m256i {
        let x = _mm256_sub_epi64(h, self.preperiod);
        match KIND {
            MASK => _mm256_and_si256(x, self.mask),
            // h − p only matters where h > p, and is then below 2^32.
            NARROW => self.reduce_narrow(_mm256_and_si256(x, self.low_32)),
            SMALL => self.reduce_narrow(self.byte_sum(x)),
            _ => self.reduce_wide(x),
        }
    }

    /// x mod q for x < 2^32 and q < 2^32: the 32-bit Barrett estimate
    /// ⌊x·⌊(2^32 − 1)/q⌋ / 2^32⌋ is at most one short, so one correction.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn reduce_narrow(&self, x: __m256i) -> __m256i {
        let estimate = _mm256_srli_epi64::<32>(_mm256_mul_epu32(x, self.reciprocal_32));
        let rest = _mm256_sub_epi64(x, _mm256_mul_epu32(estimate, self.period));
        take_off(rest, self.period)
    }

    /// A number below 2^17 congruent to x modulo a period of at most
    /// [`SMALL_PERIOD`]: the sum of x's bytes times their weights, 256^i
    /// mod q (byte pairs by one multiply-add into 16 bits, fours by a
    /// second into 32, and the lane's two halves added).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn byte_sum(&self, x: __m256i) -> __m256i {
        let pairs = _mm256_maddubs_epi16(x, self.byte_weights);
        let fours = _mm256_madd_epi16(pairs, _mm256_set1_epi16(1));
        let sum = _mm256_add_epi64(fours, _mm256_srli_epi64::<32>(fours));
        _mm256_and_si256(sum, self.low_32)
    }

    /// x mod q for any 64-bit x and q < 2^32, as the AVX-512 loop does
    /// it: the rest is below 4q before the two corrections.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn reduce_wide(&self, x: __m256i) -> __m256i {
        let x_high = _mm256_srli_epi64::<32>(x);
        let high_high = _mm256_mul_epu32(x_high, self.reciprocal_high);
        let high_low = _mm256_mul_epu32(x_high, self.reciprocal_low);
        let low_high = _mm256_mul_epu32(x, self.reciprocal_high);
        let estimate = _mm256_add_epi64(
            high_high,
            _mm256_add_epi64(
                _mm256_srli_epi64::<32>(high_low),
                _mm256_srli_epi64::<32>(low_high),
            ),
        );
        // The low 64 bits of estimate·q, from the estimate's two halves.
        let estimate_high = _mm256_srli_epi64::<32>(estimate);
        let product = _mm256_add_epi64(
            _mm256_mul_epu32(estimate, self.period),
            _mm256_slli_epi64::<32>(_mm256_mul_epu32(estimate_high, self.period)),
        );
        let rest = _mm256_sub_epi64(x, product);
        take_off(take_off(rest, self.twice_period), self.period)
    }
}

/// rest − kq where that is not negative, else rest (rest < 2^35 and
/// kq ≤ 2^34, so the sign of the difference says which is smaller).
#[inline]
#[target_feature(enable = "avx2")]
fn take_off(rest: __m256i, kq: __m256i) -> __m256i {
    let less = _mm256_sub_epi64(rest, kq);
    let negative = _mm256_cmpgt_epi64(_mm256_setzero_si256(), less);
    _mm256_blendv_epi8(less, rest, negative)
}

/// The weights of [`Reduction::byte_sum`] for the period q, byte i's
/// 256^i mod q in byte i, if q is at most [`SMALL_PERIOD`]; else 0.
fn byte_weights(q: u64) -> u64 {
    if q > SMALL_PERIOD {
        return 0;
    }
    let mut weight = 1 % q;
    (0..8).fold(0, |weights, i| {
        let byte = weight << (8 * i);
        weight = weight * 256 % q;
        weights | byte
    })
}

/// The reduction a loop over `W`-byte elements uses for the period of
/// `table`.
fn kind<const W: usize>(table: &WordValues<'_>) -> u8 {
    if table.period_is_power_of_two() {
        MASK
    } else if W < 8 {
        NARROW
    } else if table.period <= SMALL_PERIOD {
        SMALL
    } else {
        WIDE
    }
}

/// The values and tally of the `W`-byte elements of `bytes`; with
/// `STORE`, each value written to `out` in place of the XOR and OR.
#[target_feature(enable = "avx2")]
pub(super) fn fold<const W: usize, const STORE: bool>(
    bytes: &[u8],
    table: &WordValues<'_>,
    out: &mut [u16],
) -> BlockValues {
    match kind::<W>(table) {
        MASK => fold_by::<W, MASK, STORE>(bytes, table, out),
        NARROW => fold_by::<W, NARROW, STORE>(bytes, table, out),
        SMALL => fold_by::<W, SMALL, STORE>(bytes, table, out),
        _ => fold_by::<W, WIDE, STORE>(bytes, table, out),
    }
}

/// The loop with the reduction `KIND`, the values kept in `out`
/// (`STORE`) or XORed and ORed; the elements after the last whole step go
/// to the portable loop.
#[inline]
#[target_feature(enable = "avx2")]
fn fold_by<const W: usize, const KIND: u8, const STORE: bool>(
    bytes: &[u8],
    table: &WordValues<'_>,
    out: &mut [u16],
) -> BlockValues {
    let reduction = Reduction::new(table);
    let (len, last) = (table.values.len(), table.values[table.values.len() - 1]);
    let preperiod = reduction.preperiod;
    // The length and the elements with their sign bits flipped compare
    // as unsigned numbers.
    let sign = _mm256_set1_epi64x(i64::MIN);
    let len_flipped = _mm256_xor_si256(_mm256_set1_epi64x(len as i64), sign);
    // The last index whose 32-bit gather stays inside the table, and the
    // value the lanes past it take instead.
    let last_readable = _mm256_set1_epi64x(len as i64 - 1);
    let last_value = _mm_set1_epi32(i32::from(last));
    // The even 32-bit halves: a 64-bit lane's mask as a 32-bit lane's.
    let even_halves = _mm256_setr_epi32(0, 2, 4, 6, 0, 2, 4, 6);
    let base = table.values.as_ptr().cast::<i32>();
    let (mut xor, mut or) = (_mm_setzero_si128(), _mm_setzero_si128());
    let mut heaps_or = _mm256_setzero_si256();
    let (mut zeros, mut ones) = (_mm256_setzero_si256(), _mm256_setzero_si256());
    let steps = bytes.chunks_exact(4 * W);
    let rest = steps.remainder();
    // The low 16 bits of each 32-bit lane, packed into the low 8 bytes.
    let low_words = _mm_setr_epi8(0, 1, 4, 5, 8, 9, 12, 13, -1, -1, -1, -1, -1, -1, -1, -1);
    let steps_done = bytes.len() / (4 * W);
    for (i, step) in steps.enumerate() {
        let h = load::<W>(step);
        let residue = reduction.residue::<KIND>(h);
        let inside = _mm256_cmpgt_epi64(len_flipped, _mm256_xor_si256(h, sign));
        let index = _mm256_blendv_epi8(_mm256_add_epi64(residue, preperiod), h, inside);
        // Indices are below the table's length, far below 2^63: a signed
        // compare is an unsigned one.
        let readable = _mm256_cmpgt_epi64(last_readable, index);
        let readable = _mm256_castsi256_si128(_mm256_permutevar8x32_epi32(readable, even_halves));
        // SAFETY: every index is below the table's length: h where h is
        // inside the table, else p + r with r < q and p + q ≤ len
        // (`WordValues::new`). A lane reads the 4 bytes at 2·index only
        // where index < len − 1, so inside the table; the others take
        // the last value from `last_value`.
        let g = unsafe { _mm256_mask_i64gather_epi32::<2>(last_value, base, index, readable) };
        if STORE {
            let place = &mut out[4 * i..4 * i + 4];
            // SAFETY: `place` is 4 values, 8 bytes, written unaligned.
            unsafe { _mm_storel_epi64(place.as_mut_ptr().cast(), _mm_shuffle_epi8(g, low_words)) };
        } else {
            xor = _mm_xor_si128(xor, g);
            or = _mm_or_si128(or, g);
        }
        heaps_or = _mm256_or_si256(heaps_or, h);
        // A compare gives −1 where it holds.
        zeros = _mm256_sub_epi64(zeros, _mm256_cmpeq_epi64(h, _mm256_setzero_si256()));
        ones = _mm256_sub_epi64(ones, _mm256_cmpeq_epi64(h, _mm256_set1_epi64x(1)));
    }
    let [xor, or] = [xor, or].map(|v| {
        let mut lanes = [0u32; 4];
        // SAFETY: `lanes` is 16 bytes, written unaligned.
        unsafe { _mm_storeu_si128(lanes.as_mut_ptr().cast(), v) };
        lanes
    });
    let [heaps_or, zeros, ones] = [heaps_or, zeros, ones].map(|v| {
        let mut lanes = [0u64; 4];
        // SAFETY: `lanes` is 32 bytes, written unaligned.
        unsafe { _mm256_storeu_si256(lanes.as_mut_ptr().cast(), v) };
        lanes
    });
    let block = BlockValues {
        // The gathered words hold the next value in their high half.
        xor: (xor.into_iter().fold(0, |a, b| a ^ b) & 0xFFFF) as u16,
        or: (or.into_iter().fold(0, |a, b| a | b) & 0xFFFF) as u16,
        tally: BlockTally {
            or: heaps_or.into_iter().fold(0, |a, b| a | b),
            zeros: zeros.into_iter().sum(),
            ones: ones.into_iter().sum(),
        },
    };
    let rest_out = match STORE {
        true => &mut out[4 * steps_done..],
        false => &mut [],
    };
    block.merge(by_portable::<STORE>(rest, W, table, rest_out))
}

/// x mod q in each lane of `x` (below 2^(8·width)), by the reduction the
/// loop uses for `width`-byte elements: for the tests.
#[cfg(test)]
#[target_feature(enable = "avx2")]
pub(super) fn residues(x: [u64; 8], width: usize, table: &WordValues<'_>) -> [u64; 8] {
    let reduction = Reduction::new(table);
    let kind = match width {
        8 => kind::<8>(table),
        _ => kind::<4>(table),
    };
    let mut lanes = [0u64; 8];
    for (x, out) in x.chunks_exact(4).zip(lanes.chunks_exact_mut(4)) {
        // SAFETY: each chunk is 32 bytes, read and written unaligned.
        let h = _mm256_add_epi64(
            unsafe { _mm256_loadu_si256(x.as_ptr().cast()) },
            reduction.preperiod,
        );
        let residue = match kind {
            MASK => reduction.residue::<MASK>(h),
            NARROW => reduction.residue::<NARROW>(h),
            SMALL => reduction.residue::<SMALL>(h),
            _ => reduction.residue::<WIDE>(h),
        };
        // SAFETY: as above.
        unsafe { _mm256_storeu_si256(out.as_mut_ptr().cast(), residue) };
    }
    lanes
}

/// The four `W`-byte elements at the start of `step`, one per lane.
#[inline]
#[target_feature(enable = "avx2")]
fn load<const W: usize>(step: &[u8]) -> __m256i {
    assert!(step.len() >= 4 * W);
    let at = step.as_ptr();
    // SAFETY: `step` holds at least 4·W bytes (checked above), and each
    // load reads exactly 4·W bytes, unaligned.
    unsafe {
        match W {
            1 => _mm256_cvtepu8_epi64(_mm_cvtsi32_si128(at.cast::<i32>().read_unaligned())),
            2 => _mm256_cvtepu16_epi64(_mm_loadl_epi64(at.cast())),
            4 => _mm256_cvtepu32_epi64(_mm_loadu_si128(at.cast())),
            _ => _mm256_loadu_si256(at.cast()),
        }
    }
}
