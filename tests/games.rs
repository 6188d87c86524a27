//! Heap games beyond Nim (SPEC section 8) against independent references:
//! a mex computed here from the rules of each game, its period read off
//! that table, num-bigint `%` for the residues of long heaps, and the
//! first option in the specification's order found by brute force.
//! Instances of every format, on every path (threads, `--memory log`,
//! standard input).

use nimstream::games::Game;
use nimstream::workbench::encode::{write_header, write_heap};
use nimstream::{
    analyze_bytes, analyze_path, analyze_reader, Format, MemoryBudget, Options, Player, Report,
};
use num_bigint::BigUint;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Values computed here per game: far past every period of the games
/// tried, so the period read off them is the real one.
const REFERENCE_VALUES: usize = 3000;

/// A heap game by its rule digits: for each take t, whether it may leave
/// no heap, one heap, two heaps (the octal code), or the subtraction set.
struct Rules {
    /// `digits[t]`, t from 0.
    digits: Vec<u8>,
}

impl Rules {
    fn octal(code: &str) -> Rules {
        let (whole, rest) = code.split_once('.').unwrap();
        let mut digits = vec![whole.parse().unwrap()];
        digits.extend(rest.bytes().map(|b| b - b'0'));
        Rules { digits }
    }

    fn subtraction(set: &[usize]) -> Rules {
        let mut digits = vec![0; set.iter().max().unwrap() + 1];
        set.iter().for_each(|&t| digits[t] = 3);
        Rules { digits }
    }

    /// Every option of heap `h`: (take, the heaps left), in the
    /// specification's order.
    fn options(&self, h: usize) -> Vec<(usize, Vec<usize>)> {
        let mut options = Vec::new();
        for (t, &d) in self.digits.iter().enumerate().take(h + 1) {
            if d & 1 != 0 && t == h {
                options.push((t, vec![]));
            }
            if d & 2 != 0 && t < h {
                options.push((t, vec![h - t]));
            }
            if d & 4 != 0 && t < h {
                for a in 1..=(h - t) / 2 {
                    options.push((t, vec![a, h - t - a]));
                }
            }
        }
        options
    }

    /// g(0), g(1), … by the mex of the options' values.
    fn values(&self, n: usize) -> Vec<u64> {
        let mut g: Vec<u64> = Vec::with_capacity(n);
        for h in 0..n {
            let seen: std::collections::HashSet<u64> = self
                .options(h)
                .iter()
                .map(|(_, left)| left.iter().fold(0, |x, &part| x ^ g[part]))
                .collect();
            g.push((0..).find(|v| !seen.contains(v)).unwrap());
        }
        g
    }
}

/// The least period q and its least preperiod p of `values`, judged on
/// the table's second half (the games tried settle long before it).
fn period_of(values: &[u64]) -> (usize, usize) {
    let n = values.len();
    let q = (1..n / 4)
        .find(|&q| (n / 2..n - q).all(|h| values[h] == values[h + q]))
        .expect("a period within the table");
    let p = (0..n / 2)
        .rev()
        .find(|&h| values[h] != values[h + q])
        .map_or(0, |h| h + 1);
    (p, q)
}

/// A game and its reference values.
struct Reference {
    name: &'static str,
    game: Game,
    rules: Rules,
    values: Vec<u64>,
    period: (usize, usize),
}

impl Reference {
    fn new(name: &'static str, rules: Rules) -> Reference {
        let values = rules.values(REFERENCE_VALUES);
        let period = period_of(&values);
        Reference {
            name,
            game: name.parse().unwrap(),
            rules,
            values,
            period,
        }
    }

    /// g(h) for a heap of any size.
    fn grundy(&self, h: &BigUint) -> u64 {
        let (p, q) = self.period;
        let index = match usize::try_from(h) {
            Ok(small) if small < p + q => small,
            _ => {
                p + ((h - BigUint::from(p)) % BigUint::from(q))
                    .to_u64_digits()
                    .first()
                    .copied()
                    .unwrap_or(0) as usize
            }
        };
        self.values[index]
    }
}

fn references() -> Vec<Reference> {
    vec![
        Reference::new("kayles", Rules::octal("0.77")),
        Reference::new("dawsons-kayles", Rules::octal("0.07")),
        Reference::new("dawsons-chess", Rules::octal("0.137")),
        Reference::new("octal:0.4", Rules::octal("0.4")),
        Reference::new("octal:4.7", Rules::octal("4.7")),
        Reference::new("sub:1,3,4", Rules::subtraction(&[1, 3, 4])),
        Reference::new("sub:2,5,7", Rules::subtraction(&[2, 5, 7])),
    ]
}

