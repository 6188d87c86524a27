//! Every build of the column counter held against the bit-by-bit
//! reference and the portable loop.

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The largest element of `width` bytes.
fn largest(width: usize) -> u64 {
    u64::MAX >> (64 - 8 * width)
}

/// Elements as raw bytes of `width` bytes each.
fn bytes(values: impl IntoIterator<Item = u64>, width: usize) -> Vec<u8> {
    values
        .into_iter()
        .flat_map(|v| v.to_le_bytes()[..width].to_vec())
        .collect()
}

/// Random elements with many zeros, ones and all-ones, as raw bytes.
fn sample(rng: &mut ChaCha8Rng, width: usize, count: usize) -> Vec<u8> {
    let values: Vec<u64> = (0..count)
        .map(|_| {
            (match rng.random_range(0..5) {
                0 => 0,
                1 => 1,
                2 => u64::MAX,
                3 => 1 << rng.random_range(0..64),
                _ => rng.random(),
            }) & largest(width)
        })
        .collect();
    bytes(values, width)
}

type Tally = fn(&[u8], usize, &mut ColumnCounter) -> (u64, BlockTally);

/// Every build of the loop this CPU can run, whatever the cap, by name:
/// the AVX2 and AVX-512 ones only where the CPU has them.
fn builds() -> Vec<(&'static str, Tally)> {
    let mut builds: Vec<(&'static str, Tally)> = vec![
        ("portable", tally_portable),
        ("dispatched", tally),
        ("in lanes", tally_in_lanes),
    ];
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = crate::arch::Cpu::detected();
        if cpu.avx2 {
            builds.push(("avx2", |data, width, counter| {
                // SAFETY: this build is listed only when the CPU has AVX2.
                unsafe { tally_avx2(data, width, counter) }
            }));
        }
        if cpu.avx512 {
            builds.push(("avx512", |data, width, counter| {
                // SAFETY: this build is listed only when the CPU has
                // what `tally_avx512` needs.
                unsafe { tally_avx512(data, width, counter) }
            }));
        }
    }
    builds
}

/// Checks every build against the bit-by-bit reference and the
/// portable loop on `data`, in one call: with a new counter, and with one
/// whose last call saw a zero (which adds nothing to the columns), so
/// that the AVX-512 loop counts the zeros and ones both ways.
fn check(data: &[u8], width: usize, what: &str) {
    let mut reference = ColumnCounter::default();
    let expected = tally_reference(data, width, &mut reference);
    let mut portable = ColumnCounter::default();
    let from_portable = tally_portable(data, width, &mut portable);
    let zero = vec![0; width];
    for (name, build) in builds() {
        for after_a_zero in [false, true] {
            let what = format!("{name}, width {width}, {what}, after a zero: {after_a_zero}");
            let mut counter = ColumnCounter::default();
            if after_a_zero {
                build(&zero, width, &mut counter);
            }
            let got = build(data, width, &mut counter);
            assert_eq!(got, expected, "{what}");
            assert_eq!(got, from_portable, "{what}");
            assert_eq!(counter.columns(), reference.columns(), "{what}");
            assert_eq!(counter.columns(), portable.columns(), "{what}");
        }
    }
}

/// Element counts around every block size: the portable step (32
/// elements), the AVX-512 vector (64 bytes) and step (512 bytes), and
/// the 8 and 64 steps after which the second level and the planes are
/// reached (for bytes, 70 001 elements reach the AVX-512 planes twice).
const COUNTS: [usize; 18] = [
    0, 1, 7, 31, 32, 33, 63, 64, 65, 255, 257, 511, 513, 1000, 4099, 4607, 33_333, 70_001,
];

#[test]
fn fast_loops_agree_with_the_bit_by_bit_reference() {
    let mut rng = ChaCha8Rng::seed_from_u64(64);
    for width in [1, 2, 4, 8] {
        for count in COUNTS {
            let data = sample(&mut rng, width, count);
            check(&data, width, &format!("{count} random elements"));
        }
    }
}

#[test]
fn fast_loops_agree_on_zeros_ones_and_all_ones() {
    let mut rng = ChaCha8Rng::seed_from_u64(65);
    for width in [1, 2, 4, 8] {
        let top = largest(width);
        for count in COUNTS {
            let zeros = bytes(vec![0; count], width);
            check(&zeros, width, &format!("{count} zeros"));
            let all_ones = bytes(vec![top; count], width);
            check(&all_ones, width, &format!("{count} all-ones"));
            let units = bytes(vec![1; count], width);
            check(&units, width, &format!("{count} ones"));
            let mixed = bytes((0..count).map(|_| rng.random_range(0..2)), width);
            check(&mixed, width, &format!("{count} zeros and ones"));
        }
    }
}

