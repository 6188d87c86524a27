//! Every build of the value fold held against the naive one (`%` on each
//! element) and the portable loop, on random tables and periods, and
//! every build of [`values`] against each element's naive value.

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Fold = fn(&[u8], usize, &WordValues<'_>) -> BlockValues;

/// Every build this CPU can run, whatever the cap, by name.
fn builds() -> Vec<(&'static str, Fold)> {
    let mut builds: Vec<(&'static str, Fold)> =
        vec![("portable", fold_portable), ("dispatched", fold)];
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = crate::arch::Cpu::detected();
        if cpu.avx2 {
            builds.push(("avx2", |bytes, width, table| {
                // SAFETY: this build is listed only when the CPU has AVX2.
                unsafe { fold_avx2(bytes, width, table) }
            }));
        }
        if cpu.avx512_ifma {
            builds.push(("avx512", |bytes, width, table| {
                // SAFETY: this build is listed only when the CPU has
                // what `fold_avx512` needs.
                unsafe { fold_avx512(bytes, width, table) }
            }));
        }
    }
    builds
}

type Keep = fn(&[u8], usize, &WordValues<'_>, &mut [u16]) -> BlockValues;

/// Every build of [`values`] this CPU can run, whatever the cap, by name.
fn value_builds() -> Vec<(&'static str, Keep)> {
    let mut builds: Vec<(&'static str, Keep)> = vec![
        ("portable", by_portable::<true>),
        ("dispatched", |bytes, width, table, out| BlockValues {
            tally: values(bytes, width, table, out),
            ..BlockValues::default()
        }),
    ];
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = crate::arch::Cpu::detected();
        if cpu.avx2 {
            builds.push(("avx2", |bytes, width, table, out| {
                // SAFETY: this build is listed only when the CPU has AVX2.
                unsafe { by_avx2::<true>(bytes, width, table, out) }
            }));
        }
        if cpu.avx512_ifma {
            builds.push(("avx512", |bytes, width, table, out| {
                // SAFETY: this build is listed only when the CPU has
                // what `by_avx512` needs.
                unsafe { by_avx512::<true>(bytes, width, table, out) }
            }));
        }
    }
    builds
}

/// The value of `h` as the definition: `values[h]`, or the period's value
/// by `%`.
fn naive_value(h: u64, values: &[u16], p: u64, q: u64) -> u16 {
    match usize::try_from(h).ok().and_then(|i| values.get(i)) {
        Some(&g) => g,
        None => values[(p + (h - p) % q) as usize],
    }
}

/// The fold written as the definition: `values[h]`, or the period's value
/// by `%`.
fn naive(elements: &[u64], values: &[u16], p: u64, q: u64) -> BlockValues {
    let mut block = BlockValues::default();
    for &h in elements {
        let g = naive_value(h, values, p, q);
        block.xor ^= g;
        block.or |= g;
        block.tally.or |= h;
        block.tally.zeros += u64::from(h == 0);
        block.tally.ones += u64::from(h == 1);
    }
    block
}

/// Elements as raw bytes of `width` bytes each.
fn bytes(elements: &[u64], width: usize) -> Vec<u8> {
    elements
        .iter()
        .flat_map(|h| h.to_le_bytes()[..width].to_vec())
        .collect()
}

/// Checks every build on `elements` (which fit in `width` bytes).
fn check(elements: &[u64], width: usize, values: &[u16], p: u64, q: u64, what: &str) {
    let table = WordValues::new(values, p, q).expect("a valid table");
    let expected = naive(elements, values, p, q);
    let data = bytes(elements, width);
    for (name, build) in builds() {
        let got = build(&data, width, &table);
        assert_eq!(got, expected, "{name}, width {width}, p {p}, q {q}, {what}");
    }
    let each: Vec<u16> = elements
        .iter()
        .map(|&h| naive_value(h, values, p, q))
        .collect();
    for (name, build) in value_builds() {
        let mut out = vec![0u16; elements.len()];
        let got = build(&data, width, &table, &mut out);
        assert_eq!(
            got.tally, expected.tally,
            "{name} values' tally, width {width}, {what}"
        );
        assert_eq!(
            out, each,
            "{name} values, width {width}, p {p}, q {q}, {what}"
        );
    }
}

/// Random values, distinct enough that a wrong index shows (all 16 bits
/// used, so a value read from the wrong half of a gathered word shows too).
fn random_values(rng: &mut ChaCha8Rng, len: usize) -> Vec<u16> {
    (0..len).map(|_| rng.random()).collect()
}

/// Periods that stress the reduction: the small ones of real games, powers
/// of two (up to 2^32), primes near 2^32 and random ones.
fn periods(rng: &mut ChaCha8Rng) -> Vec<u64> {
    let mut periods = vec![
        1,
        2,
        3,
        7,
        12,
        34,
        149_459,
        1 << 16,
        (1 << 16) + 1,
        1 << 31,
        (1 << 31) + 11,
        (1 << 32) - 5,
        (1 << 32) - 17,
        1 << 32,
        (1 << 30) - 1,
        (1 << 30) + 3,
    ];
    periods.extend((0..6).map(|_| rng.random_range(1..=MAX_PERIOD)));
    periods.extend((0..6).map(|_| rng.random_range(1..=1000)));
    periods
}

/// Random elements of `width` bytes in the mixes that matter: all inside
/// the table, all far past it, mixed, and many zeros and ones.
fn samples(rng: &mut ChaCha8Rng, width: usize, len: u64, count: usize) -> Vec<(String, Vec<u64>)> {
    let top = u64::MAX >> (64 - 8 * width);
    let pick = |rng: &mut ChaCha8Rng, kind: u32| -> u64 {
        match kind {
            0 => rng.random_range(0..len.min(top.saturating_add(1))),
            1 => rng.random::<u64>() & top,
            2 => top - rng.random_range(0..4.min(top)),
            3 => rng.random_range(0..2),
            _ => len.saturating_sub(rng.random_range(0..3)).min(top),
        }
    };
    let mut samples = vec![];
    for (name, kinds) in [
        ("inside the table", &[0][..]),
        ("past the table", &[1, 2]),
        ("mixed", &[0, 1, 2, 3, 4]),
        ("zeros and ones", &[3, 3, 3, 1]),
        ("near the table's end", &[4, 0]),
    ] {
        let elements = (0..count)
            .map(|_| {
                let kind = kinds[rng.random_range(0..kinds.len())];
                pick(rng, kind)
            })
            .collect();
        samples.push((name.to_string(), elements));
    }
    // The AVX-512 loop chooses how to look values up from a block's first
    // 64 elements: these say "past the table", the rest are mixed.
    let past_then_mixed = (0..count)
        .map(|i| {
            let kind = match i < 70 {
                true => rng.random_range(1..3),
                false => rng.random_range(0..5),
            };
            pick(rng, kind)
        })
        .collect();
    samples.push(("past the table, then mixed".to_string(), past_then_mixed));
    samples
}

#[test]
fn every_build_agrees_with_the_naive_fold_on_random_periods() {
    let mut rng = ChaCha8Rng::seed_from_u64(91);
    for q in periods(&mut rng) {
        for _ in 0..2 {
            // Short tables when q is large would need q values: the table
            // is a whole period only up to 2^20 values; larger periods
            // are checked by `large_periods_reduce_exactly`.
            if q > 1 << 20 {
                continue;
            }
            let p = rng.random_range(0..200);
            let len = (p + q + rng.random_range(0..3 * q.min(100))) as usize;
            let values = random_values(&mut rng, len);
            for width in [1, 2, 4, 8] {
                let count = rng.random_range(0..300);
                for (what, elements) in samples(&mut rng, width, len as u64, count) {
                    check(&elements, width, &values, p, q, &what);
                }
            }
        }
    }
}

#[test]
fn large_periods_give_the_periods_values() {
    // A table holds a whole period, so periods past 2^22 are held against
    // `%` by `every_reduction_agrees_with_the_remainder` instead.
    let mut rng = ChaCha8Rng::seed_from_u64(92);
    let len = 1 << 22;
    let values = random_values(&mut rng, len);
    for q in [(1 << 22) - 1, (1 << 22) - 100, 1 << 21, 3_999_971] {
        let p = len as u64 - q;
        for width in [4, 8] {
            for (what, elements) in samples(&mut rng, width, len as u64, 2000) {
                check(&elements, width, &values, p, q, &what);
            }
        }
    }
}

/// Every vector build's residues of `x` (below 2^(8·width)) modulo the
/// period of `table`, by the reduction its loop uses for that width.
#[cfg(target_arch = "x86_64")]
fn vector_residues(
    x: [u64; 8],
    width: usize,
    table: &WordValues<'_>,
) -> Vec<(&'static str, [u64; 8])> {
    let cpu = crate::arch::Cpu::detected();
    let mut found = vec![];
    if cpu.avx2 {
        // SAFETY: the CPU has AVX2.
        found.push(("avx2", unsafe { avx2::residues(x, width, table) }));
    }
    if cpu.avx512_ifma {
        // SAFETY: the CPU has AVX-512 F and IFMA.
        found.push(("avx512", unsafe { avx512::residues(x, width, table) }));
    }
    found
}

#[cfg(target_arch = "x86_64")]
#[test]
fn every_reduction_agrees_with_the_remainder() {
    let mut rng = ChaCha8Rng::seed_from_u64(93);
    for q in periods(&mut rng) {
        let table = WordValues::with_period(&[], 0, q);
        for width in [1, 2, 4, 8] {
            let top = u64::MAX >> (64 - 8 * width);
            let mut edges = vec![0, 1, top, top - 1, q - 1, q, q + 1, 2 * q - 1, 2 * q];
            edges.extend([top / q * q, (top / q * q).wrapping_sub(1)]);
            edges.retain(|&x| x <= top);
            let mut xs = edges;
            xs.extend((0..2000).map(|_| rng.random::<u64>() & top));
            xs.extend((0..2000).map(|_| {
                let k = rng.random_range(0..=top / q);
                k * q + rng.random_range(0..3).min(top - k * q)
            }));
            for chunk in xs.chunks(8) {
                let mut x = [0u64; 8];
                x[..chunk.len()].copy_from_slice(chunk);
                let expected = x.map(|x| x % q);
                for (name, got) in vector_residues(x, width, &table) {
                    assert_eq!(got, expected, "{name}, width {width}, q {q}, x {x:?}");
                }
            }
        }
    }
}

#[test]
fn a_table_needs_a_whole_period_and_a_period_up_to_two_to_the_32() {
    let values = [0u16; 10];
    assert!(WordValues::new(&values, 0, 0).is_none());
    assert!(WordValues::new(&values, 3, 8).is_none());
    assert!(WordValues::new(&values, 3, 7).is_some());
    assert!(WordValues::new(&values, u64::MAX, 2).is_none());
    assert!(WordValues::new(&values, 0, MAX_PERIOD + 1).is_none());
}

#[test]
fn the_last_value_of_the_table_is_read_without_reading_past_it() {
    // len = p + q: the period's last index is the table's last, and so is
    // h = len − 1.
    let values: Vec<u16> = (1..=20).collect();
    let (p, q) = (8, 12);
    let elements: Vec<u64> = (0..100)
        .map(|i| [19, 19 + 12 * i, 7 + 12 * i][i as usize % 3])
        .collect();
    for width in [1, 2, 4, 8] {
        let top = u64::MAX >> (64 - 8 * width);
        let fit: Vec<u64> = elements.iter().copied().filter(|&h| h <= top).collect();
        check(&fit, width, &values, p, q, "the last index");
    }
}
