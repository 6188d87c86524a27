//! `nimstream updates` as a user runs it: the seed's example against the
//! seed's own program (tests/readme.rs checks the README's), JSON lines, errors
//! after the answers to the good lines (the session ends at one from a
//! pipe, and goes on when the lines are typed at a terminal), standard
//! input refused as FILE, and each answer flushed before the next update
//! is read.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Output, Stdio};
use std::sync::mpsc;
use std::time::Duration;

fn nimstream() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_nimstream"));
    command.current_dir(env!("CARGO_MANIFEST_DIR"));
    command
}

fn run(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = nimstream()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

fn json_lines(output: &Output) -> Vec<serde_json::Value> {
    std::str::from_utf8(&output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The seed's second program, on its own stream: n, q, the heaps, then q
/// updates `i x` (1-based); the winner after each update.
fn seed_program(stream: &str) -> Vec<&'static str> {
    let numbers: Vec<u64> = stream
        .split_whitespace()
        .map(|t| t.parse().unwrap())
        .collect();
    let (n, q) = (numbers[0] as usize, numbers[1] as usize);
    let mut piles = numbers[2..2 + n].to_vec();
    let mut sum = piles.iter().fold(0, |a, b| a ^ b);
    let updates = &numbers[2 + n..];
    (0..q)
        .map(|k| {
            let (i, x) = (updates[2 * k] as usize - 1, updates[2 * k + 1]);
            sum ^= piles[i] ^ x;
            piles[i] = x;
            if sum == 0 {
                "second"
            } else {
                "first"
            }
        })
        .collect()
}

/// The updates of the README's worked example: 0-based `i x` lines.
const SEED_UPDATES: &str = "# the seed's program takes i + 1\n0 1\n2 4\n1 0\n0 4\n";

#[test]
fn the_seed_example_gives_the_seed_programs_winners() {
    let heaps = std::fs::read_to_string("fixtures/three-four-five.dec").unwrap();
    let pairs: Vec<(u64, u64)> = SEED_UPDATES
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let mut words = l.split_whitespace().map(|w| w.parse::<u64>().unwrap());
            (words.next().unwrap(), words.next().unwrap())
        })
        .collect();
    let n = heaps.split_whitespace().count();
    let seed_stream = format!(
        "{n} {}\n{heaps}\n{}",
        pairs.len(),
        pairs
            .iter()
            .map(|(i, x)| format!("{} {x}\n", i + 1))
            .collect::<String>()
    );
    let expected = seed_program(&seed_stream);
    let dir = tempfile::tempdir().unwrap();
    let updates = dir.path().join("updates.txt");
    std::fs::write(&updates, SEED_UPDATES).unwrap();
    let args = [
        "updates",
        "fixtures/three-four-five.dec",
        "--json",
        "--updates",
        updates.to_str().unwrap(),
    ];
    let output = run(&args, b"");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines = json_lines(&output);
    assert_eq!(lines.len(), pairs.len() + 1);
    let winners: Vec<&str> = lines[1..]
        .iter()
        .map(|l| l["winner"].as_str().unwrap())
        .collect();
    assert_eq!(winners, expected);
}

#[test]
fn json_lines_number_the_updates_and_name_their_heaps() {
    let output = run(
        &[
            "updates",
            "fixtures/three-four-five.u8",
            "--json",
            "--moves",
            "--rule",
            "misere",
        ],
        b"0 1\n1 0x1\n 2\t0b1\n",
    );
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let lines = json_lines(&output);
    let first = std::str::from_utf8(&output.stdout)
        .unwrap()
        .lines()
        .next()
        .unwrap();
    let keys = [
        "update",
        "heap",
        "winner",
        "nim_sum",
        "winning_moves",
        "move",
    ];
    let at: Vec<usize> = keys
        .iter()
        .map(|k| first.find(&format!("\"{k}\":")).unwrap())
        .collect();
    assert!(
        at.windows(2).all(|w| w[0] < w[1]),
        "the fields in the specification's order: {first}"
    );
    let numbered: Vec<(u64, Option<u64>)> = lines
        .iter()
        .map(|l| (l["update"].as_u64().unwrap(), l["heap"].as_u64()))
        .collect();
    assert_eq!(
        numbered,
        [(0, None), (1, Some(0)), (2, Some(1)), (3, Some(2))]
    );
    // Heaps 1, 1, 1 under misère: three 1-heaps, the player to move loses.
    assert_eq!(lines[3]["winner"], "second");
    assert_eq!(lines[0]["move"]["offset"], 0);
    assert_eq!(lines[0]["move"]["line"], serde_json::Value::Null);
}

