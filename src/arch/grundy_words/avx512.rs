//! The AVX-512 loop: eight elements a step, one per 64-bit lane, each
//! reduced modulo the period with IFMA's 52-bit products
//! (`vpmadd52luq`, `vpmadd52huq`): an element's top 16 bits are folded
//! into its low 48 with 2^48 mod q, and the sum, below 2^49, takes a
//! 52-bit Barrett estimate and one correction (three products in all,
//! against five 32-bit ones and two corrections without IFMA).
//!
//! A table of at most 128 values (Kayles' preperiod and period, 71 and
//! 12, as the game pass hands it) is held in four registers, and every
//! value is permuted out of them (`vpermi2w`, two a step). Otherwise a period of at most 64
//! values is held in two registers and a step's values are permuted out
//! of them unless some element of the step lies inside the table; else
//! they are gathered (`vpgatherqd`), which costs about as much as the
//! reduction. (Heaps of up to 64 bits, as text formats mostly hold, put
//! a small heap in about half of the steps: the branch to the gather,
//! taken at random, cost Kayles' pass over short decimals much of its
//! time.)
//!
//! The zero and one counts are taken from the compare masks with `popcnt`
//! on the scalar ports, which leaves the vector ports to the reduction.

use super::{by_portable, BlockValues, WordValues};
use crate::arch::columns::BlockTally;
use std::arch::x86_64::*;

/// How a step reduces modulo q, chosen once per call.
const MASK: u8 = 0;
/// Elements narrower than 8 bytes, below 2^32: Barrett at once.
const NARROW: u8 = 1;
/// Elements of 64 bits: their top 16 bits folded in first.
const WIDE: u8 = 2;

/// The constants of the reduction modulo q, one per lane.
struct Reduction {
    preperiod: __m512i,
    period: __m512i,
    /// q − 1: the residue of a power-of-two period.
    mask: __m512i,
    /// ⌊2^52/q⌋.
    reciprocal_52: __m512i,
    /// 2^48 mod q.
    two_to_48: __m512i,
    low_32: __m512i,
    low_48: __m512i,
}

impl Reduction {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new(table: &WordValues<'_>) -> Reduction {
        let splat = |x: u64| _mm512_set1_epi64(x as i64);
        Reduction {
            preperiod: splat(table.preperiod),
            period: splat(table.period),
            mask: splat(table.period.wrapping_sub(1)),
            reciprocal_52: splat(table.reciprocal_52),
            two_to_48: splat(table.two_to_48),
            low_32: splat(0xFFFF_FFFF),
            low_48: splat((1 << 48) - 1),
        }
    }

    /// (h − p) mod q in every lane, by the reduction `KIND`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn residue<const KIND: u8>(&self, h: __m512i) -> __m512i {
        let x = _mm512_sub_epi64(h, self.preperiod);
        match KIND {
            MASK => _mm512_and_si512(x, self.mask),
            // h − p only matters where h > p, and is then below 2^32.
            NARROW => self.reduce_52(_mm512_and_si512(x, self.low_32)),
            _ => self.reduce_52(self.fold_top(x)),
        }
    }

    /// A number below 2^49 congruent to x modulo q: x's low 48 bits plus
    /// its top 16 bits times 2^48 mod q (below 2^48, so the 52-bit
    /// product is exact).
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn fold_top(&self, x: __m512i) -> __m512i {
        let top = _mm512_srli_epi64::<48>(x);
        _mm512_madd52lo_epu64(_mm512_and_si512(x, self.low_48), top, self.two_to_48)
    }

    /// s mod q for s < 2^49 and 3 ≤ q < 2^32: the estimate
    /// ⌊s·⌊2^52/q⌋ / 2^52⌋ falls short of s/q by less than 1 + s/2^52, so
    /// it is at most one short and one correction follows; estimate·q ≤ s
    /// is exact in 52 bits.
    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn reduce_52(&self, s: __m512i) -> __m512i {
        let zero = _mm512_setzero_si512();
        let estimate = _mm512_madd52hi_epu64(zero, s, self.reciprocal_52);
        let rest = _mm512_sub_epi64(s, _mm512_madd52lo_epu64(zero, estimate, self.period));
        _mm512_min_epu64(rest, _mm512_sub_epi64(rest, self.period))
    }
}

