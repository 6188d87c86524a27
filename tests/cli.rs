//! The command line, test by test, as a user would run it: each test gets
//! its own temporary folder and runs the built binary from the crate root
//! (so fixture paths read as in the specification).

use num_bigint::BigUint;
use num_traits::Zero;
use serde_json::{json, Value as Json};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// A temporary folder and a way to run `nimstream` in the crate root.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        Sandbox {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// Writes `bytes` to `name` in the folder; returns its path as text.
    fn file(&self, name: &str, bytes: &[u8]) -> String {
        let path = self.dir.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.display().to_string()
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// Runs the binary with `args` and `stdin`.
    fn run_with_stdin(&self, args: &[&str], stdin: &[u8]) -> Output {
        use std::io::Write;
        let mut child = Command::new(env!("CARGO_BIN_EXE_nimstream"))
            .args(args)
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let _ = child.stdin.take().unwrap().write_all(stdin);
        child.wait_with_output().unwrap()
    }

    /// Runs the binary with `NIMSTREAM_SIMD` set to `cap`, or unset.
    fn run_with_simd(&self, cap: Option<&str>, args: &[&str]) -> Output {
        let mut command = Command::new(env!("CARGO_BIN_EXE_nimstream"));
        command.args(args).current_dir(env!("CARGO_MANIFEST_DIR"));
        match cap {
            Some(cap) => command.env("NIMSTREAM_SIMD", cap),
            None => command.env_remove("NIMSTREAM_SIMD"),
        };
        command.output().unwrap()
    }

    /// Runs the binary and expects success; returns standard output.
    fn ok(&self, args: &[&str]) -> String {
        succeeded(self.run_with_stdin(args, b""), args)
    }

    /// `analyze --json` with `args`: the report without `stats` (checked
    /// to be there).
    fn report(&self, args: &[&str]) -> Json {
        let mut all = vec!["analyze", "--json"];
        all.extend_from_slice(args);
        without_stats(&self.ok(&all))
    }
}

fn succeeded(output: Output, args: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "nimstream {args:?} failed: {stderr}"
    );
    assert!(
        stderr.is_empty(),
        "nimstream {args:?} wrote to stderr: {stderr}"
    );
    String::from_utf8(output.stdout).unwrap()
}

fn without_stats(stdout: &str) -> Json {
    assert_eq!(stdout.lines().count(), 1, "one line of JSON: {stdout}");
    let mut report: Json = serde_json::from_str(stdout).unwrap();
    let stats = report.as_object_mut().unwrap().remove("stats").unwrap();
    for field in [
        "passes",
        "bytes_scanned",
        "working_memory_bytes",
        "threads",
        "seconds",
    ] {
        assert!(stats[field].is_number(), "stats.{field}: {stats}");
    }
    report
}

fn value(n: u64) -> Json {
    json!({"bit_length": 64 - n.leading_zeros(), "hex": format!("{n:x}"), "dec": n.to_string()})
}

/// A value as the report writes it, for any size.
fn big_value(n: &BigUint, inline_bits: u64) -> Json {
    if n.bits() > inline_bits {
        json!({"bit_length": n.bits(), "hex": null, "dec": null})
    } else {
        json!({"bit_length": n.bits(), "hex": n.to_str_radix(16), "dec": n.to_string()})
    }
}

/// The JSON of the specification's example, in its field order, without
/// `stats`.
const SPEC_EXAMPLE: &str = concat!(
    r#"{"schema":1,"input":{"path":"fixtures/three-four-five.dec","format":"dec","bytes":6},"#,
    r#""rule":"normal","game":"nim","heaps":3,"nonzero_heaps":3,"ones":0,"big":3,"max_bit_length":3,"#,
    r#""nim_sum":{"bit_length":2,"hex":"2","dec":"2"},"msb":1,"winner":"first","winning_moves":1,"#,
    r#""move":{"heap":0,"offset":0,"line":1,"#,
    r#""from":{"bit_length":2,"hex":"3","dec":"3"},"to":{"bit_length":1,"hex":"1","dec":"1"},"#,
    r#""remove":{"bit_length":2,"hex":"2","dec":"2"}},"stats":{"#
);

// ---------------------------------------------------------------------------
// The seeds' worked example: 3, 4, 5.

#[test]
fn three_four_five_prints_the_spec_example_byte_for_byte_apart_from_stats() {
    let out = Sandbox::new().ok(&["analyze", "fixtures/three-four-five.dec", "--json"]);
    assert!(
        out.starts_with(SPEC_EXAMPLE),
        "\nwant: {SPEC_EXAMPLE}…\n got: {out}"
    );
    assert!(out.ends_with("}}\n"), "{out}");
}

#[test]
fn three_four_five_takes_two_from_heap_zero_in_both_rules() {
    let sandbox = Sandbox::new();
    let mut expected: Json = serde_json::from_str(&(SPEC_EXAMPLE.to_string() + "}}")).unwrap();
    expected.as_object_mut().unwrap().remove("stats");
    for rule in ["normal", "misere", "misère", "MISERE"] {
        let report = sandbox.report(&["fixtures/three-four-five.dec", "--rule", rule]);
        expected["rule"] = json!(if rule == "normal" { "normal" } else { "misere" });
        assert_eq!(report, expected, "--rule {rule}");
    }
}

#[test]
fn three_four_five_reads_the_same_in_every_format() {
    let sandbox = Sandbox::new();
    let cases = [
        ("bits", "bits", 11, 0, Some(1)),
        ("hex", "hex", 10, 0, Some(1)),
        ("dec", "dec", 6, 0, Some(1)),
        ("unary", "unary", 15, 0, Some(1)),
        ("u8", "u8", 3, 0, None),
        ("u16", "u16le", 6, 0, None),
        ("u32", "u32le", 12, 0, None),
        ("u64", "u64le", 24, 0, None),
        ("nimb", "nimb", 14, 8, None),
    ];
    for (extension, format, bytes, offset, line) in cases {
        let path = format!("fixtures/three-four-five.{extension}");
        for rule in ["normal", "misere"] {
            let report = sandbox.report(&[&path, "--rule", rule]);
            let context = format!("{path} --rule {rule}");
            assert_eq!(
                report["input"],
                json!({"path": path, "format": format, "bytes": bytes}),
                "{context}"
            );
            assert_eq!(report["winner"], "first", "{context}");
            assert_eq!(report["nim_sum"], value(2), "{context}");
            let expected_move = json!({
                "heap": 0, "offset": offset, "line": line,
                "from": value(3), "to": value(1), "remove": value(2),
            });
            assert_eq!(report["move"], expected_move, "{context}");
        }
    }
}

