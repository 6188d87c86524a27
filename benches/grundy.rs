//! Time of the value engine, the work of `nimstream grundy GAME`:
//!
//! - `Sequence::compute` on the classic games, above all `octal:0.16`,
//!   whose period (preperiod 105,351, period 149,459) takes about 510,000
//!   values to prove, the figure to hold side by side with
//!   `ogsolve 0.16 -m rc2 -n 520000`;
//! - the streamed sequence of `octal:0.161` (no period known), 2^20 values
//!   on one thread and on two (SPEC section 13; the target is 2.5 million
//!   values a second on this project's 2-core machine);
//! - the two kernels of `arch::grundy_pairs` on their own: a block of
//!   eight heaps against 1,500 parts, and a walk of 1,024 splits.
//!
//! Each game's period is checked against the literature before it is
//! timed, and 0.161's last rare heap against Flammenkamp's (23,784), so a
//! fast wrong answer fails instead of winning.
//!
//! Run with `cargo bench --bench grundy`; filter with e.g.
//! `cargo bench --bench grundy -- 0.161`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use nimstream::arch::grundy_pairs::{mark_splits, scan_splits, LaneSets, Part, Targets};
use nimstream::games::stream::{Control, Limits, Outputs, Settings, Status, Streamer};
use nimstream::games::{Game, Period, Sequence};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::hint::black_box;

/// The most values a run may compute (the CLI's default).
const MAX_VALUES: u64 = 1 << 24;

/// Games and the (preperiod, period) each must find.
const GAMES: [(&str, u64, u64); 3] = [
    ("kayles", 71, 12),
    ("dawsons-kayles", 53, 34),
    ("octal:0.16", 105_351, 149_459),
];

/// Values of the streamed runs.
const STREAMED: u64 = 1 << 20;

fn compute(c: &mut Criterion) {
    let mut group = c.benchmark_group("grundy");
    group.sample_size(10);
    for (name, preperiod, period) in GAMES {
        let game: Game = name.parse().expect("a game");
        let expected = Some(Period { preperiod, period });
        let found = Sequence::compute(&game, MAX_VALUES).expect("values");
        assert_eq!(found.period(), expected, "{name}");
        group.bench_function(name, |b| {
            b.iter(|| Sequence::compute(black_box(&game), MAX_VALUES))
        });
    }
    group.finish();
}

/// A run of 0.161 to [`STREAMED`] values on `threads` threads, every value
/// kept.
fn stream_0_161(threads: usize) -> Streamer {
    let game: Game = "octal:0.161".parse().expect("a game");
    let settings = Settings {
        max_values: STREAMED,
        limits: Limits {
            prefix: STREAMED,
            ring: STREAMED,
        },
        watch: Vec::new(),
        threads,
    };
    let mut run = Streamer::new(&game, settings);
    let status = run.run(&mut Outputs::none(), &Control::default());
    assert_eq!(status.expect("a run"), Status::Done);
    run
}

fn streamed(c: &mut Criterion) {
    let outcome = stream_0_161(1).into_outcome();
    let rare = outcome.rare.expect("0.161 has rare values");
    assert_eq!(rare.last_rare_heap, Some(23_784));
    let mut group = c.benchmark_group("grundy_streamed");
    group.sample_size(10);
    group.throughput(Throughput::Elements(STREAMED));
    for threads in [1, 2] {
        group.bench_function(BenchmarkId::new("octal:0.161", threads), |b| {
            b.iter(|| stream_0_161(black_box(threads)))
        });
    }
    group.finish();
}

fn kernels(c: &mut Criterion) {
    let mut rng = ChaCha8Rng::seed_from_u64(161);
    let values: Vec<u16> = (0..30_000).map(|_| rng.random_range(0..150)).collect();
    let parts: Vec<Part> = (8u32..1500)
        .map(|size| Part {
            size,
            value: rng.random_range(0..150),
        })
        .collect();
    let mut group = c.benchmark_group("grundy_kernels");
    group.throughput(Throughput::Elements(8 * parts.len() as u64));
    group.bench_function("mark_splits", |b| {
        b.iter(|| {
            let mut sets = LaneSets::new(256);
            mark_splits(black_box(&values), 0, black_box(&parts), &mut sets);
            sets
        })
    });
    // A target no split has: the walk goes to the end.
    let (smaller, larger) = (&values[..1024], &values[5000..6024]);
    group.throughput(Throughput::Elements(1024));
    group.bench_function("scan_splits", |b| {
        b.iter(|| {
            let mut targets = Targets::new(256);
            targets.add(255);
            scan_splits(black_box(smaller), black_box(larger), &mut targets)
        })
    });
    group.finish();
}

criterion_group!(benches, compute, streamed, kernels);
criterion_main!(benches);
