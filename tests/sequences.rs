//! `nimstream grundy` past memory (SPEC section 13), from the command
//! line: the outputs, a stop, an interrupted run resumed into the same
//! bytes, Grundy's game under `analyze --game`.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

/// Runs `nimstream ARGS` in `dir`: standard output, standard error, status.
fn nimstream(dir: &Path, args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_nimstream"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (
        text(out.stdout),
        text(out.stderr),
        out.status.code().unwrap_or(-1),
    )
}

/// g(0) … g(n − 1) of Grundy's game by the definition: the mex of the
/// splits into two unequal non-empty heaps.
fn grundys_game(n: usize) -> Vec<u16> {
    let mut values: Vec<u16> = Vec::with_capacity(n);
    for heap in 0..n {
        let options: Vec<u16> = (1..heap.div_ceil(2))
            .map(|a| values[a] ^ values[heap - a])
            .collect();
        values.push((0..).find(|v| !options.contains(v)).unwrap());
    }
    values
}

#[test]
fn the_outputs_hold_every_value_the_frequencies_and_the_json_fields() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "grundy",
        "grundys-game",
        "--max-values",
        "3000",
        "--values-out",
        "v.u16",
        "--frequencies",
        "f.txt",
        "--csv",
        "v.csv",
        "--heap",
        "2999",
        "--json",
    ];
    let (json, error, status) = nimstream(dir.path(), &args);
    assert_eq!(status, 0, "{error}");
    let expected = grundys_game(3000);
    let raw = std::fs::read(dir.path().join("v.u16")).unwrap();
    let values: Vec<u16> = raw
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    assert_eq!(values, expected);
    let (_, error, status) = nimstream(
        dir.path(),
        &[
            "grundy",
            "grundys-game",
            "--max-values",
            "3000",
            "--values-out",
            "v.txt",
        ],
    );
    assert_eq!(status, 0, "{error}");
    let text = std::fs::read_to_string(dir.path().join("v.txt")).unwrap();
    let lines: Vec<u16> = text.lines().map(|line| line.parse().unwrap()).collect();
    assert_eq!(lines, expected);
    let csv = std::fs::read_to_string(dir.path().join("v.csv")).unwrap();
    assert!(
        csv.starts_with("heap,grundy\n0,0\n1,0\n2,0\n3,1\n"),
        "{csv}"
    );
    // Heaps 1 … 2^k at each power of two up to 2048.
    let frequencies = std::fs::read_to_string(dir.path().join("f.txt")).unwrap();
    let blocks: Vec<&str> = frequencies.split("# heaps 2^").skip(1).collect();
    assert_eq!(blocks.len(), 12);
    for (k, block) in blocks.iter().enumerate() {
        let mut lines = block.lines();
        assert_eq!(lines.next(), Some(k.to_string().as_str()));
        let mut counts = vec![0u64; 64];
        expected[1..=1 << k]
            .iter()
            .for_each(|&v| counts[usize::from(v)] += 1);
        let written: Vec<(usize, u64)> = lines
            .map(|line| {
                let (value, count) = line.split_once(' ').unwrap();
                (value.parse().unwrap(), count.parse().unwrap())
            })
            .collect();
        let nonzero: Vec<(usize, u64)> = counts
            .iter()
            .copied()
            .enumerate()
            .filter(|&(_, c)| c > 0)
            .collect();
        assert_eq!(written, nonzero, "2^{k}");
    }
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        json["heaps"],
        serde_json::json!([{"heap": "2999", "grundy": expected[2999]}])
    );
    let total: u64 = json["frequencies"]
        .as_object()
        .unwrap()
        .values()
        .map(|c| c.as_u64().unwrap())
        .sum();
    assert_eq!(total, 2999);
    assert_eq!(
        json["largest_value"],
        expected[1..].iter().copied().max().unwrap()
    );
    assert!(json["values_per_second"].as_f64().unwrap() > 0.0);
    let last_rare = json["rare"]["last_rare_heap"].as_u64().unwrap();
    let mask = json["rare"]["mask"].as_u64().unwrap() as u16;
    let rare = |v: u16| (v & mask).count_ones().is_multiple_of(2);
    assert!(
        rare(expected[last_rare as usize])
            && !expected[last_rare as usize + 1..].iter().any(|&v| rare(v))
    );
}

#[test]
fn a_run_past_its_memory_stops_naming_the_heap_and_keeps_what_it_proved() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "grundy",
        "octal:0.161",
        "--max-values",
        "20000",
        "--memory",
        "64KiB",
        "--values-out",
        "v.u16",
    ];
    let (_, error, status) = nimstream(dir.path(), &args);
    assert_eq!(status, 1, "{error}");
    assert!(error.starts_with("error: the proof of heap "), "{error}");
    assert!(
        error.contains("heaps back") && error.contains("--memory "),
        "{error}"
    );
    let heap: usize = error["error: the proof of heap ".len()..]
        .split('\'')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    let written = std::fs::metadata(dir.path().join("v.u16")).unwrap().len();
    assert_eq!(written, 2 * heap as u64);
    let (_, error, status) = nimstream(
        dir.path(),
        &["grundy", "kayles", "--max-values", "281474976710657"],
    );
    assert_eq!(status, 2, "{error}");
    assert!(error.contains("past 2^48"), "{error}");
}

