//! Throughput of the short-token block kernels alone
//! ([`nimstream::arch::short_tokens`]): one 1 MiB piece held in cache
//! (the size of the one pass's reads) of each text format as `nimstream
//! gen` writes it by default (`--bits 1..64`; `1..10` for `unary`), and
//! hex of up to 128 bits read as `WideHex` (`widehex`), parsed into heaps
//! run after run, for every build this CPU can run.
//! Bytes a second are the piece's.
//!
//! Each build's heaps are checked before they are timed: their XOR and
//! count against the format's scanner (the general path, one heap at a
//! time) over the same bytes, so a fast wrong answer fails instead of
//! winning.
//!
//! Run with `cargo bench --bench short_tokens`; filter with e.g.
//! `cargo bench --bench short_tokens -- short_tokens/hex`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nimstream::arch::short_tokens::{ShortHeaps, ShortKernel, Syntax};
use nimstream::input::{HeapScanner, Scanner};
use nimstream::workbench::gen::{generate, Amount, BitRange, GenOptions, Kind};
use nimstream::Format;
use std::hint::black_box;

/// The one pass's read size.
const PIECE_BYTES: u64 = 1 << 20;

/// The formats, their syntaxes and the bit lengths `gen` writes by default
/// (and `u128` for the wide hex).
const CASES: [(Format, Syntax, u64); 5] = [
    (Format::Bits, Syntax::Bits, 64),
    (Format::Hex, Syntax::Hex, 64),
    (Format::Hex, Syntax::WideHex, 128),
    (Format::Dec, Syntax::Dec, 64),
    (Format::Unary, Syntax::Unary, 10),
];

/// A piece of `format` text of random heaps of 1 to `high` bits.
fn piece(format: Format, high: u64) -> Vec<u8> {
    let options = GenOptions {
        format,
        amount: Amount::Bytes(PIECE_BYTES),
        bits: BitRange { low: 1, high },
        kind: Kind::Random,
        seed: 1,
    };
    let mut data = Vec::new();
    generate(&options, &mut data, "bench").expect("generating in memory");
    data
}

/// Parses `data` run after run with `kernel`: the XOR of the heaps (both
/// limbs), how many, and where the last run stopped.
fn parse(
    kernel: ShortKernel,
    syntax: Syntax,
    data: &[u8],
    heaps: &mut ShortHeaps,
) -> (u128, u64, usize) {
    let (mut xor, mut count, mut at) = (0u128, 0u64, 0);
    loop {
        heaps.clear();
        let stopped = kernel.fill(syntax, data, at, 0, heaps);
        for j in 0..2 {
            let limb = heaps.limb(j).chunks_exact(8).fold(0, |x, w| {
                x ^ u64::from_le_bytes(w.try_into().expect("8 bytes"))
            });
            xor ^= u128::from(limb) << (64 * j);
        }
        count += heaps.len() as u64;
        if stopped.at == at {
            return (xor, count, at);
        }
        at = stopped.at;
    }
}

/// The XOR and count of the heaps of `data[..end]`, one at a time.
fn scanned(format: Format, data: &[u8]) -> (u128, u64) {
    let mut scanner = Scanner::new(format, data, 0);
    let (mut xor, mut count) = (0u128, 0u64);
    while let Some(heap) = scanner.next_heap().expect("a valid piece") {
        let limbs = heap.value.to_limbs();
        assert!(limbs.len() <= 2, "a short heap");
        for (j, limb) in limbs.iter().enumerate() {
            xor ^= u128::from(*limb) << (64 * j);
        }
        count += 1;
    }
    (xor, count)
}

fn short_tokens(c: &mut Criterion) {
    let mut group = c.benchmark_group("short_tokens");
    let mut heaps = ShortHeaps::default();
    for (format, syntax, high) in CASES {
        let data = piece(format, high);
        group.throughput(Throughput::Bytes(data.len() as u64));
        for kernel in ShortKernel::every_build() {
            let (xor, count, end) = parse(kernel, syntax, &data, &mut heaps);
            // The last run stops at the last whole block, in the token or
            // line (up to 1,023 ones) there.
            assert!(
                data.len() - end < 1200,
                "{kernel:?} {format}: stopped at {end}"
            );
            assert_eq!(
                (xor, count),
                scanned(format, &data[..end]),
                "{kernel:?} {format}"
            );
            let name = format!("{kernel:?}").to_lowercase();
            let id = BenchmarkId::new(format!("{syntax:?}").to_lowercase(), name);
            group.bench_with_input(id, &data, |b, data| {
                b.iter(|| parse(kernel, syntax, black_box(data), &mut heaps))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, short_tokens);
criterion_main!(benches);