#[test]
fn the_human_report_says_the_move_in_words() {
    let out = Sandbox::new().ok(&["analyze", "fixtures/three-four-five.dec"]);
    assert!(out.contains("take 2 from heap 0 (line 1): 3 → 1"), "{out}");
    assert!(!out.trim_start().starts_with('{'), "not JSON: {out}");
}

#[test]
fn the_human_report_points_large_values_to_the_output_files() {
    let sandbox = Sandbox::new();
    let path = sandbox.file("big.bits", b"1000000001 0\n");
    let out = sandbox.ok(&["analyze", &path, "--inline-bits", "4"]);
    assert!(out.contains("--nim-sum-out"), "{out}");
    assert!(out.contains("--move-out"), "{out}");
}

#[test]
fn decide_keeps_every_field_and_leaves_the_move_null() {
    let sandbox = Sandbox::new();
    let report = sandbox.report(&["fixtures/three-four-five.dec", "--decide"]);
    for field in [
        "schema",
        "input",
        "rule",
        "game",
        "heaps",
        "nonzero_heaps",
        "ones",
        "big",
        "max_bit_length",
        "nim_sum",
        "msb",
        "winner",
        "winning_moves",
        "move",
    ] {
        assert!(report.get(field).is_some(), "--decide dropped {field}");
    }
    assert_eq!(report["winner"], "first");
    assert_eq!(report["move"], Json::Null);
    assert_eq!(
        (report["heaps"].clone(), report["big"].clone()),
        (json!(3), json!(3))
    );
    assert_eq!(report["max_bit_length"], 3);
}

#[test]
fn decide_on_a_single_big_misere_heap_knows_the_first_player_wins() {
    // Regression: --decide skipped the nim-sum, and the winner came out
    // "second" for one heap ≥ 2 among zeros and ones.
    let sandbox = Sandbox::new();
    let path = sandbox.file("one-big.dec", b"5 0 1\n");
    let report = sandbox.report(&[&path, "--rule", "misere", "--decide"]);
    assert_eq!(report["winner"], "first");
    assert_eq!(report["big"], 1);
}

#[test]
fn inline_bits_nulls_the_digits_of_longer_values() {
    let report = Sandbox::new().report(&["fixtures/three-four-five.dec", "--inline-bits", "1"]);
    let long = |bits: u64| json!({"bit_length": bits, "hex": null, "dec": null});
    assert_eq!(report["nim_sum"], long(2));
    assert_eq!(report["move"]["from"], long(2));
    assert_eq!(report["move"]["to"], value(1));
    assert_eq!(report["move"]["remove"], long(2));
    let zero = Sandbox::new().report(&["fixtures/three-four-five.dec", "--inline-bits", "0"]);
    assert_eq!(zero["move"]["to"], long(1));
}

// ---------------------------------------------------------------------------
// --nim-sum-out and --move-out.

#[test]
fn output_files_hold_bits_text_with_one_trailing_lf() {
    let sandbox = Sandbox::new();
    let g = sandbox.path("g.bits");
    let to = sandbox.path("to.bits");
    let (g_arg, to_arg) = (g.display().to_string(), to.display().to_string());
    sandbox.ok(&[
        "analyze",
        "fixtures/three-four-five.dec",
        "--nim-sum-out",
        &g_arg,
        "--move-out",
        &to_arg,
    ]);
    assert_eq!(std::fs::read_to_string(&g).unwrap(), "10\n");
    assert_eq!(std::fs::read_to_string(&to).unwrap(), "1\n");
}

#[test]
fn a_zero_nim_sum_is_written_as_0_and_no_move_means_no_move_file() {
    let sandbox = Sandbox::new();
    let input = sandbox.file("pair.hex", b"0xff 0XFF\n");
    let g = sandbox.path("g.bits");
    let to = sandbox.path("to.bits");
    let (g_arg, to_arg) = (g.display().to_string(), to.display().to_string());
    let report = sandbox.report(&[&input, "--nim-sum-out", &g_arg, "--move-out", &to_arg]);
    assert_eq!(report["winner"], "second");
    assert_eq!(report["move"], Json::Null);
    assert_eq!(std::fs::read_to_string(&g).unwrap(), "0\n");
    assert!(!to.exists(), "a move file was written without a move");
}

#[test]
fn a_misere_move_to_zero_writes_0() {
    let sandbox = Sandbox::new();
    let to = sandbox.path("to.bits");
    let to_arg = to.display().to_string();
    let report = sandbox.report(&[
        "fixtures/misere-four-ones.unary",
        "--rule",
        "misere",
        "--move-out",
        &to_arg,
    ]);
    assert_eq!(report["move"]["to"], value(0));
    assert_eq!(std::fs::read_to_string(&to).unwrap(), "0\n");
}

/// Random bits from a seed (splitmix64), as a number of exactly `bits` bits.
fn random_number(bits: u64, seed: u64) -> BigUint {
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    let digits: Vec<u32> = (0..bits.div_ceil(32)).map(|_| next() as u32).collect();
    let n = BigUint::new(digits);
    let top = BigUint::from(1u32) << (bits - 1);
    (n & ((&top << 1u32) - 1u32)) | top
}

/// A bits file of `heaps`, with the expected report (no `input`), nim-sum
/// and move target.
struct BigInstance {
    text: Vec<u8>,
    expected: Json,
    nim_sum: BigUint,
    target: BigUint,
}

fn big_instance(heaps: &[BigUint]) -> BigInstance {
    let mut text = Vec::new();
    let mut offsets = Vec::new();
    for (i, heap) in heaps.iter().enumerate() {
        offsets.push(text.len());
        text.extend_from_slice(heap.to_str_radix(2).as_bytes());
        text.push(if i % 2 == 0 { b' ' } else { b'\n' });
    }
    let g = heaps.iter().fold(BigUint::zero(), |acc, x| acc ^ x);
    let msb = g.bits() - 1;
    let holders: Vec<usize> = (0..heaps.len()).filter(|&i| heaps[i].bit(msb)).collect();
    let i = holders[0];
    let target = &heaps[i] ^ &g;
    let line = 1 + text[..offsets[i]].iter().filter(|&&b| b == b'\n').count();
    let ones = heaps.iter().filter(|x| x.bits() == 1).count();
    let expected = json!({
        "schema": 1,
        "rule": "normal",
        "game": "nim",
        "heaps": heaps.len(),
        "nonzero_heaps": heaps.iter().filter(|x| !x.is_zero()).count(),
        "ones": ones,
        "big": heaps.iter().filter(|x| x.bits() >= 2).count(),
        "max_bit_length": heaps.iter().map(BigUint::bits).max(),
        "nim_sum": big_value(&g, 4096),
        "msb": msb,
        "winner": "first",
        "winning_moves": holders.len(),
        "move": {
            "heap": i, "offset": offsets[i], "line": line,
            "from": big_value(&heaps[i], 4096),
            "to": big_value(&target, 4096),
            "remove": big_value(&(&heaps[i] - &target), 4096),
        },
    });
    BigInstance {
        text,
        expected,
        nim_sum: g,
        target,
    }
}