#[test]
fn the_anchors_of_the_specification_come_out_of_the_reference() {
    let refs = references();
    assert_eq!(refs[0].period, (71, 12), "Kayles");
    assert_eq!(refs[1].period.1, 34, "Dawson's Kayles");
    assert_eq!(refs[2].period.1, 34, "Dawson's chess");
    assert_eq!(refs[3].period, (54, 34), "octal:0.4");
}

/// A random heap: mostly small, some around the period, some long.
fn random_heap(rng: &mut ChaCha8Rng, max_bits: u64) -> BigUint {
    let bits = match rng.random_range(0..4) {
        0 => rng.random_range(0..4),
        1 => rng.random_range(0..12),
        2 => rng.random_range(0..20),
        _ => rng.random_range(0..=max_bits),
    }
    .min(max_bits);
    let limbs: Vec<u64> = (0..bits.div_ceil(64)).map(|_| rng.random()).collect();
    let value = BigUint::from_slice(
        &limbs
            .iter()
            .flat_map(|&l| [l as u32, (l >> 32) as u32])
            .collect::<Vec<u32>>(),
    );
    value % (BigUint::from(1u8) << bits).max(BigUint::from(1u8))
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

/// The heap's value as a report writes it (inline).
fn decimal(value: &serde_json::Value) -> BigUint {
    value["dec"].as_str().unwrap().parse().unwrap()
}

/// Checks a report against the reference: the sum, the winner, and the
/// move (the first option, in order, that leaves a sum of 0).
fn check(reference: &Reference, heaps: &[BigUint], report: &Report, context: &str) {
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    let values: Vec<u64> = heaps.iter().map(|h| reference.grundy(h)).collect();
    let sum = values.iter().fold(0, |x, &v| x ^ v);
    assert_eq!(json["game"], reference.game.to_string(), "{context}");
    assert_eq!(json["grundy_sum"], sum, "{context}");
    assert_eq!(json["nim_sum"], serde_json::Value::Null, "{context}");
    let winner = if sum != 0 {
        Player::First
    } else {
        Player::Second
    };
    assert_eq!(report.winner, winner, "{context}");
    let chosen = &json["move"];
    if sum == 0 {
        assert!(chosen.is_null(), "{context}");
        return;
    }
    let msb = 63 - sum.leading_zeros();
    let index = values.iter().position(|&v| v >> msb & 1 == 1).unwrap();
    assert_eq!(chosen["heap"], index as u64, "{context}");
    let h = &heaps[index];
    let target = values[index] ^ sum;
    assert_eq!(chosen["from_grundy"], values[index], "{context}");
    assert_eq!(chosen["to_grundy"], target, "{context}");
    assert_eq!(decimal(&chosen["from"]), *h, "{context}");
    let take = chosen["take"].as_u64().unwrap() as usize;
    let left: Vec<BigUint> = chosen["leave"]
        .as_array()
        .unwrap()
        .iter()
        .map(decimal)
        .collect();
    let total = left.iter().fold(BigUint::from(take), |x, part| x + part);
    assert_eq!(total, *h, "{context}: the parts and the take make the heap");
    let left_value = left.iter().fold(0, |x, part| x ^ reference.grundy(part));
    assert_eq!(left_value, target, "{context}");
    let value_of = |p: usize| reference.grundy(&BigUint::from(p));
    if let Some(small) = usize::try_from(h)
        .ok()
        .filter(|&h| h <= 4 * REFERENCE_VALUES)
    {
        let first = reference
            .rules
            .options(small)
            .into_iter()
            .find(|(_, parts)| parts.iter().fold(0, |x, &p| x ^ value_of(p)) == target)
            .unwrap();
        let parts: Vec<BigUint> = first.1.iter().map(|&p| BigUint::from(p)).collect();
        assert_eq!(
            (take, &left),
            (first.0, &parts),
            "{context}: the first option"
        );
    }
}

#[test]
fn random_instances_of_every_format_match_the_reference() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    for reference in references() {
        for (round, &format) in Format::ALL.iter().cycle().take(36).enumerate() {
            let max_bits = match format {
                Format::Unary => 11,
                other => other.raw_width().map_or(700, |w| 8 * w as u64),
            };
            let count = rng.random_range(0..40);
            let heaps: Vec<BigUint> = (0..count)
                .map(|_| random_heap(&mut rng, max_bits))
                .collect();
            let bytes = encode(format, &heaps);
            let options = Options {
                game: reference.game.clone(),
                format: Some(format),
                threads: 1 + round % 3,
                memory: match round % 4 {
                    3 => MemoryBudget::Log,
                    _ => MemoryBudget::default(),
                },
                inline_bits: 1 << 16,
                ..Options::default()
            };
            let context = format!("{} {format} round {round}", reference.name);
            check_bytes_and_stream(&reference, &heaps, &bytes, &options, &context);
        }
    }
}

