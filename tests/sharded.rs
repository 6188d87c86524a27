//! Sharded runs (SPEC section 11) against the whole analysis: random
//! instances of every format, both rules and a few games, cut at random
//! byte positions (one-byte and empty ranges included), the partials
//! merged in a random tree shape and order; the report must equal
//! `analyze_path`'s, `stats` aside, and bad input must be reported with
//! the same message, offset, line and column.

use nimstream::games::Game;
use nimstream::sharded::{analyze_range, holders_range, merge, Outcome, Partial};
use nimstream::workbench::encode::{write_header, write_heap};
use nimstream::{analyze_path, Error, Format, Options, Rule};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};

/// How many runs needed the second phase.
static SECOND_PHASES: AtomicU32 = AtomicU32::new(0);

/// The report as JSON, without its measured `stats`.
fn without_stats(json: &str) -> serde_json::Value {
    let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
    value.as_object_mut().unwrap().remove("stats");
    value
}

/// Heaps of a few shapes: random lengths, 1-heaps and 0-heaps (misère's
/// cases), and a long heap twice (its bits cancel, so the msb lies far
/// below the longest heap: the second phase).
fn heaps(format: Format, rng: &mut ChaCha8Rng) -> Vec<Vec<u64>> {
    let cap = match format {
        Format::Unary => 5,
        other => other.raw_width().map_or(200, |w| 8 * w as u64),
    };
    let count = rng.random_range(0..12);
    let shape = rng.random_range(0..4);
    let mut heaps: Vec<Vec<u64>> = (0..count)
        .map(|_| match shape {
            0 | 1 => random_heap(rng.random_range(0..=cap), rng),
            2 => vec![rng.random_range(0..2)],
            _ => random_heap(rng.random_range(0..=cap.min(6)), rng),
        })
        .collect();
    if shape == 3 && cap > 140 {
        let long = random_heap(cap, rng);
        let (a, b) = (
            rng.random_range(0..=heaps.len()),
            rng.random_range(0..=heaps.len()),
        );
        heaps.insert(a, long.clone());
        heaps.insert(b, long);
    }
    heaps
}

/// A heap of exactly `bits` bits.
fn random_heap(bits: u64, rng: &mut ChaCha8Rng) -> Vec<u64> {
    let mut limbs: Vec<u64> = (0..bits.div_ceil(64)).map(|_| rng.random()).collect();
    if bits > 0 {
        let top = (bits - 1) % 64;
        let last = limbs.last_mut().unwrap();
        *last &= u64::MAX >> (63 - top);
        *last |= 1 << top;
    }
    limbs
}

/// The instance's bytes; text tokens separated by assorted whitespace.
fn encode(format: Format, heaps: &[Vec<u64>], rng: &mut ChaCha8Rng) -> Vec<u8> {
    let mut out = Vec::new();
    write_header(format, &mut out).unwrap();
    if matches!(format, Format::Bits | Format::Hex | Format::Dec) && rng.random_bool(0.5) {
        out.extend_from_slice(b" \n");
    }
    for heap in heaps {
        write_heap(format, &heap[..], &mut out).unwrap();
        if matches!(format, Format::Bits | Format::Hex | Format::Dec) {
            let gap: &[u8] = [&b" "[..], b"\t", b"\r\n", b"  \n\n"][rng.random_range(0..4)];
            out.pop();
            out.extend_from_slice(gap);
        }
    }
    out
}

/// Random cuts of `len` bytes into ranges: some one byte long, some
/// empty; a file of up to 4 KiB now and then cut at every byte.
fn cuts(len: u64, rng: &mut ChaCha8Rng) -> Vec<Range<u64>> {
    let mut points: Vec<u64> = match rng.random_range(0..4) {
        0 if len <= 4096 => (0..=len).collect(),
        _ => (0..rng.random_range(0..8))
            .map(|_| rng.random_range(0..=len))
            .collect(),
    };
    if len > 0 && rng.random_bool(0.5) {
        let at = rng.random_range(0..len);
        points.extend([at, at, at + 1]);
    }
    points.extend([0, len]);
    points.sort_unstable();
    let mut ranges: Vec<Range<u64>> = points.windows(2).map(|w| w[0]..w[1]).collect();
    if ranges.is_empty() {
        ranges.push(0..0);
    }
    ranges
}