/// The reduction a loop over `W`-byte elements uses for the period of
/// `table`.
fn kind<const W: usize>(table: &WordValues<'_>) -> u8 {
    if table.period_is_power_of_two() {
        MASK
    } else if W < 8 {
        NARROW
    } else {
        WIDE
    }
}

/// The longest period whose values a permute picks from two registers.
const PERMUTED_PERIOD: u64 = 64;

/// The 16-bit lanes that hold a 64-bit lane's low word.
const LOW_WORDS: __mmask32 = 0x1111_1111;

/// The values and tally of the `W`-byte elements of `bytes`; with
/// `STORE`, each value written to `out` in place of the XOR and OR.
#[target_feature(enable = "avx512f,avx512bw,avx512ifma,popcnt")]
pub(super) fn fold<const W: usize, const STORE: bool>(
    bytes: &[u8],
    table: &WordValues<'_>,
    out: &mut [u16],
) -> BlockValues {
    // Elements of 8 bytes mostly lie past the table, and a short period's
    // values fit in two registers: a step permutes them out of it unless
    // some element lies inside the table. Where the block's first
    // elements say that many do (short text tokens: a heap of 1 to 6 bits
    // in half of all steps), a table of at most 128 values, in four
    // registers, is permuted by every element's index instead, at two
    // permutes a step but no branch taken at random.
    let len = table.values.len() as u64;
    let period = W == 8 && table.period <= PERMUTED_PERIOD;
    let permuted_table = len <= PERMUTED_TABLE && !(period && all_past(bytes, W, len));
    let lookup = match (permuted_table, period) {
        (true, _) => TABLE,
        (false, true) => PERIOD,
        (false, false) => GATHER,
    };
    match (kind::<W>(table), lookup) {
        (MASK, TABLE) => fold_by::<W, MASK, TABLE, STORE>(bytes, table, out),
        (MASK, PERIOD) => fold_by::<W, MASK, PERIOD, STORE>(bytes, table, out),
        (MASK, _) => fold_by::<W, MASK, GATHER, STORE>(bytes, table, out),
        (NARROW, TABLE) => fold_by::<W, NARROW, TABLE, STORE>(bytes, table, out),
        (NARROW, _) => fold_by::<W, NARROW, GATHER, STORE>(bytes, table, out),
        (_, TABLE) => fold_by::<W, WIDE, TABLE, STORE>(bytes, table, out),
        (_, PERIOD) => fold_by::<W, WIDE, PERIOD, STORE>(bytes, table, out),
        (_, _) => fold_by::<W, WIDE, GATHER, STORE>(bytes, table, out),
    }
}

/// The elements [`fold`] looks at to choose how to look values up.
const SAMPLED: usize = 64;

/// Whether the first [`SAMPLED`] `width`-byte elements of `bytes` all lie
/// past a table of `len` values.
fn all_past(bytes: &[u8], width: usize, len: u64) -> bool {
    let sample = bytes.chunks_exact(width).take(SAMPLED);
    sample.map(crate::arch::columns::element).all(|h| h >= len)
}

/// How a step looks its values up, chosen once per call: a permute of a
/// table of at most [`PERMUTED_TABLE`] values, ...
const TABLE: u8 = 0;
/// ... a permute of the period's values unless some element of the step
/// lies inside the table, else a gather, ...
const PERIOD: u8 = 1;
/// ... or a gather.
const GATHER: u8 = 2;

/// The most values of a table that [`TABLE`] permutes out of four
/// registers.
const PERMUTED_TABLE: u64 = 128;

/// The first [`PERMUTED_TABLE`] values of the table (zeros past its
/// end) in 16-bit lanes of four registers.
#[inline]
#[target_feature(enable = "avx512f")]
fn table_values(table: &WordValues<'_>) -> [__m512i; 4] {
    let mut words = [0u16; PERMUTED_TABLE as usize];
    let len = table.values.len().min(words.len());
    words[..len].copy_from_slice(&table.values[..len]);
    // SAFETY: `words` is 256 bytes, read unaligned in four quarters.
    [0, 32, 64, 96].map(|at| unsafe { _mm512_loadu_si512(words[at..].as_ptr().cast()) })
}

/// The values at `index` (below [`PERMUTED_TABLE`], in each 64-bit lane)
/// of the four registers of [`table_values`], in the lanes' low 16 bits:
/// indices below 64 pick from the first two, the others from the last two.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn from_table(values: &[__m512i; 4], index: __m512i) -> __m512i {
    let high = _mm512_test_epi16_mask(index, _mm512_set1_epi16(64)) & LOW_WORDS;
    let low = LOW_WORDS & !high;
    _mm512_or_si512(
        _mm512_maskz_permutex2var_epi16(low, values[0], index, values[1]),
        _mm512_maskz_permutex2var_epi16(high, values[2], index, values[3]),
    )
}

