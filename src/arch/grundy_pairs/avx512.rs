//! The AVX-512 builds of the split kernels (see the parent module for the
//! method).

use super::{scan_splits_portable, LaneSets, Part, Targets, LANES};
use std::arch::x86_64::*;

/// [`super::mark_splits`] with one entry against eight heaps a step.
///
/// # Safety
///
/// The CPU must have AVX-512 F and BW.
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn mark_splits(larger: &[u16], gap: usize, parts: &[Part], sets: &mut LaneSets) {
    let one = _mm512_set1_epi64(1);
    let word = |w: i64| _mm512_set1_epi64(64 * w);
    let (w1, w2, w3) = (word(1), word(2), word(3));
    let load = |w: usize| _mm512_load_si512(sets.words[w].as_ptr().cast());
    let (mut s0, mut s1, mut s2, mut s3) = (load(0), load(1), load(2), load(3));
    for part in parts {
        let start = larger.len() + gap - part.size as usize;
        let run = &larger[start..start + LANES];
        // SAFETY: `run` holds the eight values read (16 bytes).
        let values = _mm512_cvtepu16_epi64(unsafe { _mm_loadu_si128(run.as_ptr().cast()) });
        let x = _mm512_xor_si512(values, _mm512_set1_epi64(i64::from(part.value)));
        let bit = |shift: __m512i| _mm512_sllv_epi64(one, shift);
        s0 = _mm512_or_si512(s0, bit(x));
        s1 = _mm512_or_si512(s1, bit(_mm512_xor_si512(x, w1)));
        s2 = _mm512_or_si512(s2, bit(_mm512_xor_si512(x, w2)));
        s3 = _mm512_or_si512(s3, bit(_mm512_xor_si512(x, w3)));
    }
    for (w, set) in [s0, s1, s2, s3].into_iter().enumerate() {
        // SAFETY: `LaneSets` is 64-byte aligned and each word row is 64
        // bytes.
        unsafe { _mm512_store_si512(sets.words[w].as_mut_ptr().cast(), set) };
    }
}

/// The target table as four registers of 64 flags each.
#[derive(Clone, Copy)]
struct Table([__m512i; 4]);

impl Table {
    /// The table read from `flags` (256 bytes).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn read(flags: &[u8]) -> Table {
        let flags: &[u8; 256] = flags.try_into().expect("256 flags");
        // SAFETY: each load reads 64 of the 256 bytes of `flags`.
        Table([0, 1, 2, 3].map(|k| unsafe { _mm512_loadu_si512(flags[64 * k..].as_ptr().cast()) }))
    }

    /// The lanes of `x` (64 values below 256) whose flag is set.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    fn hits(&self, x: __m512i) -> u64 {
        let [t0, t1, t2, t3] = self.0;
        let low = _mm512_permutex2var_epi8(t0, x, t1);
        let high = _mm512_permutex2var_epi8(t2, x, t3);
        let flags = _mm512_mask_blend_epi8(_mm512_movepi8_mask(x), low, high);
        _mm512_test_epi8_mask(flags, flags)
    }
}

/// [`super::scan_splits`] 64 splits a step, for targets below 256 (the
/// portable walk takes wider ones).
///
/// # Safety
///
/// The CPU must have AVX-512 F, BW and VBMI.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
pub(super) unsafe fn scan_splits(smaller: &[u16], larger: &[u16], targets: &mut Targets) -> bool {
    if !targets.are_narrow() {
        return scan_splits_portable(smaller, larger, targets);
    }
    const STEP: usize = 64;
    let reverse = _mm512_set_epi16(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24,
        25, 26, 27, 28, 29, 30, 31,
    );
    let n = smaller.len();
    let mut table = Table::read(&targets.flags);
    let mut struck = false;
    let mut done = 0;
    let mut lanes = [0u8; STEP];
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
        let x0 = _mm512_cvtepi16_epi8(_mm512_xor_si512(a0, _mm512_permutexvar_epi16(reverse, b0)));
        let x1 = _mm512_cvtepi16_epi8(_mm512_xor_si512(a1, _mm512_permutexvar_epi16(reverse, b1)));
        let x = _mm512_inserti64x4::<1>(_mm512_castsi256_si512(x0), x1);
        let hits = table.hits(x);
        done += STEP;
        // The flags struck one step ago are in memory by now: read them.
        if struck {
            table = Table::read(&targets.flags);
            struck = false;
        }
        if hits != 0 {
            // SAFETY: `lanes` is 64 bytes.
            unsafe { _mm512_storeu_si512(lanes.as_mut_ptr().cast(), x) };
            let mut left = hits;
            while left != 0 {
                targets.strike(u16::from(lanes[left.trailing_zeros() as usize]));
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
