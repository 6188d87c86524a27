//! Throughput of `columns::tally` alone, for every build this CPU can
//! run: on one 1 MiB piece held in cache (the size the one pass over a
//! raw array hands it) for every element width, and on one block of
//! short-token heaps' low limbs (8 KiB, in the first-level cache), the
//! block the one pass over short text tokens tallies at a time: of
//! random 64-bit words, and of heaps of 1 to 64 bits as `gen` writes
//! them, among which the zeros and ones are common.
//!
//! Every build's answer is checked against the bit-by-bit reference
//! before it is timed, so a fast wrong answer fails instead of winning.
//!
//! Run with `cargo bench --bench columns`; filter with e.g.
//! `cargo bench --bench columns -- tally/avx512`.

use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion, Throughput,
};
use nimstream::arch::columns::{self, BlockTally, ColumnCounter};
use nimstream::arch::short_tokens::SHORT_HEAPS;
use nimstream::arch::Cpu;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

/// The piece size of the one pass over raw arrays.
const PIECE_BYTES: usize = 1 << 20;

/// A block of short-token heaps' low limbs, as the one pass tallies it.
const SHORT_BLOCK_BYTES: usize = 8 * SHORT_HEAPS;

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
        bench_builds(&mut group, &mut rng, PIECE_BYTES, width, &width.to_string());
    }
    group.finish();
    let mut group = c.benchmark_group("tally-short-block");
    group.throughput(Throughput::Bytes(SHORT_BLOCK_BYTES as u64));
    bench_builds(&mut group, &mut rng, SHORT_BLOCK_BYTES, 8, "8");
    let heaps = short_heaps(&mut rng, SHORT_BLOCK_BYTES / 8);
    bench_data(&mut group, &heaps, 8, "heaps of 1-64 bits");
    group.finish();
}

/// `count` heaps of 1 to 64 bits, the length uniform and the top bit set
/// (the shape of `gen --bits 1..64`: one heap in 64 is 1), as the low
/// limbs of a short-token block.
fn short_heaps(rng: &mut ChaCha8Rng, count: usize) -> Vec<u8> {
    (0..count)
        .flat_map(|_| {
            let bits = rng.random_range(1..=64u32);
            let value = (rng.random::<u64>() >> (64 - bits)) | 1 << (bits - 1);
            value.to_le_bytes()
        })
        .collect()
}

/// Times every build on `bytes` random bytes as elements of `width`
/// bytes (full-width, as `gen --bits 8·width` writes them), each checked
/// against the bit-by-bit reference first.
fn bench_builds(
    group: &mut BenchmarkGroup<'_, WallTime>,
    rng: &mut ChaCha8Rng,
    bytes: usize,
    width: usize,
    label: &str,
) {
    let data: Vec<u8> = (0..bytes).map(|_| rng.random()).collect();
    bench_data(group, &data, width, label);
}

/// Times every build on `data` as elements of `width` bytes, one counter
/// fed call after call (as a pass feeds it), each build checked against
/// the bit-by-bit reference first.
fn bench_data(group: &mut BenchmarkGroup<'_, WallTime>, data: &[u8], width: usize, label: &str) {
    let mut reference = ColumnCounter::default();
    let expected = columns::tally_reference(data, width, &mut reference);
    for (name, build) in builds() {
        let mut counter = ColumnCounter::default();
        assert_eq!(build(data, width, &mut counter), expected, "{name}");
        assert_eq!(counter.columns(), reference.columns(), "{name}");
        group.bench_with_input(BenchmarkId::new(name, label), data, |b, data| {
            let mut counter = ColumnCounter::default();
            b.iter(|| build(black_box(data), width, &mut counter))
        });
    }
}

criterion_group!(benches, tally);
criterion_main!(benches);
