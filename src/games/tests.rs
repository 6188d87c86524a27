//! The games module held against plain oracles: values by the mex of the
//! options iterator, periods by trying every q, first options by walking
//! the options in order; and the classic anchors of the literature.

use super::rare_common::ValueEngine;
use super::*;

/// Games with splits, without, with `4.` codes, subtraction games, Grundy's
/// game; some with a period proven early, some (0.6, 0.51, 0.161, Grundy's
/// game) with none for long.
pub(crate) const GAMES: [&str; 18] = [
    "kayles",
    "dawsons-kayles",
    "dawsons-chess",
    "octal:0.4",
    "octal:4.7",
    "octal:0.51",
    "octal:0.6",
    "octal:4.37",
    "octal:0.16",
    "octal:0.33",
    "octal:0.7",
    "octal:0.53",
    "octal:0.156",
    "sub:1,3,4",
    "sub:2,5,7",
    "sub:3,1,9,4",
    "octal:0.161",
    "grundys-game",
];

pub(crate) fn game(name: &str) -> Game {
    name.parse().expect(name)
}

/// g(0) … g(count − 1) by the plain mex over `Game::options`.
pub(crate) fn mex_values(game: &Game, count: usize) -> Vec<u16> {
    let mut values: Vec<u16> = Vec::with_capacity(count);
    for heap in 0..count as u64 {
        let mut seen = vec![false; 1 << 16];
        for option in game.options(heap) {
            seen[usize::from(option_value(&values, option))] = true;
        }
        values.push(seen.iter().position(|&s| !s).unwrap() as u16);
    }
    values
}

/// The value of an option from a table of values.
fn option_value(values: &[u16], option: Move) -> u16 {
    let at = |heap: u64| values[heap as usize];
    match option.leave {
        Leave::Nothing => 0,
        Leave::One(size) => at(size),
        Leave::Two(a, b) => at(a) ^ at(b),
    }
}

/// g(0) … g(count − 1) by the engine on one thread, with no period
/// search.
fn engine_values(game: &Game, count: usize) -> Vec<u16> {
    engine_values_on(game, count, 1)
}

/// g(0) … g(count − 1) by the engine on `threads` threads.
fn engine_values_on(game: &Game, count: usize, threads: usize) -> Vec<u16> {
    let mut engine = ValueEngine::for_game(game).unwrap();
    engine.set_threads(threads);
    let mut values = Vec::with_capacity(count);
    while values.len() < count {
        let value = engine.next_value(&values[..]).unwrap();
        values.push(value);
        engine.record(values.len() as u64 - 1, value, Some(&values));
    }
    values
}

/// The least (q, then p) period that `values` prove, found by trying every
/// q and walking its run back from the end.
fn proven_by_trial(game: &Game, values: &[u16]) -> Option<Period> {
    let n = values.len() as u64;
    let k = game.max_take().unwrap();
    (1..n).find_map(|q| {
        let mut start = n - q;
        while start > 1 && values[(start - 1) as usize] == values[(start - 1 + q) as usize] {
            start -= 1;
        }
        let needed = match (game.splits(), game.unequal_splits()) {
            (_, true) => 2 * start + 3 * q + k,
            (true, false) => 2 * start + 2 * q + k,
            (false, false) => start + q + k,
        };
        (needed <= n).then(|| Period {
            preperiod: if start == 1 && values[q as usize] == values[0] {
                0
            } else {
                start
            },
            period: q,
        })
    })
}

/// Asserts that `values` repeat with `period` exactly from its preperiod
/// on, that no smaller q repeats from there, and that the preperiod is
/// least.
fn assert_least_period(values: &[u16], period: Period) {
    let Period {
        preperiod: p,
        period: q,
    } = period;
    let (p, q) = (p as usize, q as usize);
    let repeats =
        |d: usize, from: usize| (from..values.len() - d).all(|h| values[h + d] == values[h]);
    assert!(repeats(q, p), "period {q} from {p}");
    assert!(
        p == 0 || values[p - 1 + q] != values[p - 1],
        "preperiod {p} is not least"
    );
    assert!((1..q).all(|d| !repeats(d, p)), "period {q} is not least");
}