/// Analyzes `instance` under each budget: the same report (apart from
/// stats) and output files equal to the reference.
fn check_big_instance(instance: &BigInstance, budgets: &[&str]) {
    let sandbox = Sandbox::new();
    let input = sandbox.file("big.bits", &instance.text);
    let want_g = format!("{}\n", instance.nim_sum.to_str_radix(2));
    let want_to = format!("{}\n", instance.target.to_str_radix(2));
    for memory in budgets {
        let g = sandbox.path(&format!("g-{memory}.bits"));
        let to = sandbox.path(&format!("to-{memory}.bits"));
        let (g_arg, to_arg) = (g.display().to_string(), to.display().to_string());
        let mut report = sandbox.report(&[
            &input,
            "--memory",
            memory,
            "--nim-sum-out",
            &g_arg,
            "--move-out",
            &to_arg,
        ]);
        let input_info = report.as_object_mut().unwrap().remove("input").unwrap();
        assert_eq!(
            input_info["bytes"],
            instance.text.len(),
            "--memory {memory}"
        );
        assert_eq!(report, instance.expected, "--memory {memory}");
        assert!(
            std::fs::read_to_string(&g).unwrap() == want_g,
            "--nim-sum-out differs under --memory {memory}"
        );
        assert!(
            std::fs::read_to_string(&to).unwrap() == want_to,
            "--move-out differs under --memory {memory}"
        );
    }
}

#[test]
fn a_ten_million_bit_heap_writes_the_reference_nim_sum_and_move() {
    let heaps = vec![
        random_number(5000, 1),
        random_number(10_000_000, 2),
        random_number(3_000_000, 3),
        BigUint::from(1u32),
        random_number(64, 4),
        BigUint::zero(),
    ];
    let instance = big_instance(&heaps);
    assert_eq!(instance.expected["move"]["heap"], 1);
    check_big_instance(&instance, &["1GiB", "256KiB"]);
}

#[test]
fn a_long_heap_gives_the_same_answer_under_every_budget() {
    let heaps = vec![
        random_number(100_000, 5),
        random_number(99_000, 6),
        random_number(100_001, 7),
        random_number(1000, 8),
        BigUint::from(3u32),
    ];
    check_big_instance(&big_instance(&heaps), &["1GiB", "64", "72", "4KiB", "log"]);
}

// ---------------------------------------------------------------------------
// Formats: detection and standard input.

#[test]
fn the_format_is_detected_from_the_extension_whatever_its_case() {
    let sandbox = Sandbox::new();
    let cases: [(&str, &[u8], &str); 10] = [
        ("a.DEC", b"3 4 5", "dec"),
        ("a.Bits", b"11 100 101", "bits"),
        ("a.HEX", b"3 4 5", "hex"),
        ("a.Unary", b"111\n1111\n11111", "unary"),
        ("a.U8", b"\x03\x04\x05", "u8"),
        ("a.u16le", b"\x03\x00\x04\x00\x05\x00", "u16le"),
        ("a.U32", b"\x03\0\0\0\x04\0\0\0\x05\0\0\0", "u32le"),
        ("a.u32LE", b"\x03\0\0\0\x04\0\0\0\x05\0\0\0", "u32le"),
        (
            "a.U64le",
            b"\x03\0\0\0\0\0\0\0\x04\0\0\0\0\0\0\0\x05\0\0\0\0\0\0\0",
            "u64le",
        ),
        ("a.NIMB", b"NIMB\x01\0\0\0\x01\x03\x01\x04\x01\x05", "nimb"),
    ];
    for (name, bytes, format) in cases {
        let path = sandbox.file(name, bytes);
        let report = sandbox.report(&[&path]);
        assert_eq!(report["input"]["format"], format, "{name}");
        assert_eq!(report["nim_sum"], value(2), "{name}");
    }
}

#[test]
fn a_nimb_file_is_recognised_by_its_magic_whatever_its_name() {
    let sandbox = Sandbox::new();
    for name in ["instance.bin", "no-extension"] {
        let path = sandbox.file(name, b"NIMB\x01\0\0\0\x01\x03\x01\x04\x01\x05");
        let report = sandbox.report(&[&path]);
        assert_eq!(report["input"]["format"], "nimb", "{name}");
        assert_eq!(report["move"]["offset"], 8, "{name}");
        assert_eq!(report["move"]["line"], Json::Null, "{name}");
    }
}

#[test]
fn an_explicit_format_overrides_the_extension() {
    let sandbox = Sandbox::new();
    let path = sandbox.file("looks-like.dec", b"11 100 101");
    let report = sandbox.report(&[&path, "--format", "bits"]);
    assert_eq!(report["input"]["format"], "bits");
    assert_eq!(report["nim_sum"], value(2));
}

#[test]
fn standard_input_is_read_with_an_explicit_format() {
    let sandbox = Sandbox::new();
    let stdin_cases: [(&str, &[u8]); 4] = [
        ("bits", b"  11\n100\r\n101 "),
        ("unary", b"111\r\n1111\n11111"),
        ("u16le", b"\x03\x00\x04\x00\x05\x00"),
        ("nimb", b"NIMB\x01\0\0\0\x81\x00\x03\x01\x04\x02\x05\x00"),
    ];
    for (format, bytes) in stdin_cases {
        let args = ["analyze", "-", "--format", format, "--json"];
        let report = without_stats(&succeeded(sandbox.run_with_stdin(&args, bytes), &args));
        assert_eq!(
            report["input"],
            json!({"path": "-", "format": format, "bytes": bytes.len()}),
            "{format}"
        );
        assert_eq!(report["move"]["to"], value(1), "{format}");
        assert_eq!(report["move"]["remove"], value(2), "{format}");
    }
    let args = ["analyze", "-", "-f", "bits", "--json"];
    let offset = without_stats(&succeeded(
        sandbox.run_with_stdin(&args, b"\n\n  11 100 101"),
        &args,
    ));
    assert_eq!(
        (
            offset["move"]["offset"].clone(),
            offset["move"]["line"].clone()
        ),
        (json!(4), json!(3))
    );
}