/// Checks the reports of `bytes` (of `heaps`) read from memory and as a
/// stream against the reference.
fn check_bytes_and_stream(
    reference: &Reference,
    heaps: &[BigUint],
    bytes: &[u8],
    options: &Options,
    context: &str,
) {
    let format = options.format.expect("a format");
    let report = analyze_bytes(bytes, format, "t", options).unwrap();
    check(reference, heaps, &report, context);
    let streamed = analyze_reader(&mut &bytes[..], format, "-", options).unwrap();
    check(reference, heaps, &streamed, &format!("{context} (stream)"));
}

#[test]
fn thousands_of_short_heaps_of_the_text_formats_match_the_reference() {
    // Read in runs of 64-byte blocks: from memory, a stream and a file, by
    // the one pass on two threads and by the passes under `--memory log`.
    let mut rng = ChaCha8Rng::seed_from_u64(15);
    let dir = tempfile::tempdir().unwrap();
    for reference in references() {
        for format in [Format::Bits, Format::Hex, Format::Dec, Format::Unary] {
            let max_bits = if format == Format::Unary { 10 } else { 64 };
            let heaps: Vec<BigUint> = (0..3000).map(|_| random_heap(&mut rng, max_bits)).collect();
            let bytes = encode(format, &heaps);
            let path = dir.path().join(format!("short.{}", format.name()));
            std::fs::write(&path, &bytes).unwrap();
            for memory in [MemoryBudget::default(), MemoryBudget::Log] {
                let options = Options {
                    game: reference.game.clone(),
                    format: Some(format),
                    threads: 2,
                    memory,
                    inline_bits: 1 << 16,
                    ..Options::default()
                };
                let context = format!("{} {format} --memory {memory}", reference.name);
                check_bytes_and_stream(&reference, &heaps, &bytes, &options, &context);
                let from_file = analyze_path(&path, &options).unwrap();
                check(&reference, &heaps, &from_file, &format!("{context} (file)"));
            }
        }
    }
}

#[test]
fn nim_reports_are_unchanged_but_for_the_game() {
    let options = Options::default();
    let report = analyze_bytes(b"3 4 5\n", Format::Dec, "t", &options).unwrap();
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["game"], "nim");
    assert!(json.get("grundy").is_none() && json.get("grundy_sum").is_none());
    assert_eq!(json["move"]["to"]["dec"], "1");
}

#[test]
fn misere_with_another_game_is_decided_by_its_misere_quotient() {
    let options = Options {
        game: "kayles".parse().unwrap(),
        rule: nimstream::Rule::Misere,
        ..Options::default()
    };
    // A row of 3 pins: knocking out two leaves one pin, which the opponent
    // must take, taking the last (knocking out the middle one would leave
    // 1 + 1, and the last pin to the player who moved first).
    let report = analyze_bytes(b"3\n", Format::Dec, "t", &options).unwrap();
    assert_eq!(report.winner, Player::First);
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["rule"], "misere");
    assert_eq!(json["quotient"]["order"], 40);
    assert!(json.get("grundy").is_none() && json.get("grundy_sum").is_none());
    assert_eq!(json["move"]["take"], 2);
    let leave: Vec<&str> = json["move"]["leave"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["dec"].as_str().unwrap())
        .collect();
    assert_eq!(leave, ["1"]);
}

