//! `updates` (SPEC section 10) against independent references: random
//! instances in every format and random update streams, each position
//! checked against `analyze_bytes` on the heaps as they then are, written
//! out from scratch; the index's size bound; and a stream served through
//! the library, stopping at its first bad line. The command line is
//! tested in `updates_cli.rs`.

use nimstream::report::Value;
use nimstream::updates::{serve, BadLines, Position, Status, Style, UpdateOptions};
use nimstream::workbench::encode::{write_header, write_heap};
use nimstream::{analyze_bytes, Format, Options, Rule};
use num_bigint::BigUint;
use num_traits::Zero;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

// ---------------------------------------------------------------------------
// Instances with random layouts, and where each heap starts.

/// An instance's bytes, and each heap's offset and (text formats) line.
struct Encoded {
    bytes: Vec<u8>,
    offsets: Vec<u64>,
    lines: Vec<Option<u64>>,
}

/// `heaps` in `format`; the token formats get random separators (LFs
/// among them, several heaps a line), hex an occasional `0x`.
fn encode(format: Format, heaps: &[BigUint], rng: &mut ChaCha8Rng) -> Encoded {
    let mut out = Encoded {
        bytes: Vec::new(),
        offsets: Vec::new(),
        lines: Vec::new(),
    };
    write_header(format, &mut out.bytes).unwrap();
    let tokens = matches!(format, Format::Bits | Format::Hex | Format::Dec);
    let separators: [&[u8]; 6] = [b" ", b"\n", b"\t", b"\r\n", b"  \n\n ", b" \t "];
    if tokens && rng.random_bool(0.5) {
        out.bytes.extend_from_slice(b" \n");
    }
    let (mut line, mut lfs_counted_to) = (1, 0);
    for heap in heaps {
        let mut token = Vec::new();
        write_heap(format, limbs(heap).as_slice(), &mut token).unwrap();
        let counted = lfs_counted_to;
        line += out.bytes[counted..].iter().filter(|&&b| b == b'\n').count() as u64;
        lfs_counted_to = out.bytes.len();
        out.offsets.push(out.bytes.len() as u64);
        out.lines.push(format.is_text().then_some(line));
        if tokens {
            token.pop();
            if format == Format::Hex && rng.random_bool(0.2) {
                out.bytes.extend_from_slice(b"0x");
            }
            out.bytes.extend_from_slice(&token);
            out.bytes
                .extend_from_slice(separators[rng.random_range(0..separators.len())]);
        } else {
            out.bytes.extend_from_slice(&token);
        }
    }
    out
}

fn limbs(value: &BigUint) -> Vec<u64> {
    value.to_u64_digits()
}

/// A random heap `format` can hold: long ones where `long`.
fn random_heap(rng: &mut ChaCha8Rng, format: Format, long: bool) -> BigUint {
    let max_bits = match format {
        Format::Unary => 7,
        Format::U8 => 8,
        Format::U16le => 16,
        Format::U32le => 32,
        Format::U64le => 64,
        _ if long => 260,
        _ => 64,
    };
    random_value(rng, max_bits)
}

/// 0, 1, or a value of up to `max_bits` bits, short ones often.
fn random_value(rng: &mut ChaCha8Rng, max_bits: u64) -> BigUint {
    let bits = match rng.random_range(0..8) {
        0 => 0,
        1 => 1,
        2 | 3 => rng.random_range(0..=max_bits.min(6)),
        _ => rng.random_range(0..=max_bits),
    };
    let mut limbs: Vec<u64> = (0..bits.div_ceil(64)).map(|_| rng.random()).collect();
    if let Some(top) = limbs.last_mut() {
        *top >>= (64 - bits % 64) % 64;
    }
    BigUint::from_slice(
        &limbs
            .iter()
            .flat_map(|&l| [l as u32, (l >> 32) as u32])
            .collect::<Vec<_>>(),
    )
}

// ---------------------------------------------------------------------------
// The reference: the heaps as they are, analyzed from scratch.

/// The value object of a number, as the reports write it.
fn value_of(n: &BigUint) -> Value {
    Value {
        bit_length: n.bits(),
        hex: Some(n.to_str_radix(16)),
        dec: Some(n.to_string()),
    }
}