#[test]
fn standard_input_and_a_file_give_the_same_report() {
    let sandbox = Sandbox::new();
    let bytes =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/three-four-five.hex"))
            .unwrap();
    for rule in ["normal", "misere"] {
        let args = ["analyze", "-", "--format", "hex", "--json", "--rule", rule];
        let mut from_stdin =
            without_stats(&succeeded(sandbox.run_with_stdin(&args, &bytes), &args));
        let mut from_file = sandbox.report(&["fixtures/three-four-five.hex", "--rule", rule]);
        from_stdin.as_object_mut().unwrap().remove("input");
        from_file.as_object_mut().unwrap().remove("input");
        assert_eq!(from_stdin, from_file, "--rule {rule}");
    }
}

// ---------------------------------------------------------------------------
// Misère edge cases.

/// `analyze --json --rule RULE` of a `.dec` file holding `heaps`.
fn dec_report(heaps: &str, rule: &str) -> Json {
    let sandbox = Sandbox::new();
    let path = sandbox.file("heaps.dec", heaps.as_bytes());
    sandbox.report(&[&path, "--rule", rule])
}

fn assert_no_move(report: &Json, winner: &str, context: &str) {
    assert_eq!(report["winner"], winner, "{context}");
    assert_eq!(report["move"], Json::Null, "{context}");
    assert_eq!(report["winning_moves"], 0, "{context}");
}

fn assert_move(report: &Json, heap: u64, from: u64, to: u64, moves: u64, context: &str) {
    assert_eq!(report["winner"], "first", "{context}");
    assert_eq!(report["move"]["heap"], heap, "{context}");
    assert_eq!(report["move"]["from"], value(from), "{context}");
    assert_eq!(report["move"]["to"], value(to), "{context}");
    assert_eq!(report["move"]["remove"], value(from - to), "{context}");
    assert_eq!(report["winning_moves"], moves, "{context}");
}

#[test]
fn an_empty_file_is_won_by_the_first_player_in_misere_only() {
    let misere = dec_report("", "misere");
    assert_no_move(&misere, "first", "empty, misère");
    assert_eq!(misere["heaps"], 0);
    assert_eq!(misere["max_bit_length"], 0);
    assert_eq!(misere["nim_sum"], value(0));
    assert_eq!(misere["msb"], Json::Null);
    assert_no_move(&dec_report("", "normal"), "second", "empty, normal");
    assert_no_move(&dec_report(" \n\t\r\n", "misere"), "first", "blank, misère");
    assert_no_move(&dec_report("0 000 0", "misere"), "first", "zeros, misère");
}

#[test]
fn zero_heaps_do_not_change_the_misere_answer() {
    assert_no_move(&dec_report("0 0 1", "misere"), "second", "0 0 1");
    assert_move(&dec_report("1 1 0", "misere"), 0, 1, 0, 2, "1 1 0");
    assert_move(&dec_report("0 1 0 1", "misere"), 1, 1, 0, 2, "0 1 0 1");
    // One big heap: leave an odd number of 1-heaps.
    assert_move(&dec_report("5 0 1", "misere"), 0, 5, 0, 1, "5 0 1");
    assert_move(&dec_report("0 5 0", "misere"), 1, 5, 1, 1, "0 5 0");
    assert_move(&dec_report("1 0 2 1 0", "misere"), 2, 2, 1, 1, "1 0 2 1 0");
    assert_move(&dec_report("1 2 0 1 1", "misere"), 1, 2, 0, 1, "1 2 0 1 1");
    // The same positions in normal play follow the nim-sum.
    assert_move(&dec_report("5 0 1", "normal"), 0, 5, 1, 1, "5 0 1 normal");
    assert_no_move(&dec_report("1 1 0", "normal"), "second", "1 1 0 normal");
}

#[test]
fn all_ones_fixtures_count_the_ones_in_misere() {
    let sandbox = Sandbox::new();
    let four = sandbox.report(&["fixtures/misere-four-ones.unary", "--rule", "misere"]);
    assert_move(&four, 0, 1, 0, 4, "four ones");
    assert_eq!(four["move"]["line"], 1);
    let normal = sandbox.report(&["fixtures/misere-four-ones.unary"]);
    assert_no_move(&normal, "second", "four ones, normal");
    let three = sandbox.report(&["fixtures/misere-three-ones.dec", "--rule", "misere"]);
    assert_no_move(&three, "second", "three ones");
    assert_eq!(
        (three["ones"].clone(), three["heaps"].clone()),
        (json!(3), json!(5))
    );
    let three_normal = sandbox.report(&["fixtures/misere-three-ones.dec"]);
    assert_move(&three_normal, 1, 1, 0, 3, "three ones, normal");
    assert_eq!(three_normal["move"]["line"], 2);
}

#[test]
fn the_misere_game_of_three_four_five_is_won_by_the_first_player() {
    // Both sides play the analyzer's move when it has one; the loser takes
    // one token from the largest heap. In misère play whoever takes the
    // last token loses, so the second player must take it.
    let sandbox = Sandbox::new();
    let mut heaps = vec![3u64, 4, 5];
    let mut mover = 0;
    let mut moves = 0;
    while heaps.iter().any(|&h| h > 0) {
        let text: Vec<String> = heaps.iter().map(u64::to_string).collect();
        let path = sandbox.file("position.dec", text.join(" ").as_bytes());
        let report = sandbox.report(&[&path, "--rule", "misere"]);
        let expected_winner = if mover == 0 { "first" } else { "second" };
        assert_eq!(report["winner"], expected_winner, "position {heaps:?}");
        match report["move"].as_object() {
            Some(m) => {
                let heap = m["heap"].as_u64().unwrap() as usize;
                let to: u64 = m["to"]["dec"].as_str().unwrap().parse().unwrap();
                assert!(to < heaps[heap], "an illegal move at {heaps:?}");
                heaps[heap] = to;
            }
            None => {
                let largest = (0..3).max_by_key(|&i| (heaps[i], 3 - i)).unwrap();
                heaps[largest] -= 1;
            }
        }
        mover = 1 - mover;
        moves += 1;
    }
    // The second player (mover 1) made the last move and lost.
    assert_eq!(
        mover, 0,
        "the first player took the last token after {moves} moves"
    );
}