#[test]
fn the_parts_a_move_leaves_on_a_long_heap_are_written_out_exactly() {
    let reference = &references()[0];
    let dir = tempfile::tempdir().unwrap();
    let parts_path = dir.path().join("parts.bits");
    let mut rng = ChaCha8Rng::seed_from_u64(8);
    for round in 0..24 {
        let long = random_heap(&mut rng, 5000) + (BigUint::from(1u8) << (4000 + round * 7));
        let heaps = vec![
            long,
            BigUint::from(5u8),
            BigUint::from(rng.random_range(0..200u32)),
        ];
        let format = [Format::Bits, Format::Hex, Format::Dec, Format::Nimb][round as usize % 4];
        let bytes = encode(format, &heaps);
        let options = Options {
            game: reference.game.clone(),
            inline_bits: 64,
            move_out: Some(parts_path.clone()),
            ..Options::default()
        };
        let report = match round % 2 {
            0 => analyze_bytes(&bytes, format, "t", &options),
            _ => analyze_reader(&mut &bytes[..], format, "-", &options),
        }
        .unwrap();
        let Some(chosen) = report.game_move else {
            let sum = heaps.iter().fold(0, |x, h| x ^ reference.grundy(h));
            assert_eq!(sum, 0, "round {round}: no move on a won position");
            continue;
        };
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
        assert!(
            parts.windows(2).all(|w| w[0] <= w[1]),
            "round {round}: smaller first"
        );
        let bit_lengths: Vec<u64> = chosen.leave.iter().map(|v| v.bit_length).collect();
        let want: Vec<u64> = parts.iter().map(|p| p.bits()).collect();
        assert_eq!(bit_lengths, want, "round {round}");
        let left = parts.iter().fold(0, |x, p| x ^ reference.grundy(p));
        assert_eq!(chosen.to_grundy, left, "round {round}");
        let others = heaps
            .iter()
            .enumerate()
            .filter(|&(i, _)| i as u64 != chosen.heap)
            .fold(0, |x, (_, h)| x ^ reference.grundy(h));
        assert_eq!(
            left ^ others,
            0,
            "round {round}: the move leaves a sum of 0"
        );
    }
}

/// Runs the binary; its standard output, standard error and exit status.
fn nimstream(args: &[&str]) -> (String, String, i32) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_nimstream"))
        .args(args)
        .output()
        .unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (
        text(out.stdout),
        text(out.stderr),
        out.status.code().unwrap(),
    )
}

#[test]
fn the_command_line_runs_each_game_command() {
    let (json, _, status) = nimstream(&[
        "analyze",
        "fixtures/three-four-five.dec",
        "--game",
        "kayles",
        "--json",
    ]);
    assert_eq!(status, 0);
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        report["grundy"],
        serde_json::json!({"preperiod": 71, "period": 12, "values_computed": 168})
    );
    assert_eq!(
        (
            report["grundy_sum"].as_u64(),
            report["move"]["take"].as_u64()
        ),
        (Some(6), Some(1))
    );
    let (text, _, status) = nimstream(&["grundy", "sub:4,1,3", "--values", "12", "--heap", "1000"]);
    assert_eq!(status, 0);
    assert!(
        text.starts_with("game      sub:1,3,4\nvalues    periodic from 0 with period 7\n"),
        "{text}"
    );
    assert!(text.ends_with("g(1000) = 2\n"), "{text}");
    let (text, _, status) = nimstream(&["verify", "--game", "dawsons-chess", "--max-heaps", "2"]);
    assert_eq!(status, 0, "{text}");
    assert_eq!(
        text,
        "checked 183 instances of octal:0.137 (up to 2 heaps of at most 12): all agree\n"
    );
}

#[test]
fn the_command_line_refuses_what_it_cannot_do() {
    let (_, error, status) = nimstream(&["grundy", "octal:0.9"]);
    assert_eq!(status, 2, "{error}");
    let (_, error, status) = nimstream(&[
        "analyze",
        "fixtures/three-four-five.dec",
        "--game",
        "octal:0.6",
        "--max-values",
        "4",
    ]);
    assert_eq!(status, 1, "{error}");
    assert!(
        error.contains("offset 2 (line 1, column 3): heap 1 lies past the 4 values computed"),
        "{error}"
    );
}

#[test]
fn a_stream_under_log_reports_a_move_on_a_heap_longer_than_its_window() {
    let reference = &references()[0];
    let mut rng = ChaCha8Rng::seed_from_u64(18);
    let mut moves = 0;
    for round in 0..16 {
        let long = random_heap(&mut rng, 64) + (BigUint::from(1u8) << (20_000 + round));
        let heaps = vec![long, BigUint::from(rng.random_range(0..100u32))];
        let bytes = encode(Format::Bits, &heaps);
        let options = Options {
            game: reference.game.clone(),
            memory: MemoryBudget::Log,
            ..Options::default()
        };
        let streamed = analyze_reader(&mut &bytes[..], Format::Bits, "t", &options).unwrap();
        let from_file = analyze_bytes(&bytes, Format::Bits, "t", &options).unwrap();
        let facts = |report: &Report| {
            let mut json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
            json.as_object_mut().unwrap().remove("stats");
            json
        };
        assert_eq!(facts(&streamed), facts(&from_file), "round {round}");
        let sum = heaps.iter().fold(0, |x, h| x ^ reference.grundy(h));
        assert_eq!(from_file.grundy_sum, Some(sum), "round {round}");
        if let Some(chosen) = from_file.game_move.as_ref().filter(|m| m.heap == 0) {
            let lengths: Vec<u64> = chosen.leave.iter().map(|v| v.bit_length).collect();
            let h = &heaps[chosen.heap as usize];
            assert!(
                lengths.iter().any(|&bits| bits + 1 >= h.bits()),
                "round {round}"
            );
        }
        moves += usize::from(streamed.game_move.is_some());
    }
    assert!(moves > 4, "the rounds play moves ({moves})");
}

