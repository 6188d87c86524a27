//! The AVX-512 builds of the split kernels (see the parent module for the
//! method).

use super::{scan_splits_portable, LaneSets, Part, Targets, LANES};
use std::arch::x86_64::*;

/// [`super::mark_splits`] with one part against eight heaps a step.
///
/// # Safety
///
/// The CPU must have AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn mark_splits(larger: &[u16], gap: usize, parts: &[Part], sets: &mut LaneSets) {
    match sets.words() {
        4 => mark_words::<4>(larger, gap, parts, sets),
        8 => mark_words::<8>(larger, gap, parts, sets),
        _ => mark_words::<16>(larger, gap, parts, sets),
    }
}

/// [`mark_splits`] for sets of `W` words (64·W values) a heap: word w of
/// the eight heaps in one register; the bit of x is 1 rotated by x (mod
/// 64), ORed into the word x / 64 only.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn mark_words<const W: usize>(larger: &[u16], gap: usize, parts: &[Part], sets: &mut LaneSets) {
    let one = _mm512_set1_epi64(1);
    let word: [__m512i; W] = std::array::from_fn(|w| _mm512_set1_epi64(w as i64));
    // SAFETY: `LaneSets` is 64-byte aligned and each word row is 64 bytes.
    let mut words: [__m512i; W] =
        std::array::from_fn(|w| unsafe { _mm512_load_si512(sets.rows[w].as_ptr().cast()) });
    for part in parts {
        let start = larger.len() + gap - part.size as usize;
        let run = &larger[start..start + LANES];
        // SAFETY: `run` holds the eight values read (16 bytes).
        let values = _mm512_cvtepu16_epi64(unsafe { _mm_loadu_si128(run.as_ptr().cast()) });
        let x = _mm512_xor_si512(values, _mm512_set1_epi64(i64::from(part.value)));
        let bit = _mm512_rolv_epi64(one, x);
        let at = _mm512_srli_epi64::<6>(x);
        for (set, &word) in words.iter_mut().zip(&word) {
            *set = _mm512_mask_or_epi64(*set, _mm512_cmpeq_epi64_mask(at, word), *set, bit);
        }
    }
    for (w, set) in words.into_iter().enumerate() {
        // SAFETY: as for the loads.
        unsafe { _mm512_store_si512(sets.rows[w].as_mut_ptr().cast(), set) };
    }
}

/// The target table: 256 flags a part, four registers of 64 each.
#[derive(Clone, Copy)]
struct Table<const T: usize>([[__m512i; 4]; T]);

impl<const T: usize> Table<T> {
    /// The table read from `flags` (256·T bytes).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn read(flags: &[u8]) -> Table<T> {
        assert_eq!(flags.len(), 256 * T, "256 flags a part");
        // SAFETY: each load reads 64 of the bytes of `flags`.
        Table(std::array::from_fn(|t| {
            std::array::from_fn(|k| unsafe {
                _mm512_loadu_si512(flags[256 * t + 64 * k..].as_ptr().cast())
            })
        }))
    }

    /// The lanes of the 64 values whose low bytes are `low` and whose
    /// bits 8 and 9 are `bit8` and `bit9` (one mask bit a lane) that are
    /// targets.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn hits(&self, low: __m512i, bit8: u64, bit9: u64) -> u64 {
        let high_half = _mm512_movepi8_mask(low);
        let lookup = |[t0, t1, t2, t3]: [__m512i; 4]| {
            let below = _mm512_permutex2var_epi8(t0, low, t1);
            let above = _mm512_permutex2var_epi8(t2, low, t3);
            _mm512_mask_blend_epi8(high_half, below, above)
        };
        let flags = match T {
            1 => lookup(self.0[0]),
            2 => _mm512_mask_blend_epi8(bit8, lookup(self.0[0]), lookup(self.0[1])),
            _ => {
                let low_pair = _mm512_mask_blend_epi8(bit8, lookup(self.0[0]), lookup(self.0[1]));
                let high_pair = _mm512_mask_blend_epi8(bit8, lookup(self.0[2]), lookup(self.0[3]));
                _mm512_mask_blend_epi8(bit9, low_pair, high_pair)
            }
        };
        _mm512_test_epi8_mask(flags, flags)
    }
}

/// [`super::scan_splits`] 64 splits a step, for targets below 256, 512 or
/// 1024 (the portable walk takes wider ones).
///
/// # Safety
///
/// The CPU must have AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn scan_splits(smaller: &[u16], larger: &[u16], targets: &mut Targets) -> bool {
    match targets.flags.len() {
        256 => scan_with::<1>(smaller, larger, targets),
        512 => scan_with::<2>(smaller, larger, targets),
        1024 => scan_with::<4>(smaller, larger, targets),
        _ => scan_splits_portable(smaller, larger, targets),
    }
}

/// [`scan_splits`] with a table of 256·`T` flags.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn scan_with<const T: usize>(smaller: &[u16], larger: &[u16], targets: &mut Targets) -> bool {
    const STEP: usize = 64;
    let reverse = _mm512_set_epi16(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        25, 26, 27, 28, 29, 30, 31,
    );
    let (bit8, bit9) = (_mm512_set1_epi16(0x100), _mm512_set1_epi16(0x200));
    let n = smaller.len();
    let mut table = Table::<T>::read(&targets.flags);
    let mut struck = false;
    let mut done = 0;
    let mut lanes = [0u16; STEP];
    while done + STEP <= n && targets.left > 0 {
        let low = &smaller[done..done + STEP];
        let high = &larger[n - done - STEP..n - done];
        // SAFETY: `low` and `high` hold 64 values each (128 bytes), read
        // as two 32-value halves.
        let (a0, a1, b0, b1) = unsafe {
            (
                _mm512_loadu_si512(low.as_ptr().cast()),
                _mm512_loadu_si512(low[32..].as_ptr().cast()),
                _mm512_loadu_si512(high[32..].as_ptr().cast()),
                _mm512_loadu_si512(high.as_ptr().cast()),
            )
        };
        let x0 = _mm512_xor_si512(a0, _mm512_permutexvar_epi16(reverse, b0));
        let x1 = _mm512_xor_si512(a1, _mm512_permutexvar_epi16(reverse, b1));
        let low_bytes = _mm512_inserti64x4::<1>(
            _mm512_castsi256_si512(_mm512_cvtepi16_epi8(x0)),
            _mm512_cvtepi16_epi8(x1),
        );
        let bit = |set: __m512i| {
            u64::from(_mm512_test_epi16_mask(x0, set))
                | u64::from(_mm512_test_epi16_mask(x1, set)) << 32
        };
        let hits = match T {
            1 => table.hits(low_bytes, 0, 0),
            _ => table.hits(low_bytes, bit(bit8), bit(bit9)),
        };
        done += STEP;
        // The flags struck one step ago are in memory by now: read them.
        if struck {
            table = Table::read(&targets.flags);
            struck = false;
        }
        if hits != 0 {
            // SAFETY: `lanes` is 64 values (128 bytes).
            unsafe {
                _mm512_storeu_si512(lanes.as_mut_ptr().cast(), x0);
                _mm512_storeu_si512(lanes[32..].as_mut_ptr().cast(), x1);
            }
            let mut left = hits;
            while left != 0 {
                targets.strike(lanes[left.trailing_zeros() as usize]);
                left &= left - 1;
            }
            struck = true;
        }
    }
    if targets.left == 0 {
        return true;
    }
    scan_splits_portable(&smaller[done..], &larger[..n - done], targets)
}
