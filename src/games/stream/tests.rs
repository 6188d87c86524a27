//! Streamed sequences held against the in-memory ones ([`Sequence`]) and
//! the plain mex, at memory bounds from everything kept down to bounds
//! that force the stop; checkpoints resumed into the same bytes.

use super::outputs::Positions;
use super::*;
use crate::games::tests::{game, mex_values, GAMES};
use crate::games::{Game, Sequence};
use std::path::Path;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

/// Values computed by each run of the agreement tests.
const VALUES: u64 = 6000;

/// A run of `game` to `max_values` keeping `limits`, its values written
/// to a raw file in `dir`; returns the status, the outcome and the values.
fn stream(game: &Game, max_values: u64, limits: Limits, dir: &Path) -> (Status, Outcome, Vec<u16>) {
    let path = dir.join("values.u16");
    let paths = OutputPaths {
        values: Some(path.clone()),
        ..OutputPaths::default()
    };
    let mut outputs = Outputs::create(&paths, false).unwrap();
    let settings = Settings {
        max_values,
        limits,
        watch: vec![],
        threads: 0,
    };
    let mut run = Streamer::new(game, settings);
    let status = run.run(&mut outputs, &Control::default()).unwrap();
    outputs.finish().unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let values = bytes
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    (status, run.into_outcome(), values)
}

/// Every game of section 8 and Grundy's game, streamed at five memory
/// bounds: the values proven are the in-memory values; with everything
/// kept, so are the period and the count; a stop comes only when values
/// were dropped, and names the heap after the last value proven.
#[test]
fn streamed_values_are_the_in_memory_values_at_every_memory_bound() {
    let dir = tempfile::tempdir().unwrap();
    let mut stops = 0;
    for name in GAMES {
        let game = game(name);
        let in_memory = Sequence::compute(&game, VALUES).unwrap();
        let bounds = [
            (VALUES, VALUES),
            (3000, 2500),
            (1200, 1200),
            (300, 100),
            (64, 64),
        ];
        for (prefix, ring) in bounds {
            let limits = Limits { prefix, ring };
            let (status, outcome, values) = stream(&game, VALUES, limits, dir.path());
            let context = format!("{name} keeping {prefix} and {ring}");
            assert_eq!(values[..], in_memory.values()[..values.len()], "{context}");
            assert_eq!(values.len() as u64, outcome.values_computed, "{context}");
            match status {
                Status::Done if outcome.all_kept => {
                    assert_eq!(outcome.period, in_memory.period(), "{context}");
                    assert_eq!(
                        outcome.values_computed,
                        in_memory.values_computed(),
                        "{context}"
                    );
                }
                Status::Done => {
                    // A period proven while streaming is the in-memory one.
                    if outcome.period.is_some() {
                        assert_eq!(outcome.period, in_memory.period(), "{context}");
                    }
                    assert!(outcome.values_computed >= in_memory.values_computed());
                }
                Status::Stopped(message) => {
                    stops += 1;
                    assert!(!outcome.all_kept, "{context}");
                    let heap = format!("the proof of heap {}'s value", values.len());
                    assert!(message.starts_with(&heap), "{context}: {message}");
                    assert!(message.contains("--memory"), "{context}: {message}");
                }
                Status::Interrupted => panic!("{context}: no interrupt was asked for"),
            }
        }
    }
    assert!(stops >= 5, "the small bounds force stops ({stops})");
}

#[test]
fn grundys_game_streams_to_the_plain_mex() {
    let dir = tempfile::tempdir().unwrap();
    let game: Game = "grundys-game".parse().unwrap();
    let limits = Limits {
        prefix: 2048,
        ring: 4096,
    };
    let (status, outcome, values) = stream(&game, 5000, limits, dir.path());
    assert_eq!(status, Status::Done);
    assert!(!outcome.all_kept && outcome.period.is_none());
    assert_eq!(values, mex_values(&game, 5000));
    // OEIS A002188, the values of Grundy's game.
    let oeis = [
        0, 0, 0, 1, 0, 2, 1, 0, 2, 1, 0, 2, 1, 3, 2, 1, 3, 2, 4, 3, 0, 4, 3, 0, 4, 3,
    ];
    assert_eq!(values[..oeis.len()], oeis);
}

/// The memory a stop suggests keeps the value the proof needed: the run
/// under it goes past the heap that stopped.
#[test]
fn the_memory_a_stop_suggests_keeps_what_the_proof_needed() {
    let dir = tempfile::tempdir().unwrap();
    let game: Game = "octal:0.161".parse().unwrap();
    let small = Limits {
        prefix: 2000,
        ring: 2000,
    };
    let (status, _, values) = stream(&game, 30_000, small, dir.path());
    let Status::Stopped(message) = status else {
        panic!("0.161's rare heap 2,006 is past what 2,000 values keep: {status:?}");
    };
    let mib: u64 = message
        .split("--memory ")
        .nth(1)
        .and_then(|rest| rest.split("MiB").next())
        .and_then(|digits| digits.parse().ok())
        .unwrap_or_else(|| panic!("{message}"));
    let limits = Limits::for_memory(mib << 20).unwrap();
    let (_, outcome, _) = stream(&game, values.len() as u64 + 1, limits, dir.path());
    assert_eq!(
        outcome.values_computed,
        values.len() as u64 + 1,
        "{message}"
    );
}

