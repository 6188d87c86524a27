//! End-to-end tests of `gen` and `convert`, run on the built binary in a
//! temporary folder: gen is deterministic, its summary agrees with
//! `analyze`, and conversions keep the heaps whatever the formats.

use serde_json::Value;
use sha2::{Digest, Sha256};
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use tempfile::TempDir;

const FORMATS: [&str; 9] = [
    "bits", "hex", "dec", "unary", "u8", "u16le", "u32le", "u64le", "nimb",
];
const KINDS: [&str; 4] = ["random", "p-position", "pairs", "ones"];

/// A temporary folder to run `nimstream` in.
struct Workbench {
    dir: TempDir,
}

impl Workbench {
    fn new() -> Workbench {
        Workbench {
            dir: tempfile::tempdir().expect("a temporary folder"),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_nimstream"));
        command.args(args).current_dir(self.dir.path());
        command
    }

    /// Runs `nimstream ARGS`, whatever its exit status.
    fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("nimstream runs")
    }

    /// Runs `nimstream ARGS` with `input` on standard input.
    fn run_with_stdin(&self, args: &[&str], input: &[u8]) -> Output {
        let mut child = self
            .command(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("nimstream starts");
        // A run that fails before reading closes the pipe early; its exit
        // status is what the test checks, so a refused write is fine.
        let _ = std::io::Write::write_all(&mut child.stdin.take().unwrap(), input);
        child.wait_with_output().expect("nimstream runs")
    }

    /// Runs `nimstream ARGS` and insists it succeeds.
    fn ok(&self, args: &[&str]) -> Output {
        let output = self.run(args);
        assert!(
            output.status.success(),
            "nimstream {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// `gen --json ARGS -o FILE`: the summary it printed on standard error.
    fn gen(&self, file: &str, args: &[&str]) -> Value {
        let mut all = vec!["gen", "--json", "-o", file];
        all.extend_from_slice(args);
        let output = self.ok(&all);
        assert!(
            output.stdout.is_empty(),
            "gen -o FILE writes nothing to stdout"
        );
        serde_json::from_slice(&output.stderr).expect("one JSON object on stderr")
    }

    /// `analyze --json --nim-sum-out`: the report and the nim-sum file.
    fn analyze(&self, file: &str) -> (Value, Vec<u8>) {
        let nim_sum = format!("{file}.nim-sum");
        let output = self.ok(&["analyze", "--json", "--nim-sum-out", &nim_sum, file]);
        let report = serde_json::from_slice(&output.stdout).expect("a JSON report");
        (report, self.read(&nim_sum))
    }

    fn read(&self, name: &str) -> Vec<u8> {
        std::fs::read(self.path(name)).expect("the file was written")
    }
}

/// A `--bits` range every format can hold: long heaps except where the
/// format bounds them.
fn bits_for(format: &str) -> &'static str {
    match format {
        "u8" => "0..8",
        "u16le" => "0..16",
        "u32le" => "0..32",
        "u64le" => "0..64",
        "unary" => "0..9",
        _ => "0..200",
    }
}

fn extension(format: &str) -> &str {
    format.strip_suffix("le").unwrap_or(format)
}

fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The report without what depends on the encoding: the input, the stats,
/// and where the move's heap sits in the file.
fn encoding_free(mut report: Value) -> Value {
    let object = report.as_object_mut().unwrap();
    object.remove("input");
    object.remove("stats");
    if let Some(winning_move) = object.get_mut("move").and_then(Value::as_object_mut) {
        winning_move.remove("offset");
        winning_move.remove("line");
    }
    report
}

#[test]
fn gen_gives_the_same_bytes_for_the_same_seed_and_others_for_another() {
    let bench = Workbench::new();
    for format in FORMATS {
        let args = [
            "--format",
            format,
            "--heaps",
            "30",
            "--bits",
            bits_for(format),
        ];
        let file = |name: &str| format!("{name}.{}", extension(format));
        bench.gen(&file("a"), &args);
        bench.gen(&file("b"), &args);
        let mut seeded = args.to_vec();
        seeded.extend(["--seed", "1"]);
        bench.gen(&file("c"), &seeded);
        assert_eq!(bench.read(&file("a")), bench.read(&file("b")), "{format}");
        assert_ne!(bench.read(&file("a")), bench.read(&file("c")), "{format}");

        let mut to_stdout = vec!["gen"];
        to_stdout.extend_from_slice(&args);
        assert_eq!(
            bench.ok(&to_stdout).stdout,
            bench.read(&file("a")),
            "{format}"
        );
    }
}

#[test]
fn gen_reports_the_nim_sum_that_analyze_finds_for_every_format_and_kind() {
    let bench = Workbench::new();
    for format in FORMATS {
        for kind in KINDS {
            let file = format!("{kind}.{}", extension(format));
            let args = ["--format", format, "--kind", kind, "--heaps", "24"];
            let summary = bench.gen(&file, &[&args[..], &["--bits", bits_for(format)]].concat());
            let (report, nim_sum) = bench.analyze(&file);
            let context = format!("{format} {kind}");
            assert_eq!(summary["nim_sum_sha256"], sha256_hex(&nim_sum), "{context}");
            assert_eq!(
                summary["nim_sum_bit_length"], report["nim_sum"]["bit_length"],
                "{context}"
            );
            assert_eq!(summary["heaps"], report["heaps"], "{context}");
            assert_eq!(summary["bytes"], report["input"]["bytes"], "{context}");
            if kind == "p-position" || kind == "pairs" {
                assert_eq!(report["winner"], "second", "{context}");
            }
        }
    }
}

#[test]
fn a_p_position_of_a_given_size_is_a_second_player_win() {
    let bench = Workbench::new();
    let summary = bench.gen(
        "p.bits",
        &[
            "--format",
            "bits",
            "--kind",
            "p-position",
            "--size",
            "64KiB",
            "--bits",
            "1..2000",
        ],
    );
    let bytes = summary["bytes"].as_u64().unwrap();
    assert!((65536..65536 + 4096).contains(&bytes), "{bytes} bytes");
    let (report, _) = bench.analyze("p.bits");
    assert_eq!(report["winner"], "second");
    assert_eq!(report["rule"], "normal");
}

#[test]
fn gen_summary_for_people_names_the_sha() {
    let bench = Workbench::new();
    let output = bench.ok(&["gen", "--format", "dec", "--heaps", "3", "-o", "x.dec"]);
    let text = String::from_utf8(output.stderr).unwrap();
    assert!(text.contains("heaps           3\n"), "{text}");
    assert!(text.contains("nim-sum sha256  "), "{text}");
}

#[test]
fn pairs_with_an_odd_count_are_a_usage_error() {
    let bench = Workbench::new();
    let output = bench.run(&["gen", "--format", "dec", "--kind", "pairs", "--heaps", "5"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    assert!(output.stderr.starts_with(b"error: "));
}

#[test]
fn bits_wider_than_a_raw_element_are_a_usage_error() {
    let bench = Workbench::new();
    let output = bench.run(&[
        "gen", "--format", "u16le", "--bits", "8..17", "--heaps", "2",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
}

#[test]
fn gen_needs_exactly_one_of_heaps_and_size() {
    let bench = Workbench::new();
    for args in [
        &["gen", "--format", "dec"][..],
        &["gen", "--format", "dec", "--heaps", "2", "--size", "1K"][..],
    ] {
        assert_eq!(bench.run(args).status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn convert_keeps_the_heaps_between_every_pair_of_formats() {
    let bench = Workbench::new();
    for from in FORMATS {
        let source = format!("source.{}", extension(from));
        bench.gen(
            &source,
            &["--format", from, "--heaps", "40", "--bits", "0..8"],
        );
        let (expected, _) = bench.analyze(&source);
        for to in FORMATS {
            let target = format!("{from}-to-{to}.{}", extension(to));
            bench.ok(&["convert", &source, "--to", to, "-o", &target]);
            let (report, _) = bench.analyze(&target);
            assert_eq!(
                encoding_free(report),
                encoding_free(expected.clone()),
                "{from} → {to}"
            );
            let back = format!("{from}-to-{to}-back");
            bench.ok(&["convert", &target, "--to", from, "-o", &back]);
            assert_eq!(
                bench.read(&back),
                bench.read(&source),
                "{from} → {to} → {from}"
            );
        }
    }
}

#[test]
fn convert_keeps_heaps_longer_than_64_bits() {
    let bench = Workbench::new();
    let unbounded = ["bits", "hex", "dec", "nimb"];
    for from in unbounded {
        let source = format!("long.{from}");
        bench.gen(
            &source,
            &["--format", from, "--heaps", "30", "--bits", "60..700"],
        );
        let (expected, _) = bench.analyze(&source);
        for to in unbounded {
            let output = bench.ok(&["convert", &source, "--to", to]);
            let target = format!("long-{from}.{to}");
            std::fs::write(bench.path(&target), &output.stdout).unwrap();
            let (report, _) = bench.analyze(&target);
            assert_eq!(
                encoding_free(report),
                encoding_free(expected.clone()),
                "{from} → {to}"
            );
        }
    }
}

#[test]
fn convert_reads_standard_input_with_from() {
    let bench = Workbench::new();
    let output = bench.run_with_stdin(
        &["convert", "-", "--from", "dec", "--to", "hex"],
        b"3 4 255\n",
    );
    assert!(output.status.success());
    assert_eq!(output.stdout, b"3\n4\nff\n");
    let auto = bench.run_with_stdin(&["convert", "-", "--to", "hex"], b"3\n");
    assert_eq!(auto.status.code(), Some(2));
}

#[test]
fn convert_refuses_a_heap_too_wide_for_a_raw_target_and_names_it() {
    let bench = Workbench::new();
    std::fs::write(bench.path("wide.dec"), b"1 2\n70000\n").unwrap();
    let output = bench.run(&["convert", "wide.dec", "--to", "u16le"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(output.stdout.is_empty(), "nothing on stdout on an error");
    let text = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        text,
        "error: wide.dec: offset 4 (line 2, column 1): heap 2: a value of 17 bits \
         does not fit u16le (at most 16 bits)\n"
    );
    let to_file = bench.run(&["convert", "wide.dec", "--to", "u16le", "-o", "wide.u16"]);
    assert_eq!(to_file.status.code(), Some(1));
    assert!(!bench.path("wide.u16").exists(), "no partial output file");
}

#[test]
fn convert_reports_bad_input_like_analyze() {
    let bench = Workbench::new();
    std::fs::write(bench.path("bad.bits"), b"101\n1x1\n").unwrap();
    let converted = bench.run(&["convert", "bad.bits", "--to", "dec"]);
    let analyzed = bench.run(&["analyze", "bad.bits"]);
    assert_eq!(converted.status.code(), Some(1));
    assert!(converted.stdout.is_empty());
    assert_eq!(converted.stderr, analyzed.stderr);
}

#[test]
fn convert_detects_nimb_by_its_magic() {
    let bench = Workbench::new();
    bench.gen(
        "magic",
        &["--format", "nimb", "--heaps", "3", "--bits", "5"],
    );
    let output = bench.ok(&["convert", "magic", "--to", "bits"]);
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(text.lines().count(), 3);
    assert!(text.lines().all(|line| line.len() == 5));
}

#[test]
fn convert_takes_the_format_from_the_output_name_and_refuses_a_contradiction() {
    let bench = Workbench::new();
    std::fs::write(bench.path("small.dec"), b"3 4 5\n").unwrap();
    bench.ok(&["convert", "small.dec", "-o", "small.u16"]);
    assert_eq!(bench.read("small.u16"), [3, 0, 4, 0, 5, 0]);
    bench.ok(&["convert", "small.dec", "-o", "small.HEX"]);
    assert_eq!(bench.read("small.HEX"), b"3\n4\n5\n");

    let contradiction = bench.run(&["convert", "small.dec", "--to", "u8", "-o", "x.u16"]);
    assert_eq!(contradiction.status.code(), Some(2));
    let text = String::from_utf8(contradiction.stderr).unwrap();
    assert!(
        text.starts_with(
            "error: --to u8 contradicts the output's name x.u16, which reads as u16le"
        ),
        "{text}"
    );
    assert!(!bench.path("x.u16").exists());

    for (args, why) in [
        (
            &["convert", "small.dec", "-o", "x.txt"][..],
            "names no format",
        ),
        (
            &["convert", "small.dec"][..],
            "when writing to standard output",
        ),
    ] {
        let output = bench.run(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let text = String::from_utf8(output.stderr).unwrap();
        assert!(text.contains(why), "{args:?}: {text}");
    }
    bench.ok(&["convert", "small.dec", "--to", "bits", "-o", "x.txt"]);
    assert_eq!(bench.read("x.txt"), b"11\n100\n101\n");
}

#[test]
fn gen_takes_its_format_from_the_output_name_and_refuses_a_contradiction() {
    let bench = Workbench::new();
    let args = ["--heaps", "3", "--bits", "1..4", "--seed", "1"];
    // The instance: bits text under a hex name would be read as hex.
    let contradiction =
        bench.run(&[&["gen", "--format", "bits", "-o", "q.hex"][..], &args].concat());
    assert_eq!(contradiction.status.code(), Some(2));
    let text = String::from_utf8(contradiction.stderr).unwrap();
    assert_eq!(
        text,
        "error: --format bits contradicts the output's name q.hex, which reads as hex: drop \
         --format or name the file .bits\n"
    );
    assert!(!bench.path("q.hex").exists(), "nothing is written");

    // Without --format, the name says hex: the bytes of --format hex, and
    // analyze finds the nim-sum gen summed.
    let summary = bench.gen("q.hex", &args);
    let hex = bench.ok(&[&["gen", "--format", "hex"][..], &args].concat());
    assert_eq!(bench.read("q.hex"), hex.stdout);
    let (report, nim_sum) = bench.analyze("q.hex");
    assert_eq!(summary["nim_sum_sha256"], sha256_hex(&nim_sum));
    assert_eq!(report["input"]["format"], "hex");
    bench.ok(&[&["gen", "-f", "u16le", "-o", "q.U16"][..], &args].concat());
    assert_eq!(bench.analyze("q.U16").0["input"]["format"], "u16le");

    for (output, why) in [
        ("-", "--format is needed when writing to standard output"),
        (
            "q.txt",
            "--format is needed: the output's name q.txt names no format",
        ),
    ] {
        let run = bench.run(&[&["gen", "-o", output][..], &args].concat());
        assert_eq!(run.status.code(), Some(2), "{output}");
        let text = String::from_utf8(run.stderr).unwrap();
        assert!(text.starts_with(&format!("error: {why}")), "{text}");
    }
    bench.ok(&[&["gen", "--format", "bits", "-o", "q.txt"][..], &args].concat());
}

#[test]
fn convert_takes_the_input_format_as_format_or_f_and_from_as_an_alias() {
    let bench = Workbench::new();
    for flag in ["--format", "-f", "--from"] {
        let output =
            bench.run_with_stdin(&["convert", "-", flag, "dec", "--to", "hex"], b"3 4 255\n");
        assert!(output.status.success(), "{flag}");
        assert_eq!(output.stdout, b"3\n4\nff\n", "{flag}");
    }
    let missing = bench.run_with_stdin(&["convert", "-", "--to", "hex"], b"3\n");
    assert_eq!(missing.status.code(), Some(2));
    let text = String::from_utf8(missing.stderr).unwrap();
    assert!(
        text.starts_with("error: <stdin>: standard input needs --format"),
        "{text}"
    );
    let help = bench.ok(&["convert", "--help"]);
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(help.contains("-f, --format <FORMAT>"), "{help}");
}
