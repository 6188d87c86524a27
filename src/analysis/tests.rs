//! The analysis's two algorithms held against each other: one pass over a
//! file, on 1–4 threads with reads of a few bytes (so that small inputs get
//! many ranges, many reads and tokens read in pieces), against the windowed
//! passes over the same bytes in memory, on random instances of every
//! format, both rules and `--decide`; and the ways the one pass carries on
//! when it cannot finish alone.

use super::budget::{Plan, Shape};
use super::entry::analyze;
use super::facts::Facts;
use super::nim::run::analyze_under;
use super::{MemoryBudget, Options, Rule};
use crate::error::Error;
use crate::input::source::Input;
use crate::input::{Format, HeapValue};
use crate::report::{InputInfo, Report};
use crate::workbench::encode::{write_header, write_heap};
use num_bigint::BigUint;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::Write;

/// The plan of `options` with tiny reads, so that small inputs get many
/// ranges and many reads.
fn tiny(options: &Options, len: u64, format: Format, one_pass: bool) -> Plan {
    let shape = Shape {
        len: Some(len),
        format,
        threads: options.threads,
    };
    let mut plan = options.memory.plan_for(&shape, one_pass);
    for reads in [&mut plan.first, &mut plan.later] {
        reads.read_bytes = 5;
        reads.min_range_bytes = 1;
        reads.max_buffered_heap_bytes = reads.max_buffered_heap_bytes.min(1 << 10);
    }
    plan
}

/// A file holding `data`.
fn file_of(data: &[u8]) -> tempfile::NamedTempFile {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(data).unwrap();
    file
}

/// One pass over `data` written to a file, with tiny reads; `map`: whether
/// heaps too long to buffer may be read from a map.
fn one_pass(data: &[u8], format: Format, options: &Options, map: bool) -> Result<Facts, Error> {
    let file = file_of(data);
    let mut input = Input::open(file.path(), "t", map).unwrap();
    let plan = tiny(options, data.len() as u64, format, true);
    analyze_under(plan, &mut input, format, options)
}

/// The windowed passes over `data` in memory, under the budget of
/// `options`.
fn windowed(data: &[u8], format: Format, options: &Options) -> Result<Facts, Error> {
    let mut input = Input::memory(data, "t");
    let plan = tiny(options, data.len() as u64, format, false);
    analyze_under(plan, &mut input, format, options)
}

/// The report of `facts` as JSON, without its measured stats (and, under
/// `--decide`, without what the two algorithms may or may not know).
fn report_of(facts: Facts, data: &[u8], format: Format, options: &Options) -> serde_json::Value {
    let input = InputInfo {
        path: "t".into(),
        format,
        bytes: data.len() as u64,
    };
    let report = Report::new(facts, input, options.rule);
    let mut json = serde_json::to_value(&report).unwrap();
    let object = json.as_object_mut().unwrap();
    object.remove("stats");
    if options.decide {
        // These may be null under --decide (SPEC section 3); one pass
        // knows them anyway, the windowed passes stop before.
        for known_or_null in ["nim_sum", "msb", "winning_moves", "move"] {
            object.remove(known_or_null);
        }
    }
    json
}

/// One pass against the windowed passes over the same bytes: the same
/// report, or the same error.
fn compare(data: &[u8], format: Format, options: &Options) {
    compare_with(data, format, options, options);
}

/// [`compare`], the windowed passes under `slow`'s budget and threads.
fn compare_with(data: &[u8], format: Format, options: &Options, slow: &Options) {
    let context = || format!("{format:?} {slow:?} {:?}", String::from_utf8_lossy(data));
    match (
        one_pass(data, format, options, true),
        windowed(data, format, slow),
    ) {
        (Ok(fast), Ok(slow)) => assert_eq!(
            report_of(fast, data, format, options),
            report_of(slow, data, format, options),
            "{}",
            context()
        ),
        (Err(fast), Err(slow)) => assert_eq!(fast.to_string(), slow.to_string(), "{}", context()),
        (fast, slow) => panic!("one pass {fast:?}, windowed {slow:?}: {}", context()),
    }
}

