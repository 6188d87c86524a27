//! `analyze --game G --rule misere` (SPEC section 12) against exhaustive
//! misère search ([`GameTree`]), on every format and every path that reads
//! input: threads, `--memory` budgets, standard input; long heaps classed
//! by their residue; the move written out exactly; a heap past the
//! quotient refused.

use nimstream::games::misere::Quotient;
use nimstream::games::Game;
use nimstream::report::Value;
use nimstream::workbench::encode::{write_header, write_heap};
use nimstream::workbench::game_tree::GameTree;
use nimstream::{analyze_bytes, analyze_reader, Format, MemoryBudget, Options, Player, Rule};
use num_bigint::BigUint;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Misère play of `game`, the quotient computed for `max_heap` heaps.
fn options(game: &str, max_heap: u64) -> Options {
    Options {
        game: game.parse().unwrap(),
        rule: Rule::Misere,
        max_values: max_heap,
        ..Options::default()
    }
}

fn encode(format: Format, heaps: &[BigUint]) -> Vec<u8> {
    let mut out = Vec::new();
    write_header(format, &mut out).unwrap();
    for heap in heaps {
        let limbs = heap.to_u64_digits();
        write_heap(format, &limbs[..], &mut out).unwrap();
    }
    out
}

/// A report value as a `u64`.
fn small(value: &Value) -> u64 {
    value.dec.as_deref().unwrap().parse().unwrap()
}

/// Random sums of up to `tokens` tokens in all, heaps up to `largest`.
fn random_sum(rng: &mut ChaCha8Rng, tokens: u64, largest: u64) -> Vec<u64> {
    let mut left = rng.random_range(0..=tokens);
    let mut heaps = Vec::new();
    while left > 0 {
        let h = rng.random_range(0..=left.min(largest));
        heaps.push(h);
        left -= h.min(left);
        if h == 0 && rng.random_bool(0.5) {
            break;
        }
    }
    heaps
}

#[test]
fn random_sums_of_every_format_match_the_search() {
    let mut rng = ChaCha8Rng::seed_from_u64(33);
    for (name, max_heap) in [
        ("kayles", 4096),
        ("dawsons-kayles", 20),
        ("sub:1,3,4", 4096),
        ("octal:0.75", 4096),
        ("octal:4.7", 12),
        ("octal:0.52", 4096),
    ] {
        let game: Game = name.parse().unwrap();
        let mut tree = GameTree::new(&game, Rule::Misere);
        for round in 0..120 {
            let heaps = random_sum(&mut rng, 24, max_heap.min(24));
            let format = Format::ALL[round % Format::ALL.len()];
            let big: Vec<BigUint> = heaps.iter().map(|&h| BigUint::from(h)).collect();
            let bytes = encode(format, &big);
            let report = analyze_bytes(&bytes, format, "t", &options(name, max_heap))
                .unwrap_or_else(|e| panic!("{name} {heaps:?} {format:?}: {e}"));
            let wins = tree.player_to_move_wins(&heaps);
            let winner = if wins { Player::First } else { Player::Second };
            assert_eq!(report.winner, winner, "{name} {heaps:?} {format:?}");
            let Some(chosen) = report.misere_move else {
                let stuck = tree.options(&sorted(&heaps)).is_empty();
                assert!(!wins || stuck, "{name} {heaps:?}: no move on a won sum");
                continue;
            };
            let index = chosen.heap as usize;
            let left: Vec<u64> = chosen.leave.iter().map(small).collect();
            let legal = game.options(heaps[index]).any(|option| {
                let parts = match option.leave {
                    nimstream::games::Leave::Nothing => vec![],
                    nimstream::games::Leave::One(a) => vec![a],
                    nimstream::games::Leave::Two(a, b) => vec![a, b],
                };
                option.take == chosen.take && parts == left
            });
            assert!(legal, "{name} {heaps:?}: {chosen:?} is not a move");
            let mut after: Vec<u64> = heaps.clone();
            after.remove(index);
            after.extend(&left);
            assert!(
                !tree.player_to_move_wins(&after),
                "{name} {heaps:?}: {chosen:?} leaves a won sum"
            );
            // The lowest-index heap with a winning option (SPEC section 12).
            for (earlier, &h) in heaps[..index].iter().enumerate() {
                let mut rest = heaps.clone();
                rest.remove(earlier);
                let wins_here = game.options(h).any(|option| {
                    let mut next = rest.clone();
                    next.extend(match option.leave {
                        nimstream::games::Leave::Nothing => vec![],
                        nimstream::games::Leave::One(a) => vec![a],
                        nimstream::games::Leave::Two(a, b) => vec![a, b],
                    });
                    !tree.player_to_move_wins(&next)
                });
                assert!(!wins_here, "{name} {heaps:?}: heap {earlier} wins first");
            }
        }
    }
}

