//! Throughput of `games::residue` on data held in memory: a heap's residue
//! modulo a game's period, for every heap, beside the Nim pass's own work
//! on the same heaps (XORing the heap's limbs), in bytes of input per
//! second.
//!
//! - `u64-words`: 64 MiB of random words, one heap each (`u64le`, the hard
//!   case: 2^23 heaps, one reduction each), against XORing the words;
//! - `bits-tokens`, `hex-tokens`: 16 MiB of tokens of 1–4,096 bits, as
//!   the digits a scanner hands out, against `xor_window` of each;
//! - `hex-packed`: the same hex text through the `hex` scanner with token
//!   packing on, as the one-pass analysis reads it: scanning and the
//!   residue of each packed token, against scanning alone;
//! - `bits-long`: four binary tokens of 2^22 digits (a quarter of a
//!   `bits-four` file at scale);
//! - `decimal-long`: sixteen decimal tokens of 2^20 digits;
//! - `bits-streamed`: the four long binary tokens fed to a
//!   `DigitsResidue` in 64 KiB pieces.
//!
//! Every case checks its answer against num-bigint (or `%`) once before it
//! is timed. The modulus is 149,459 (`octal:0.16`'s period); the cost does
//! not depend on it.
//!
//! Run with `cargo bench --bench residue`. Measured so on 2026-11-24 on a
//! 2-core AMD EPYC (Zen 4) VM shared with other builds (medians; runs
//! varied by up to a third), one thread:
//!
//! | case | residue | the Nim work | ratio |
//! |---|---|---|---|
//! | u64-words | 13.3 GB/s | XOR 35.6 GB/s | 0.37 |
//! | bits-tokens | 10.7 GB/s | `xor_window` 23.5 GB/s | 0.45 |
//! | hex-tokens | 7.4 GB/s | `xor_window` 4.8 GB/s | 1.56 |
//! | hex-packed | scan + residue 9.7 GB/s | scan 17.8 GB/s | 0.54 |
//! | bits-long | 16.5 GB/s (streamed 13.9) | `xor_window` 71.9 GB/s | 0.23 |
//! | decimal-long | 6.5 GB/s | | |
//!
//! `cat FILE > /dev/null` of a 1 GiB file in the page cache took 0.09–0.13 s
//! on that VM (8–12 GB/s; bench/RESULTS.md has 15–24 GB/s on the project's
//! benchmark machine). A u64 heap costs about two cycles, the two
//! multiplications of its Barrett step; long heaps about 1.5 cycles a limb
//! for the fold, plus the digit kernel.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use nimstream::error::ParseError;
use nimstream::games::residue::{DigitsResidue, Modulus, Radix};
use nimstream::input::{HeapScanner, HeapValue, ScanVisitor, Scanner, TokenScratch};
use nimstream::Format;
use num_bigint::BigUint;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;
use std::ops::Range;

/// The period of `octal:0.16` (Gangolli–Plambeck).
const PERIOD: u64 = 149_459;

/// Size of the word array.
const WORD_BYTES: usize = 64 << 20;

/// Size of each text input.
const TEXT_BYTES: usize = 16 << 20;

/// Where each token of a text is.
type Tokens = Vec<Range<usize>>;

/// Tokens of `radix` digits (2 or 16) of 1–4,096 bits, separated by
/// single spaces, up to `TEXT_BYTES`.
fn short_tokens(rng: &mut ChaCha8Rng, radix: u32) -> (Vec<u8>, Tokens) {
    let bits_per_digit = radix.trailing_zeros() as usize;
    let (mut text, mut tokens) = (Vec::with_capacity(TEXT_BYTES + 4096), Vec::new());
    while text.len() < TEXT_BYTES {
        let digits = rng.random_range(1..=4096usize).div_ceil(bits_per_digit);
        let start = text.len();
        text.extend((0..digits).map(|i| {
            let digit = rng.random_range(u32::from(i == 0)..radix);
            char::from_digit(digit, radix).expect("a digit") as u8
        }));
        tokens.push(start..text.len());
        text.push(b' ');
    }
    (text, tokens)
}

/// `count` tokens of `digits` random digits of `radix` (2 or 10).
fn long_tokens(rng: &mut ChaCha8Rng, radix: u32, count: usize, digits: usize) -> Vec<Vec<u8>> {
    (0..count)
        .map(|_| {
            (0..digits)
                .map(|_| char::from_digit(rng.random_range(0..radix), radix).unwrap() as u8)
                .collect()
        })
        .collect()
}

/// The XOR of the residues of the tokens, by num-bigint.
fn reference<'t>(tokens: impl Iterator<Item = &'t [u8]>, radix: u32) -> u64 {
    tokens.fold(0, |xor, digits| {
        let big = BigUint::parse_bytes(digits, radix).expect("digits");
        xor ^ (big % PERIOD).iter_u64_digits().next().unwrap_or(0)
    })
}

fn u64_words(c: &mut Criterion, modulus: &Modulus) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let words: Vec<u64> = (0..WORD_BYTES / 8).map(|_| rng.random()).collect();
    let residues = |words: &[u64]| {
        words.iter().fold(0, |xor, &w| {
            xor ^ modulus.of_heap(&HeapValue::Word(u128::from(w)))
        })
    };
    let want = words.iter().fold(0, |xor, &w| xor ^ (w % PERIOD));
    assert_eq!(residues(&words), want);
    let mut group = c.benchmark_group("u64-words");
    group.throughput(Throughput::BytesDecimal(WORD_BYTES as u64));
    group.bench_function("residue", |b| b.iter(|| residues(black_box(&words))));
    group.bench_function("nim-xor", |b| {
        b.iter(|| black_box(&words).iter().fold(0, |xor, &w| xor ^ w))
    });
    group.finish();
}