/// Merges `partials` (of adjacent ranges, in file order) in a random tree
/// shape, each merge given its partials in a random order.
fn tree_merge(
    mut partials: Vec<Partial>,
    options: &Options,
    rng: &mut ChaCha8Rng,
) -> Result<Outcome, Error> {
    while partials.len() > 1 {
        let at = rng.random_range(0..partials.len() - 1);
        let take = rng.random_range(2..=(partials.len() - at).min(4));
        let mut group: Vec<Partial> = partials.drain(at..at + take).collect();
        group.shuffle(rng);
        match merge(group, options)? {
            Outcome::Partial(merged) => partials.insert(at, *merged),
            whole => return Ok(whole),
        }
    }
    merge(partials, options)
}

/// The sharded run of `path` cut into `ranges`: both phases when needed.
fn sharded(
    path: &Path,
    ranges: &[Range<u64>],
    options: &Options,
    rng: &mut ChaCha8Rng,
) -> Result<String, Error> {
    let partials = ranges
        .iter()
        .map(|r| analyze_range(path, r.clone(), options))
        .collect::<Result<Vec<_>, _>>()?;
    let plan = match tree_merge(partials, options, rng)? {
        Outcome::Report(report) => return Ok(report.to_json()),
        Outcome::SecondPhase(plan) => {
            SECOND_PHASES.fetch_add(1, Ordering::Relaxed);
            *plan
        }
        Outcome::Partial(_) => panic!("the ranges cover the file"),
    };
    let mut all = vec![plan.clone()];
    for range in ranges {
        all.push(holders_range(path, range.clone(), &plan, options)?);
    }
    all.shuffle(rng);
    match merge(all, options)? {
        Outcome::Report(report) => Ok(report.to_json()),
        other => panic!("the second phase ends the run: {other:?}"),
    }
}

/// What the checks saw: reports, errors, and reports whose msb lay far
/// below the longest heap (the second phase).
#[derive(Default, Debug)]
struct Seen {
    reports: u32,
    errors: u32,
    second: u32,
}

/// Checks one instance under one set of options, cut a few ways.
fn check(path: &Path, len: u64, options: &Options, rng: &mut ChaCha8Rng, seen: &mut Seen) {
    let whole = analyze_path(path, options);
    for _ in 0..3 {
        let ranges = cuts(len, rng);
        let cut = sharded(path, &ranges, options, rng);
        match (&whole, cut) {
            (Ok(whole), Ok(cut)) => {
                assert_eq!(
                    without_stats(&cut),
                    without_stats(&whole.to_json()),
                    "{ranges:?}"
                );
                seen.reports += 1;
                if whole.winning_move.is_some()
                    && whole.msb.is_some_and(|m| m + 128 < whole.max_bit_length)
                {
                    seen.second += 1;
                }
            }
            (Err(whole), Err(cut)) => {
                assert_eq!(cut.to_string(), whole.to_string(), "{ranges:?}");
                assert_eq!(cut.exit_code(), whole.exit_code());
                seen.errors += 1;
            }
            (whole, cut) => panic!("{ranges:?}: whole {whole:?}, cut {cut:?}"),
        }
    }
}

#[test]
fn every_cut_of_every_format_merges_into_the_whole_report() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut seen = Seen::default();
    for round in 0..12 {
        for format in Format::ALL {
            let data = encode(format, &heaps(format, &mut rng), &mut rng);
            let path = dir.path().join(format!("i{round}.{}", format.name()));
            std::fs::write(&path, &data).unwrap();
            for rule in [Rule::Normal, Rule::Misere] {
                let options = Options {
                    format: Some(format),
                    rule,
                    ..Options::default()
                };
                check(&path, data.len() as u64, &options, &mut rng, &mut seen);
            }
        }
    }
    assert!(seen.second > 0 && seen.reports > 500, "{seen:?}");
    assert!(SECOND_PHASES.load(Ordering::Relaxed) > 0);
}

#[test]
fn thousands_of_short_heaps_merge_into_the_whole_report() {
    // The text formats' short heaps are read in runs of 64-byte blocks,
    // each range's from its first heap.
    let dir = tempfile::tempdir().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut seen = Seen::default();
    for format in [Format::Bits, Format::Hex, Format::Dec, Format::Unary] {
        let cap = if format == Format::Unary { 10 } else { 64 };
        let heaps: Vec<Vec<u64>> = (0..3000)
            .map(|_| random_heap(rng.random_range(0..=cap), &mut rng))
            .collect();
        let data = encode(format, &heaps, &mut rng);
        let path = dir.path().join(format!("short.{}", format.name()));
        std::fs::write(&path, &data).unwrap();
        for (rule, game) in [
            (Rule::Normal, "nim"),
            (Rule::Misere, "nim"),
            (Rule::Normal, "kayles"),
        ] {
            let options = Options {
                format: Some(format),
                rule,
                game: game.parse::<Game>().unwrap(),
                ..Options::default()
            };
            check(&path, data.len() as u64, &options, &mut rng, &mut seen);
        }
    }
    assert_eq!(seen.reports, 4 * 3 * 3, "{seen:?}");
}