/// A random instance: many zeros and ones, a few long heaps, values within
/// the format's width, odd separators.
fn instance(rng: &mut ChaCha8Rng, format: Format) -> Vec<u8> {
    let max_bits = match format {
        Format::Unary => 7,
        other => other.raw_width().map_or(200, |w| 8 * w as u32),
    };
    let mut out = Vec::new();
    write_header(format, &mut out).unwrap();
    for _ in 0..rng.random_range(0..60) {
        let bits = match rng.random_range(0..4) {
            0 => 0,
            1 => 1,
            _ => rng.random_range(0..=max_bits),
        };
        let mut limbs: Vec<u64> = (0..bits.div_ceil(64)).map(|_| rng.random()).collect();
        if let Some(top) = limbs.last_mut() {
            *top >>= (64 - bits % 64) % 64;
            *top |= 1 << ((bits + 63) % 64);
        }
        write_heap(format, &HeapValue::Limbs(limbs), &mut out).unwrap();
        if format.is_text() && format != Format::Unary && rng.random_range(0..3) == 0 {
            out.extend_from_slice(&b" \r\n\t"[..rng.random_range(1..4)]);
        }
    }
    out
}

/// Options that vary with the round: 1–4 threads, both rules, and
/// `--decide` now and then.
fn round_options(round: usize) -> Options {
    Options {
        threads: 1 + round % 4,
        rule: if round.is_multiple_of(2) {
            Rule::Normal
        } else {
            Rule::Misere
        },
        decide: round.is_multiple_of(7),
        ..Options::default()
    }
}

#[test]
fn ranges_on_many_threads_agree_with_the_windowed_passes() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    for format in Format::ALL {
        for round in 0..60 {
            let data = instance(&mut rng, format);
            let options = round_options(round);
            compare(&data, format, &options);
            // And the windowed passes of `log`, on two ranges.
            let log = Options {
                memory: MemoryBudget::Log,
                threads: 2,
                ..options.clone()
            };
            compare_with(&data, format, &options, &log);
        }
    }
}

#[test]
fn errors_are_the_earliest_with_line_and_column() {
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    for format in Format::ALL {
        for _ in 0..40 {
            let mut data = instance(&mut rng, format);
            if data.is_empty() {
                continue;
            }
            for _ in 0..rng.random_range(1..3) {
                let at = rng.random_range(0..data.len());
                data[at] = [b'x', 0x0c, b'2', 0xff][rng.random_range(0..4)];
            }
            if format.raw_width().is_some() {
                data.push(7);
            }
            let options = Options {
                threads: 3,
                ..Options::default()
            };
            compare(&data, format, &options);
        }
    }
}

#[test]
fn long_decimals_in_pieces_and_long_lines_in_place_in_the_one_pass() {
    let long_dec = HeapValue::Limbs((1..=160u64).map(|i| i.wrapping_mul(0x9E37_79B9)).collect());
    for (format, value) in [
        (Format::Dec, long_dec),
        (Format::Unary, HeapValue::Word(3000)),
    ] {
        let mut data = Vec::new();
        for heap in [&HeapValue::Word(1), &value, &HeapValue::Word(2)] {
            write_heap(format, heap, &mut data).unwrap();
        }
        let options = Options::default();
        let expected = report_of(
            windowed(&data, format, &options).unwrap(),
            &data,
            format,
            &options,
        );
        // The decimal in pieces; the line from the map, and without one
        // into a buffer that grows.
        for map in [true, false] {
            let facts = one_pass(&data, format, &options, map).unwrap();
            assert_eq!(facts.stats.passes, 1, "{format:?}");
            assert_eq!(
                report_of(facts, &data, format, &options),
                expected,
                "{format:?} {map}"
            );
        }
    }
}

/// Random digits of `len` bits for `format`, led by `zeros` zero digits
/// (and a `0x` in hex, now and then).
fn long_token(rng: &mut ChaCha8Rng, format: Format, len: usize, zeros: usize) -> Vec<u8> {
    let alphabet: &[u8] = match format {
        Format::Hex => b"0123456789abcdefABCDEF",
        _ => b"01",
    };
    let prefix: &[u8] = match format {
        Format::Hex if rng.random_range(0..2) == 0 => b"0x",
        _ => b"",
    };
    let digits = len.div_ceil(if format == Format::Hex { 4 } else { 1 });
    let mut token = prefix.to_vec();
    token.extend(std::iter::repeat_n(b'0', zeros));
    token.push(b'1');
    token.extend((1..digits).map(|_| alphabet[rng.random_range(0..alphabet.len())]));
    token
}