/// What the lanes need to look values up in the table.
struct Lookup {
    preperiod: __m512i,
    len: __m512i,
    /// The last index whose 32-bit gather stays inside the table.
    last_readable: __m512i,
    /// The table's last value, for the lanes that may not read it.
    last_value: __m256i,
    base: *const i32,
}

impl Lookup {
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn new(table: &WordValues<'_>) -> Lookup {
        let len = table.values.len();
        Lookup {
            preperiod: _mm512_set1_epi64(table.preperiod as i64),
            len: _mm512_set1_epi64(len as i64),
            last_readable: _mm512_set1_epi64(len as i64 - 1),
            last_value: _mm256_set1_epi32(i32::from(table.values[len - 1])),
            base: table.values.as_ptr().cast(),
        }
    }

    /// The values of the heaps `h` with residues `residue`, gathered, in
    /// the low 16 bits of eight 32-bit lanes zero-extended to 512 bits.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn gather(&self, h: __m512i, residue: __m512i) -> __m512i {
        let inside = _mm512_cmplt_epu64_mask(h, self.len);
        let periodic = _mm512_add_epi64(residue, self.preperiod);
        let index = _mm512_mask_blend_epi64(inside, periodic, h);
        let readable = _mm512_cmplt_epu64_mask(index, self.last_readable);
        // SAFETY: every index is below the table's length: h where h is
        // inside the table, else p + r with r < q and p + q ≤ len
        // (`WordValues::new`). A lane reads the 4 bytes at 2·index only
        // where index < len − 1, so inside the table; the others take
        // the last value from `last_value`.
        let g = unsafe {
            _mm512_mask_i64gather_epi32::<2>(self.last_value, readable, index, self.base)
        };
        _mm512_zextsi256_si512(g)
    }
}

/// The values of one period, p to p + q − 1, in 16-bit lanes of two
/// registers, for a period of at most [`PERMUTED_PERIOD`].
#[inline]
#[target_feature(enable = "avx512f")]
fn period_values(table: &WordValues<'_>) -> [__m512i; 2] {
    let mut words = [0u16; PERMUTED_PERIOD as usize];
    let p = table.preperiod as usize;
    let q = (table.period as usize).min(words.len());
    words[..q].copy_from_slice(&table.values[p..p + q]);
    // SAFETY: `words` is 128 bytes, read unaligned in two halves.
    unsafe {
        [
            _mm512_loadu_si512(words.as_ptr().cast()),
            _mm512_loadu_si512(words[32..].as_ptr().cast()),
        ]
    }
}