#[test]
fn games_merge_into_the_whole_report() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    let mut seen = Seen::default();
    for round in 0..6 {
        for format in [
            Format::Dec,
            Format::Bits,
            Format::Unary,
            Format::U16le,
            Format::Nimb,
        ] {
            let data = encode(format, &heaps(format, &mut rng), &mut rng);
            let path = dir.path().join(format!("g{round}.{}", format.name()));
            std::fs::write(&path, &data).unwrap();
            for game in ["kayles", "sub:1,3,4", "octal:0.16"] {
                let options = Options {
                    format: Some(format),
                    game: game.parse::<Game>().unwrap(),
                    max_values: 4096,
                    ..Options::default()
                };
                check(&path, data.len() as u64, &options, &mut rng, &mut seen);
            }
        }
    }
    // octal:0.16 has no period within 4096 values: its long heaps are errors.
    assert!(seen.reports > 100 && seen.errors > 10, "{seen:?}");
}

/// Misère play of heap games (SPEC section 12): the partials carry the
/// counts of the heaps of each kind and the first of each.
#[test]
fn misere_games_merge_into_the_whole_report() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut seen = Seen::default();
    for round in 0..5 {
        for format in [
            Format::Dec,
            Format::Bits,
            Format::Hex,
            Format::U16le,
            Format::Nimb,
        ] {
            let data = encode(format, &heaps(format, &mut rng), &mut rng);
            let path = dir.path().join(format!("m{round}.{}", format.name()));
            std::fs::write(&path, &data).unwrap();
            // Daisies' quotient for 9 heaps has no period: its larger heaps
            // are errors.
            for (game, max_heap) in [("kayles", 4096), ("octal:0.75", 4096), ("octal:4.7", 9)] {
                let options = Options {
                    format: Some(format),
                    rule: Rule::Misere,
                    game: game.parse::<Game>().unwrap(),
                    max_values: max_heap,
                    ..Options::default()
                };
                check(&path, data.len() as u64, &options, &mut rng, &mut seen);
            }
        }
    }
    assert!(seen.reports > 40 && seen.errors > 10, "{seen:?}");
}

#[test]
fn bad_bytes_are_reported_as_the_whole_analysis_reports_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(13);
    let mut seen = Seen::default();
    for round in 0..10 {
        for format in Format::ALL {
            let mut data = encode(format, &heaps(format, &mut rng), &mut rng);
            match rng.random_range(0..3) {
                0 if !data.is_empty() => {
                    let at = rng.random_range(0..data.len());
                    data[at] = [b'x', 0x0c, b'\r', 0xff, b'2'][rng.random_range(0..5)];
                }
                1 if !data.is_empty() => data.truncate(rng.random_range(0..data.len())),
                _ => data.push(b'z'),
            }
            let path = dir.path().join(format!("e{round}.{}", format.name()));
            std::fs::write(&path, &data).unwrap();
            let options = Options {
                format: Some(format),
                ..Options::default()
            };
            check(&path, data.len() as u64, &options, &mut rng, &mut seen);
        }
    }
    assert!(seen.errors > 150, "{seen:?}");
}

#[test]
fn a_range_outside_the_file_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.dec");
    std::fs::write(&path, b"3 4 5\n").unwrap();
    let options = Options::default();
    for (start, end) in [(0, 7), (4, 3)] {
        let error = analyze_range(&path, start..end, &options).unwrap_err();
        assert_eq!(error.exit_code(), 2, "{error}");
    }
}

#[test]
fn partials_of_other_files_or_gaps_do_not_merge() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a.dec"), dir.path().join("b.dec"));
    std::fs::write(&a, b"3 4 5\n").unwrap();
    std::fs::write(&b, b"3 4 6\n").unwrap();
    let options = Options::default();
    let first = analyze_range(&a, 0..3, &options).unwrap();
    let gap = analyze_range(&a, 4..6, &options).unwrap();
    let other = analyze_range(&b, 3..6, &options).unwrap();
    for pair in [vec![first.clone(), gap], vec![first, other]] {
        let error = merge(pair, &options).unwrap_err();
        assert_eq!(error.exit_code(), 2, "{error}");
    }
}

