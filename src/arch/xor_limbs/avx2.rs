//! [`xor_into`](super::xor_into) with AVX2: 4 limbs a step, the last step
//! under a mask.

use std::arch::x86_64::*;

/// [`super::xor_into`] with AVX2: whole steps of 4 limbs while more than
/// 4 are left, then the last 1 to 4 by a masked load and store
/// (`vpmaskmovq`), so that the loop has one exit.
///
/// # Safety
/// The CPU must support AVX2, and `sum` must be at least as long as
/// `limbs`.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn xor_into(sum: &mut [u64], limbs: &[u64]) {
    let (n, sum, limbs) = (limbs.len(), sum.as_mut_ptr(), limbs.as_ptr());
    let mut at = 0;
    while at + 4 < n {
        // SAFETY: limbs `at .. at + 4` are in `limbs` (`at + 4 < n`) and
        // in `sum` (no shorter); unaligned loads and stores have no
        // alignment requirement.
        unsafe {
            let x = _mm256_loadu_si256(limbs.add(at).cast());
            let s = _mm256_loadu_si256(sum.add(at).cast());
            _mm256_storeu_si256(sum.add(at).cast(), _mm256_xor_si256(s, x));
        }
        at += 4;
    }
    if at == n {
        return;
    }
    // The last 1 to 4 lanes: those below the count left.
    let left = _mm256_set1_epi64x((n - at) as i64);
    let mask = _mm256_cmpgt_epi64(left, _mm256_setr_epi64x(0, 1, 2, 3));
    // SAFETY: the mask selects limbs `at .. n`, in `limbs` and in `sum`;
    // masked-off lanes are neither read nor written.
    unsafe {
        let x = _mm256_maskload_epi64(limbs.add(at).cast(), mask);
        let s = _mm256_maskload_epi64(sum.add(at).cast(), mask);
        _mm256_maskstore_epi64(sum.add(at).cast(), mask, _mm256_xor_si256(s, x));
    }
}