// ---------------------------------------------------------------------------
// Working memory, as measured by the binary's counting allocator.

#[test]
fn working_memory_stays_within_the_budget_plus_16_kib() {
    let sandbox = Sandbox::new();
    // Every heap holds a new highest bit: 2^0 … 2^1999, in hex.
    let powers: Vec<String> = (0..2000u32)
        .map(|i| (BigUint::from(1u32) << i).to_str_radix(16))
        .collect();
    let powers = sandbox.file("powers.hex", powers.join(" ").as_bytes());
    let long = [random_number(20_000, 9), random_number(19_999, 10)];
    let long_text = format!("{} {}\n", long[0].to_str_radix(2), long[1].to_str_radix(2));
    let long = sandbox.file("long.bits", long_text.as_bytes());
    let g = sandbox.path("g.bits").display().to_string();
    let to = sandbox.path("to.bits").display().to_string();
    for input in [&powers, &long] {
        for (memory, limit) in [
            ("64", 64),
            ("72", 72),
            ("4KiB", 4096),
            ("1MiB", 1 << 20),
            ("log", 0),
        ] {
            for files in [false, true] {
                let mut args = vec!["analyze", "--json", input.as_str(), "--memory", memory];
                if files {
                    args.extend(["--nim-sum-out", &g, "--move-out", &to]);
                }
                let report: Json = serde_json::from_str(&sandbox.ok(&args)).unwrap();
                let used = report["stats"]["working_memory_bytes"].as_u64().unwrap();
                assert!(used > 0, "working memory is measured, not left at 0");
                assert!(
                    used <= limit + 16 * 1024,
                    "{used} bytes under --memory {memory} for {input} (files: {files})"
                );
            }
        }
    }
}

/// Minutes in a debug build (9 MiB, three windows of passes, four runs):
/// CI runs it on the release build.
#[test]
#[ignore = "minutes in debug: CI runs it with --release --ignored"]
fn log_passes_read_a_file_on_two_threads_within_16_kib() {
    let sandbox = Sandbox::new();
    // Over 8 MiB, so that a pass cuts it into two ranges of 4 MiB or more:
    // decimal heaps of 1 to 128 bits (three 64-bit windows, and the
    // first-holder search).
    let mut text = String::new();
    for seed in 0.. {
        if text.len() >= 9 << 20 {
            break;
        }
        text += &format!("{}\n", random_number(1 + seed % 128, seed));
    }
    let file = sandbox.file("many.dec", text.as_bytes());
    let expected = sandbox.report(&[file.as_str()]);
    for (threads, used_threads) in [("1", 1), ("2", 2), ("8", 2)] {
        let args = ["analyze", "--json", "--memory", "log", "-j", threads, &file];
        let stdout = sandbox.ok(&args);
        let report: Json = serde_json::from_str(&stdout).unwrap();
        let stats = &report["stats"];
        assert_eq!(stats["threads"], used_threads, "-j {threads}: {stats}");
        let used = stats["working_memory_bytes"].as_u64().unwrap();
        assert!(used <= 16 << 10, "{used} bytes on -j {threads}");
        assert_eq!(without_stats(&stdout), expected, "-j {threads}");
    }
}

// ---------------------------------------------------------------------------
// Inputs that cannot be mapped.

/// Makes a FIFO at `path` and feeds it `bytes` from a thread.
#[cfg(unix)]
fn fifo(path: &Path, bytes: &'static [u8]) -> std::thread::JoinHandle<()> {
    let made = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(made.success(), "mkfifo {}", path.display());
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        use std::io::Write;
        let mut writer = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        let _ = writer.write_all(bytes);
    })
}

#[cfg(unix)]
#[test]
fn a_fifo_is_streamed_and_named_by_its_path() {
    let sandbox = Sandbox::new();
    let good = sandbox.path("good.dec");
    let feeder = fifo(&good, b"3 4 5\n");
    let shown = good.display().to_string();
    let report = sandbox.report(&[&shown]);
    feeder.join().unwrap();
    assert_eq!(
        report["input"],
        json!({"path": shown, "format": "dec", "bytes": 6})
    );
    assert_eq!(report["move"]["remove"], value(2));

    let bad = sandbox.path("bad.dec");
    let feeder = fifo(&bad, b"3 4\n5x\n");
    let shown = bad.display().to_string();
    let output = sandbox.run_with_stdin(&["analyze", &shown], b"");
    feeder.join().unwrap();
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        format!("error: {shown}: offset 5 (line 2, column 2): expected a decimal digit (0-9) or whitespace, found 'x' (0x78)\n")
    );
}

#[test]
fn a_bad_input_leaves_no_output_files_behind() {
    let sandbox = Sandbox::new();
    let input = sandbox.file("bad.bits", b"11 100 101 12\n");
    let g = sandbox.path("g.bits");
    let to = sandbox.path("to.bits");
    let (g_arg, to_arg) = (g.display().to_string(), to.display().to_string());
    for memory in ["1GiB", "64", "log"] {
        let args = [
            "analyze",
            &input,
            "--memory",
            memory,
            "--nim-sum-out",
            &g_arg,
            "--move-out",
            &to_arg,
        ];
        let output = sandbox.run_with_stdin(&args, b"");
        assert_eq!(output.status.code(), Some(1), "--memory {memory}");
        assert!(output.stdout.is_empty());
        assert!(!g.exists() && !to.exists(), "--memory {memory}");
    }
    let leftovers: Vec<_> = std::fs::read_dir(sandbox.dir.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name())
        .filter(|name| name != "bad.bits")
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn an_unknown_simd_cap_is_a_usage_error_naming_the_variable() {
    let sandbox = Sandbox::new();
    let args = ["analyze", "fixtures/three-four-five.dec"];
    let output = sandbox.run_with_simd(Some("bogus"), &args);
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(
        stderr,
        "error: unknown NIMSTREAM_SIMD value 'bogus': expected portable, avx2 or avx512\n"
    );
}

#[test]
fn every_simd_cap_gives_the_report_of_the_default() {
    let sandbox = Sandbox::new();
    let mut inputs = vec!["fixtures/three-four-five.dec".to_string()];
    // Long enough that every packer and kernel runs whole vector steps.
    for (format, bits, name) in [
        ("hex", "1..4096", "heaps.hex"),
        ("bits", "1..4096", "heaps.bits"),
        ("u64le", "64", "heaps.u64"),
    ] {
        let path = sandbox.path(name).display().to_string();
        let args = ["gen", "--format", format, "--heaps", "2000", "--bits", bits];
        let args = [&args[..], &["--seed", "1", "-o", &path]].concat();
        // `gen` prints its summary on standard error.
        let output = sandbox.run_with_simd(None, &args);
        assert!(output.status.success(), "{args:?}: {output:?}");
        inputs.push(path);
    }
    for input in &inputs {
        let args = ["analyze", "--json", "-j", "1", input.as_str()];
        let report = |cap| {
            let stdout = succeeded(sandbox.run_with_simd(cap, &args), &args);
            without_stats(&stdout)
        };
        let default = report(None);
        for cap in ["portable", "avx2", "avx512"] {
            assert_eq!(report(Some(cap)), default, "{cap} on {input}");
        }
    }
}

// Small things a user notices.

const FIXTURE: &str = "fixtures/three-four-five.dec";

#[test]
fn standard_input_without_a_format_is_an_error_naming_stdin() {
    let output = Sandbox::new().run_with_stdin(&["analyze", "-"], b"3 4 5\n");
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("error: <stdin>: standard input needs --format"),
        "{stderr}"
    );
}