/// Runs the built `nimstream` in `dir` with `stdin`: (stdout, stderr,
/// status).
fn nimstream_in(dir: &Path, args: &[&str], stdin: &[u8]) -> (String, String, Option<i32>) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_nimstream"))
        .args(args)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin);
    let output = child.wait_with_output().unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (
        text(output.stdout),
        text(output.stderr),
        output.status.code(),
    )
}

#[test]
fn a_merge_that_is_not_a_report_says_so_on_stderr_and_exits_3() {
    let dir = tempfile::tempdir().unwrap();
    // Two equal 300-bit heaps cancel: the msb of the nim-sum (5) lies far
    // below the longest heap, so the first phase cannot find its holders.
    let long = (num_bigint::BigUint::from(1u8) << 300u32) + 12345u32;
    let text = format!("{long} {long} 5\n");
    std::fs::write(dir.path().join("p.dec"), &text).unwrap();
    let size = text.len();
    let run = |args: &[&str], stdin: &[u8]| nimstream_in(dir.path(), args, stdin);
    let partial = |range: String| {
        let (out, err, status) = run(&["analyze", "p.dec", "--range", &range, "--partial"], b"");
        assert_eq!((status, err.as_str()), (Some(0), ""), "{range}");
        out
    };
    let (first, second) = (partial("0..50".into()), partial(format!("50..{size}")));

    // A range left out: the merged partial on stdout, a line on stderr.
    let (out, err, status) = run(&["merge", "-"], first.as_bytes());
    assert_eq!(status, Some(3), "{err}");
    assert!(
        out.starts_with(r#"{"nimstream_partial":1,"#) && out.contains(r#""range":[0,50]"#),
        "{out}"
    );
    assert_eq!(
        err,
        format!(
            "merge: a partial, not a report: the partials cover bytes 0..50 of the {size} of \
             p.dec; merge the partial printed with those of the other bytes\n"
        )
    );

    // Every range: the plan of the second phase, said so.
    let (plan, err, status) = run(&["merge", "-", "--json"], (first + &second).as_bytes());
    assert_eq!(status, Some(3), "{err}");
    assert!(err.starts_with("merge: a plan, not a report: "), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    std::fs::write(dir.path().join("plan.json"), &plan).unwrap();

    // The second phase merged with the plan: the report, exit 0, nothing
    // on stderr; it names the first heap holding bit 2, the 5.
    let mut holders = plan.clone();
    for range in ["0..50".to_string(), format!("50..{size}")] {
        let args = [
            "analyze",
            "p.dec",
            "--range",
            &range,
            "--partial",
            "--phase2",
            "plan.json",
        ];
        holders += &run(&args, b"").0;
    }
    let (report, err, status) = run(&["merge", "-", "--json"], holders.as_bytes());
    assert_eq!((status, err.as_str()), (Some(0), ""));
    let report: serde_json::Value = serde_json::from_str(&report).unwrap();
    assert_eq!(report["move"]["heap"], 2, "{report}");
}

#[test]
fn partials_that_do_not_fit_are_refused_in_plain_words() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.dec"), b"3 4 5\n").unwrap();
    std::fs::write(dir.path().join("b.dec"), b"3 4 6 7\n").unwrap();
    let partial = |file: &str, range: &str| {
        nimstream_in(
            dir.path(),
            &["analyze", file, "--range", range, "--partial"],
            b"",
        )
        .0
    };
    let mixed = partial("a.dec", "0..6") + &partial("b.dec", "0..8");
    let (out, err, status) = nimstream_in(dir.path(), &["merge", "-"], mixed.as_bytes());
    assert_eq!((status, out.as_str()), (Some(2), ""));
    assert_eq!(
        err,
        "error: cannot merge these partials: their inputs differ (a.dec (dec, 6 bytes) and \
         b.dec (dec, 8 bytes))\n"
    );
    let misere = nimstream_in(
        dir.path(),
        &[
            "analyze",
            "a.dec",
            "--range",
            "3..6",
            "--partial",
            "--rule",
            "misere",
        ],
        b"",
    )
    .0;
    let rules = partial("a.dec", "0..3") + &misere;
    let (_, err, status) = nimstream_in(dir.path(), &["merge", "-"], rules.as_bytes());
    assert_eq!(status, Some(2));
    assert_eq!(
        err,
        "error: cannot merge these partials: their rules differ (normal and misere)\n"
    );
}