#[test]
fn an_interrupted_run_resumes_into_the_same_bytes() {
    let straight = tempfile::tempdir().unwrap();
    let broken = tempfile::tempdir().unwrap();
    let outputs = [
        "--values-out",
        "v.txt",
        "--frequencies",
        "f.txt",
        "--csv",
        "v.csv",
    ];
    let run = |extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            "grundy",
            "octal:0.161",
            "--max-values",
            "60000",
            "--values",
            "0",
            "--heap",
            "59999",
        ];
        args.extend_from_slice(&outputs);
        args.extend_from_slice(extra);
        args.iter().map(|s| s.to_string()).collect()
    };
    let (expected, error, status) = nimstream(
        straight.path(),
        &run(&[]).iter().map(String::as_str).collect::<Vec<_>>(),
    );
    assert_eq!(status, 0, "{error}");
    // Interrupt the same run (SIGINT) once it has saved a checkpoint.
    let mut child = Command::new(env!("CARGO_BIN_EXE_nimstream"))
        .args(run(&["--checkpoint", "run.checkpoint"]))
        .current_dir(broken.path())
        .env("NIMSTREAM_CHECKPOINT_SECONDS", "0")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let checkpoint = broken.path().join("run.checkpoint");
    while !checkpoint.exists() {
        std::thread::sleep(Duration::from_millis(5));
    }
    // SAFETY: `kill` with a child's pid and a signal number.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let status = child.wait().unwrap();
    let mut interrupted = true;
    if status.code() == Some(0) {
        // The run ended before the signal came: nothing to resume.
        interrupted = false;
    } else {
        assert_eq!(status.code(), Some(130));
    }
    let (text, error, status) = nimstream(
        broken.path(),
        &run(&["--resume", "run.checkpoint"])
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>(),
    );
    if interrupted {
        assert_eq!(status, 0, "{error}");
        let strip = |text: &str| {
            text.lines()
                .filter(|l| !l.starts_with("computed"))
                .collect::<Vec<_>>()
                .join("\n")
        };
        assert_eq!(strip(&text), strip(&expected));
    }
    for name in ["v.txt", "f.txt", "v.csv"] {
        let a = std::fs::read(straight.path().join(name)).unwrap();
        let b = std::fs::read(broken.path().join(name)).unwrap();
        assert!(a == b, "{name} differs after the resume");
    }
}

#[test]
fn grundys_game_decides_sums_with_the_values_of_the_definition() {
    let dir = tempfile::tempdir().unwrap();
    let values = grundys_game(200);
    let heaps = [7u64, 12, 100, 199, 45];
    std::fs::write(
        dir.path().join("h.dec"),
        heaps.map(|h| format!("{h}\n")).concat(),
    )
    .unwrap();
    let (json, error, status) = nimstream(
        dir.path(),
        &[
            "analyze",
            "--game",
            "grundys-game",
            "--max-values",
            "200",
            "--json",
            "h.dec",
        ],
    );
    assert_eq!(status, 0, "{error}");
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let sum = heaps.iter().fold(0, |x, &h| x ^ values[h as usize]);
    assert_eq!(report["game"], "grundys-game");
    assert_eq!(report["grundy_sum"], sum);
    let chosen = &report["move"];
    let leave: Vec<u64> = chosen["leave"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["dec"].as_str().unwrap().parse().unwrap())
        .collect();
    assert_eq!(leave.len(), 2);
    assert!(leave[0] < leave[1], "{leave:?}");
    assert_eq!(chosen["take"], 0);
    assert_eq!(
        values[leave[0] as usize] ^ values[leave[1] as usize],
        chosen["to_grundy"].as_u64().unwrap() as u16
    );
    std::fs::write(dir.path().join("far.dec"), "3\n200\n").unwrap();
    let (_, error, status) = nimstream(
        dir.path(),
        &[
            "analyze",
            "--game",
            "grundys-game",
            "--max-values",
            "200",
            "far.dec",
        ],
    );
    assert_eq!(status, 1, "{error}");
    assert!(error.contains("200 values computed"), "{error}");
}

/// The peak resident memory, in KiB, of the children waited for so far.
fn children_peak_kib() -> i64 {
    // SAFETY: `getrusage` fills the zeroed struct it is given.
    unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage.ru_maxrss
    }
}

#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "seconds in a release build; run with --release"
)]
fn a_run_past_its_memory_stays_within_it() {
    let dir = tempfile::tempdir().unwrap();
    // 2^23 values of 0.161 under 32 MiB: the run keeps 1.6 million values
    // at each end and streams past them, values and frequencies written.
    let args = [
        "grundy",
        "octal:0.161",
        "--max-values",
        "8388609",
        "--memory",
        "32MiB",
        "--values-out",
        "v.u16",
        "--frequencies",
        "f.txt",
        "--json",
    ];
    let (json, error, status) = nimstream(dir.path(), &args);
    assert_eq!(status, 0, "{error}");
    let peak = children_peak_kib();
    assert!(
        peak <= 32 * 1024,
        "peak RSS {peak} KiB under --memory 32MiB"
    );
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(json["values_computed"], 8_388_609);
    assert_eq!(json["rare"]["last_rare_heap"], 23_784);
    assert!(json["period_window"].as_u64().unwrap() < 2_000_000);
    let written = std::fs::metadata(dir.path().join("v.u16")).unwrap().len();
    assert_eq!(written, 2 * 8_388_609);
    let frequencies = std::fs::read_to_string(dir.path().join("f.txt")).unwrap();
    assert!(frequencies.contains("# heaps 2^23\n"));
}