fn tokens(c: &mut Criterion, modulus: &Modulus, name: &str, radix: u32) {
    let mut rng = ChaCha8Rng::seed_from_u64(u64::from(radix));
    let (text, tokens) = short_tokens(&mut rng, radix);
    let value = |range: &Range<usize>| match radix {
        2 => HeapValue::Binary(&text[range.clone()]),
        _ => HeapValue::Hex(&text[range.clone()]),
    };
    let residues = || {
        tokens
            .iter()
            .fold(0, |xor, range| xor ^ modulus.of_heap(&value(range)))
    };
    assert_eq!(
        residues(),
        reference(tokens.iter().map(|r| &text[r.clone()]), radix)
    );
    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::BytesDecimal(text.len() as u64));
    group.bench_function("residue", |b| b.iter(residues));
    group.bench_function("nim-xor", |b| {
        b.iter(|| {
            let mut window = [0u64; 64];
            for range in &tokens {
                value(range).xor_window(0, &mut window);
            }
            black_box(window)
        })
    });
    group.finish();
}

/// The XOR of the residues of a `hex` text's heaps (`modulus` given), or
/// of their bit lengths (none), scanned with token packing on as the
/// one-pass analysis scans it: tokens of up to 4,096 digits come packed.
struct PackedHex<'m> {
    modulus: Option<&'m Modulus>,
}

impl<'a> ScanVisitor<'a> for PackedHex<'_> {
    type Output = u64;
    fn visit<S: HeapScanner<'a>>(self, mut scanner: S) -> u64 {
        let mut scratch = TokenScratch::default();
        let mut xor = 0;
        scanner
            .each_heap(Some(&mut scratch), |heap| {
                xor ^= match self.modulus {
                    Some(modulus) => modulus.of_heap(&heap.value),
                    None => heap.value.bit_length(),
                };
                Ok::<_, ParseError>(())
            })
            .expect("valid hex");
        xor
    }
}

fn packed_hex(c: &mut Criterion, modulus: &Modulus) {
    let mut rng = ChaCha8Rng::seed_from_u64(16);
    let (text, tokens) = short_tokens(&mut rng, 16);
    let scan = |modulus| Scanner::new(Format::Hex, &text, 0).visit(PackedHex { modulus });
    assert_eq!(
        scan(Some(modulus)),
        reference(tokens.iter().map(|r| &text[r.clone()]), 16)
    );
    let mut group = c.benchmark_group("hex-packed");
    group.throughput(Throughput::BytesDecimal(text.len() as u64));
    group.bench_function("scan-residue", |b| b.iter(|| scan(Some(modulus))));
    group.bench_function("scan", |b| b.iter(|| scan(None)));
    group.finish();
}

fn long_binary(c: &mut Criterion, modulus: &Modulus) {
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let heaps = long_tokens(&mut rng, 2, 4, TEXT_BYTES / 4);
    let want = reference(heaps.iter().map(Vec::as_slice), 2);
    let residues = || {
        heaps.iter().fold(0, |xor, digits| {
            xor ^ modulus.of_heap(&HeapValue::Binary(digits))
        })
    };
    let streamed = || {
        heaps.iter().fold(0, |xor, digits| {
            let mut residue = DigitsResidue::new(modulus, Radix::Binary);
            for piece in digits.chunks(64 << 10) {
                residue.feed(piece);
            }
            xor ^ residue.finish()
        })
    };
    assert_eq!(residues(), want);
    assert_eq!(streamed(), want);
    let mut group = c.benchmark_group("bits-long");
    group.throughput(Throughput::BytesDecimal(TEXT_BYTES as u64));
    group.sample_size(20);
    group.bench_function("residue", |b| b.iter(residues));
    group.bench_function("streamed", |b| b.iter(streamed));
    group.bench_function("nim-xor", |b| {
        b.iter(|| {
            let mut window = [0u64; 1024];
            for digits in &heaps {
                let value = HeapValue::Binary(digits);
                for first in (0..value.bit_length().div_ceil(64)).step_by(1024) {
                    value.xor_window(first, &mut window);
                }
            }
            black_box(window)
        })
    });
    group.finish();
}

fn long_decimal(c: &mut Criterion, modulus: &Modulus) {
    let mut rng = ChaCha8Rng::seed_from_u64(4);
    let heaps = long_tokens(&mut rng, 10, 16, TEXT_BYTES / 16);
    let residues = || {
        heaps
            .iter()
            .fold(0, |xor, digits| xor ^ modulus.of_decimal(digits))
    };
    assert_eq!(residues(), reference(heaps.iter().map(Vec::as_slice), 10));
    let mut group = c.benchmark_group("decimal-long");
    group.throughput(Throughput::BytesDecimal(TEXT_BYTES as u64));
    group.sample_size(20);
    group.bench_function("residue", |b| b.iter(residues));
    group.finish();
}

fn residue(c: &mut Criterion) {
    let modulus = Modulus::new(PERIOD).expect("a modulus");
    u64_words(c, &modulus);
    tokens(c, &modulus, "bits-tokens", 2);
    tokens(c, &modulus, "hex-tokens", 16);
    packed_hex(c, &modulus);
    long_binary(c, &modulus);
    long_decimal(c, &modulus);
}

criterion_group!(benches, residue);
criterion_main!(benches);
