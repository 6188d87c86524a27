//! The residues against num-bigint's `%`, every encoding of a heap against
//! the others, streamed digits against one-shot ones, and the small
//! subtraction against num-bigint's `-`.

use super::*;
use crate::error::ParseError;
use crate::input::{Format, HeapScanner, ScanVisitor, Scanner, TokenScratch};
use num_bigint::BigUint;
use num_traits::ToPrimitive;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The moduli every test runs: the edges, the periods of known games
/// (Kayles 12, Dawson's Kayles 34, `octal:0.16` 149,459), powers of two,
/// primes near 2^32, and a few random ones.
fn moduli(rng: &mut ChaCha8Rng) -> Vec<Modulus> {
    let mut qs = vec![
        1,
        2,
        3,
        12,
        34,
        149_459,
        1 << 16,
        1 << 31,
        (1 << 32) - 5, // the largest prime below 2^32
        (1 << 32) - 17,
        (1 << 32) - 1,
        MAX_MODULUS,
    ];
    qs.extend((0..4).map(|_| rng.random_range(1..=MAX_MODULUS)));
    qs.extend((0..2).map(|_| rng.random_range(1..=1000)));
    qs.iter()
        .map(|&q| Modulus::new(q).expect("in range"))
        .collect()
}

/// big mod q, by num-bigint.
fn expected(big: &BigUint, modulus: &Modulus) -> u64 {
    (big % modulus.get()).to_u64().expect("below q")
}

/// A random number of exactly `bits` bits, sometimes with long runs of
/// zero or one limbs.
fn random_big(rng: &mut ChaCha8Rng, bits: u64) -> BigUint {
    if bits == 0 {
        return BigUint::default();
    }
    let limbs: Vec<u64> = (0..bits.div_ceil(64))
        .map(|_| match rng.random_range(0..6) {
            0 => 0,
            1 => u64::MAX,
            _ => rng.random(),
        })
        .collect();
    let mut big = BigUint::from_slice(
        &limbs
            .iter()
            .flat_map(|&l| [l as u32, (l >> 32) as u32])
            .collect::<Vec<_>>(),
    );
    big %= BigUint::from(1u8) << bits;
    big | (BigUint::from(1u8) << (bits - 1))
}

/// Bit lengths around every limb and block boundary, and random ones.
fn lengths(rng: &mut ChaCha8Rng) -> Vec<u64> {
    let mut lengths = vec![0, 1, 2, 3];
    for limbs in [1, 2, 3, 7, 8, 9, 16, 31, 32, 33, 64, 65, 256] {
        lengths.extend([64 * limbs - 1, 64 * limbs, 64 * limbs + 1]);
    }
    lengths.extend((0..40).map(|_| rng.random_range(1..20_000)));
    lengths
}

/// The digits of `big` in `radix`, with a random case for hex; "" for 0.
fn digits_of(big: &BigUint, radix: u32, rng: &mut ChaCha8Rng) -> Vec<u8> {
    if big.bits() == 0 {
        return Vec::new();
    }
    let text = big.to_str_radix(radix).into_bytes();
    if rng.random_bool(0.5) {
        text.to_ascii_uppercase()
    } else {
        text
    }
}

/// Runs `each` on every heap of a `hex` text, scanned with token packing
/// on, as the one-pass analysis scans it.
struct PackedHeaps<F> {
    each: F,
}

impl<'a, F: FnMut(&HeapValue<'_>)> ScanVisitor<'a> for PackedHeaps<F> {
    type Output = ();
    fn visit<S: HeapScanner<'a>>(mut self, mut scanner: S) {
        let mut scratch = TokenScratch::default();
        scanner
            .each_heap(Some(&mut scratch), |heap| {
                (self.each)(&heap.value);
                Ok::<_, ParseError>(())
            })
            .expect("valid hex");
    }
}

/// `of_heap` of the packed token of `hex` digits (at most 4,096 of them):
/// a word up to 128 bits, groups past that.
fn of_packed(modulus: &Modulus, hex: &[u8]) -> u64 {
    let mut text = b"0x0".to_vec();
    text.extend_from_slice(hex);
    text.push(b'\n');
    let mut residues = Vec::new();
    Scanner::new(Format::Hex, &text, 0).visit(PackedHeaps {
        each: |value: &HeapValue<'_>| {
            match value.bit_length() <= 128 {
                true => assert!(matches!(value, HeapValue::Word(_)), "{value:?}"),
                false => assert!(matches!(value, HeapValue::Packed(_)), "{value:?}"),
            }
            residues.push(modulus.of_heap(value));
        },
    });
    assert_eq!(residues.len(), 1);
    residues[0]
}