/// The non-empty heaps, ascending.
fn sorted(heaps: &[u64]) -> Vec<u64> {
    let mut position: Vec<u64> = heaps.iter().copied().filter(|&h| h > 0).collect();
    position.sort_unstable();
    position
}

/// A heap of `bits` bits whose value past the period is `residue` modulo
/// 12 (Kayles' period), and ≥ 2^(bits − 1).
fn long_heap(rng: &mut ChaCha8Rng, bits: u64, residue: u64) -> BigUint {
    let limbs: Vec<u64> = (0..bits.div_ceil(64)).map(|_| rng.random()).collect();
    let mut h = BigUint::from_slice(
        &limbs
            .iter()
            .flat_map(|&l| [l as u32, (l >> 32) as u32])
            .collect::<Vec<u32>>(),
    ) % (BigUint::from(1u8) << bits);
    h |= BigUint::from(1u8) << (bits - 1);
    let r = (&h % 12u8).to_u64_digits().first().copied().unwrap_or(0);
    h + (residue + 12 - r) % 12
}

/// A long heap weighs as the heap of the last period computed with its
/// residue: the same product and winner beside the same small heaps.
#[test]
fn a_long_heap_is_classed_by_its_residue() {
    let kayles = options("kayles", 4096);
    let q = Quotient::compute(&kayles.game, 4096).unwrap();
    let n = q.heaps_computed();
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    for round in 0..48u64 {
        let residue = round % 12;
        let small = n - 11 + (residue + 12 - (n - 11) % 12) % 12;
        let long = long_heap(&mut rng, 100 + round * 37, residue);
        let beside: Vec<BigUint> = (0..3)
            .map(|_| BigUint::from(rng.random_range(0..9u32)))
            .collect();
        let format = [Format::Bits, Format::Hex, Format::Dec, Format::Nimb][round as usize % 4];
        let with = |heap: BigUint| {
            let heaps: Vec<BigUint> = [vec![heap], beside.clone()].concat();
            let report = analyze_bytes(&encode(format, &heaps), format, "t", &kayles).unwrap();
            let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
            (json["product"].clone(), report.winner)
        };
        assert_eq!(with(long), with(BigUint::from(small)), "round {round}");
    }
}

#[test]
fn threads_budgets_and_streams_give_one_report() {
    let mut rng = ChaCha8Rng::seed_from_u64(9);
    let without_stats = |json: String| {
        let mut value: serde_json::Value = serde_json::from_str(&json).unwrap();
        value.as_object_mut().unwrap().remove("stats");
        value.as_object_mut().unwrap().remove("input");
        value
    };
    for round in 0..12 {
        let heaps: Vec<BigUint> = (0..200)
            .map(|i| match i % 50 {
                7 => {
                    let residue = rng.random_range(0..12);
                    long_heap(&mut rng, 300 + round * 50, residue)
                }
                _ => BigUint::from(rng.random_range(0..40u32)),
            })
            .collect();
        let format = [Format::Bits, Format::Hex, Format::Dec][round as usize % 3];
        let bytes = encode(format, &heaps);
        let base = options("kayles", 4096);
        let whole = without_stats(analyze_bytes(&bytes, format, "t", &base).unwrap().to_json());
        for (threads, memory) in [
            (2, MemoryBudget::default()),
            (2, "64KiB".parse().unwrap()),
            (1, MemoryBudget::Log),
        ] {
            let options = Options {
                threads,
                memory,
                ..base.clone()
            };
            let report = analyze_bytes(&bytes, format, "t", &options).unwrap();
            assert_eq!(without_stats(report.to_json()), whole, "round {round}");
            let streamed = analyze_reader(&mut &bytes[..], format, "-", &options).unwrap();
            assert_eq!(without_stats(streamed.to_json()), whole, "round {round}");
        }
    }
}