#[test]
fn parsing_gives_canonical_strings_that_parse_back() {
    let cases = [
        ("nim", "nim"),
        ("kayles", "octal:0.77"),
        ("dawsons-kayles", "octal:0.07"),
        ("dawsons-chess", "octal:0.137"),
        ("sub:4,1,3", "sub:1,3,4"),
        ("sub:65535", "sub:65535"),
        ("octal:4.007", "octal:4.007"),
        ("octal:0.16", "octal:0.16"),
    ];
    for (given, canonical) in cases {
        let parsed = game(given);
        assert_eq!(parsed.to_string(), canonical);
        assert_eq!(game(canonical), parsed);
    }
    let longest = format!("octal:0.{}", "7".repeat(32));
    assert_eq!(game(&longest).max_take(), Some(32));
}

#[test]
fn bad_game_strings_say_what_is_wrong() {
    let cases = [
        ("chess", "unknown game `chess`"),
        ("sub:", "found ``"),
        ("sub:1,0", "found `0`"),
        ("sub:3,1,3", "found `3` twice"),
        ("sub:65536", "found `65536`"),
        ("sub:1, 2", "found ` 2`"),
        ("octal:77", "with a point"),
        ("octal:1.7", "starts with `0.` or `4.`"),
        ("octal:0.", "1 to 32 digits"),
        ("octal:0.8", "`8` is not an octal digit"),
        ("octal:0.70", "drop the trailing zeros"),
    ];
    for (given, expected) in cases {
        let error = given.parse::<Game>().unwrap_err().to_string();
        assert!(error.contains(expected), "{given}: {error}");
    }
    let too_long = format!("octal:0.{}", "7".repeat(33));
    assert!(too_long
        .parse::<Game>()
        .unwrap_err()
        .to_string()
        .contains("found 33"));
}

#[test]
fn max_take_and_splits_follow_the_code() {
    let cases = [
        ("nim", None, false),
        ("sub:9,2", Some(9), false),
        ("octal:0.33", Some(2), false),
        ("octal:0.137", Some(3), true),
        ("octal:4.3", Some(1), true),
    ];
    for (name, max_take, splits) in cases {
        assert_eq!(
            (game(name).max_take(), game(name).splits()),
            (max_take, splits),
            "{name}"
        );
    }
}

#[test]
fn options_come_in_the_order_of_the_move_rule() {
    let options = |name: &str, heap| game(name).options(heap).collect::<Vec<_>>();
    let mv = |take, leave| Move { take, leave };
    // 0.137: t = 1 leaves nothing; t = 2 leaves one heap; t = 3 any of the three.
    assert_eq!(
        options("dawsons-chess", 7),
        [
            mv(2, Leave::One(5)),
            mv(3, Leave::One(4)),
            mv(3, Leave::Two(1, 3)),
            mv(3, Leave::Two(2, 2)),
        ]
    );
    assert_eq!(
        options("dawsons-chess", 3),
        [mv(2, Leave::One(1)), mv(3, Leave::Nothing)]
    );
    // A `4.` code splits without taking.
    assert_eq!(
        options("octal:4.3", 4),
        [
            mv(0, Leave::Two(1, 3)),
            mv(0, Leave::Two(2, 2)),
            mv(1, Leave::One(3))
        ]
    );
    assert_eq!(
        options("sub:3,1", 3),
        [mv(1, Leave::One(2)), mv(3, Leave::Nothing)]
    );
    assert_eq!(
        options("nim", 3),
        [
            mv(1, Leave::One(2)),
            mv(2, Leave::One(1)),
            mv(3, Leave::Nothing)
        ]
    );
    assert_eq!(options("nim", 0), []);
    let huge = game("nim").options(u64::MAX).nth(2);
    assert_eq!(huge, Some(mv(3, Leave::One(u64::MAX - 3))));
}

#[test]
fn the_engine_agrees_with_the_plain_mex() {
    for name in GAMES {
        let game = game(name);
        assert_eq!(
            engine_values(&game, 3000),
            mex_values(&game, 3000),
            "{name}"
        );
    }
}

#[test]
fn the_engine_agrees_with_the_plain_mex_on_many_split_takes() {
    // 33 split takes and values that keep growing, so the mask is chosen
    // again and again.
    let game = game(&format!("octal:4.{}", "7".repeat(32)));
    assert_eq!(engine_values(&game, 1200), mex_values(&game, 1200));
}