/// Checks `status` against `analyze` of `heaps` written out as hex;
/// `original` says where the heaps not yet updated lie in FILE.
fn check(
    status: &Status,
    heaps: &[BigUint],
    updated: &[bool],
    original: &Encoded,
    rule: Rule,
    moves: bool,
    case: &str,
) {
    let mut text = Vec::new();
    for heap in heaps {
        write_heap(Format::Hex, limbs(heap).as_slice(), &mut text).unwrap();
    }
    let options = Options {
        rule,
        ..Options::default()
    };
    let report = analyze_bytes(&text, Format::Hex, "scratch", &options).unwrap();
    assert_eq!(status.winner, report.winner, "{case}");
    assert_eq!(Some(&status.nim_sum), report.nim_sum.as_ref(), "{case}");
    if !moves {
        assert_eq!(
            (status.winning_moves, &status.winning_move),
            (None, &None),
            "{case}"
        );
        return;
    }
    assert_eq!(status.winning_moves, report.winning_moves, "{case}");
    let ours = status.winning_move.as_ref();
    let theirs = report.winning_move.as_ref();
    assert_eq!(ours.map(|m| m.heap), theirs.map(|m| m.heap), "{case}");
    let (Some(ours), Some(theirs)) = (ours, theirs) else {
        return;
    };
    assert_eq!(
        (&ours.from, &ours.to, &ours.remove),
        (&theirs.from, &theirs.to, &theirs.remove),
        "{case}"
    );
    let heap = ours.heap as usize;
    let (offset, line) = match updated[heap] {
        true => (None, None),
        false => (Some(original.offsets[heap]), original.lines[heap]),
    };
    assert_eq!(
        (ours.offset, ours.line),
        (offset, line),
        "{case}: heap {heap}"
    );
    assert_eq!(ours.from, value_of(&heaps[heap]), "{case}");
}

/// The next update of a random stream: often the same heaps again,
/// values short and long, zeros and ones, and copies of other heaps.
fn random_update(rng: &mut ChaCha8Rng, heaps: &[BigUint], long: bool) -> (usize, BigUint) {
    let n = heaps.len();
    let heap = match rng.random_range(0..4) {
        0 => rng.random_range(0..n.min(3)),
        _ => rng.random_range(0..n),
    };
    let value = match rng.random_range(0..6) {
        0 => heaps[rng.random_range(0..n)].clone(),
        1 => heaps[heap].clone() ^ BigUint::from(1u32),
        _ => random_value(rng, if long { 200 } else { 64 }),
    };
    (heap, value)
}

/// One random instance and stream of `updates` updates, checked after
/// each; `from_file`: read through a file and `Position::open`.
fn run_case(
    format: Format,
    rule: Rule,
    moves: bool,
    seed: u64,
    heaps: usize,
    updates: usize,
    from_file: bool,
) {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let long_file = rng.random_bool(0.3);
    let long_updates = rng.random_bool(0.5);
    let mut current: Vec<BigUint> = (0..heaps)
        .map(|_| random_heap(&mut rng, format, long_file))
        .collect();
    let original = encode(format, &current, &mut rng);
    let options = UpdateOptions {
        format: Some(format),
        rule,
        moves,
        threads: 2,
        ..UpdateOptions::default()
    };
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), &original.bytes).unwrap();
    let mut position = match from_file {
        true => Position::open(file.path(), &options).unwrap(),
        false => Position::from_bytes(&original.bytes, format, "t", &options).unwrap(),
    };
    let mut updated = vec![false; heaps];
    let case = |u: usize| format!("{format} {rule} moves {moves} seed {seed}, update {u}");
    check(
        &position.status().unwrap(),
        &current,
        &updated,
        &original,
        rule,
        moves,
        &case(0),
    );
    if heaps == 0 {
        return;
    }
    for u in 1..=updates {
        let (heap, value) = random_update(&mut rng, &current, long_updates);
        position.set(heap as u64, &limbs(&value)).unwrap();
        current[heap] = value;
        updated[heap] = true;
        let status = position.status().unwrap();
        assert_eq!((status.update, status.heap), (u as u64, Some(heap as u64)));
        check(
            &status,
            &current,
            &updated,
            &original,
            rule,
            moves,
            &case(u),
        );
    }
}

#[test]
fn random_update_streams_match_analysis_from_scratch() {
    let mut seed = 0;
    for format in Format::ALL {
        for rule in [Rule::Normal, Rule::Misere] {
            for moves in [false, true] {
                for (heaps, updates) in [(0, 0), (1, 12), (7, 40), (90, 40)] {
                    seed += 1;
                    run_case(format, rule, moves, seed, heaps, updates, seed % 3 == 0);
                }
            }
        }
    }
}

#[test]
fn many_heaps_cross_samples_blocks_and_tree_levels() {
    // The text formats' short heaps are read in blocks by the initial pass.
    let formats = [
        Format::Dec,
        Format::Bits,
        Format::Hex,
        Format::Unary,
        Format::U32le,
        Format::Nimb,
    ];
    for (k, format) in formats.into_iter().enumerate() {
        for rule in [Rule::Normal, Rule::Misere] {
            run_case(format, rule, true, 1000 + k as u64, 2500, 25, k % 2 == 0);
        }
    }
}

