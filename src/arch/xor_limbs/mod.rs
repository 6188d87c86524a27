//! The XOR of one limb slice into the front of another: the loop under
//! every XOR of limb vectors in `nimsum`. Its hot use is a packed `hex`
//! token's groups joining the nim-sum of their shift (`nimsum::ByShift`):
//! a few dozen limbs per token, millions of tokens per gigabyte.
//!
//! At that length the loop's exit is what costs: the compiler's
//! vectorised loop ends in a vector loop and a scalar remainder loop, two
//! exits that a random token length mispredicts. The AVX-512 build
//! (`avx512.rs`) XORs 8 limbs a step and the last, partial step under a
//! mask, so that a token costs one exit; the AVX2 build (`avx2.rs`) 4
//! limbs a step, the last under `vpmaskmovq`'s mask. Against the
//! compiler's loop, the one pass over 1 GiB of 1–4,096-bit `hex` tokens
//! took 0.95–0.96 of the time on two threads and 0.94–0.96 on one with
//! AVX-512 (two runs of 15 shuffled rounds), and 0.885 of the one-thread
//! user time with AVX2 (9 runs in turn, both orders).

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;

/// XORs `limbs` into the first `limbs.len()` limbs of `sum`.
///
/// # Panics
/// If `sum` is shorter than `limbs`.
#[inline]
pub fn xor_into(sum: &mut [u64], limbs: &[u64]) {
    assert!(sum.len() >= limbs.len(), "the sum holds the limbs");
    #[cfg(target_arch = "x86_64")]
    if super::cpu().avx512 {
        // SAFETY: `cpu()` reports AVX-512 F only where the CPU has it,
        // and `sum` is at least as long as `limbs` (asserted above).
        return unsafe { avx512::xor_into(sum, limbs) };
    }
    #[cfg(target_arch = "x86_64")]
    if super::cpu().avx2 {
        // SAFETY: `cpu()` reports AVX2 only where the CPU has it, and
        // `sum` is at least as long as `limbs` (asserted above).
        return unsafe { avx2::xor_into(sum, limbs) };
    }
    xor_into_portable(sum, limbs);
}

/// [`xor_into`] for any CPU: the loop the compiler vectorises.
fn xor_into_portable(sum: &mut [u64], limbs: &[u64]) {
    for (s, l) in sum.iter_mut().zip(limbs) {
        *s ^= l;
    }
}

/// A build of [`xor_into`]: `sum` at least as long as `limbs`.
#[cfg(test)]
type XorInto = fn(&mut [u64], &[u64]);

/// Every build this CPU can run, whatever the cap, by name.
#[cfg(test)]
fn builds() -> Vec<(&'static str, XorInto)> {
    let mut found: Vec<(&'static str, XorInto)> = vec![("portable", xor_into_portable)];
    #[cfg(target_arch = "x86_64")]
    if super::Cpu::detected().avx2 {
        // SAFETY: the CPU has AVX2 (checked just above); the tests pass
        // sums at least as long as the limbs.
        found.push(("avx2", |s, l| unsafe { avx2::xor_into(s, l) }));
    }
    #[cfg(target_arch = "x86_64")]
    if super::Cpu::detected().avx512 {
        // SAFETY: the CPU has AVX-512 F (checked just above); the tests
        // pass sums at least as long as the limbs.
        found.push(("avx512", |s, l| unsafe { avx512::xor_into(s, l) }));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn every_build_xors_each_limb_and_leaves_the_rest_of_the_sum() {
        let mut rng = ChaCha8Rng::seed_from_u64(17);
        for len in (0..80).chain([255, 256, 257, 1000]) {
            for extra in [0, 1, 7, 8, 9] {
                let limbs: Vec<u64> = (0..len).map(|_| rng.random()).collect();
                let sum: Vec<u64> = (0..len + extra).map(|_| rng.random()).collect();
                let expected: Vec<u64> = sum
                    .iter()
                    .enumerate()
                    .map(|(i, &s)| s ^ limbs.get(i).copied().unwrap_or(0))
                    .collect();
                for (name, build) in builds() {
                    let mut got = sum.clone();
                    build(&mut got, &limbs);
                    assert_eq!(got, expected, "{name}: {len} limbs into {}", len + extra);
                }
            }
        }
    }

    #[test]
    #[should_panic(expected = "the sum holds the limbs")]
    fn a_sum_shorter_than_the_limbs_is_refused() {
        xor_into(&mut [0; 3], &[1; 4]);
    }
}