#[test]
fn tokens_read_in_pieces_from_a_file_match_the_same_bytes_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(128);
    for reference in references().iter().take(3) {
        for format in [Format::Bits, Format::Hex] {
            // Tokens of more digits than a read's 1 MiB, one of them all
            // but 60 bits leading zeros, between short ones.
            let bits_per_digit = match format {
                Format::Hex => 4,
                _ => 1,
            };
            let long = |rng: &mut ChaCha8Rng, digits: u64| {
                let bits = digits * bits_per_digit;
                random_heap(rng, bits) | (BigUint::from(1u8) << bits)
            };
            let heaps = vec![
                long(&mut rng, 1_500_000),
                BigUint::from(rng.random_range(0..1000u32)),
                long(&mut rng, 2_000_003),
                long(&mut rng, 1_100_001),
            ];
            let mut bytes = encode(format, &heaps);
            let last = match format {
                Format::Hex => 0x101u32,
                _ => 0b101,
            };
            bytes.extend(std::iter::repeat_n(b'0', 1_200_000));
            bytes.extend_from_slice(b"101\n");
            let path = dir.path().join("long");
            std::fs::write(&path, &bytes).unwrap();
            for no_mmap in [false, true] {
                let options = Options {
                    game: reference.game.clone(),
                    format: Some(format),
                    threads: 2,
                    no_mmap,
                    inline_bits: 64,
                    ..Options::default()
                };
                let facts = |report: Report| {
                    let mut json: serde_json::Value =
                        serde_json::from_str(&report.to_json()).unwrap();
                    let object = json.as_object_mut().unwrap();
                    object.remove("stats");
                    object.remove("input");
                    json
                };
                let in_memory = analyze_bytes(&bytes, format, "t", &options).unwrap();
                let sum = heaps
                    .iter()
                    .chain([&BigUint::from(last)])
                    .fold(0, |x, h| x ^ reference.grundy(h));
                assert_eq!(
                    in_memory.grundy_sum,
                    Some(sum),
                    "{} {format}",
                    reference.name
                );
                let from_file = nimstream::analyze_path(&path, &options).unwrap();
                assert_eq!(
                    facts(from_file),
                    facts(in_memory),
                    "{} {format} no_mmap {no_mmap}",
                    reference.name
                );
            }
        }
    }
}

#[test]
fn grundy_computes_the_values_max_values_asks_for_and_says_so() {
    // octal:0.6 proves no period within 100 values: the table, the count
    // and the error all speak of the 100 asked for, not of the 120 shown
    // by default.
    let (text, _, status) = nimstream(&["grundy", "octal:0.6", "--max-values", "100"]);
    assert_eq!(status, 0);
    assert!(
        text.contains("values    no period proven within 100 values\n"),
        "{text}"
    );
    assert!(text.contains("computed  100 values in "), "{text}");
    let is_row = |line: &&str| {
        line.split(':')
            .next()
            .unwrap()
            .trim()
            .parse::<u64>()
            .is_ok()
    };
    let rows: Vec<&str> = text.lines().filter(is_row).collect();
    let shown: usize = rows
        .iter()
        .map(|row| row.split_whitespace().count() - 1)
        .sum();
    assert_eq!(shown, 100, "{text}");
    let (_, error, status) = nimstream(&[
        "grundy",
        "octal:0.6",
        "--max-values",
        "100",
        "--heap",
        "1000",
    ]);
    assert_eq!(status, 2, "{error}");
    assert!(
        error.starts_with("error: heap 1000 lies past the 100 values computed for octal:0.6,"),
        "{error}"
    );
    // With a period proven, --values shows as many as asked, from it.
    let (text, _, _) = nimstream(&["grundy", "kayles", "--values", "240", "--max-values", "200"]);
    assert!(
        text.contains("\n     228:   4   1   2   8   1   4   7   2   1   8   2   7\n"),
        "{text}"
    );
}