#[test]
fn zero_threads_is_refused_in_words() {
    let output = Sandbox::new().run_with_stdin(&["analyze", "-j", "0", FIXTURE], b"");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("at least 1 thread is needed"), "{stderr}");
    assert!(!stderr.contains("18446744073709551615"), "{stderr}");
}

#[test]
fn the_human_report_keeps_its_columns_under_decide() {
    let sandbox = Sandbox::new();
    for args in [
        vec!["analyze", FIXTURE],
        vec!["analyze", "--decide", FIXTURE],
    ] {
        for line in sandbox.ok(&args).lines() {
            // Every value starts in column 16: labels are padded to
            // "winning moves", the longest, and two spaces follow.
            let (label, value) = line.split_at(15);
            assert!(
                label.ends_with("  ") && !value.starts_with(' '),
                "{args:?}: {line}"
            );
        }
    }
}

#[test]
fn the_window_is_named_in_units_a_person_reads() {
    let sandbox = Sandbox::new();
    let default = sandbox.ok(&["analyze", FIXTURE]);
    assert!(default.contains("(1 GiB window)"), "{default}");
    let log = sandbox.ok(&["analyze", "--memory", "log", FIXTURE]);
    assert!(log.contains("(64-bit window)"), "{log}");
}

#[test]
fn a_few_bytes_on_standard_input_cost_a_few_kib() {
    let args = ["analyze", "-", "--format", "dec", "--json"];
    let output = Sandbox::new().run_with_stdin(&args, b"3 4 5\n");
    let report: Json = serde_json::from_str(&succeeded(output, &args)).unwrap();
    let used = report["stats"]["working_memory_bytes"].as_u64().unwrap();
    assert!(used <= 16 << 10, "{used} bytes for six bytes of input");
}

#[test]
fn help_gives_examples_and_the_exit_statuses() {
    let sandbox = Sandbox::new();
    for args in [&["--help"][..], &["analyze", "--help"][..]] {
        let text = sandbox.ok(args);
        assert!(
            text.contains("Examples:\n  nimstream analyze "),
            "{args:?}: {text}"
        );
        assert!(text.contains("Exit status"), "{args:?}: {text}");
        assert!(
            text.contains("2 bad usage") || text.contains("2  bad usage"),
            "{text}"
        );
    }
}

#[test]
fn completions_are_printed_for_every_shell_and_bash_parses_its_script() {
    let sandbox = Sandbox::new();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = sandbox.ok(&["completions", shell]);
        for word in ["analyze", "memory", "game", "verify"] {
            assert!(script.contains(word), "{shell}: no {word}");
        }
    }
    let script = sandbox.file(
        "nimstream.bash",
        sandbox.ok(&["completions", "bash"]).as_bytes(),
    );
    let syntax = Command::new("bash").args(["-n", &script]).output().unwrap();
    assert!(
        syntax.status.success(),
        "{}",
        String::from_utf8_lossy(&syntax.stderr)
    );
    let unknown = sandbox.run_with_stdin(&["completions", "tcsh"], b"");
    assert_eq!(unknown.status.code(), Some(2));
}

#[test]
fn the_manual_pages_name_every_command() {
    let sandbox = Sandbox::new();
    let page = sandbox.ok(&["man"]);
    assert!(page.contains(".TH nimstream 1"), "{page}");
    assert!(page.contains("analyze"), "{page}");
    let dir = sandbox.path("man");
    std::fs::create_dir(&dir).unwrap();
    sandbox.ok(&["man", "--out-dir", &dir.display().to_string()]);
    for command in [
        "analyze",
        "gen",
        "convert",
        "verify",
        "grundy",
        "play",
        "complexity",
    ] {
        let page = std::fs::read_to_string(dir.join(format!("nimstream-{command}.1"))).unwrap();
        assert!(
            page.contains(&format!(".TH nimstream-{command} 1")),
            "{command}"
        );
    }
}

/// Runs `nimstream ARGS` in the sandbox under a pseudo-terminal (util-linux
/// `script`), the progress bar asked to appear at once; returns what the
/// terminal received.
fn on_a_terminal(sandbox: &Sandbox, args: &str) -> String {
    let command = format!("{} {args}", env!("CARGO_BIN_EXE_nimstream"));
    let output = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(sandbox.dir.path())
        .env("NIMSTREAM_PROGRESS_AFTER_MS", "0")
        .stdin(Stdio::null())
        .output()
        .expect("util-linux script runs");
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout).replace('\r', "")
}

#[test]
fn analyze_shows_progress_on_a_terminal_and_nowhere_else() {
    let sandbox = Sandbox::new();
    let args = [
        "gen", "--format", "bits", "--size", "8MiB", "--bits", "200..256", "-o", "x.bits",
    ];
    let output = Command::new(env!("CARGO_BIN_EXE_nimstream"))
        .args(args)
        .current_dir(sandbox.dir.path())
        .output()
        .unwrap();
    assert!(output.status.success());

    let human = on_a_terminal(&sandbox, "analyze x.bits --memory log");
    // How many frames a run draws, and from which pass on, depends on the
    // machine's load: at least one, naming the pass, its total the bytes
    // of the passes planned so far (the file's 8 MiB each).
    assert!(
        (1..=9).any(|pass| human.contains(&format!("pass {pass} "))),
        "{human}"
    );
    assert!(
        (1..=9).any(|passes| human.contains(&format!("/{}.00 MiB", 8 * passes))),
        "the bar counts the file's bytes: {human}"
    );
    let report = &human[human.rfind("input ").expect("the report")..];
    assert!(
        !report.contains("pass 1 "),
        "the bar is cleared before the report: {report}"
    );
    assert!(report.contains("\nwinner "), "{report}");

    let json = on_a_terminal(&sandbox, "analyze x.bits --memory log --json");
    assert!(!json.contains("pass "), "no bar with --json: {json}");
    assert!(serde_json::from_str::<Json>(json.trim()).is_ok(), "{json}");

    let piped = Command::new(env!("CARGO_BIN_EXE_nimstream"))
        .args(["analyze", "x.bits", "--memory", "log"])
        .current_dir(sandbox.dir.path())
        .env("NIMSTREAM_PROGRESS_AFTER_MS", "0")
        .output()
        .unwrap();
    assert!(piped.status.success());
    assert!(
        piped.stderr.is_empty(),
        "no bar when stderr is not a terminal"
    );
}