#[test]
fn long_bits_and_hex_tokens_are_read_in_pieces_in_one_pass() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    for format in [Format::Bits, Format::Hex] {
        for round in 0..60usize {
            let mut data = Vec::new();
            for _ in 0..rng.random_range(1..8) {
                let len = match rng.random_range(0..3) {
                    0 => rng.random_range(1..8),
                    _ => rng.random_range(100..3000),
                };
                let zeros = [0, 0, 3, 70][rng.random_range(0..4)];
                data.extend(long_token(&mut rng, format, len, zeros));
                data.extend_from_slice(&b" \n\r\t"[..rng.random_range(1..4)]);
            }
            let options = Options {
                // Short enough that most moves on long heaps are reported
                // from their top limbs.
                inline_bits: if round.is_multiple_of(3) { 64 } else { 4096 },
                ..round_options(round)
            };
            compare(&data, format, &options);
        }
    }
}

#[test]
fn a_move_on_a_long_heap_reads_it_again() {
    let mut rng = ChaCha8Rng::seed_from_u64(14);
    for format in [Format::Bits, Format::Hex] {
        let long = long_token(&mut rng, format, 2000, 5);
        // Normal play: the XOR move is on the long heap; misère with one
        // big heap among ones: it is left with 0 or 1.
        for (ones, rule) in [(0, Rule::Normal), (1, Rule::Misere), (2, Rule::Misere)] {
            let mut data = b"1 ".repeat(ones);
            data.extend_from_slice(&long);
            let tail: &[u8] = match rule {
                Rule::Normal => b"\n11 10\n",
                Rule::Misere => b"\n",
            };
            data.extend_from_slice(tail);
            let options = Options {
                rule,
                threads: 2,
                ..Options::default()
            };
            for map in [true, false] {
                let fast = one_pass(&data, format, &options, map).unwrap();
                let chosen = fast.winning_move.as_ref().expect("a move");
                assert_eq!(chosen.heap, ones as u64, "{format:?} {rule:?}");
            }
            compare(&data, format, &options);
        }
    }
}

#[test]
fn an_msb_below_the_counted_limbs_takes_one_more_pass() {
    // Two equal long heaps cancel; the nim-sum is a small heap's, below the
    // top positions the one pass counted.
    let big = format!("1{} ", "0".repeat(300));
    let data = format!("{big}{big}101");
    let options = Options::default();
    let facts = one_pass(data.as_bytes(), Format::Bits, &options, true).unwrap();
    assert_eq!(
        facts.stats.passes, 2,
        "one pass, then the first-holder search"
    );
    // Both passes, the few bytes read to count the move's line, and on
    // each of the two ranges the try to read the long tokens from its end
    // (a separator's read and a chunk, of 64 bytes and 2 below it, under
    // tiny reads), which the short last token stops.
    let twice = 2 * data.len() as u64;
    let tries = 2 * (16 + 66);
    assert!((twice..twice + 16 + tries).contains(&facts.stats.bytes_scanned));
    compare(data.as_bytes(), Format::Bits, &options);
    let decided = Options {
        decide: true,
        ..Options::default()
    };
    compare(data.as_bytes(), Format::Bits, &decided);
}

#[test]
fn a_heap_longer_than_the_window_leaves_the_rest_to_the_windows() {
    let data = format!("{} 11 {}\n", "1".repeat(700), "10".repeat(300));
    let options = Options {
        memory: MemoryBudget::Bytes(64),
        ..Options::default()
    };
    let file = file_of(data.as_bytes());
    let mut input = Input::open(file.path(), "t", true).unwrap();
    let mut plan = tiny(&options, data.len() as u64, Format::Bits, true);
    plan.window_bits = 512;
    let facts = analyze_under(plan, &mut input, Format::Bits, &options).unwrap();
    // The one pass, two windows, the first-holder search.
    assert_eq!(facts.stats.passes, 4);
    let expected = windowed(data.as_bytes(), Format::Bits, &options).unwrap();
    let json = |facts| report_of(facts, data.as_bytes(), Format::Bits, &options);
    assert_eq!(json(facts), json(expected));
}

