//! [`xor_into`](super::xor_into) with AVX-512 F: 8 limbs a step, the
//! last step under a mask.

use std::arch::x86_64::*;

/// [`super::xor_into`] with AVX-512: whole steps of 8 limbs while more
/// than 8 are left, then the last 1 to 8 under a mask, so that the loop
/// has one exit.
///
/// # Safety
/// The CPU must support AVX-512 F, and `sum` must be at least as long as
/// `limbs`.
#[target_feature(enable = "avx512f")]
pub(super) unsafe fn xor_into(sum: &mut [u64], limbs: &[u64]) {
    let (n, sum, limbs) = (limbs.len(), sum.as_mut_ptr(), limbs.as_ptr());
    let mut at = 0;
    while at + 8 < n {
        // SAFETY: limbs `at .. at + 8` are in `limbs` (`at + 8 < n`) and
        // in `sum` (no shorter); unaligned loads and stores have no
        // alignment requirement.
        unsafe {
            let x = _mm512_loadu_si512(limbs.add(at).cast());
            let s = _mm512_loadu_si512(sum.add(at).cast());
            _mm512_storeu_si512(sum.add(at).cast(), _mm512_xor_si512(s, x));
        }
        at += 8;
    }
    if at == n {
        return;
    }
    // The last 1 to 8 lanes.
    let mask = u8::MAX >> (8 - (n - at));
    // SAFETY: the mask selects limbs `at .. n`, in `limbs` and in `sum`;
    // masked-off lanes are neither read nor written.
    unsafe {
        let x = _mm512_maskz_loadu_epi64(mask, limbs.add(at).cast());
        let s = _mm512_maskz_loadu_epi64(mask, sum.add(at).cast());
        _mm512_mask_storeu_epi64(sum.add(at).cast(), mask, _mm512_xor_si512(s, x));
    }
}