#[test]
fn output_files_named_for_another_format_are_refused() {
    let sandbox = Sandbox::new();
    let out = |name: &str| sandbox.path(name).display().to_string();
    let cases: [(Vec<String>, &str, &str); 6] = [
        (
            vec![
                "analyze".into(),
                "fixtures/three-four-five.dec".into(),
                "--move-out".into(),
                out("to.hex"),
            ],
            "to.hex",
            "--move-out writes bits text, but its name",
        ),
        (
            vec![
                "analyze".into(),
                "fixtures/three-four-five.dec".into(),
                "--nim-sum-out".into(),
                out("sum.dec"),
            ],
            "sum.dec",
            "--nim-sum-out writes bits text, but its name",
        ),
        (
            vec![
                "graph".into(),
                "fixtures/game-graph.txt".into(),
                "--values-out".into(),
                out("values.bits"),
            ],
            "values.bits",
            "--values-out writes dec text, but its name",
        ),
        (
            vec![
                "grundy".into(),
                "kayles".into(),
                "--svg".into(),
                out("values.csv"),
            ],
            "values.csv",
            "--svg writes an SVG drawing, but its name",
        ),
        (
            vec![
                "grundy".into(),
                "kayles".into(),
                "--csv".into(),
                out("values.u16"),
            ],
            "values.u16",
            "--csv writes CSV, but its name",
        ),
        (
            vec![
                "grundy".into(),
                "kayles".into(),
                "--csv".into(),
                out("values.svg"),
            ],
            "values.svg",
            "--csv writes CSV, but its name",
        ),
    ];
    for (args, file, why) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = sandbox.run_with_stdin(&args, b"");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        let text = String::from_utf8(output.stderr).unwrap();
        assert!(text.starts_with(&format!("error: {why}")), "{text}");
        assert!(!sandbox.path(file).exists(), "{file} was written");
    }
    // Names that say the right thing, or nothing, are written.
    for (args, file) in [
        (
            vec!["analyze", "fixtures/three-four-five.dec", "--move-out"],
            "to.bits",
        ),
        (
            vec!["analyze", "fixtures/three-four-five.dec", "--nim-sum-out"],
            "sum.txt",
        ),
        (
            vec!["graph", "fixtures/game-graph.txt", "--values-out"],
            "values.dec",
        ),
        (vec!["grundy", "kayles", "--svg"], "values.svg"),
        (vec!["grundy", "kayles", "--csv"], "values"),
    ] {
        let path = out(file);
        sandbox.ok(&[&args[..], &[path.as_str()]].concat());
        assert!(sandbox.path(file).exists(), "{file}");
    }
    assert_eq!(std::fs::read(sandbox.path("to.bits")).unwrap(), b"1\n");
}

#[test]
fn usage_errors_keep_clap_tips_and_the_pointer_to_help() {
    let sandbox = Sandbox::new();
    for (args, tip) in [
        (
            &["anlyze", "x"][..],
            "tip: a similar subcommand exists: 'analyze'",
        ),
        (
            &["analyze", "--jsn", "x"][..],
            "tip: a similar argument exists: '--json'",
        ),
        (
            &["analyze", "x", "--memory", "10"][..],
            "below the minimum of 64 bytes",
        ),
    ] {
        let output = sandbox.run_with_stdin(args, b"");
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        let text = String::from_utf8(output.stderr).unwrap();
        assert!(text.starts_with("error: "), "{text}");
        assert!(text.contains(tip), "{args:?}: {text}");
        assert!(
            text.trim_end()
                .ends_with("For more information, try '--help'."),
            "{args:?}: {text}"
        );
    }
}

/// Every command clap knows, `help` aside.
const COMMANDS: [&str; 12] = [
    "analyze",
    "updates",
    "merge",
    "grundy",
    "graph",
    "gen",
    "convert",
    "verify",
    "play",
    "complexity",
    "completions",
    "man",
];

#[test]
fn every_subcommand_help_ends_with_its_examples_and_exit_statuses() {
    let sandbox = Sandbox::new();
    for command in COMMANDS {
        let text = sandbox.ok(&[command, "--help"]);
        let examples = text
            .find("\nExamples:\n")
            .unwrap_or_else(|| panic!("{command}: no examples\n{text}"));
        let after = &text[examples..];
        let (examples, statuses) = after
            .split_once("\nExit status:\n")
            .unwrap_or_else(|| panic!("{command}: no exit statuses\n{text}"));
        assert!(
            examples.contains(&format!("\n  nimstream {command} ")),
            "{command}: {examples}"
        );
        // The statuses end the help, one a line, from 0, 2 among them.
        let codes: Vec<&str> = statuses.lines().map(|l| &l[..3]).collect();
        assert_eq!(codes[0], "  0", "{command}: {statuses}");
        assert!(codes.contains(&"  2"), "{command}: {statuses}");
        assert!(codes
            .iter()
            .all(|c| c.starts_with("  ") && c.as_bytes()[2].is_ascii_digit()));
    }
    let merge = sandbox.ok(&["merge", "--help"]);
    assert!(merge.contains("\n  3  a partial, not a report"), "{merge}");
}