#[test]
fn the_parts_a_move_leaves_on_a_long_heap_are_written_out_exactly() {
    let dir = tempfile::tempdir().unwrap();
    let parts_path = dir.path().join("parts.bits");
    let kayles = Options {
        inline_bits: 64,
        move_out: Some(parts_path.clone()),
        ..options("kayles", 4096)
    };
    let q = Quotient::compute(&kayles.game, 4096).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    let mut moves = 0;
    for round in 0..24u64 {
        let residue = rng.random_range(0..12);
        let long = long_heap(&mut rng, 4000 + round * 7, residue);
        let heaps = vec![long.clone(), BigUint::from(rng.random_range(0..30u32))];
        let format = [Format::Bits, Format::Hex, Format::Dec, Format::Nimb][round as usize % 4];
        let bytes = encode(format, &heaps);
        let report = match round % 2 {
            0 => analyze_bytes(&bytes, format, "t", &kayles),
            _ => analyze_reader(&mut &bytes[..], format, "-", &kayles),
        }
        .unwrap();
        let Some(chosen) = report.misere_move else {
            assert_eq!(report.winner, Player::Second, "round {round}");
            continue;
        };
        moves += 1;
        let text = std::fs::read_to_string(&parts_path).unwrap();
        let parts: Vec<BigUint> = text
            .lines()
            .map(|line| BigUint::parse_bytes(line.as_bytes(), 2).unwrap())
            .collect();
        let h = &heaps[chosen.heap as usize];
        let total = parts.iter().fold(BigUint::from(chosen.take), |x, p| x + p);
        assert_eq!(
            &total, h,
            "round {round}: the parts and the take make the heap"
        );
        let bit_lengths: Vec<u64> = chosen.leave.iter().map(|v| v.bit_length).collect();
        assert_eq!(
            bit_lengths,
            parts.iter().map(|p| p.bits()).collect::<Vec<_>>()
        );
        // The sum after the move, classed by the quotient, is a P-position.
        let class = |heap: &BigUint| match heap.bits() <= 64 {
            true => q.class_of(heap.to_u64_digits().first().copied().unwrap_or(0)),
            false => {
                q.class_at_residue((heap % 12u8).to_u64_digits().first().copied().unwrap_or(0))
            }
        };
        let others = heaps
            .iter()
            .enumerate()
            .filter(|&(i, _)| i as u64 != chosen.heap)
            .map(|(_, h)| h);
        let product = parts
            .iter()
            .chain(others)
            .fold(0, |p, heap| q.mul(p, class(heap).unwrap()));
        assert!(q.is_p(product), "round {round}");
        assert_eq!(
            q.names()[product as usize],
            chosen.to_product,
            "round {round}"
        );
    }
    assert!(moves > 10);
}

#[test]
fn a_heap_past_the_quotient_is_an_error_naming_its_offset_and_the_bound() {
    // Daisies (4.7) has no period proven within 9 heaps.
    let error =
        analyze_bytes(b"3 9 10 2\n", Format::Dec, "t", &options("octal:4.7", 9)).unwrap_err();
    assert_eq!(error.exit_code(), 1, "{error}");
    let text = error.to_string();
    assert!(text.contains("offset 4 (line 1, column 5)"), "{text}");
    assert!(text.contains("heap 2 is larger than 9 tokens"), "{text}");
    // Within the bound, the same game is decided.
    assert!(analyze_bytes(b"3 9 2\n", Format::Dec, "t", &options("octal:4.7", 9)).is_ok());
}

