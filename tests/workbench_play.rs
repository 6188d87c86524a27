//! The `verify` and `play` commands, run through the built binary.

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `nimstream ARGS` with `stdin` piped in.
fn nimstream(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nimstream"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(stdin.as_bytes())
        .expect("stdin accepts the input");
    child.wait_with_output().expect("the binary finishes")
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).expect("UTF-8 output")
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).expect("UTF-8 output")
}

fn last_line(output: &Output) -> String {
    stdout(output)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

#[test]
fn verify_checks_every_default_instance_under_both_rules() {
    let instances: u64 = (0..=4).map(|k| 8u64.pow(k)).sum();
    let output = nimstream(&["verify"], "");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        format!(
            "checked {instances} instances under normal: all agree\n\
             checked {instances} instances under misere: all agree\n"
        )
    );
}

#[test]
fn verify_checks_one_rule_with_other_bounds() {
    let output = nimstream(
        &[
            "verify",
            "--rule",
            "misere",
            "--max-heaps",
            "2",
            "--max-size",
            "9",
        ],
        "",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "checked 111 instances under misere: all agree\n"
    );
}

#[test]
fn verify_table_prints_the_mex_table_and_its_equality_with_xor() {
    let output = nimstream(&["verify", "--table", "7"], "");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 11);
    assert_eq!(lines[0], "∘ | 0 1 2 3 4 5 6 7");
    assert_eq!(lines[1], "--+----------------");
    assert_eq!(lines[5], "3 | 3 2 1 0 7 6 5 4");
    assert_eq!(lines[10], "x ∘ y = x ⊕ y for all x, y ≤ 7");
}

#[test]
fn verify_table_conflicts_with_the_search_options() {
    let output = nimstream(&["verify", "--table", "3", "--max-heaps", "2"], "");
    assert_eq!(output.status.code(), Some(2));
}

/// Seed 004: the misère game of 3, 4, 5, with the second player's moves typed in.
const SEED_004_GAME: &str = "\
3 4 5  nim-sum 010  first  takes 2 from heap 0
1 4 5  nim-sum 000  second takes 2 from heap 2
1 4 3  nim-sum 110  first  takes 2 from heap 1
1 2 3  nim-sum 000  second takes 1 from heap 2
1 2 2  nim-sum 001  first  takes 1 from heap 0
0 2 2  nim-sum 000  second takes 1 from heap 2
0 2 1  nim-sum 011  first  takes 2 from heap 1
0 0 1  nim-sum 001  second takes 1 from heap 2
0 0 0  nim-sum 000
8 moves; the first player wins
";

#[test]
fn play_reproduces_the_seed_misere_game_of_three_four_five() {
    let args = [
        "play", "--heaps", "3,4,5", "--rule", "misere", "--second", "human",
    ];
    let output = nimstream(&args, "2 2\n2 1\n2 1\n2 1\n");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), SEED_004_GAME);
}

#[test]
fn optimal_play_wins_the_misere_game_of_three_four_five_against_delay() {
    let args = [
        "play", "--heaps", "3,4,5", "--rule", "misere", "--second", "delay",
    ];
    let output = nimstream(&args, "");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with("3 4 5  nim-sum 010  first  takes 2 from heap 0\n"),
        "{text}"
    );
    assert!(
        last_line(&output).ends_with("moves; the first player wins"),
        "{text}"
    );
}

#[test]
fn a_losing_optimal_player_delays_through_two_thousand_moves() {
    let output = nimstream(&["play", "--heaps", "1000,1000", "--quiet"], "");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(stdout(&output), "2000 moves; the second player wins\n");
}

#[test]
fn a_human_move_that_is_illegal_gets_a_reason_and_another_try() {
    let args = [
        "play", "--heaps", "3,4", "--first", "human", "--second", "delay",
    ];
    let output = nimstream(&args, "0 9\n1 1\n1 1\n1 1\n1 1\n");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let messages = stderr(&output);
    assert_eq!(messages.matches("illegal move").count(), 1, "{messages}");
    assert!(
        messages.contains("heap 0 has only 3, cannot take 9"),
        "{messages}"
    );
    assert_eq!(last_line(&output), "7 moves; the first player wins");
}

#[test]
fn a_human_side_that_runs_out_of_input_is_an_error() {
    let output = nimstream(&["play", "--heaps", "3,4", "--first", "human"], "0 1\n");
    assert_eq!(output.status.code(), Some(1));
    assert!(stderr(&output).contains("error: <stdin>: ended before the game did"));
}

#[test]
fn games_without_tokens_are_decided_by_the_rule() {
    let normal = nimstream(&["play", "--heaps", "0,0", "--quiet"], "");
    assert_eq!(stdout(&normal), "0 moves; the second player wins\n");
    let misere = nimstream(&["play", "--heaps", "", "--rule", "misere", "--quiet"], "");
    assert_eq!(stdout(&misere), "0 moves; the first player wins\n");
}

