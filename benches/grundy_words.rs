//! Throughput of `grundy_words::fold` alone, the game pass's loop over a
//! raw array, on one 1 MiB piece held in cache (the size the one-pass
//! analysis hands it), for every element width and every build this CPU
//! can run, with the tables of `kayles` (period 12, 83 values past the
//! preperiod) and `octal:0.16` (period 149,459, a table of about 1 MiB).
//!
//! Every build's answer is checked against the definition (`values[h]` or
//! the period's value by `%`) before it is timed, so a fast wrong answer
//! fails instead of winning.
//!
//! Run with `cargo bench --bench grundy_words`; filter with e.g.
//! `cargo bench --bench grundy_words -- kayles/avx512/8`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nimstream::arch::grundy_words::{self, BlockValues, WordValues};
use nimstream::arch::Cpu;
use nimstream::games::{Game, Sequence};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

/// The analysis's piece size.
const PIECE_BYTES: usize = 1 << 20;

/// The most values a run may compute (the CLI's default).
const MAX_VALUES: u64 = 1 << 24;

type Fold = fn(&[u8], usize, &WordValues<'_>) -> BlockValues;

/// The builds this CPU can run, whatever `NIMSTREAM_SIMD` says.
fn builds() -> Vec<(&'static str, Fold)> {
    let mut builds: Vec<(&'static str, Fold)> = vec![("portable", grundy_words::fold_portable)];
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = Cpu::detected();
        if cpu.avx2 {
            builds.push(("avx2", |bytes, width, table| {
                // SAFETY: this build is listed only when the CPU has AVX2.
                unsafe { grundy_words::fold_avx2(bytes, width, table) }
            }));
        }
        if cpu.avx512_ifma {
            builds.push(("avx512", |bytes, width, table| {
                // SAFETY: this build is listed only when the CPU has what
                // `fold_avx512` needs.
                unsafe { grundy_words::fold_avx512(bytes, width, table) }
            }));
        }
    }
    builds
}

/// The XOR of the values by the definition.
fn definition(bytes: &[u8], width: usize, values: &[u16], p: u64, q: u64) -> u16 {
    bytes.chunks_exact(width).fold(0, |xor, element| {
        let mut word = [0u8; 8];
        word[..width].copy_from_slice(element);
        let h = u64::from_le_bytes(word);
        let index = if h < values.len() as u64 {
            h
        } else {
            p + (h - p) % q
        };
        xor ^ values[index as usize]
    })
}

fn fold(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut group = c.benchmark_group("grundy_words");
    group.throughput(Throughput::BytesDecimal(PIECE_BYTES as u64));
    for (name, widths) in [("kayles", &[1, 2, 4, 8][..]), ("octal:0.16", &[8])] {
        let game: Game = name.parse().expect("a game");
        let sequence = Sequence::compute(&game, MAX_VALUES).expect("values");
        let period = sequence.period().expect("a proven period");
        let (p, q) = (period.preperiod, period.period);
        let table = WordValues::new(sequence.values(), p, q).expect("a whole period");
        for &width in widths {
            // Full-width random elements, as `gen --bits 8·width` writes them.
            let data: Vec<u8> = (0..PIECE_BYTES).map(|_| rng.random()).collect();
            let expected = definition(&data, width, sequence.values(), p, q);
            for (build_name, build) in builds() {
                assert_eq!(build(&data, width, &table).xor, expected, "{build_name}");
                let id = BenchmarkId::new(format!("{name}/{build_name}"), width);
                group.bench_with_input(id, &data, |b, data| {
                    b.iter(|| build(black_box(data), width, &table))
                });
            }
        }
    }
    group.finish();
}

criterion_group!(benches, fold);
criterion_main!(benches);
