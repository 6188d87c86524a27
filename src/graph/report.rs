//! The report of `nimstream graph`: its data (JSON schema 1, SPEC section
//! 9) and its text for people, in aligned lines like `analyze`'s.
//!
//! Every field is always present (`sum` and `move` are `null` when there
//! is none); `stats` are measured: times by the clock, working memory by
//! the counting allocator when the program installed it (0 otherwise).

use super::{Outcome, TokenMove, Value};
use serde::Serialize;
use std::fmt::Write;

/// Tokens listed by name in the text report; the rest are counted.
const TOKENS_SHOWN: usize = 8;

/// What `graph` found (JSON schema 1).
///
/// ```json
/// {"schema": 1, "input": {"path": "g.txt", "bytes": 24}, "nodes": 3, "edges": 2,
///  "tokens": 2, "values": [1, {"infinite": [0]}], "sum": null, "winner": "draw",
///  "move": null, "stats": {"acyclic_nodes": 2, "rounds": 2, "read_seconds": 0.0001,
///  "solve_seconds": 0.0001, "seconds": 0.0002, "working_memory_bytes": 800}}
/// ```
#[derive(Clone, Debug, Serialize)]
pub struct GraphReport {
    /// Always 1.
    pub schema: u32,
    /// The file read.
    pub input: GraphInput,
    /// The node count n.
    pub nodes: u64,
    /// The edge count m.
    pub edges: u64,
    /// The token count k.
    pub tokens: u64,
    /// The value of each token's node, in token order.
    pub values: Vec<Value>,
    /// The XOR of the values when every one is finite, else `null`.
    pub sum: Option<u32>,
    /// `first` (the player to move), `second`, or `draw`.
    pub winner: Outcome,
    /// The deterministic winning move, or `null`.
    #[serde(rename = "move")]
    pub winning_move: Option<TokenMove>,
    /// How the work went.
    pub stats: GraphStats,
}

/// The file a report is about.
#[derive(Clone, Debug, Serialize)]
pub struct GraphInput {
    /// The path as given (`-` for standard input).
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
}

/// Measured facts about the run.
#[derive(Clone, Debug, Serialize)]
pub struct GraphStats {
    /// Nodes from which no cycle can be reached, solved by mex.
    pub acyclic_nodes: u64,
    /// Rounds of the cyclic solver (0 without cycles).
    pub rounds: u32,
    /// Reading the text and laying out the rows.
    pub read_seconds: f64,
    /// Computing every node's value.
    pub solve_seconds: f64,
    /// The whole run, deciding and `--values-out` included.
    pub seconds: f64,
    /// Peak bytes allocated, counted by the allocator.
    pub working_memory_bytes: u64,
}

impl GraphReport {
    /// The report as one line of JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a report serializes")
    }
}

/// The report as aligned lines of text.
///
/// ```
/// use nimstream::graph::{analyze_graph_bytes, render_human, GraphOptions};
///
/// let report = analyze_graph_bytes(b"3 2\n0 1\n1 2\n1\n0\n", "path", &GraphOptions::default())?;
/// let text = render_human(&report);
/// assert!(text.contains("\nwinner  the second player\n"), "{text}");
/// # Ok::<(), nimstream::Error>(())
/// ```
pub fn render_human(report: &GraphReport) -> String {
    let lines = [
        ("input", input_line(report)),
        ("graph", graph_line(report)),
        ("tokens", tokens_line(report)),
        ("sum", sum_line(report)),
        ("winner", winner_line(report.winner)),
        ("move", move_line(report)),
        ("stats", stats_line(&report.stats)),
    ];
    let width = lines
        .iter()
        .map(|(label, _)| label.len())
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (label, text) in lines {
        let _ = writeln!(out, "{label:<width$}  {text}");
    }
    out
}

fn input_line(report: &GraphReport) -> String {
    format!(
        "{} ({})",
        report.input.path,
        bytes_phrase(report.input.bytes)
    )
}

