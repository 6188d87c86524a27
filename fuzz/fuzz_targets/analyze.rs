//! The whole analysis on arbitrary bytes. The first byte picks the format,
//! the second the rule (its low bit) and the game (the rest: Nim, Kayles,
//! a subtraction game, or `octal:0.6`, with no period within the 50
//! values computed); the rest is the input. Properties: no panic; the
//! same report (or the same error) under every memory budget (64 and 72
//! bytes, 1 GiB, `log`), whatever the number of passes; and the same as
//! the one-pass stream analysis of the same bytes where that can run.
#![no_main]

use nimstream::{analyze_bytes, analyze_reader, Format, MemoryBudget, Options, Report, Rule};
use std::io::Cursor;

const BUDGETS: [MemoryBudget; 4] = [
    MemoryBudget::Bytes(64),
    MemoryBudget::Bytes(72),
    MemoryBudget::Bytes(1 << 30),
    MemoryBudget::Log,
];

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let [format, rule, input @ ..] = data else {
        return;
    };
    let format = Format::ALL[usize::from(*format) % Format::ALL.len()];
    let game = ["nim", "kayles", "sub:1,3,4", "octal:0.6"][usize::from(rule >> 1) % 4];
    let rule = if rule % 2 == 0 {
        Rule::Normal
    } else {
        Rule::Misere
    };
    let options = |memory| Options {
        rule,
        game: game.parse().expect("a game"),
        max_values: 50,
        memory,
        inline_bits: 256,
        ..Options::default()
    };
    let runs: Vec<Result<serde_json::Value, String>> = BUDGETS
        .iter()
        .map(|&memory| facts(analyze_bytes(input, format, "fuzz", &options(memory))))
        .collect();
    for (run, memory) in runs.iter().zip(BUDGETS).skip(1) {
        assert_eq!(run, &runs[0], "--memory {memory} against --memory 64");
    }
    let whole = options(MemoryBudget::Bytes(1 << 30));
    let streamed = facts(analyze_reader(
        &mut Cursor::new(input),
        format,
        "fuzz",
        &whole,
    ));
    assert_eq!(streamed, runs[2], "a stream against a slice");
});

/// The report without its measured statistics, or the error's text.
fn facts(result: Result<Report, nimstream::Error>) -> Result<serde_json::Value, String> {
    match result {
        Ok(report) => {
            let mut json = serde_json::to_value(&report).expect("a report serializes");
            json.as_object_mut().expect("an object").remove("stats");
            Ok(json)
        }
        Err(error) => Err(error.to_string()),
    }
}