#[test]
fn reductions_at_the_edges_are_remainders() {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    for modulus in moduli(&mut rng) {
        let q = modulus.get();
        let words = [
            0,
            1,
            q - 1,
            q,
            q + 1,
            2 * q - 1,
            2 * q,
            u64::MAX,
            u64::MAX - 1,
        ];
        let near_top = (u64::MAX / q) * q;
        for x in words.into_iter().chain([near_top, near_top - 1]) {
            assert_eq!(modulus.reduce_u64(x), x % q, "{x} mod {q}");
        }
        let q128 = u128::from(q);
        for x in [
            u128::MAX,
            1 << 64,
            (1 << 64) - 1,
            1 << 96,
            (u128::MAX / q128) * q128,
        ] {
            assert_eq!(u128::from(modulus.reduce_u128(x)), x % q128, "{x} mod {q}");
        }
    }
}

#[test]
fn a_modulus_outside_one_to_two_to_the_32_is_refused() {
    assert_eq!(Modulus::new(0), None);
    assert_eq!(Modulus::new(MAX_MODULUS + 1), None);
    assert_eq!(Modulus::new(u64::MAX), None);
    assert_eq!(
        Modulus::new(MAX_MODULUS).map(|m| m.get()),
        Some(MAX_MODULUS)
    );
}

proptest! {
    #[test]
    fn reduce_u64_is_the_remainder(x: u64, q in 1..=MAX_MODULUS) {
        let modulus = Modulus::new(q).unwrap();
        prop_assert_eq!(modulus.reduce_u64(x), x % q);
    }

    #[test]
    fn reduce_u128_is_the_remainder(x: u128, q in 1..=MAX_MODULUS) {
        let modulus = Modulus::new(q).unwrap();
        prop_assert_eq!(u128::from(modulus.reduce_u128(x)), x % u128::from(q));
    }
}

#[test]
fn every_encoding_of_a_heap_has_num_bigints_residue() {
    let mut rng = ChaCha8Rng::seed_from_u64(2);
    let moduli = moduli(&mut rng);
    let mut packed_checked = 0;
    for bits in lengths(&mut rng) {
        let big = random_big(&mut rng, bits);
        let binary = digits_of(&big, 2, &mut rng);
        let hex = digits_of(&big, 16, &mut rng);
        let le_bytes = if bits == 0 {
            Vec::new()
        } else {
            big.to_bytes_le()
        };
        let mut values = vec![
            HeapValue::Binary(&binary),
            HeapValue::Hex(&hex),
            HeapValue::LeBytes(&le_bytes),
            HeapValue::Limbs(big.to_u64_digits()),
        ];
        if let Some(word) = big.to_u128() {
            values.push(HeapValue::Word(word));
        }
        for modulus in &moduli {
            let want = expected(&big, modulus);
            for value in &values {
                let what = format!("{bits} bits as {value:?}");
                assert_eq!(modulus.of_heap(value), want, "{what} mod {}", modulus.get());
            }
            if hex.len() < 4096 {
                assert_eq!(of_packed(modulus, &hex), want, "{bits} bits packed");
                packed_checked += 1;
            }
        }
    }
    assert!(packed_checked > 500, "{packed_checked} packed heaps");
}

#[test]
fn of_limbs_reads_little_endian_limbs_with_high_zeros() {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    for modulus in moduli(&mut rng) {
        for len in 0..40 {
            let limbs: Vec<u64> = (0..len).map(|_| rng.random()).collect();
            let mut padded = limbs.clone();
            padded.extend([0, 0, 0]);
            let big = BigUint::from_slice(
                &limbs
                    .iter()
                    .flat_map(|&l| [l as u32, (l >> 32) as u32])
                    .collect::<Vec<_>>(),
            );
            assert_eq!(modulus.of_limbs(&limbs), expected(&big, &modulus));
            assert_eq!(modulus.of_limbs(&padded), expected(&big, &modulus));
        }
    }
}

