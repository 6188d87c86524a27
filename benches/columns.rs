//! Throughput of `columns::tally` alone, on one 1 MiB piece held in
//! cache (the size the one-pass analysis hands it), for every element
//! width and every build this CPU can run.
//!
//! Every build's answer is checked against the bit-by-bit reference
//! before it is timed, so a fast wrong answer fails instead of winning.
//!
//! Run with `cargo bench --bench columns`; filter with e.g.
//! `cargo bench --bench columns -- tally/avx512`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nimstream::arch::columns::{self, BlockTally, ColumnCounter};
use nimstream::arch::Cpu;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

/// The analysis's piece size.
const PIECE_BYTES: usize = 1 << 20;

type Tally = fn(&[u8], usize, &mut ColumnCounter) -> (u64, BlockTally);

/// The builds this CPU can run, whatever `NIMSTREAM_SIMD` says.
fn builds() -> Vec<(&'static str, Tally)> {
    let mut builds: Vec<(&'static str, Tally)> = vec![("portable", columns::tally_portable)];
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = Cpu::detected();
        if cpu.avx2 {
            builds.push(("avx2", |data, width, counter| {
                // SAFETY: this build is listed only when the CPU has AVX2.
                unsafe { columns::tally_avx2(data, width, counter) }
            }));
        }
        if cpu.avx512 {
            builds.push(("avx512", |data, width, counter| {
                // SAFETY: this build is listed only when the CPU has what
                // `tally_avx512` needs.
                unsafe { columns::tally_avx512(data, width, counter) }
            }));
        }
    }
    builds
}

fn tally(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut group = c.benchmark_group("tally");
    group.throughput(Throughput::Bytes(PIECE_BYTES as u64));
    for width in [1, 2, 4, 8] {
        // Full-width random elements, as `gen --bits 8·width` writes them.
        let data: Vec<u8> = (0..PIECE_BYTES).map(|_| rng.random()).collect();
        let mut reference = ColumnCounter::default();
        let expected = columns::tally_reference(&data, width, &mut reference);
        for (name, build) in builds() {
            let mut counter = ColumnCounter::default();
            assert_eq!(build(&data, width, &mut counter), expected, "{name}");
            assert_eq!(counter.columns(), reference.columns(), "{name}");
            group.bench_with_input(BenchmarkId::new(name, width), &data, |b, data| {
                let mut counter = ColumnCounter::default();
                b.iter(|| build(black_box(data), width, &mut counter))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, tally);
criterion_main!(benches);