/// The outputs of a run to `max_values`, paused at each of `pauses` and
/// resumed from its checkpoint (none: without a break).
fn outputs_with_pauses(
    game: &Game,
    max_values: u64,
    limits: Limits,
    pauses: &[u64],
    dir: &Path,
    text: bool,
) -> Vec<Vec<u8>> {
    let values_name = if text { "values.txt" } else { "values.u16" };
    let paths = OutputPaths {
        values: Some(dir.join(values_name)),
        csv: Some(dir.join("values.csv")),
        frequencies: Some(dir.join("frequencies.txt")),
    };
    let checkpoint = dir.join("run.checkpoint");
    let settings = Settings {
        max_values,
        limits,
        watch: vec![5, 4097, max_values - 1],
        threads: 0,
    };
    let control = Control {
        checkpoint: Some((checkpoint.clone(), Duration::from_secs(3600))),
        ..Control::default()
    };
    let mut run = Streamer::new(game, settings.clone());
    let mut outputs = Outputs::create(&paths, true).unwrap();
    for &pause in pauses {
        assert_eq!(
            run.run_until(pause, &mut outputs, &control).unwrap(),
            Status::Done
        );
        run.save(&checkpoint, &mut outputs).unwrap();
        drop(outputs);
        // Bytes written after the checkpoint, as a run killed later leaves.
        std::fs::write(
            dir.join("values.csv"),
            [
                std::fs::read(dir.join("values.csv")).unwrap(),
                b"99,9\n".to_vec(),
            ]
            .concat(),
        )
        .unwrap();
        let (resumed, positions) = Streamer::resume(&checkpoint, game, settings.clone()).unwrap();
        run = resumed;
        outputs = Outputs::reopen(&paths, &positions).unwrap();
    }
    assert_eq!(run.run(&mut outputs, &control).unwrap(), Status::Done);
    outputs.finish().unwrap();
    let outcome = run.into_outcome();
    let mut files: Vec<Vec<u8>> = [values_name, "values.csv", "frequencies.txt"]
        .iter()
        .map(|name| std::fs::read(dir.join(name)).unwrap())
        .collect();
    files.push(
        format!(
            "{:?} {:?} {:?} {:?}",
            outcome.frequencies, outcome.rare, outcome.watched, outcome.period
        )
        .into_bytes(),
    );
    files
}

#[test]
fn a_resumed_run_writes_the_same_bytes_as_a_run_without_a_break() {
    let cases = [
        (
            "octal:0.161",
            9000,
            Limits {
                prefix: 6000,
                ring: 6000,
            },
            vec![1, 2500, 6000, 7777],
            false,
        ),
        (
            "octal:0.161",
            9000,
            Limits {
                prefix: 9000,
                ring: 9000,
            },
            vec![4100],
            true,
        ),
        (
            "kayles",
            5000,
            Limits {
                prefix: 100,
                ring: 400,
            },
            vec![50, 120],
            true,
        ),
        (
            "grundys-game",
            6000,
            Limits {
                prefix: 2048,
                ring: 4096,
            },
            vec![3000],
            false,
        ),
    ];
    for (name, max_values, limits, pauses, text) in cases {
        let game = game(name);
        let straight = tempfile::tempdir().unwrap();
        let paused = tempfile::tempdir().unwrap();
        let expected = outputs_with_pauses(&game, max_values, limits, &[], straight.path(), text);
        let found = outputs_with_pauses(&game, max_values, limits, &pauses, paused.path(), text);
        assert_eq!(found, expected, "{name} paused at {pauses:?}");
        let frequencies = String::from_utf8(expected[2].clone()).unwrap();
        assert!(
            frequencies.starts_with("# heaps 2^0\n"),
            "{name}: {frequencies}"
        );
    }
}

#[test]
fn an_interrupt_saves_a_checkpoint_and_a_wrong_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("run.checkpoint");
    let game: Game = "octal:0.161".parse().unwrap();
    let settings = Settings {
        max_values: 100_000,
        limits: Limits::for_memory(8 << 20).unwrap(),
        watch: vec![],
        threads: 0,
    };
    let interrupt = AtomicBool::new(true);
    let control = Control {
        interrupt: Some(&interrupt),
        checkpoint: Some((checkpoint.clone(), Duration::from_secs(3600))),
        ..Control::default()
    };
    let mut run = Streamer::new(&game, settings.clone());
    assert_eq!(
        run.run(&mut Outputs::none(), &control).unwrap(),
        Status::Interrupted
    );
    let (resumed, _) = Streamer::resume(&checkpoint, &game, settings.clone()).unwrap();
    assert_eq!(resumed.values_computed(), run.values_computed());
    assert!(run.values_computed() > 0 && run.values_computed() < 100_000);
    let kayles: Game = "kayles".parse().unwrap();
    let error = Streamer::resume(&checkpoint, &kayles, settings.clone())
        .err()
        .unwrap()
        .to_string();
    assert!(
        error.contains("is a checkpoint of octal:0.161, not of octal:0.77"),
        "{error}"
    );
    let paths = OutputPaths {
        values: Some(dir.path().join("v.u16")),
        ..OutputPaths::default()
    };
    let error = Outputs::reopen(&paths, &Positions::default())
        .err()
        .unwrap()
        .to_string();
    assert!(error.contains("--values-out was not written"), "{error}");
}