#[test]
fn a_file_that_shrinks_while_read_is_an_error() {
    let data: Vec<u8> = (0..40_000)
        .flat_map(|i| format!("{i} ").into_bytes())
        .collect();
    let file = file_of(&data);
    let mut input = Input::open(file.path(), "t", true).unwrap();
    file.as_file().set_len(data.len() as u64 / 2).unwrap();
    let options = Options {
        threads: 2,
        ..Options::default()
    };
    let plan = tiny(&options, data.len() as u64, Format::Dec, true);
    let error = analyze_under(plan, &mut input, Format::Dec, &options).unwrap_err();
    assert!(
        error.to_string().contains("changed while being read"),
        "{error}"
    );
}

#[test]
fn small_budgets_take_the_windowed_passes_on_one_thread() {
    let file = file_of(b"1 10 111");
    let options = Options {
        memory: MemoryBudget::Bytes(1 << 20),
        threads: 4,
        ..Options::default()
    };
    let mut input = Input::open(file.path(), "t", true).unwrap();
    let facts = analyze(&mut input, Format::Bits, &options).unwrap();
    // The survey holds the whole nim-sum; the first-holder search.
    assert_eq!((facts.stats.passes, facts.stats.threads), (2, 1));
}

/// `report` without what depends on the encoding: the input, and the
/// move's offset.
fn without_offsets(mut report: serde_json::Value) -> serde_json::Value {
    let object = report.as_object_mut().unwrap();
    object.remove("input");
    if let Some(serde_json::Value::Object(found)) = object.get_mut("move") {
        found.remove("offset");
    }
    report
}

/// The facts of `data` read from a map (`how` 0), by positioned reads (1)
/// or as a stream (2).
fn read_facts(data: &[u8], format: Format, options: &Options, how: usize) -> Facts {
    let facts = match how {
        0 | 1 => {
            let file = file_of(data);
            let mut input = Input::open(file.path(), "t", how == 0).unwrap();
            analyze(&mut input, format, options)
        }
        _ => {
            let mut input = Input::stream(Box::new(data), "t");
            analyze(&mut input, format, options)
        }
    };
    facts.unwrap()
}

/// The report of `data` without offsets, read as [`read_facts`] reads it.
fn read_report(data: &[u8], format: Format, options: &Options, how: usize) -> serde_json::Value {
    let facts = read_facts(data, format, options, how);
    without_offsets(report_of(facts, data, format, options))
}

#[test]
fn short_decimals_taken_in_blocks_give_the_report_of_the_same_heaps_in_binary() {
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    for round in 0..40 {
        // Blocks of up to 256 heaps: full ones, a heap ≥ 2^64 now and then
        // (taken one by one), zeros and ones, the first 1 late, and in
        // some rounds no heap above 1.
        let count = rng.random_range(0..1500);
        let first_one = rng.random_range(0..2000);
        let (mut dec, mut bits) = (Vec::new(), Vec::new());
        for i in 0..count {
            let value: u128 = match rng.random_range(0..8) {
                0 => 0,
                // Heaps of 0 and 1 only: the move takes the first 1.
                _ if round % 5 == 4 => u128::from(i >= first_one && rng.random_bool(0.5)),
                1 if i >= first_one => 1,
                2 if round % 4 < 2 => rng.random::<u128>() >> rng.random_range(0..64),
                _ => u128::from(rng.random::<u64>() >> rng.random_range(0..63)) | 2,
            };
            let separator = [" ", "\n", " \r\n", "\t\n\n"][rng.random_range(0..4)];
            dec.extend(format!("{value}{separator}").bytes());
            bits.extend(format!("{value:b}{separator}").bytes());
        }
        // The one pass, and the windowed passes (their folds take blocks
        // too).
        let memory = match round % 3 {
            0 => MemoryBudget::default(),
            1 => MemoryBudget::Log,
            _ => MemoryBudget::Bytes(64 << 10),
        };
        // Nim, and now and then Kayles (its pass takes blocks too; normal
        // play, as the round has).
        let game = match round % 4 {
            2 => "kayles".parse().unwrap(),
            _ => crate::games::Game::Nim,
        };
        let options = Options {
            memory,
            game,
            ..round_options(round)
        };
        let report = |data: &[u8], format: Format, how| read_report(data, format, &options, how);
        for how in 0..3 {
            assert_eq!(
                report(&dec, Format::Dec, how),
                report(&bits, Format::Bits, how),
                "round {round}, read {how}"
            );
        }
    }
}