#[test]
fn max_moves_stops_a_game() {
    let output = nimstream(&["play", "--heaps", "1000,1000", "--max-moves", "3"], "");
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 6, "{text}");
    assert_eq!(
        lines[4],
        "the game is not over: the cap of 3 moves (--max-moves) was reached with 2 heaps still holding tokens"
    );
    assert_eq!(last_line(&output), "3 moves; stopped by --max-moves");
}

#[test]
fn random_games_are_reproducible_from_the_seed() {
    let args = [
        "play", "--heaps", "20,30,40", "--first", "random", "--second", "random", "--seed", "9",
    ];
    let once = nimstream(&args, "");
    let again = nimstream(&args, "");
    assert_eq!(once.status.code(), Some(0));
    assert_eq!(stdout(&once), stdout(&again));
}

#[test]
fn play_starts_from_a_file() {
    let output = nimstream(
        &["play", "fixtures/three-four-five.dec", "--rule", "misere"],
        "",
    );
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(stdout(&output).starts_with("3 4 5  nim-sum 010  first  takes 2 from heap 0\n"));
    assert!(last_line(&output).ends_with("the first player wins"));
}

#[test]
fn play_on_a_big_instance_shows_the_heap_that_moved_not_every_heap() {
    let heaps: Vec<String> = (0..500).map(|k| (1_000_000 + 7 * k).to_string()).collect();
    let list = heaps.join(",");
    let output = nimstream(&["play", "--heaps", &list, "--max-moves", "4"], "");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    for line in text.lines() {
        assert!(line.len() <= 120, "a line of {} bytes: {line}", line.len());
    }
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("nim-sum "), "{first}");
    assert!(first.contains("  first  takes "), "{first}");
    assert!(
        text.contains("the game is not over: the cap of 4 moves"),
        "{text}"
    );
    assert_eq!(last_line(&output), "4 moves; stopped by --max-moves");
}

#[test]
fn a_quiet_game_shows_its_moves_on_a_terminal_and_clears_them() {
    // util-linux `script` gives the game a pseudo-terminal; the bar is
    // asked to appear at once.
    let command = format!(
        "{} play --heaps 1000000000,3 --first delay --second delay -q --max-moves 200000",
        env!("CARGO_BIN_EXE_nimstream")
    );
    let output = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("NIMSTREAM_PROGRESS_AFTER_MS", "0")
        .stdin(std::process::Stdio::null())
        .output()
        .expect("util-linux script runs");
    assert!(output.status.success(), "{output:?}");
    let screen = String::from_utf8_lossy(&output.stdout).replace('\r', "");
    assert!(screen.contains("/200,000 moves ("), "{screen}");
    let last = screen.rsplit("\u{1b}[2K").next().unwrap();
    assert!(
        last.ends_with("200000 moves; stopped by --max-moves\n"),
        "{screen}"
    );

    // Not without a terminal, and not where the moves are printed on it.
    let piped = std::process::Command::new(env!("CARGO_BIN_EXE_nimstream"))
        .args([
            "play", "--heaps", "30,3", "-q", "--first", "delay", "--second", "delay",
        ])
        .env("NIMSTREAM_PROGRESS_AFTER_MS", "0")
        .output()
        .unwrap();
    assert!(
        piped.status.success() && piped.stderr.is_empty(),
        "{piped:?}"
    );
    let command = format!("{} play --heaps 3,4,5", env!("CARGO_BIN_EXE_nimstream"));
    let moves = std::process::Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env("NIMSTREAM_PROGRESS_AFTER_MS", "0")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert!(!String::from_utf8_lossy(&moves.stdout).contains(" moves ("));
}

#[test]
fn a_human_side_quits_with_q_and_at_a_terminal_with_ctrl_d() {
    let args = [
        "play", "--heaps", "3,4", "--first", "human", "--second", "delay",
    ];
    let output = nimstream(&args, "0 1\nq\n");
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "3 4  nim-sum 111  first  takes 1 from heap 0\n\
         2 4  nim-sum 110  second takes 1 from heap 1\n\
         2 3  nim-sum 001\n\
         2 moves; the first player quit\n"
    );
    assert!(stderr(&output).contains("enter HEAP COUNT (q quits): "));

    // Typed at a terminal (util-linux `script` types the input, then the
    // end of input, Ctrl-D): the end of input quits too.
    let command = format!("{} {}", env!("CARGO_BIN_EXE_nimstream"), args.join(" "));
    let mut child = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("util-linux script runs");
    child.stdin.take().unwrap().write_all(b"0 1\n").unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{output:?}");
    let screen = String::from_utf8_lossy(&output.stdout).replace('\r', "");
    assert!(
        screen.ends_with("\n2 moves; the first player quit\n"),
        "{screen}"
    );
    assert!(!screen.contains("error"), "{screen}");
}
