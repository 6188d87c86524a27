//! A bad byte among thousands of short heaps, end to end: texts as `gen`
//! writes them by default (`--bits 1..64`; `1..10` for `unary`), some with
//! wider gaps and long tokens mixed in, one byte replaced by one that no
//! format takes. Every way of reading them (a slice on one thread and on
//! two, every window budget, a game, misère play, `--decide`, a stream, a
//! file through its map and without) must report an input error at that
//! byte, with its line and column counted byte by byte: the block paths
//! stop before a block that holds it and leave it to the general path,
//! which finds it where a byte-at-a-time reading does.

use nimstream::workbench::gen::{generate, Amount, BitRange, GenOptions, Kind};
use nimstream::{
    analyze_bytes, analyze_path, analyze_reader, Error, Format, MemoryBudget, Options, Report, Rule,
};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::Cursor;
use std::path::Path;

/// Bytes that are neither a digit nor whitespace in any text format (no
/// `x`, which may follow a `hex` token's leading `0`).
const BAD: &[u8] = b";z-/\x00\x0b\x7f\x80\xff";

/// The text formats, the bit lengths `gen` writes for them by default,
/// and the digits of the long tokens mixed into a copy of their text
/// (none for `unary`, which takes LF-ended lines of `1`s only).
const FORMATS: [(Format, u64, Option<&[u8]>); 4] = [
    (Format::Bits, 64, Some(b"01")),
    (Format::Hex, 64, Some(b"0123456789abcdefABCDEF")),
    (Format::Dec, 64, Some(b"0123456789")),
    (Format::Unary, 10, None),
];

/// About 48 KiB of `format` text as `gen` writes it: random heaps of 1
/// to `high` bits, one a line.
fn gen_text(format: Format, high: u64, seed: u64) -> Vec<u8> {
    let options = GenOptions {
        format,
        amount: Amount::Bytes(48 << 10),
        bits: BitRange { low: 1, high },
        kind: Kind::Random,
        seed,
    };
    let mut data = Vec::new();
    generate(&options, &mut data, "test").expect("generating in memory");
    data
}

/// `data` with some of its LFs replaced by other whitespace (a space, a
/// tab, a CR before the LF, a run of LFs) and, every so often, a token of
/// 100 to 400 digits put after one: runs of blocks that stop at a wide
/// gap or a long token, and the general path between them.
fn mixed_spacing(data: &[u8], digits: &[u8], rng: &mut ChaCha8Rng) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 8);
    for &byte in data {
        if byte != b'\n' {
            out.push(byte);
            continue;
        }
        match rng.random_range(0..40) {
            0 => out.push(b' '),
            1 => out.push(b'\t'),
            2 => out.extend_from_slice(b"\r\n"),
            3 => out.extend_from_slice(b"\n\n \n"),
            4 => {
                out.push(b'\n');
                let len = rng.random_range(100..400);
                out.extend((0..len).map(|_| digits[rng.random_range(0..digits.len())]));
                out.push(b'\n');
            }
            _ => out.push(b'\n'),
        }
    }
    out
}

/// The line and column of byte `at` of `data`, both from 1, counted in
/// bytes.
fn line_col(data: &[u8], at: usize) -> (u64, u64) {
    let before = &data[..at];
    let line = 1 + before.iter().filter(|&&b| b == b'\n').count();
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    (line as u64, (at - line_start + 1) as u64)
}

/// Checks that `result` is an input error at byte `at` of `data`.
fn check_error(result: Result<Report, Error>, data: &[u8], at: usize, context: &str) {
    match result {
        Err(Error::Input {
            offset,
            line_col: found,
            ..
        }) => {
            assert_eq!(offset, at as u64, "{context}: the offset");
            assert_eq!(
                found,
                Some(line_col(data, at)),
                "{context}: the line and column"
            );
        }
        Err(other) => panic!("{context}: not an input error: {other}"),
        Ok(_) => panic!("{context}: a report for a text with a bad byte at {at}"),
    }
}

/// The ways of reading a slice, each with its name.
fn slice_options(format: Format) -> Vec<(&'static str, Options)> {
    let base = Options {
        format: Some(format),
        threads: 2,
        ..Options::default()
    };
    vec![
        ("two threads", base.clone()),
        (
            "one thread",
            Options {
                threads: 1,
                ..base.clone()
            },
        ),
        (
            "--memory log",
            Options {
                memory: MemoryBudget::Log,
                ..base.clone()
            },
        ),
        (
            "--memory 64",
            Options {
                memory: MemoryBudget::Bytes(64),
                ..base.clone()
            },
        ),
        (
            "--game kayles",
            Options {
                game: "kayles".parse().expect("a game"),
                ..base.clone()
            },
        ),
        (
            "--rule misere",
            Options {
                rule: Rule::Misere,
                ..base.clone()
            },
        ),
        (
            "--decide",
            Options {
                decide: true,
                ..base
            },
        ),
    ]
}

/// Every way of reading `data` with a bad byte at `at`: as a slice, as a
/// stream, and from the file `path` (written here) with and without a map.
fn check_every_path(format: Format, data: &[u8], at: usize, path: &Path, context: &str) {
    for (how, options) in slice_options(format) {
        let result = analyze_bytes(data, format, "bytes", &options);
        check_error(result, data, at, &format!("{context}, {how}"));
    }
    let options = Options {
        format: Some(format),
        ..Options::default()
    };
    let streamed = analyze_reader(&mut Cursor::new(data), format, "stream", &options);
    check_error(streamed, data, at, &format!("{context}, a stream"));
    std::fs::write(path, data).expect("writing the case");
    for no_mmap in [false, true] {
        let options = Options {
            no_mmap,
            ..options.clone()
        };
        let result = analyze_path(path, &options);
        let how = if no_mmap {
            "a file read"
        } else {
            "a file mapped"
        };
        check_error(result, data, at, &format!("{context}, {how}"));
    }
}

#[test]
fn a_bad_byte_among_short_heaps_is_reported_where_it_is_on_every_path() {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0030);
    let path = dir.path().join("case.txt");
    for (format, high, digits) in FORMATS {
        let plain = gen_text(format, high, rng.random());
        let mixed = digits.map(|digits| ("mixed spacing", mixed_spacing(&plain, digits, &mut rng)));
        let texts = [("gen's text", plain)].into_iter().chain(mixed);
        for (shape, text) in texts {
            for trial in 0..12 {
                let at = rng.random_range(0..text.len());
                let mut data = text.clone();
                data[at] = BAD[rng.random_range(0..BAD.len())];
                let context = format!("{format} ({shape}, trial {trial}): byte {at}");
                check_every_path(format, &data, at, &path, &context);
            }
        }
    }
}

#[test]
fn a_bad_byte_at_every_place_of_a_block_is_reported_where_it_is() {
    let mut rng = ChaCha8Rng::seed_from_u64(0x5eed_0031);
    for (format, high, _) in FORMATS {
        let text = gen_text(format, high, rng.random());
        // Every place of three blocks past the first 8 KiB, and a
        // different bad byte at each.
        for at in 8192..8192 + 3 * 64 {
            let mut data = text.clone();
            data[at] = BAD[at % BAD.len()];
            for (how, options) in slice_options(format).into_iter().take(3) {
                let result = analyze_bytes(&data, format, "bytes", &options);
                check_error(result, &data, at, &format!("{format}, byte {at}, {how}"));
            }
        }
    }
}