#[test]
fn hex_of_up_to_128_bits_taken_in_blocks_of_two_limbs_gives_the_report_of_the_same_heaps_in_dec() {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    for round in 0..40 {
        // Full blocks of `u128`s written out (the hex runs read them as
        // two limbs once a token of 17-32 digits is met; the dec runs
        // leave every one of 21 digits or more to the general path), zeros
        // and ones, the first 1 late, wide heaps whose low limb is 0 or 1;
        // in some rounds no wide heap after the first, or a heap of more
        // than 128 bits (the counts then leave limb 0), or heaps of 0 and 1
        // only after the first.
        let count = rng.random_range(0..3000);
        let first_one = rng.random_range(0..3000);
        let longer_at = (round % 5 == 3).then(|| rng.random_range(0..count.max(1)));
        let (mut hex, mut dec) = (Vec::new(), Vec::new());
        for i in 0..count {
            let wide = rng.random::<u128>() >> rng.random_range(0..64) | 1 << 64;
            let value = match rng.random_range(0..8) {
                _ if i == 0 => BigUint::from(wide),
                0 => BigUint::from(0u8),
                _ if round % 7 == 6 => BigUint::from(u8::from(i >= first_one)),
                1 if i >= first_one => BigUint::from(1u8),
                2 if round % 4 != 1 => BigUint::from(wide),
                // Wide, with a low limb of 0 or 1: neither 0 nor 1.
                3 if round % 4 != 1 => {
                    let low = u128::from(rng.random_bool(0.5));
                    BigUint::from(1u128 << rng.random_range(64..128) | low)
                }
                _ => BigUint::from(rng.random::<u64>() >> rng.random_range(0..63) | 2),
            };
            let value = match longer_at == Some(i) {
                true => value | BigUint::from(rng.random::<u64>()) << 130,
                false => value,
            };
            let separator = [" ", "\n", " \r\n", "\t\n\n"][rng.random_range(0..4)];
            hex.extend(format!("{value:x}{separator}").bytes());
            dec.extend(format!("{value}{separator}").bytes());
        }
        // The one pass (a window of 64 bits under `log`: wide heaps one by
        // one there), and Kayles now and then, under both rules (its passes
        // take blocks too).
        let memory = match round % 3 {
            0 => MemoryBudget::default(),
            1 => MemoryBudget::Log,
            _ => MemoryBudget::Bytes(64 << 10),
        };
        let game = match round % 4 {
            2 | 3 => "kayles".parse().unwrap(),
            _ => crate::games::Game::Nim,
        };
        let options = Options {
            memory,
            game,
            ..round_options(round)
        };
        let report = |data: &[u8], format: Format, how| read_report(data, format, &options, how);
        for how in 0..3 {
            assert_eq!(
                report(&hex, Format::Hex, how),
                report(&dec, Format::Dec, how),
                "round {round}, read {how}"
            );
        }
    }
}

#[test]
fn a_pass_that_stops_at_the_first_holder_counts_only_what_it_read() {
    // Every heap holds the msb (bit 40, in an odd number of heaps), so the
    // first-holder search of the windowed passes stops at the first block
    // of heaps.
    let heaps = (0..200_001u64).map(|i| (1 << 40) | (i * 7919));
    let data: Vec<u8> = heaps.flat_map(|h| format!("{h}\n").into_bytes()).collect();
    let options = Options {
        memory: MemoryBudget::Log,
        ..Options::default()
    };
    let file = file_of(&data);
    let mut input = Input::open(file.path(), "t", true).unwrap();
    let stats = analyze(&mut input, Format::Dec, &options).unwrap().stats;
    let size = data.len() as u64;
    assert_eq!(stats.passes, 2);
    assert!(
        stats.bytes_scanned < size + size / 100,
        "{} bytes scanned of {size}",
        stats.bytes_scanned
    );
}

/// A random value of a bit length in `bits` (at least 1).
fn value_of_bits(rng: &mut ChaCha8Rng, bits: std::ops::RangeInclusive<usize>) -> BigUint {
    let bits = rng.random_range(bits);
    let bytes: Vec<u8> = (0..bits.div_ceil(8)).map(|_| rng.random()).collect();
    let value = BigUint::from_bytes_le(&bytes) >> (8 * bytes.len() - bits);
    value | BigUint::from(1u8) << (bits - 1)
}