/// "7 nodes, 8 edges; no cycle can be reached" or "…; 3 nodes reach a
/// cycle (4 rounds)".
fn graph_line(report: &GraphReport) -> String {
    let reaching = report.nodes - report.stats.acyclic_nodes;
    let cycles = match reaching {
        0 => "no cycle can be reached".to_string(),
        _ => format!(
            "{} reach{} a cycle ({} round{} of the cyclic solver)",
            count(reaching, "node"),
            if reaching == 1 { "es" } else { "" },
            report.stats.rounds,
            plural(u64::from(report.stats.rounds)),
        ),
    };
    format!(
        "{}, {}; {cycles}",
        count(report.nodes, "node"),
        count(report.edges, "edge")
    )
}

/// "3: values #0 = 2, #1 = ∞(0, 1), #2 = ∞(0, 1)": each token's value by
/// its index, the first few.
fn tokens_line(report: &GraphReport) -> String {
    if report.tokens == 0 {
        return "none".to_string();
    }
    let shown: Vec<String> = report
        .values
        .iter()
        .take(TOKENS_SHOWN)
        .enumerate()
        .map(|(token, value)| format!("#{token} = {value}"))
        .collect();
    let more = report.values.len().saturating_sub(TOKENS_SHOWN);
    let rest = match more {
        0 => String::new(),
        _ => format!(", and {more} more"),
    };
    format!("{}: values {}{rest}", report.tokens, shown.join(", "))
}

fn sum_line(report: &GraphReport) -> String {
    match report.sum {
        Some(sum) => format!("{sum} = 0b{sum:b}"),
        None => "none: a token has an infinite value".to_string(),
    }
}

fn winner_line(winner: Outcome) -> String {
    match winner {
        Outcome::First => "the first player (the player to move)".to_string(),
        Outcome::Second => "the second player".to_string(),
        Outcome::Draw => "neither: a draw (play goes on forever)".to_string(),
    }
}

/// "token 0 from node 1 to node 4 (value 3 → 1)".
fn move_line(report: &GraphReport) -> String {
    match report.winning_move {
        None => "none".to_string(),
        Some(TokenMove { token, from, to }) => {
            let value = &report.values[token as usize];
            let target = match (value, report.sum) {
                (Value::Finite(value), Some(sum)) => value ^ sum,
                // The infinite token moves to a follower of the others' XOR.
                _ => report.values.iter().fold(0, |acc, v| match v {
                    Value::Finite(v) => acc ^ v,
                    Value::Infinite(_) => acc,
                }),
            };
            format!("token {token} from node {from} to node {to} (value {value} → {target})")
        }
    }
}

fn stats_line(stats: &GraphStats) -> String {
    format!(
        "{} (read {}, solve {}), {} working memory",
        seconds_phrase(stats.seconds),
        seconds_phrase(stats.read_seconds),
        seconds_phrase(stats.solve_seconds),
        bytes_phrase(stats.working_memory_bytes)
    )
}

fn plural(count: u64) -> &'static str {
    if count == 1 {
        ""
    } else {
        "s"
    }
}

/// "1 node", "7 nodes".
fn count(count: u64, unit: &str) -> String {
    format!("{count} {unit}{}", plural(count))
}

/// "73 bytes", "1.5 KiB", "640.0 MiB".
fn bytes_phrase(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return count(bytes, "byte");
    }
    let mut size = bytes as f64 / 1024.0;
    let mut unit = 0;
    while size >= 1024.0 && unit + 1 < UNITS.len() {
        size /= 1024.0;
        unit += 1;
    }
    format!("{size:.1} {}", UNITS[unit])
}

/// "2.41 s", "12.3 ms", "0.04 ms".
fn seconds_phrase(seconds: f64) -> String {
    if seconds >= 1.0 {
        format!("{seconds:.2} s")
    } else if seconds >= 0.01 {
        format!("{:.1} ms", seconds * 1e3)
    } else {
        format!("{:.2} ms", seconds * 1e3)
    }
}