/// The loop with the reduction `KIND` and the values looked up by
/// `LOOKUP`, kept in `out` (`STORE`) or XORed and ORed; the elements
/// after the last whole step go to the portable loop.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512ifma,popcnt")]
fn fold_by<const W: usize, const KIND: u8, const LOOKUP: u8, const STORE: bool>(
    bytes: &[u8],
    table: &WordValues<'_>,
    out: &mut [u16],
) -> BlockValues {
    let reduction = Reduction::new(table);
    let lookup = Lookup::new(table);
    let [low_values, high_values] = period_values(table);
    let first_values = table_values(table);
    // The values, one per 32-bit lane or per 64-bit lane, in the low 16
    // bits (the gather's next 16 bits hold the next value).
    let (mut xor, mut or) = (_mm512_setzero_si512(), _mm512_setzero_si512());
    let mut heaps_or = _mm512_setzero_si512();
    let (mut zeros, mut ones) = (0u64, 0u64);
    let steps = bytes.chunks_exact(8 * W);
    let rest = steps.remainder();
    let steps_done = bytes.len() / (8 * W);
    for (i, step) in steps.enumerate() {
        let h = load::<W>(step);
        let residue = reduction.residue::<KIND>(h);
        // Whether the values are in the 64-bit lanes' low words (else in
        // the gather's 32-bit lanes).
        let permuted =
            LOOKUP == TABLE || (LOOKUP == PERIOD && _mm512_cmplt_epu64_mask(h, lookup.len) == 0);
        let g = if LOOKUP == TABLE {
            // h inside the table, else p + r.
            let periodic = _mm512_add_epi64(residue, reduction.preperiod);
            let inside = _mm512_cmplt_epu64_mask(h, lookup.len);
            from_table(&first_values, _mm512_mask_blend_epi64(inside, periodic, h))
        } else if permuted {
            // Residues below 64 pick a 16-bit lane of the two registers;
            // the other words of each 64-bit lane are zeroed.
            _mm512_maskz_permutex2var_epi16(LOW_WORDS, low_values, residue, high_values)
        } else {
            lookup.gather(h, residue)
        };
        if STORE {
            // The eight values as 16-bit words: from the low words of
            // the 64-bit lanes, or of the gather's 32-bit lanes.
            let words = match permuted {
                true => _mm512_cvtepi64_epi16(g),
                false => _mm256_castsi256_si128(_mm512_cvtepi32_epi16(g)),
            };
            let place = &mut out[8 * i..8 * i + 8];
            // SAFETY: `place` is 8 values, 16 bytes, written unaligned.
            unsafe { _mm_storeu_si128(place.as_mut_ptr().cast(), words) };
        } else {
            xor = _mm512_xor_si512(xor, g);
            or = _mm512_or_si512(or, g);
        }
        heaps_or = _mm512_or_si512(heaps_or, h);
        zeros += u64::from(_mm512_cmpeq_epu64_mask(h, _mm512_setzero_si512()).count_ones());
        ones += u64::from(_mm512_cmpeq_epu64_mask(h, _mm512_set1_epi64(1)).count_ones());
    }
    let block = BlockValues {
        xor: (fold_lanes(xor, |a, b| a ^ b) & 0xFFFF) as u16,
        or: (fold_lanes(or, |a, b| a | b) & 0xFFFF) as u16,
        tally: BlockTally {
            or: _mm512_reduce_or_epi64(heaps_or) as u64,
            zeros,
            ones,
        },
    };
    let rest_out = match STORE {
        true => &mut out[8 * steps_done..],
        false => &mut [],
    };
    block.merge(by_portable::<STORE>(rest, W, table, rest_out))
}

/// x mod q in each lane of `x` (below 2^(8·width)), by the reduction the
/// loop uses for `width`-byte elements: for the tests.
#[cfg(test)]
#[target_feature(enable = "avx512f,avx512ifma")]
pub(super) fn residues(x: [u64; 8], width: usize, table: &WordValues<'_>) -> [u64; 8] {
    let reduction = Reduction::new(table);
    // SAFETY: `x` is 64 bytes, read unaligned.
    let h = _mm512_add_epi64(
        unsafe { _mm512_loadu_si512(x.as_ptr().cast()) },
        reduction.preperiod,
    );
    let kind = match width {
        8 => kind::<8>(table),
        _ => kind::<4>(table),
    };
    let residue = match kind {
        MASK => reduction.residue::<MASK>(h),
        NARROW => reduction.residue::<NARROW>(h),
        _ => reduction.residue::<WIDE>(h),
    };
    let mut lanes = [0u64; 8];
    // SAFETY: `lanes` is 64 bytes, written unaligned.
    unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast(), residue) };
    lanes
}

/// The eight `W`-byte elements at the start of `step`, one per lane.
#[inline]
#[target_feature(enable = "avx512f")]
fn load<const W: usize>(step: &[u8]) -> __m512i {
    assert!(step.len() >= 8 * W);
    let at = step.as_ptr();
    // SAFETY: `step` holds at least 8·W bytes (checked above), and each
    // load reads exactly 8·W bytes, unaligned.
    unsafe {
        match W {
            1 => _mm512_cvtepu8_epi64(_mm_loadl_epi64(at.cast())),
            2 => _mm512_cvtepu16_epi64(_mm_loadu_si128(at.cast())),
            4 => _mm512_cvtepu32_epi64(_mm256_loadu_si256(at.cast())),
            _ => _mm512_loadu_si512(at.cast()),
        }
    }
}

/// The sixteen 32-bit lanes of `v` folded with `f`.
#[inline]
#[target_feature(enable = "avx512f")]
fn fold_lanes(v: __m512i, f: impl Fn(u32, u32) -> u32) -> u32 {
    let mut lanes = [0u32; 16];
    // SAFETY: `lanes` is 64 bytes, written unaligned.
    unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast(), v) };
    lanes.into_iter().fold(0, f)
}