/// A heap too long for the blocks, and the digits to pad it to (0: none),
/// for round `round`: of 129 to 3,000 bits, or past 4,096 digits (in an
/// eighth of the rounds), or of at most 128 bits padded with leading
/// zeros to 17-40 digits; in a third of the rounds, half the time
/// `last` again (else a new `last`).
fn long_value(rng: &mut ChaCha8Rng, round: usize, last: &mut BigUint) -> (BigUint, usize) {
    match rng.random_range(0..12) {
        0 if round % 8 == 1 => (value_of_bits(rng, 16_385..=17_000), 0),
        1 => (value_of_bits(rng, 1..=128), rng.random_range(17..=40)),
        _ if round % 3 == 2 && rng.random_bool(0.5) => (last.clone(), 0),
        _ => {
            *last = value_of_bits(rng, 129..=3000);
            (last.clone(), 0)
        }
    }
}

#[test]
fn hex_with_long_tokens_among_short_ones_gives_the_report_of_the_same_heaps_in_dec() {
    let mut rng = ChaCha8Rng::seed_from_u64(19);
    for round in 0..24 {
        // Runs of short tokens (of one to about 200, so that long ones
        // also meet), each followed by a long one ([`long_value`]), which
        // stops the run of blocks and goes to the general path (packed,
        // or past 4,096 digits as its digits; one padded to 17-32 digits
        // may turn the runs to two limbs). In some rounds the long heaps
        // cancel (the move is then from a short one), or the first 1 is
        // late, or there are only zeros and ones between the long ones; or
        // (under both rules) the one heap of 2 or more is a long one, in
        // the middle of a block. At most 24 long heaps a round, so that
        // the long decimals' reads stay quick in a debug build.
        let count = rng.random_range(0..1500);
        let first_one = rng.random_range(0..1500);
        let run = [1, 3, 64, 200][round % 4];
        let single_long = (round % 8 >= 6).then_some(count / 2);
        let mut longs_left = 24;
        let (mut hex, mut dec) = (Vec::new(), Vec::new());
        let mut last_long: BigUint = BigUint::from(3u8) << 200usize;
        for i in 0..count {
            let (value, digits) = match single_long {
                Some(long) if i == long => long_value(&mut rng, round, &mut last_long),
                Some(_) => (BigUint::from(rng.random_range(0..2u8)), 0),
                None if longs_left > 0 && rng.random_range(0..=run) == 0 => {
                    longs_left -= 1;
                    long_value(&mut rng, round, &mut last_long)
                }
                None => match rng.random_range(0..8) {
                    _ if round % 5 == 4 => (BigUint::from(u8::from(i >= first_one)), 0),
                    1 if i >= first_one => (BigUint::from(1u8), 0),
                    2 => (BigUint::from(0u8), 0),
                    _ => (
                        BigUint::from(rng.random::<u64>() >> rng.random_range(0..63)),
                        0,
                    ),
                },
            };
            let separator = [" ", "\n", " \r\n", "\t\n\n"][rng.random_range(0..4)];
            hex.extend(format!("{value:0digits$x}{separator}").bytes());
            dec.extend(format!("{value}{separator}").bytes());
        }
        // The one pass under the default budget, and under `log` now and
        // then (not on a stream, whose window is shorter than some heaps).
        let (memory, reads) = match round % 6 {
            5 => (MemoryBudget::Log, 0..2),
            _ => (MemoryBudget::default(), 0..3),
        };
        let options = Options {
            memory,
            ..round_options(round)
        };
        let report = |data: &[u8], format: Format, how| read_report(data, format, &options, how);
        for how in reads {
            assert_eq!(
                report(&hex, Format::Hex, how),
                report(&dec, Format::Dec, how),
                "round {round}, read {how}"
            );
        }
        // And in as many passes: the long heaps were candidates for the
        // move in the first.
        let passes = |data: &[u8], format| read_facts(data, format, &options, 0).stats.passes;
        assert_eq!(
            passes(&hex, Format::Hex),
            passes(&dec, Format::Dec),
            "round {round}"
        );
    }
}