#[test]
fn a_second_thread_gathering_splits_ahead_changes_no_value() {
    // Past 4,096 heaps the second thread takes the parts of the blocks
    // beyond 328 (the rare heaps of 0.161 reach 23,784; Grundy's game's
    // values grow, and its rare heaps keep coming).
    let count = if cfg!(debug_assertions) {
        12_000
    } else {
        200_000
    };
    for name in ["octal:0.161", "grundys-game", "octal:0.16"] {
        let game = game(name);
        assert_eq!(
            engine_values_on(&game, count, 2),
            engine_values_on(&game, count, 1),
            "{name}"
        );
    }
}

#[test]
fn the_period_found_is_least_and_proven_by_trial() {
    for name in GAMES {
        let game = game(name);
        let sequence = Sequence::compute(&game, 4000).unwrap();
        let values = sequence.values();
        assert_eq!(values, &mex_values(&game, values.len())[..], "{name}");
        assert_eq!(sequence.period(), proven_by_trial(&game, values), "{name}");
        if let Some(period) = sequence.period() {
            let k = game.max_take().unwrap();
            let far = 3 * (2 * period.preperiod + 2 * period.period + k) as usize;
            assert_least_period(&mex_values(&game, far), period);
        }
    }
}

#[test]
fn a_period_is_found_soon_after_it_can_be_proven() {
    for name in GAMES {
        let game = game(name);
        let sequence = Sequence::compute(&game, 4000).unwrap();
        let Some(period) = sequence.period() else {
            assert_eq!(sequence.values_computed(), 4000, "{name}");
            continue;
        };
        let earliest = (1..=sequence.values().len())
            .find(|&n| proven_by_trial(&game, &sequence.values()[..n]).is_some())
            .unwrap() as u64;
        assert_eq!(
            proven_by_trial(&game, &sequence.values()[..earliest as usize]),
            Some(period)
        );
        assert!(
            sequence.values_computed() <= earliest + earliest / 32 + 1,
            "{name}"
        );
    }
}

#[test]
fn the_anchors_of_the_literature() {
    let period = |name: &str| Sequence::compute(&game(name), 1 << 16).unwrap().period();
    let expect = |preperiod, period| Some(Period { preperiod, period });
    assert_eq!(period("kayles"), expect(71, 12));
    assert_eq!(period("dawsons-kayles"), expect(53, 34));
    assert_eq!(period("dawsons-chess"), expect(52, 34));
    // Passes the split test at p = 0, q = 1, which proves nothing.
    assert_eq!(period("octal:0.4"), expect(54, 34));
    // Gangolli and Plambeck's: last exceptional value at heap 3478.
    assert_eq!(period("octal:0.156"), expect(3479, 349));
    assert_eq!(period("sub:1,3,4"), expect(0, 7));
    let unsolved = Sequence::compute(&game("octal:0.6"), 5000).unwrap();
    assert_eq!(
        (unsolved.period(), unsolved.values_computed()),
        (None, 5000)
    );
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "seconds in a debug build; run with --release"
)]
fn octal_0_16_has_the_period_of_gangolli_and_plambeck() {
    let sequence = Sequence::compute(&game("octal:0.16"), 1 << 24).unwrap();
    let period = Period {
        preperiod: 105_351,
        period: 149_459,
    };
    assert_eq!(sequence.period(), Some(period));
    assert!(sequence.values_computed() <= 2 * 105_351 + 2 * 149_459 + 2 + 20_000);
    let values = engine_values(&game("octal:0.16"), 700_000);
    assert_eq!(&values[..sequence.values().len()], sequence.values());
    let (p, q) = (105_351, 149_459);
    assert!((p..values.len() - q).all(|h| values[h + q] == values[h]));
    assert_ne!(values[p - 1 + q], values[p - 1]);
}

#[test]
fn nim_values_are_the_heaps() {
    let nim = Sequence::compute(&game("nim"), 1 << 20).unwrap();
    assert_eq!(nim.values_computed(), 1 << 16);
    assert_eq!(
        (nim.value(65_535), nim.value(65_536), nim.period()),
        (Some(65_535), None, None)
    );
    assert_eq!(
        Sequence::compute(&game("nim"), 5).unwrap().values(),
        [0, 1, 2, 3, 4]
    );
}

#[test]
fn values_past_the_table_follow_the_period() {
    let sequence = Sequence::compute(&game("kayles"), 1 << 16).unwrap();
    let values = mex_values(&game("kayles"), 1000);
    for heap in 0..1000 {
        assert_eq!(
            sequence.value(heap),
            Some(values[heap as usize]),
            "heap {heap}"
        );
        let residue = heap % 12;
        if heap >= 71 {
            assert_eq!(
                sequence.value_at_residue(residue),
                Some(values[heap as usize])
            );
        }
    }
    let unproven = Sequence::compute(&game("octal:0.6"), 100).unwrap();
    assert_eq!(
        (unproven.value(99).is_some(), unproven.value(100)),
        (true, None)
    );
    assert_eq!(unproven.value_at_residue(3), None);
}

