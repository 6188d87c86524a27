//! Every build of the split kernels held against the definition (a set
//! per heap, a walk striking values off) and the portable loops, on random
//! values, parts and targets.

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

type Mark = fn(&[u16], usize, &[Part], &mut LaneSets);
type Scan = fn(&[u16], &[u16], &mut Targets) -> bool;

/// Every build of `mark_splits` this CPU can run, whatever the cap.
fn mark_builds() -> Vec<(&'static str, Mark)> {
    let mut builds: Vec<(&'static str, Mark)> = vec![
        ("portable", mark_splits_portable),
        ("dispatched", mark_splits),
    ];
    #[cfg(target_arch = "x86_64")]
    if crate::arch::Cpu::detected().avx512 {
        builds.push(("avx512", |larger, gap, parts, sets| {
            // SAFETY: listed only when the CPU has AVX-512 F and BW.
            unsafe { avx512::mark_splits(larger, gap, parts, sets) }
        }));
    }
    builds
}

/// Every build of `scan_splits` this CPU can run, whatever the cap.
fn scan_builds() -> Vec<(&'static str, Scan)> {
    let mut builds: Vec<(&'static str, Scan)> = vec![
        ("portable", scan_splits_portable),
        ("dispatched", scan_splits),
    ];
    #[cfg(target_arch = "x86_64")]
    if crate::arch::Cpu::detected().avx512_vbmi {
        builds.push(("avx512", |smaller, larger, targets| {
            // SAFETY: listed only when the CPU has AVX-512 F, BW and VBMI.
            unsafe { avx512::scan_splits(smaller, larger, targets) }
        }));
    }
    builds
}

/// Random values below `limit`.
fn values(rng: &mut ChaCha8Rng, count: usize, limit: u16) -> Vec<u16> {
    (0..count).map(|_| rng.random_range(0..limit)).collect()
}

#[test]
fn every_mark_build_sets_the_bits_of_the_definition() {
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    for (limit, gap) in [
        (1u16, 0),
        (2, 3),
        (64, 0),
        (65, 100),
        (200, 0),
        (256, 17),
        (300, 5),
        (512, 0),
        (1024, 9),
    ] {
        let larger = values(&mut rng, 3000, limit);
        let parts: Vec<Part> = (0..400)
            .map(|_| Part {
                size: rng.random_range((gap + LANES) as u32..=3000 + gap as u32),
                value: rng.random_range(0..limit),
            })
            .collect();
        let mut expected = LaneSets::new(usize::from(limit));
        for part in &parts {
            for lane in 0..LANES {
                let x = larger[3000 + gap - part.size as usize + lane] ^ part.value;
                expected.rows[usize::from(x / 64)][lane] |= 1 << (x % 64);
            }
        }
        for (name, build) in mark_builds() {
            let mut sets = LaneSets::new(usize::from(limit));
            sets.rows[3][7] = 1 << 63;
            build(&larger, gap, &parts, &mut sets);
            let mut want = expected;
            want.rows[3][7] |= 1 << 63;
            assert_eq!(sets, want, "{name}, values below {limit}, gap {gap}");
            for lane in 0..LANES {
                assert_eq!(sets.contains(lane, 255), want.word(3, lane) >> 63 == 1);
            }
        }
    }
}

/// The walk of the definition: strike off each split's value in order,
/// stopping once no target is left; returns the flags left.
fn walk(smaller: &[u16], larger: &[u16], targets: &Targets) -> (bool, Vec<u8>) {
    let mut flags = targets.flags.clone();
    let mut left = targets.left;
    for (i, &a) in smaller.iter().enumerate() {
        if left == 0 {
            break;
        }
        let x = usize::from(a ^ larger[larger.len() - 1 - i]);
        if flags[x] != 0 {
            flags[x] = 0;
            left -= 1;
        }
    }
    (left == 0, flags)
}

#[test]
fn every_scan_build_strikes_off_what_the_walk_strikes_off() {
    let mut rng = ChaCha8Rng::seed_from_u64(161);
    for round in 0..800 {
        let limit = [4u16, 40, 130, 256, 512, 1024, 2048][round % 7];
        let len = rng.random_range(0..700);
        let smaller = values(&mut rng, len, limit);
        let larger = values(&mut rng, len, limit);
        let mut targets = Targets::new(usize::from(limit));
        for _ in 0..rng.random_range(0..12) {
            targets.add(rng.random_range(0..limit));
        }
        let (all, flags) = walk(&smaller, &larger, &targets);
        for (name, build) in scan_builds() {
            let mut given = targets.clone();
            assert_eq!(build(&smaller, &larger, &mut given), all, "{name} {round}");
            assert_eq!(
                given.left(),
                given.flags.iter().filter(|&&f| f != 0).count()
            );
            if all {
                assert_eq!(given.left(), 0, "{name} {round}");
            } else {
                // A walk that leaves targets looks at every split.
                assert_eq!(given.flags, flags, "{name} {round}");
            }
        }
    }
}

#[test]
fn targets_add_count_and_give_the_least() {
    let mut targets = Targets::new(100);
    assert_eq!(targets.least(), None);
    targets.add(9);
    targets.add(200);
    targets.add(9);
    assert_eq!((targets.left(), targets.least()), (2, Some(9)));
    targets.clear();
    assert_eq!((targets.left(), targets.least()), (0, None));
    // Past 256 values the portable walk serves.
    let mut wide = Targets::new(1000);
    wide.add(999);
    assert!(scan_splits(&[992], &[7], &mut wide));
    assert_eq!(wide.least(), None);
}