#[test]
fn the_command_line_reports_misere_play_as_section_12_says() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_nimstream"))
        .args([
            "analyze",
            "fixtures/three-four-five.dec",
            "--game",
            "kayles",
        ])
        .args(["--rule", "misere", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let keys = [
        "\"rule\":\"misere\"",
        "\"quotient\":{\"order\":40,\"preperiod\":71",
    ];
    for key in keys {
        assert!(text.contains(key), "{text}");
    }
    let order = [
        "\"max_bit_length\"",
        "\"quotient\"",
        "\"product\"",
        "\"nim_sum\":null",
    ];
    let at: Vec<usize> = order.iter().map(|key| text.find(key).unwrap()).collect();
    assert!(at.windows(2).all(|w| w[0] < w[1]), "{text}");
    let json: serde_json::Value = serde_json::from_str(&text).unwrap();
    let chosen = &json["move"];
    assert!(chosen.get("to_product").is_some() && chosen.get("from_grundy").is_none());
}

/// Raw arrays of every width with more heaps than the pass reads at once
/// (4,096), a kind first met past the first such piece: the product of the
/// heaps' classes, the winner and the move (the lowest heap with an
/// option into the P-portion, its first such option) against the
/// quotient's product taken heap by heap.
#[test]
fn long_raw_arrays_give_the_product_heap_by_heap() {
    let mut rng = ChaCha8Rng::seed_from_u64(4096);
    let game: Game = "kayles".parse().unwrap();
    let q = Quotient::compute(&game, 4096).unwrap();
    let class = |h: u64| q.class_of(h).unwrap();
    let leave_class = |leave: nimstream::games::Leave| match leave {
        nimstream::games::Leave::Nothing => 0,
        nimstream::games::Leave::One(a) => class(a),
        nimstream::games::Leave::Two(a, b) => q.mul(class(a), class(b)),
    };
    for round in 0..8 {
        let format = [Format::U8, Format::U16le, Format::U32le, Format::U64le][round % 4];
        // A long run of one heap, then heaps of every size up to 199.
        let repeated = rng.random_range(1..200u64);
        let len = rng.random_range(4_100..12_000);
        let heaps: Vec<u64> = (0..len)
            .map(|i| match i < 4_100 + round * 37 {
                true => repeated,
                false => rng.random_range(0..200),
            })
            .collect();
        let big: Vec<BigUint> = heaps.iter().map(|&h| BigUint::from(h)).collect();
        let bytes = encode(format, &big);
        let report = analyze_bytes(&bytes, format, "t", &options("kayles", 4096)).unwrap();
        // Each heap's rest: the product of the others' classes.
        let mut before = vec![0u16; heaps.len() + 1];
        for (i, &h) in heaps.iter().enumerate() {
            before[i + 1] = q.mul(before[i], class(h));
        }
        let mut after = vec![0u16; heaps.len() + 1];
        for (i, &h) in heaps.iter().enumerate().rev() {
            after[i] = q.mul(after[i + 1], class(h));
        }
        let product = before[heaps.len()];
        let winner = match q.is_p(product) {
            true => Player::Second,
            false => Player::First,
        };
        assert_eq!(report.winner, winner, "round {round} {format:?}");
        let expected = heaps.iter().enumerate().find_map(|(i, &h)| {
            let rest = q.mul(before[i], after[i + 1]);
            game.options(h)
                .find(|option| q.is_p(q.mul(rest, leave_class(option.leave))))
                .map(|option| (i as u64, option.take))
        });
        let found = report.misere_move.as_ref().map(|m| (m.heap, m.take));
        assert_eq!(found, expected, "round {round} {format:?}");
    }
}