#[test]
fn a_bad_update_line_is_an_error_after_the_answers_before_it() {
    let output = run(
        &["updates", "fixtures/three-four-five.dec"],
        b"0 1\n# fine\n3 7\n1 2\n",
    );
    assert_eq!(output.status.code(), Some(1));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        "error: <stdin>: offset 11 (line 3, column 1): heap 3 is out of range: \
         fixtures/three-four-five.dec has 3 heaps (0 to 2)\n"
    );
}

#[test]
fn an_update_file_is_named_in_its_errors() {
    let dir = tempfile::tempdir().unwrap();
    let updates = dir.path().join("u.txt");
    std::fs::write(&updates, "0 1\n1 two\n").unwrap();
    let name = updates.display().to_string();
    let output = run(
        &[
            "updates",
            "fixtures/three-four-five.hex",
            "--updates",
            &name,
        ],
        b"",
    );
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with(&format!(
            "error: {name}: offset 6 (line 2, column 3): expected"
        )),
        "{stderr}"
    );
    assert_eq!(String::from_utf8(output.stdout).unwrap().lines().count(), 2);
}

#[test]
fn standard_input_is_refused_as_the_file() {
    let output = run(&["updates", "-", "--format", "dec"], b"3 4 5\n");
    assert_eq!(output.status.code(), Some(2));
    assert!(output.stdout.is_empty());
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("error: updates reads FILE at any offset"),
        "{stderr}"
    );
}

#[test]
fn each_answer_is_flushed_before_the_next_update_is_read() {
    let mut child = nimstream()
        .args(["updates", "fixtures/three-four-five.dec", "--json"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let (sender, answers) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            if sender.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let wait = Duration::from_secs(20);
    let first: serde_json::Value =
        serde_json::from_str(&answers.recv_timeout(wait).unwrap()).unwrap();
    assert_eq!(first["update"], 0);
    // Drive it like a program would: one update, then wait for its answer.
    let mut heaps = [3u64, 4, 5];
    for (k, (heap, value)) in [(0usize, 1u64), (1, 5), (2, 9)].into_iter().enumerate() {
        writeln!(stdin, "{heap} {value}").unwrap();
        stdin.flush().unwrap();
        let answer: serde_json::Value =
            serde_json::from_str(&answers.recv_timeout(wait).unwrap()).unwrap();
        heaps[heap] = value;
        let sum = heaps.iter().fold(0, |a, b| a ^ b);
        assert_eq!(answer["update"], k as u64 + 1);
        assert_eq!(answer["nim_sum"]["dec"], sum.to_string());
    }
    drop(stdin);
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
}

#[test]
fn an_empty_file_has_no_heap_to_update() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty.dec");
    std::fs::write(&empty, b"").unwrap();
    let name = empty.display().to_string();
    let output = run(&["updates", &name, "--json", "--moves"], b"0 1\n");
    assert_eq!(output.status.code(), Some(1));
    let lines = json_lines(&output);
    assert_eq!(lines.len(), 1);
    assert_eq!(
        (&lines[0]["heap"], &lines[0]["winner"]),
        (&serde_json::Value::Null, &serde_json::json!("second"))
    );
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr, format!("error: <stdin>: offset 0 (line 1, column 1): heap 0 is out of range: {name} has no heaps\n"));
}

#[test]
fn typed_at_a_terminal_a_bad_line_is_reported_and_the_session_goes_on() {
    // util-linux `script` runs the session on a pseudo-terminal and types
    // its standard input there (the terminal echoes it), then the end of
    // input (Ctrl-D).
    let command = format!(
        "{} updates fixtures/three-four-five.dec",
        env!("CARGO_BIN_EXE_nimstream")
    );
    let mut child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("util-linux script runs");
    let typed = b"0 1\n7 2\nfoo\n2 3\n";
    child.stdin.take().unwrap().write_all(typed).unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let screen = String::from_utf8(output.stdout).unwrap().replace('\r', "");
    let answers: Vec<&str> = screen
        .lines()
        .filter(|line| line.starts_with("update ") || line.starts_with("error: "))
        .collect();
    assert_eq!(
        answers,
        [
            "update 1, heap 0  winner second  nim-sum 0 = 0x0",
            "error: <stdin>: offset 4 (line 2, column 1): heap 7 is out of range: \
             fixtures/three-four-five.dec has 3 heaps (0 to 2)",
            "error: <stdin>: offset 8 (line 3, column 1): expected a heap index (decimal \
             digits), found 'f' (0x66)",
            // Heaps 1 4 3 after the third good line.
            "update 2, heap 2  winner first   nim-sum 6 = 0x6",
        ],
        "{screen}"
    );
}