#[test]
fn a_single_zero_or_one_among_large_elements_is_counted() {
    for width in [1, 2, 4, 8] {
        let count = 1100;
        for small in [0, 1] {
            for at in [0, 1, 7, 8, 63, 64, 100, 511, 512, 1023, 1099] {
                let values = (0..count).map(|i| {
                    if i == at {
                        small
                    } else {
                        largest(width) - (i as u64 & 1)
                    }
                });
                let data = bytes(values, width);
                check(&data, width, &format!("{small} at {at}"));
            }
        }
    }
}

#[test]
fn counts_accumulate_across_calls_of_every_size() {
    let mut rng = ChaCha8Rng::seed_from_u64(66);
    for width in [1, 2, 4, 8] {
        let data = sample(&mut rng, width, 80_000);
        let mut pieces = vec![];
        let mut at = 0;
        while at < data.len() {
            let len = width * rng.random_range(0..700);
            let len = if rng.random_range(0..8) == 0 { 0 } else { len };
            pieces.push(&data[at..(at + len).min(data.len())]);
            at += len;
        }
        let mut reference = ColumnCounter::default();
        let expected = tally_reference(&data, width, &mut reference);
        for (name, build) in builds() {
            let mut counter = ColumnCounter::default();
            let (mut xor, mut total) = (0, BlockTally::default());
            for piece in &pieces {
                let (piece_xor, block) = build(piece, width, &mut counter);
                xor ^= piece_xor;
                total.or |= block.or;
                total.zeros += block.zeros;
                total.ones += block.ones;
            }
            let total = (xor, total);
            assert_eq!(total, expected, "{name}, width {width}");
            assert_eq!(
                counter.columns(),
                reference.columns(),
                "{name}, width {width}"
            );
        }
    }
}

#[test]
fn a_counter_fed_at_several_widths_counts_every_element() {
    let mut rng = ChaCha8Rng::seed_from_u64(67);
    let parts: Vec<(usize, Vec<u8>)> = [8, 1, 1, 4, 2, 8, 2]
        .into_iter()
        .map(|width| {
            let count = rng.random_range(500..3000);
            (width, sample(&mut rng, width, count))
        })
        .collect();
    let mut reference = ColumnCounter::default();
    for (width, data) in &parts {
        tally_reference(data, *width, &mut reference);
    }
    for (name, build) in builds() {
        let mut counter = ColumnCounter::default();
        for (width, data) in &parts {
            build(data, *width, &mut counter);
            // Words and loose ones fed between blocks count as well.
            counter.add_words(&[u64::MAX; STEP]);
            counter.add_word(5);
        }
        let mut expected = reference.clone();
        for _ in &parts {
            expected.add_words(&[u64::MAX; STEP]);
            expected.add_word(5);
        }
        assert_eq!(counter.columns(), expected.columns(), "{name}");
    }
}

#[test]
fn counts_accumulate_across_blocks_and_carry_through_the_planes() {
    let data = [u64::MAX.to_le_bytes(); 4096].concat();
    for (name, build) in builds() {
        let mut counter = ColumnCounter::default();
        for _ in 0..300 {
            build(&data, 8, &mut counter);
        }
        assert_eq!(counter.columns(), [300 * 4096; 64], "{name}");
    }
}

#[test]
fn tally_uses_avx512_where_the_cpu_has_it() {
    let mut counter = ColumnCounter::default();
    tally(&[7; 4096], 8, &mut counter);
    #[cfg(target_arch = "x86_64")]
    assert_eq!(counter.packed.is_some(), crate::arch::cpu().avx512);
    #[cfg(not(target_arch = "x86_64"))]
    assert!(counter.packed.is_none());
}

#[test]
fn columns_give_the_xor_of_the_elements() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let data = sample(&mut rng, 8, 777);
    let mut counter = ColumnCounter::default();
    tally(&data, 8, &mut counter);
    let from_columns = counter
        .columns()
        .iter()
        .enumerate()
        .fold(0u64, |x, (b, &c)| x | (c & 1) << b);
    let direct = data.chunks_exact(8).fold(0, |x, c| x ^ element(c));
    assert_eq!(from_columns, direct);
}