/// `len` random digits of `radix`, sometimes led by a run of zeros.
fn random_digits(rng: &mut ChaCha8Rng, radix: Radix, len: usize) -> Vec<u8> {
    let alphabet: &[u8] = match radix {
        Radix::Binary => b"01",
        Radix::Hex => b"0123456789abcdefABCDEF",
        Radix::Decimal => b"0123456789",
    };
    let zeros = if rng.random_bool(0.2) {
        rng.random_range(0..=len)
    } else {
        0
    };
    (0..len)
        .map(|i| match i < zeros {
            true => b'0',
            false => alphabet[rng.random_range(0..alphabet.len())],
        })
        .collect()
}

/// The number the digits spell, by num-bigint.
fn parse(digits: &[u8], radix: Radix) -> BigUint {
    let base = match radix {
        Radix::Binary => 2,
        Radix::Hex => 16,
        Radix::Decimal => 10,
    };
    BigUint::parse_bytes(digits, base).unwrap_or_default()
}

#[test]
fn of_decimal_is_num_bigints_residue_at_every_chunk_boundary() {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let moduli = moduli(&mut rng);
    let mut lengths: Vec<usize> = (0..=200).collect();
    lengths.extend((2..60).flat_map(|chunks| [19 * chunks - 1, 19 * chunks, 19 * chunks + 1]));
    lengths.extend((0..20).map(|_| rng.random_range(200..30_000)));
    for len in lengths {
        let digits = random_digits(&mut rng, Radix::Decimal, len);
        let big = parse(&digits, Radix::Decimal);
        for modulus in &moduli {
            let found = modulus.of_decimal(&digits);
            assert_eq!(found, expected(&big, modulus), "{len} digits");
        }
    }
}

/// `digits` cut at random points into pieces, some of them empty.
fn random_pieces<'d>(rng: &mut ChaCha8Rng, digits: &'d [u8]) -> Vec<&'d [u8]> {
    let mut cuts: Vec<usize> = (0..rng.random_range(0..12))
        .map(|_| rng.random_range(0..=digits.len()))
        .collect();
    cuts.extend([0, digits.len()]);
    cuts.sort_unstable();
    cuts.windows(2).map(|w| &digits[w[0]..w[1]]).collect()
}

#[test]
fn digits_fed_in_pieces_give_the_one_shot_residue() {
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let moduli = moduli(&mut rng);
    for round in 0..600 {
        let radix = [Radix::Binary, Radix::Hex, Radix::Decimal][round % 3];
        let len = match round % 4 {
            0 => rng.random_range(0..100),
            1 => rng.random_range(0..3000),
            _ => rng.random_range(0..20_000),
        };
        let digits = random_digits(&mut rng, radix, len);
        let pieces = random_pieces(&mut rng, &digits);
        let modulus = &moduli[round % moduli.len()];
        let mut one_shot = DigitsResidue::new(modulus, radix);
        one_shot.feed(&digits);
        let mut streamed = DigitsResidue::new(modulus, radix);
        for piece in &pieces {
            streamed.feed(piece);
        }
        let want = expected(&parse(&digits, radix), modulus);
        let what = format!("{radix:?}, {len} digits in {} pieces", pieces.len());
        assert_eq!(one_shot.finish(), want, "{what}");
        assert_eq!(streamed.finish(), want, "{what}");
    }
}

#[test]
fn digits_fed_one_at_a_time_give_the_one_shot_residue() {
    let mut rng = ChaCha8Rng::seed_from_u64(6);
    for radix in [Radix::Binary, Radix::Hex, Radix::Decimal] {
        for modulus in moduli(&mut rng) {
            let digits = random_digits(&mut rng, radix, 300);
            let mut streamed = DigitsResidue::new(&modulus, radix);
            for digit in digits.chunks(1) {
                streamed.feed(digit);
            }
            assert_eq!(
                streamed.finish(),
                expected(&parse(&digits, radix), &modulus)
            );
        }
    }
}

/// A heap whose limb 0 is small (so that small subtractions borrow), then
/// a run of zero limbs, then random limbs (or none), as little-endian
/// limbs without high zeros.
fn borrowing_heap(rng: &mut ChaCha8Rng) -> Vec<u64> {
    let mut limbs = vec![match rng.random_range(0..3) {
        0 => rng.random_range(0..1 << 20),
        1 => 0,
        _ => rng.random(),
    }];
    limbs.extend(std::iter::repeat_n(0, rng.random_range(0..200)));
    let above = rng.random_range(0..4);
    limbs.extend((0..above).map(|_| match rng.random_range(0..3) {
        0 => 1,
        _ => rng.random::<u64>() | 1,
    }));
    crate::input::trimmed(limbs)
}