#[test]
fn misere_endgames_of_zeros_and_ones_find_their_heaps() {
    // Updates that empty heaps one by one bring misère's special cases:
    // one heap ≥ 2, then only 1-heaps, then none.
    for format in [Format::Dec, Format::U8] {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut current: Vec<BigUint> = (0..200u32).map(|i| BigUint::from(i % 4)).collect();
        let original = encode(format, &current, &mut rng);
        let options = UpdateOptions {
            rule: Rule::Misere,
            moves: true,
            ..UpdateOptions::default()
        };
        let mut position = Position::from_bytes(&original.bytes, format, "t", &options).unwrap();
        let mut updated = vec![false; current.len()];
        let mut order: Vec<usize> = (0..current.len()).collect();
        order.sort_by_key(|&i| (current[i].clone(), std::cmp::Reverse(i)));
        for (u, &heap) in order.iter().rev().enumerate() {
            let value = match u % 3 {
                0 => BigUint::zero(),
                _ => BigUint::from(u32::from(current[heap] >= BigUint::from(2u32))),
            };
            position.set(heap as u64, &limbs(&value)).unwrap();
            current[heap] = value;
            updated[heap] = true;
            let status = position.status().unwrap();
            check(
                &status,
                &current,
                &updated,
                &original,
                Rule::Misere,
                true,
                &format!("{format} update {u}"),
            );
        }
    }
}

#[test]
fn the_index_takes_at_most_a_byte_a_heap() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let heaps: Vec<BigUint> = (0..100_000).map(|_| random_value(&mut rng, 64)).collect();
    for format in Format::ALL {
        let heaps: Vec<BigUint> = match format.raw_width() {
            Some(width) => heaps
                .iter()
                .map(|h| h % (BigUint::from(1u32) << (8 * width)))
                .collect(),
            None if format == Format::Unary => heaps.iter().map(|h| h % 3u32).collect(),
            None => heaps.clone(),
        };
        let encoded = encode(format, &heaps, &mut rng);
        for moves in [false, true] {
            let options = UpdateOptions {
                moves,
                threads: 2,
                ..UpdateOptions::default()
            };
            let position = Position::from_bytes(&encoded.bytes, format, "t", &options).unwrap();
            let bytes = position.index_bytes();
            assert!(
                bytes <= heaps.len() as u64,
                "{format}, moves {moves}: {bytes} bytes"
            );
            // A raw array needs no offsets: only where each thread's heaps start.
            assert!(
                moves || format.raw_width().is_none() || bytes <= 64,
                "{format}: {bytes}"
            );
        }
    }
}

#[test]
fn serve_answers_every_line_and_stops_at_the_first_bad_one() {
    let options = UpdateOptions::default();
    let mut position = Position::from_bytes(b"3 4 5", Format::Dec, "three", &options).unwrap();
    let mut out = Vec::new();
    let stream = b"0 1\n\n# comment\n2 0x10\n1 12x\n0 0\n";
    let error = serve(
        &mut position,
        &mut &stream[..],
        "u.txt",
        &mut out,
        Style::Json,
        BadLines::Stop,
    )
    .unwrap_err();
    assert_eq!(
        error.to_string(),
        "u.txt: offset 26 (line 5, column 5): expected a decimal digit, found 'x' (0x78)"
    );
    let lines: Vec<&str> = std::str::from_utf8(&out).unwrap().lines().collect();
    assert_eq!(lines.len(), 3, "{lines:?}");
    let last: serde_json::Value = serde_json::from_str(lines[2]).unwrap();
    // Heaps 1, 4, 16.
    assert_eq!(last["nim_sum"]["dec"], "21");
    assert_eq!(last["update"], 2);
    assert_eq!(last["heap"], 2);
}

#[test]
fn serve_reports_a_bad_line_and_goes_on_when_told_to() {
    let options = UpdateOptions::default();
    let mut position = Position::from_bytes(b"3 4 5", Format::Dec, "three", &options).unwrap();
    let (mut out, mut errors) = (Vec::new(), Vec::new());
    // Bad lines met ahead of the one applied, and one after a wait: every
    // good line is answered, each bad one reported once, in order.
    let stream = b"0 1\n7 2\n2 0x10\n1 12x\n\n0 0\nfoo\n";
    serve(
        &mut position,
        &mut &stream[..],
        "-",
        &mut out,
        Style::Json,
        BadLines::Report(&mut errors),
    )
    .unwrap();
    assert_eq!(
        String::from_utf8(errors).unwrap(),
        "error: <stdin>: offset 4 (line 2, column 1): heap 7 is out of range: three has 3 \
         heaps (0 to 2)\n\
         error: <stdin>: offset 19 (line 4, column 5): expected a decimal digit, found 'x' (0x78)\n\
         error: <stdin>: offset 26 (line 7, column 1): expected a heap index (decimal digits), \
         found 'f' (0x66)\n"
    );
    let lines: Vec<serde_json::Value> = std::str::from_utf8(&out)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    // The initial position, then heaps 1 4 5, 1 4 16, 0 4 16.
    let sums: Vec<&str> = lines
        .iter()
        .map(|l| l["nim_sum"]["dec"].as_str().unwrap())
        .collect();
    assert_eq!(sums, ["2", "0", "21", "20"]);
    assert_eq!(lines[3]["update"], 3);
}
