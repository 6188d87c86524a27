//! A bounded fuzz run for every test suite: random bytes, and small
//! mutations of valid instances, thrown at every format through the
//! library's entry points. Each run ends in a report or a well-formed
//! error (the input's name, an offset inside it, exit status 1), never a
//! panic; and a file, a slice and a stream agree. The long runs are the
//! cargo-fuzz targets in `fuzz/` (see docs/reliability.md).

use nimstream::{
    analyze_bytes, analyze_path, analyze_reader, Error, Format, MemoryBudget, Options, Rule,
};
use proptest::prelude::*;
use std::io::Cursor;

const BUDGETS: [MemoryBudget; 3] = [
    MemoryBudget::Bytes(64),
    MemoryBudget::Bytes(1 << 30),
    MemoryBudget::Log,
];

/// Bytes biased towards what the scanners look for: digits, `0x`,
/// whitespace, CR, the nimb magic, LEB128 continuation bytes.
fn noisy_bytes() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        4 => proptest::sample::select(b"01 \n\r\t9fFxX1\x0c".to_vec()),
        1 => any::<u8>(),
        1 => Just(0x80u8),
    ];
    let body = proptest::collection::vec(byte, 0..300);
    (any::<bool>(), body).prop_map(|(magic, body)| {
        if magic {
            [&b"NIMB\x01\x00\x00\x00"[..], &body].concat()
        } else {
            body
        }
    })
}

/// Checks that `result` is a report or an error about `name` at an offset
/// inside its `len` bytes; returns the comparable part (the error text, or
/// the report without stats).
fn well_formed(
    result: Result<nimstream::Report, Error>,
    name: &str,
    len: u64,
) -> Result<String, String> {
    match result {
        Ok(report) => {
            let mut json = serde_json::to_value(&report).unwrap();
            json.as_object_mut().unwrap().remove("stats");
            json["input"].as_object_mut().unwrap().remove("path");
            Ok(json.to_string())
        }
        Err(error) => {
            assert_eq!(error.exit_code(), 1, "{error}");
            match &error {
                Error::Input { path, offset, .. } => {
                    assert_eq!(path, name);
                    assert!(*offset <= len, "{error}: offset past the {len} bytes");
                }
                other => panic!("not an input error: {other}"),
            }
            let text = error.to_string();
            Err(text[name.len()..].to_string())
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn random_bytes_give_a_report_or_an_input_error_in_every_format(
        data in noisy_bytes(),
        misere in any::<bool>(),
    ) {
        let rule = if misere { Rule::Misere } else { Rule::Normal };
        let len = data.len() as u64;
        for format in Format::ALL {
            let mut outcomes = Vec::new();
            for memory in BUDGETS {
                let options = Options { rule, memory, ..Options::default() };
                outcomes.push(well_formed(analyze_bytes(&data, format, "bytes", &options), "bytes", len));
            }
            let options = Options { rule, ..Options::default() };
            let streamed = well_formed(
                analyze_reader(&mut Cursor::new(&data), format, "stream", &options),
                "stream",
                len,
            );
            for outcome in &outcomes[1..] {
                prop_assert_eq!(outcome, &outcomes[0], "{} under two budgets", format);
            }
            prop_assert_eq!(&streamed, &outcomes[1], "{} as a stream", format);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 24,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Under heap games: a game with a period, and one without a period
    /// within the values computed (its heaps past them are errors).
    #[test]
    fn random_bytes_under_a_game_give_a_report_or_an_input_error(data in noisy_bytes()) {
        let len = data.len() as u64;
        for (game, max_values) in [("kayles", 1 << 20), ("octal:0.6", 50)] {
            for format in Format::ALL {
                let options = |memory| Options {
                    game: game.parse().unwrap(),
                    max_values,
                    memory,
                    threads: 2,
                    ..Options::default()
                };
                let outcomes: Vec<Result<String, String>> = BUDGETS
                    .iter()
                    .map(|&memory| {
                        well_formed(analyze_bytes(&data, format, "bytes", &options(memory)), "bytes", len)
                    })
                    .collect();
                let streamed = well_formed(
                    analyze_reader(&mut Cursor::new(&data), format, "stream", &options(MemoryBudget::default())),
                    "stream",
                    len,
                );
                for outcome in &outcomes[1..] {
                    prop_assert_eq!(outcome, &outcomes[0], "{} {} under two budgets", game, format);
                }
                prop_assert_eq!(&streamed, &outcomes[1], "{} {} as a stream", game, format);
            }
        }
    }
}

#[test]
fn random_files_read_with_and_without_a_map_agree() {
    let dir = tempfile::tempdir().unwrap();
    let mut runner = proptest::test_runner::TestRunner::new(ProptestConfig {
        cases: 16,
        failure_persistence: None,
        ..ProptestConfig::default()
    });
    runner
        .run(&noisy_bytes(), |data| {
            let path = dir.path().join("case.data");
            std::fs::write(&path, &data).unwrap();
            let name = path.display().to_string();
            for format in Format::ALL {
                let mut outcomes = Vec::new();
                for no_mmap in [false, true] {
                    let options = Options {
                        format: Some(format),
                        memory: MemoryBudget::Bytes(64),
                        no_mmap,
                        ..Options::default()
                    };
                    let result = analyze_path(&path, &options);
                    outcomes.push(well_formed(result, &name, data.len() as u64));
                }
                prop_assert_eq!(&outcomes[0], &outcomes[1], "{} with --no-mmap", format);
            }
            Ok(())
        })
        .unwrap();
}