/// Every limb of h − s from the subtraction, one by one and in windows
/// top-down, against num-bigint's difference.
fn check_subtraction(limbs: &[u64], s: u64, rng: &mut ChaCha8Rng) {
    let heap = BigUint::from_slice(
        &limbs
            .iter()
            .flat_map(|&l| [l as u32, (l >> 32) as u32])
            .collect::<Vec<_>>(),
    );
    let facts = BorrowLimbs::of_heap(&HeapValue::Limbs(limbs.to_vec()));
    let Some(difference) = SmallSubtraction::new(&facts, s) else {
        assert!(
            heap < BigUint::from(s),
            "h ≥ s, yet no difference: {limbs:?} − {s}"
        );
        return;
    };
    let want = heap - s;
    let mut want_limbs = want.to_u64_digits();
    want_limbs.resize(limbs.len(), 0);
    let got: Vec<u64> = limbs
        .iter()
        .zip(0..)
        .map(|(&limb, i)| difference.limb(i, limb))
        .collect();
    assert_eq!(got, want_limbs, "{limbs:?} − {s}");
    assert_eq!(difference.bit_length(), want.bits(), "{limbs:?} − {s}");
    let width = rng.random_range(1..=8);
    let mut top = limbs.len();
    while top > 0 {
        let first = top.saturating_sub(width);
        let mut window = limbs[first..top].to_vec();
        difference.apply(first as u64, &mut window);
        assert_eq!(window, want_limbs[first..top], "window {first}..{top}");
        top = first;
    }
}

#[test]
fn a_small_subtraction_borrows_across_zero_limbs_like_num_bigint() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    for _ in 0..3000 {
        let limbs = borrowing_heap(&mut rng);
        let s = match rng.random_range(0..4) {
            0 => 1,
            1 => 1 << 20,
            _ => rng.random_range(0..=1 << 20),
        };
        check_subtraction(&limbs, s, &mut rng);
    }
}

#[test]
fn subtracting_from_a_power_of_two_drops_the_top_bit() {
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    for n in 0..400 {
        let mut limbs = vec![0u64; n / 64 + 1];
        limbs[n / 64] = 1 << (n % 64);
        for s in [0, 1, 2, 3, 1 << 20, 1 << (n % 64)] {
            check_subtraction(&limbs, s, &mut rng);
        }
    }
}

#[test]
fn borrow_limbs_pushed_in_any_order_match_the_heap_read() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    for _ in 0..500 {
        let limbs = borrowing_heap(&mut rng);
        let mut order: Vec<usize> = (0..limbs.len() + 3).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.random_range(0..=i));
        }
        let mut pushed = BorrowLimbs::new();
        for i in order {
            pushed.push(i as u64, limbs.get(i).copied().unwrap_or(0));
        }
        let binary = digits_of(
            &BigUint::from_slice(
                &limbs
                    .iter()
                    .flat_map(|&l| [l as u32, (l >> 32) as u32])
                    .collect::<Vec<_>>(),
            ),
            2,
            &mut rng,
        );
        let read = BorrowLimbs::of_heap(&HeapValue::Binary(&binary));
        assert_eq!(pushed, read, "{limbs:?}");
        assert_eq!(
            pushed,
            BorrowLimbs::of_heap(&HeapValue::Limbs(limbs.clone()))
        );
        assert_eq!(read.bit_length(), binary.len() as u64);
    }
}

#[test]
fn a_heap_read_in_steps_has_the_residue_of_the_whole() {
    use crate::input::source::page_release::{PageReleaser, RELEASE_STEP_BYTES};
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let digits: Vec<u8> = (0..2 * RELEASE_STEP_BYTES + 777)
        .map(|i| match i {
            0 => b'1',
            _ => b'0' + rng.random_range(0..2u8),
        })
        .collect();
    for q in [1, 12, 34, 149_459, (1 << 32) - 5] {
        let modulus = Modulus::new(q).unwrap();
        for value in [HeapValue::Binary(&digits), HeapValue::Hex(&digits)] {
            assert_eq!(
                modulus.of_heap_releasing(&value, PageReleaser::NONE),
                modulus.of_heap(&value),
                "q = {q}"
            );
        }
    }
}
