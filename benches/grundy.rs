//! Time of `Sequence::compute`, the work of `nimstream grundy GAME`, on
//! the classic games: above all `octal:0.16`, whose period (preperiod
//! 105,351, period 149,459) takes about 510,000 values to prove, the
//! figure to hold side by side with `ogsolve 0.16 -m rc2 -n 520000`.
//!
//! Each game's period is checked against the literature before it is
//! timed, so a fast wrong answer fails instead of winning.
//!
//! Run with `cargo bench --bench grundy`; filter with e.g.
//! `cargo bench --bench grundy -- octal:0.16`.

use criterion::{criterion_group, criterion_main, Criterion};
use nimstream::games::{Game, Period, Sequence};
use std::hint::black_box;

/// The most values a run may compute (the CLI's default).
const MAX_VALUES: u64 = 1 << 24;

/// Games and the (preperiod, period) each must find.
const GAMES: [(&str, u64, u64); 3] = [
    ("kayles", 71, 12),
    ("dawsons-kayles", 53, 34),
    ("octal:0.16", 105_351, 149_459),
];

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

criterion_group!(benches, compute);
criterion_main!(benches);