/// The first option of `heap` with value `target`, by walking the options.
fn first_by_walking(game: &Game, values: &[u16], heap: u64, target: u16) -> Option<FoundMove> {
    let at = |h: u64| values[h as usize];
    let option = game
        .options(heap)
        .find(|&option| option_value(values, option) == target)?;
    let leave = match option.leave {
        Leave::Nothing => FoundLeave::Nothing,
        Leave::One(size) => FoundLeave::One {
            size: PartSize::Exact(size),
            grundy: at(size),
        },
        Leave::Two(a, b) => FoundLeave::Two {
            smaller: a,
            smaller_grundy: at(a),
            larger: PartSize::Exact(b),
            larger_grundy: at(b),
        },
    };
    Some(FoundMove {
        take: option.take,
        leave,
    })
}

#[test]
fn the_first_option_is_the_first_in_order_with_the_target_value() {
    for name in GAMES.iter().copied().chain(["nim"]) {
        let game = game(name);
        let sequence = Sequence::compute(&game, 1500).unwrap();
        let values = mex_values(&game, 300);
        for heap in 0..300u64 {
            for target in 0..=values.iter().copied().max().unwrap() + 1 {
                let found = first_option(&sequence, HeapSize::Exact(heap), target);
                assert_eq!(
                    found,
                    first_by_walking(&game, &values, heap, target),
                    "{name} {heap} {target}"
                );
            }
        }
    }
}

/// `found` for an exact heap `heap`, with each part written as the heap
/// less a number of tokens where it is as large as the heap.
fn as_heap_minus(found: FoundMove, heap: u64) -> FoundMove {
    let minus = |part| match part {
        PartSize::Exact(size) => PartSize::HeapMinus(heap - size),
        other => other,
    };
    let leave = match found.leave {
        FoundLeave::One { size, grundy } => FoundLeave::One {
            size: minus(size),
            grundy,
        },
        FoundLeave::Two {
            smaller,
            smaller_grundy,
            larger,
            larger_grundy,
        } => FoundLeave::Two {
            smaller,
            smaller_grundy,
            larger: minus(larger),
            larger_grundy,
        },
        FoundLeave::Nothing => FoundLeave::Nothing,
    };
    FoundMove {
        take: found.take,
        leave,
    }
}

#[test]
fn huge_heaps_move_like_large_exact_heaps_of_their_residue() {
    for name in GAMES {
        let game = game(name);
        let sequence = Sequence::compute(&game, 8000).unwrap();
        let Some(Period { period, .. }) = sequence.period() else {
            assert_eq!(
                first_option(&sequence, HeapSize::Huge { residue: 0 }, 0),
                None
            );
            continue;
        };
        let max = sequence.values().iter().copied().max().unwrap();
        let residues = (0..period).step_by(period.div_ceil(64) as usize);
        for heap in residues.map(|r| 1_000_000 + r).chain([u64::MAX - 3]) {
            let huge = HeapSize::Huge {
                residue: heap % period,
            };
            for target in 0..=max + 1 {
                let exact = first_option(&sequence, HeapSize::Exact(heap), target);
                assert_eq!(
                    first_option(&sequence, huge, target),
                    exact.map(|found| as_heap_minus(found, heap)),
                    "{name} {heap} {target}"
                );
            }
        }
    }
}

#[test]
fn moves_need_known_values() {
    let sequence = Sequence::compute(&game("octal:0.6"), 100).unwrap();
    assert_eq!(first_option(&sequence, HeapSize::Exact(100), 0), None);
    let one_heap = FoundLeave::One {
        size: PartSize::Exact(98),
        grundy: sequence.values()[98],
    };
    let found = first_option(&sequence, HeapSize::Exact(99), sequence.values()[98]);
    assert_eq!(found.map(|found| found.leave), Some(one_heap));
    let nim = Sequence::compute(&game("nim"), 10).unwrap();
    assert_eq!(first_option(&nim, HeapSize::Huge { residue: 0 }, 0), None);
    let found = first_option(&nim, HeapSize::Exact(u64::MAX), 5).unwrap();
    assert_eq!(found.take, u64::MAX - 5);
}
