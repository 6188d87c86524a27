//! The examples and exit statuses of each command, written once: `--help`
//! prints them after the options, and the manual pages (`shell.rs`) render
//! them as their EXAMPLES and EXIT STATUS sections, each line kept.

/// A command line and what it shows.
pub(crate) type Example = (&'static str, &'static str);

/// An exit status and when a command ends with it.
pub(crate) type Status = (u8, &'static str);

/// The statuses every command shares.
const SUCCESS: Status = (0, "success");
const BAD_INPUT: Status = (
    1,
    "bad input or an I/O failure (the error names the file, offset, line and column)",
);
const BAD_USAGE: Status = (
    2,
    "bad usage (an unknown option, a contradiction, a value out of range)",
);

/// What `--help` and the manual page of one command end with.
pub(crate) struct Help {
    /// Command lines, each with what it shows.
    pub examples: &'static [Example],
    /// The exit statuses, in order.
    pub statuses: &'static [Status],
}

/// The help of `command` (`nimstream` for the top level).
pub(crate) fn of(command: &str) -> Help {
    let common: &'static [Status] = &[SUCCESS, BAD_INPUT, BAD_USAGE];
    let (examples, statuses): (&'static [Example], &'static [Status]) = match command {
        "nimstream" => (TOP, &[SUCCESS, BAD_INPUT, BAD_USAGE, NOT_A_REPORT]),
        "analyze" => (ANALYZE, common),
        "updates" => (UPDATES, &[SUCCESS, UPDATES_BAD_INPUT, BAD_USAGE]),
        "merge" => (
            MERGE,
            &[MERGED, MERGE_BAD_INPUT, MERGE_BAD_USAGE, MERGED_PART],
        ),
        "grundy" => (GRUNDY, common),
        "graph" => (GRAPH, common),
        "gen" => (GEN, common),
        "convert" => (CONVERT, common),
        "verify" => (
            VERIFY,
            &[(0, "every instance agrees"), VERIFY_FAILED, BAD_USAGE],
        ),
        "play" => (PLAY, &[PLAYED, BAD_INPUT, BAD_USAGE]),
        "complexity" => (COMPLEXITY, common),
        "completions" => (COMPLETIONS, &[SUCCESS, (1, "an I/O failure"), BAD_USAGE]),
        "man" => (MAN, &[SUCCESS, (1, "an I/O failure"), BAD_USAGE]),
        other => unreachable!("no help for the command {other}"),
    };
    Help { examples, statuses }
}

/// `--help`'s text after the options.
pub(crate) fn after_help(command: &str) -> String {
    let help = of(command);
    let width = help.examples.iter().map(|(line, _)| line.len()).max();
    let mut text = "Examples:\n".to_string();
    for (line, shows) in help.examples {
        let width = width.unwrap_or(0);
        text += &format!("  {line:<width$}   {shows}\n");
    }
    text += "\nExit status:";
    for (status, when) in help.statuses {
        text += &format!("\n  {status}  {when}");
    }
    text
}

const NOT_A_REPORT: Status = (3, "merge printed a partial, not a report");

const TOP: &[Example] = &[
    (
        "nimstream analyze fixtures/three-four-five.dec",
        "who wins, and the move",
    ),
    (
        "nimstream analyze big.bits --memory log --json",
        "the paper's log-space algorithm",
    ),
    (
        "cat heaps.txt | nimstream analyze - --format dec",
        "standard input needs --format",
    ),
    (
        "nimstream analyze rows.dec --game kayles",
        "a heap game beyond Nim",
    ),
    (
        "nimstream updates heaps.dec < changes.txt",
        "the winner after each update",
    ),
    (
        "nimstream graph game.txt",
        "tokens on a game graph, cycles included",
    ),
    (
        "nimstream gen --size 1GiB -o big.bits",
        "a deterministic instance, in the format its name says",
    ),
    ("nimstream verify", "the analyzer against game-tree search"),
];

const ANALYZE: &[Example] = &[
    (
        "nimstream analyze fixtures/three-four-five.dec",
        "the report, for people",
    ),
    (
        "nimstream analyze big.bits --json",
        "one JSON object (schema 1)",
    ),
    (
        "nimstream analyze big.bits --memory log",
        "O(log n) working memory, several passes",
    ),
    (
        "nimstream analyze big.bits --decide",
        "stop once the winner is known",
    ),
    (
        "nimstream analyze big.bits --move-out to.bits",
        "the value to leave, however long",
    ),
    (
        "nimstream analyze rows.dec --game octal:0.07",
        "Dawson's Kayles on every heap",
    ),
    (
        "gzip -dc big.hex.gz | nimstream analyze - -f hex",
        "standard input: one pass",
    ),
];

const UPDATES: &[Example] = &[
    (
        "nimstream updates heaps.dec",
        "type `i x` lines (set heap i to x); each is answered",
    ),
    (
        "nimstream updates heaps.dec --moves < changes.txt",
        "the winner and the move after each line",
    ),
    (
        "nimstream updates big.hex --updates changes.txt --json",
        "one JSON object a line",
    ),
];

const UPDATES_BAD_INPUT: Status = (
    1,
    "bad input or an I/O failure; a bad update line from a file or a pipe ends the session \
     (typed at a terminal, it is reported and the session goes on)",
);

const MERGE: &[Example] = &[
    (
        "nimstream analyze big.dec --range 0..1000000 --partial > a.json",
        "the partial of a range",
    ),
    (
        "nimstream merge a.json b.json c.json --json",
        "the report of the whole file",
    ),
    (
        "cat partials/*.json | nimstream merge -",
        "partials one a line on standard input",
    ),
];

const MERGED: Status = (0, "the partials cover the whole file: the report");
const MERGED_PART: Status = (
    3,
    "a partial, not a report: ranges are missing, or the plan of the second phase (a line on \
     standard error says which)",
);
const MERGE_BAD_INPUT: Status = (
    1,
    "the file has bad input (the earliest bad range's error), or an I/O failure",
);
const MERGE_BAD_USAGE: Status = (
    2,
    "bad usage, or partials that do not fit together (other files, rules, games, a gap)",
);

const GRUNDY: &[Example] = &[
    (
        "nimstream grundy kayles",
        "the first 120 values and the period",
    ),
    (
        "nimstream grundy octal:0.16 --json",
        "the proven period, as one JSON object",
    ),
    (
        "nimstream grundy sub:1,3,4 --heap 1000000000000",
        "the value of a heap of any length",
    ),
    (
        "nimstream grundy dawsons-kayles --svg g.svg --csv g.csv",
        "the values drawn, and as rows",
    ),
];

const GRAPH: &[Example] = &[
    (
        "nimstream graph fixtures/game-graph.txt",
        "who wins, and the move",
    ),
    ("nimstream graph game.txt --json", "one JSON object"),
    (
        "nimstream graph game.txt --values-out values.txt",
        "every node's value, one a line",
    ),
];

const GEN: &[Example] = &[
    (
        "nimstream gen --heaps 1000 -o heaps.dec",
        "1000 random heaps of 1-64 bits, in the format the name says",
    ),
    (
        "nimstream gen --size 1GiB --bits 1..4096 -o big.hex",
        "heaps until the file has 1 GiB",
    ),
    (
        "nimstream gen -f bits --heaps 10 --kind p-position",
        "a second-player win, on standard output",
    ),
    (
        "nimstream gen --heaps 4 --seed 7 -o small.u64 --json",
        "another seed, the summary as JSON",
    ),
];

const CONVERT: &[Example] = &[
    (
        "nimstream convert big.hex -o big.nimb",
        "each format from the file's name",
    ),
    (
        "nimstream convert heaps.txt -f dec -o heaps.u64",
        "an input whose name says no format",
    ),
    (
        "nimstream convert - -f dec --to bits < heaps.txt",
        "standard input and output need both formats",
    ),
];

const VERIFY: &[Example] = &[
    (
        "nimstream verify",
        "every instance of up to 4 heaps of at most 7, both rules",
    ),
    (
        "nimstream verify --game kayles",
        "a heap game against game-tree search",
    ),
    (
        "nimstream verify --table 8",
        "the mex table of x ∘ y, and whether it is x ⊕ y",
    ),
];

const VERIFY_FAILED: Status = (
    1,
    "the analyzer disagrees with the search (each instance is printed), or an I/O failure",
);

const PLAY: &[Example] = &[
    ("nimstream play --heaps 3,4,5", "optimal against optimal"),
    (
        "nimstream play --heaps 3,4,5 --first human",
        "you against the analyzer (q quits)",
    ),
    (
        "nimstream play heaps.dec --second random --seed 7 -q",
        "from a file; only the result",
    ),
];

const PLAYED: Status = (
    0,
    "the game ended, reached --max-moves, or a human side quit",
);

const COMPLEXITY: &[Example] = &[
    (
        "nimstream complexity --out plots",
        "time and memory on 1, 4 and 16 MiB of bits",
    ),
    (
        "nimstream complexity --sizes 1MiB,16MiB,256MiB --memory log --out plots",
        "under the log-space budget",
    ),
];

const COMPLETIONS: &[Example] = &[
    (
        "nimstream completions bash > ~/.local/share/bash-completion/completions/nimstream",
        "bash (mkdir -p the folder first)",
    ),
    (
        "nimstream completions fish > ~/.config/fish/completions/nimstream.fish",
        "fish",
    ),
];

const MAN: &[Example] = &[
    ("nimstream man | man -l -", "read the main page"),
    (
        "nimstream man --out-dir ~/.local/share/man/man1",
        "every page, the folder made if missing",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::Cli;
    use clap::{CommandFactory, Parser};

    /// The words of the `nimstream …` part of an example, before any
    /// redirection or pipe.
    fn nimstream_words(line: &str) -> Vec<&str> {
        let start = line.find("nimstream ").expect("an example runs nimstream");
        line[start..]
            .split_whitespace()
            .take_while(|word| !matches!(*word, "|" | "<" | ">"))
            .collect()
    }

    #[test]
    fn every_command_has_examples_that_parse_and_its_statuses() {
        let commands = Cli::command();
        let names = std::iter::once("nimstream")
            .chain(commands.get_subcommands().map(|c| c.get_name()))
            .filter(|name| *name != "help");
        for name in names {
            let help = of(name);
            assert!(!help.examples.is_empty(), "{name}");
            assert_eq!(help.statuses[0].0, 0, "{name}");
            assert!(help.statuses.iter().any(|s| s.0 == 2), "{name}");
            for (line, _) in help.examples {
                let words = nimstream_words(line);
                if name != "nimstream" && !line.starts_with("nimstream analyze big.dec --range") {
                    assert_eq!(words[1], name, "{line}");
                }
                if let Err(error) = Cli::try_parse_from(&words) {
                    panic!("{line}: {error}");
                }
            }
        }
    }

    #[test]
    fn after_help_lines_up_the_examples_and_lists_the_statuses() {
        let text = after_help("merge");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "Examples:");
        let columns: Vec<usize> = MERGE
            .iter()
            .zip(&lines[1..])
            .map(|((example, shows), line)| {
                assert!(line.starts_with(&format!("  {example} ")), "{line}");
                line.find(shows).unwrap()
            })
            .collect();
        assert!(columns.windows(2).all(|w| w[0] == w[1]), "{text}");
        assert_eq!(lines[MERGE.len() + 2], "Exit status:");
        assert!(
            lines
                .last()
                .unwrap()
                .starts_with("  3  a partial, not a report"),
            "{text}"
        );
    }
}
