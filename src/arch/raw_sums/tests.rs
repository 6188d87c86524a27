//! Every build of the raw-array loops this CPU has, against a loop that
//! reads one element at a time.

use super::*;
use crate::arch::columns::{tally_reference, ColumnCounter};
use crate::arch::Cpu;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Sums = fn(&[u8], usize) -> (u64, BlockTally);
type Holders = fn(&[u8], usize, u64) -> u64;

/// The builds of both loops the CPU has, by name.
fn builds() -> Vec<(&'static str, Sums, Holders)> {
    let mut builds: Vec<(&str, Sums, Holders)> =
        vec![("portable", sums_portable, holders_portable)];
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = Cpu::detected();
        if cpu.avx2 {
            // SAFETY (of the calls through these pointers): the CPU has AVX2.
            builds.push((
                "avx2",
                |d, w| unsafe { sums_avx2(d, w) },
                |d, w, m| unsafe { holders_avx2(d, w, m) },
            ));
        }
        if cpu.avx512 {
            // SAFETY (of the calls through these pointers): the CPU has
            // AVX-512 F and BW.
            builds.push((
                "avx512",
                |d, w| unsafe { sums_avx512(d, w) },
                |d, w, m| unsafe { holders_avx512(d, w, m) },
            ));
        }
    }
    builds
}

/// The XOR, the tally and every bit's holders from the column counter's
/// bit-by-bit reference.
fn reference(data: &[u8], width: usize) -> (u64, BlockTally, [u64; 64]) {
    let mut counter = ColumnCounter::default();
    let (xor, tally) = tally_reference(data, width, &mut counter);
    (xor, tally, counter.columns())
}

/// Random elements, many of them 0 or 1 so that both counts are exercised.
fn random_block(rng: &mut ChaCha8Rng, width: usize, elements: usize) -> Vec<u8> {
    let mut data = vec![0u8; width * elements];
    for chunk in data.chunks_exact_mut(width) {
        let v: u64 = match rng.random_range(0..4) {
            0 => 0,
            1 => 1,
            _ => rng.random(),
        };
        chunk.copy_from_slice(&v.to_le_bytes()[..width]);
    }
    data
}

#[test]
fn every_build_equals_the_reference_at_every_width_and_length() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    for width in [1, 2, 4, 8] {
        for elements in (0..70).chain([255, 256, 257, 1000, 4099]) {
            let data = random_block(&mut rng, width, elements);
            let (xor, tally, columns) = reference(&data, width);
            for (name, sums, holders) in builds() {
                assert_eq!(
                    sums(&data, width),
                    (xor, tally),
                    "{name} w{width} n{elements}"
                );
                for bit in [0, 1, 7, 15, 31, 63] {
                    let held = holders(&data, width, 1 << bit);
                    assert_eq!(held, columns[bit], "{name} bit {bit}");
                }
            }
        }
    }
}

#[test]
fn the_dispatch_equals_the_portable_build() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let data = random_block(&mut rng, 8, 5000);
    assert_eq!(sums(&data, 8), sums_portable(&data, 8));
    assert_eq!(
        holders(&data, 8, 1 << 40),
        holders_portable(&data, 8, 1 << 40)
    );
}