#[test]
fn man_makes_its_folder_and_every_page_has_examples_line_by_line_and_exit_statuses() {
    let sandbox = Sandbox::new();
    let dir = sandbox.path("share/man/man1");
    sandbox.ok(&["man", "--out-dir", &dir.display().to_string()]);
    for command in std::iter::once("nimstream".to_string())
        .chain(COMMANDS.iter().map(|c| format!("nimstream-{c}")))
    {
        let page = std::fs::read_to_string(dir.join(format!("{command}.1"))).expect(&command);
        assert!(!page.contains(".SH EXTRA"), "{command}: {page}");
        let examples = page.find(".SH EXAMPLES\n.nf\n").expect(&command);
        let block = &page[examples..page[examples..].find("\n.fi\n").unwrap() + examples];
        // Each example is its own line: the command in bold, what it
        // shows indented on the next.
        let commands = block.lines().filter(|l| l.starts_with("\\fB")).count();
        let shown = block.lines().filter(|l| l.starts_with("    ")).count();
        assert!(commands >= 2 && commands == shown, "{command}: {block}");
        assert!(page.contains(".SH \"EXIT STATUS\"\n.TP\n0\n"), "{command}");
    }
    let top = std::fs::read_to_string(dir.join("nimstream.1")).unwrap();
    assert!(top.contains("\\fBnimstream analyze fixtures/three\\-four\\-five.dec\\fR\n    who wins, and the move\n"), "{top}");
    assert!(!dir.join("nimstream-help.1").exists());
}

/// The line of a human report that starts with `label`, without it.
fn report_line<'r>(report: &'r str, label: &str) -> &'r str {
    report
        .lines()
        .find_map(|line| line.strip_prefix(label))
        .unwrap_or_else(|| panic!("no {label} line: {report}"))
        .trim_start()
}

#[test]
fn the_human_report_shows_long_values_by_their_ends_and_json_keeps_them_whole() {
    let sandbox = Sandbox::new();
    let file = sandbox.path("long.dec").display().to_string();
    let gen = [
        "gen", "-f", "dec", "--heaps", "40", "--bits", "1..4096", "--seed", "5", "-o", &file,
    ];
    sandbox.run_with_stdin(&gen, b"");
    let json: Json = serde_json::from_str(&sandbox.ok(&["analyze", &file, "--json"])).unwrap();
    let human = sandbox.ok(&["analyze", &file]);
    // A screen, not kilobytes of digits.
    assert!(human.len() < 1500, "{} bytes: {human}", human.len());
    assert!(
        human.lines().all(|line| line.chars().count() < 250),
        "{human}"
    );

    let line = report_line(&human, "move");
    let whole = |value: &Json| value["dec"].as_str().unwrap().to_string();
    for part in ["remove", "from", "to"] {
        let digits = whole(&json["move"][part]);
        let bits = json["move"][part]["bit_length"].as_u64().unwrap();
        let shown = match digits.len() > 40 {
            true => format!(
                "{}…{} ({bits} bits)",
                &digits[..12],
                &digits[digits.len() - 12..]
            ),
            false => digits.clone(),
        };
        assert!(line.contains(&shown), "{part}: {shown} in {line}");
    }
    assert!(line.ends_with("(--json prints them whole)"), "{line}");
    assert!(
        whole(&json["move"]["from"]).len() > 1000,
        "--json keeps every digit"
    );

    let hex = json["nim_sum"]["hex"].as_str().unwrap();
    let nim_sum = report_line(&human, "nim-sum");
    assert!(
        nim_sum.contains(&format!("hex {}…{}", &hex[..12], &hex[hex.len() - 12..])),
        "{nim_sum}"
    );
    assert!(nim_sum.ends_with("; --json prints it whole)"), "{nim_sum}");
}

#[test]
fn an_instance_with_no_move_at_all_says_so() {
    let sandbox = Sandbox::new();
    for (text, game) in [
        ("", "nim"),
        ("0 0 0\n", "nim"),
        ("", "kayles"),
        ("0\n", "sub:1,2"),
    ] {
        let path = sandbox.file("none.dec", text.as_bytes());
        let human = sandbox.ok(&["analyze", &path, "--game", game]);
        assert_eq!(
            report_line(&human, "move"),
            "none: there is no move (no heap is non-zero)",
            "{text:?} under {game}"
        );
    }
    // A position with moves, none of them winning, still says so.
    let path = sandbox.file("pairs.dec", b"3 3\n");
    let human = sandbox.ok(&["analyze", &path]);
    assert_eq!(
        report_line(&human, "move"),
        "none wins: every move leaves a winning position"
    );
}

#[test]
fn a_compressed_input_gets_a_hint_to_decompress_it_on_the_way_in() {
    let sandbox = Sandbox::new();
    let gzip = |name: &str, text: &[u8]| {
        use std::io::Write;
        let mut child = Command::new("gzip")
            .arg("-c")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("gzip runs");
        child.stdin.take().unwrap().write_all(text).unwrap();
        let packed = child.wait_with_output().unwrap().stdout;
        assert_eq!(&packed[..2], [0x1f, 0x8b]);
        sandbox.file(name, &packed)
    };
    let named = gzip("r.hex.gz", b"3 4 5\n");
    // Raw bytes would read the compressed data as heaps: refused, as a
    // name without a format is.
    let raw = gzip("r.u8.gz", b"\x03\x04\x05");
    let misnamed = gzip("r.hex", b"3 4 5\n");
    for (args, status, command) in [
        (
            vec!["analyze", &named],
            2,
            format!("gzip -dc {named} | nimstream analyze - -f hex"),
        ),
        (
            vec!["analyze", &named, "-f", "hex"],
            2,
            format!("gzip -dc {named} | nimstream analyze - -f hex"),
        ),
        (
            vec!["analyze", &raw, "-f", "u8"],
            2,
            format!("gzip -dc {raw} | nimstream analyze - -f u8"),
        ),
        (
            vec!["convert", &named, "--to", "dec"],
            2,
            format!("gzip -dc {named} | nimstream convert - -f hex"),
        ),
        (
            vec!["analyze", &misnamed],
            1,
            format!("gzip -dc {misnamed} | nimstream analyze - -f hex"),
        ),
    ] {
        let output = sandbox.run_with_stdin(&args, b"");
        assert_eq!(output.status.code(), Some(status), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        let text = String::from_utf8(output.stderr).unwrap();
        assert!(text.contains("it is gzip-compressed"), "{text}");
        assert!(text.trim_end().ends_with(&format!("`{command}`")), "{text}");
    }
    // The way the hint says works.
    let piped = Command::new("sh")
        .args([
            "-c",
            &format!(
                "gzip -dc {named} | {} analyze - -f hex --json",
                env!("CARGO_BIN_EXE_nimstream")
            ),
        ])
        .output()
        .unwrap();
    let report: Json = serde_json::from_slice(&piped.stdout).unwrap();
    assert_eq!(report["nim_sum"], value(2));
}
