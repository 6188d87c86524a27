//! `nimstream graph` (SPEC section 9) against independent references, on
//! thousands of small random graphs, acyclic and cyclic, with self-loops
//! and duplicate edges:
//!
//! - the winner, against a retrograde analysis of the sum itself: states
//!   are the tuples of the tokens' nodes, a move slides one token along
//!   one edge, a state where no token can move is lost for the player to
//!   move, and states never labelled won or lost are draws;
//! - every node's value, against the same retrograde analysis of the node
//!   played beside a Nim heap of each size j: γ(u) = j exactly when that
//!   sum is lost for the player to move, and for ∞(K), K is the set of j
//!   for which it is won (neither uses a Grundy value or a mex);
//! - the move: legal, and the sum after it is lost for the player to move
//!   then (in both winning cases: all values finite with XOR 0); its token
//!   is the lowest index holding the sum's highest bit (or the one
//!   infinite token), and its target the lowest-numbered follower whose
//!   move leaves a lost sum.
//!
//! Then the command line: the seed's example, the JSON fields, the values
//! file, every error with its offset, line and column, and a path of
//! 10^6 nodes (10^7 in the release run of `.ci/run`).

use nimstream::graph::{
    analyze_graph_bytes, analyze_graph_path, Graph, GraphOptions, Outcome, TokenMove, Value,
};
use nimstream::Error;
use proptest::prelude::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::Value as Json;
use std::process::{Command, Output, Stdio};

/// Win, loss or draw for the player to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Play {
    Win,
    Loss,
    Draw,
}

/// Retrograde analysis of a game of `states` states with the moves
/// `moves(s)`: losses where no move is left, wins where a move reaches a
/// loss, losses where every move reaches a win, repeated until nothing
/// changes; the rest are draws.
fn retrograde(states: usize, moves: impl Fn(usize) -> Vec<usize>) -> Vec<Play> {
    let moves: Vec<Vec<usize>> = (0..states).map(moves).collect();
    let mut known: Vec<Option<Play>> = vec![None; states];
    loop {
        let mut changed = false;
        for state in 0..states {
            if known[state].is_some() {
                continue;
            }
            let after = |play| moves[state].iter().any(|&next| known[next] == Some(play));
            let all_won = moves[state]
                .iter()
                .all(|&next| known[next] == Some(Play::Win));
            known[state] = if after(Play::Loss) {
                Some(Play::Win)
            } else if all_won {
                Some(Play::Loss)
            } else {
                None
            };
            changed |= known[state].is_some();
        }
        if !changed {
            return known.into_iter().map(|k| k.unwrap_or(Play::Draw)).collect();
        }
    }
}

/// A small graph as lists of followers.
struct Small {
    followers: Vec<Vec<u32>>,
}

impl Small {
    fn nodes(&self) -> usize {
        self.followers.len()
    }

    /// The state of tokens on `nodes`, as a number in base n.
    fn encode(&self, nodes: &[u32]) -> usize {
        nodes
            .iter()
            .fold(0, |acc, &node| acc * self.nodes() + node as usize)
    }

    fn decode(&self, mut state: usize, tokens: usize) -> Vec<u32> {
        let mut nodes = vec![0; tokens];
        for slot in nodes.iter_mut().rev() {
            *slot = (state % self.nodes()) as u32;
            state /= self.nodes();
        }
        nodes
    }

    /// Win, loss or draw of every tuple of `tokens` token nodes.
    fn sums(&self, tokens: usize) -> Vec<Play> {
        let states = self.nodes().pow(tokens as u32);
        retrograde(states, |state| {
            let nodes = self.decode(state, tokens);
            let mut next = Vec::new();
            for (token, &node) in nodes.iter().enumerate() {
                for &follower in &self.followers[node as usize] {
                    let mut moved = nodes.clone();
                    moved[token] = follower;
                    next.push(self.encode(&moved));
                }
            }
            next
        })
    }

    /// Every node's value, read off the sums of the node and a Nim heap
    /// of each size 0..=n (a finite value is below n).
    fn values(&self) -> Vec<Value> {
        let heaps = self.nodes() + 1;
        let plays = retrograde(self.nodes() * heaps, |state| {
            let (node, heap) = (state / heaps, state % heaps);
            let slides = self.followers[node]
                .iter()
                .map(|&f| f as usize * heaps + heap);
            slides.chain((0..heap).map(|h| node * heaps + h)).collect()
        });
        (0..self.nodes())
            .map(|node| {
                let play = |heap: usize| plays[node * heaps + heap];
                match (0..heaps).find(|&heap| play(heap) == Play::Loss) {
                    Some(heap) => Value::Finite(heap as u32),
                    None => Value::Infinite(
                        (0..heaps as u32)
                            .filter(|&heap| play(heap as usize) == Play::Win)
                            .collect(),
                    ),
                }
            })
            .collect()
    }
}

/// A random graph of 1 to `max_nodes` nodes: any edges (self-loops and
/// duplicates included), or only edges to higher nodes (acyclic).
fn random_graph(rng: &mut ChaCha8Rng, max_nodes: u32, acyclic: bool) -> (u32, Vec<(u32, u32)>) {
    let nodes = rng.random_range(1..=max_nodes);
    let edges = rng.random_range(0..=3 * nodes);
    let mut list = Vec::new();
    for _ in 0..edges {
        let (a, b) = (rng.random_range(0..nodes), rng.random_range(0..nodes));
        match acyclic {
            false => list.push((a, b)),
            true if a < b => list.push((a, b)),
            true => {}
        }
    }
    (nodes, list)
}

/// The file text of a graph with tokens on `tokens`, in seed 003's layout.
fn graph_text(nodes: u32, edges: &[(u32, u32)], tokens: &[u32]) -> String {
    let mut text = format!("{nodes} {}\n", edges.len());
    for (from, to) in edges {
        text += &format!("{from} {to}\n");
    }
    let starts: Vec<String> = tokens.iter().map(u32::to_string).collect();
    text + &format!("{}\n{}\n", tokens.len(), starts.join(" "))
}

/// Checks one random case against the references.
fn check_case(nodes: u32, edges: &[(u32, u32)], tokens: &[u32]) {
    let text = graph_text(nodes, edges, tokens);
    let small = Small {
        followers: (0..nodes)
            .map(|u| edges.iter().filter(|e| e.0 == u).map(|e| e.1).collect())
            .collect(),
    };
    let expected_values = small.values();
    let graph = Graph::from_edges(u64::from(nodes), edges.iter().copied()).unwrap();
    let solution = graph.solve();
    for node in 0..nodes {
        assert_eq!(
            solution.value(node),
            expected_values[node as usize],
            "node {node}\n{text}"
        );
    }
    let report = analyze_graph_bytes(text.as_bytes(), "case", &GraphOptions::default()).unwrap();
    let plays = small.sums(tokens.len());
    let expected_winner = match plays[small.encode(tokens)] {
        Play::Win => Outcome::First,
        Play::Loss => Outcome::Second,
        Play::Draw => Outcome::Draw,
    };
    assert_eq!(report.winner, expected_winner, "{text}");
    let token_values: Vec<Value> = tokens
        .iter()
        .map(|&t| expected_values[t as usize].clone())
        .collect();
    assert_eq!(report.values, token_values, "{text}");
    let finite: Option<Vec<u32>> = token_values
        .iter()
        .map(|v| match v {
            Value::Finite(v) => Some(*v),
            Value::Infinite(_) => None,
        })
        .collect();
    let sum = finite.as_ref().map(|f| f.iter().fold(0, |a, v| a ^ v));
    assert_eq!(report.sum, sum, "{text}");
    match report.winning_move {
        None => assert_ne!(report.winner, Outcome::First, "no move\n{text}"),
        Some(found) => {
            assert_eq!(report.winner, Outcome::First, "{text}");
            check_move(&small, &plays, tokens, &token_values, sum, found, &text);
        }
    }
}

/// The move leaves a lost sum, with the token and target the rules pick.
fn check_move(
    small: &Small,
    plays: &[Play],
    tokens: &[u32],
    values: &[Value],
    sum: Option<u32>,
    found: TokenMove,
    text: &str,
) {
    let token = found.token as usize;
    assert_eq!(found.from, tokens[token], "{text}");
    let followers = &small.followers[found.from as usize];
    let after = |to: u32| {
        let mut moved = tokens.to_vec();
        moved[token] = to;
        plays[small.encode(&moved)]
    };
    assert!(followers.contains(&found.to), "not a move\n{text}");
    assert_eq!(after(found.to), Play::Loss, "the move does not win\n{text}");
    let lowest = followers
        .iter()
        .copied()
        .filter(|&to| after(to) == Play::Loss)
        .min();
    assert_eq!(
        Some(found.to),
        lowest,
        "not the lowest-numbered target\n{text}"
    );
    let expected_token = match sum {
        Some(sum) => {
            let msb = 31 - sum.leading_zeros();
            values
                .iter()
                .position(|v| matches!(v, Value::Finite(v) if v >> msb & 1 == 1))
        }
        None => values.iter().position(|v| matches!(v, Value::Infinite(_))),
    };
    assert_eq!(Some(token), expected_token, "not the rules' token\n{text}");
}

#[test]
fn random_graphs_agree_with_retrograde_analysis_of_the_sums() {
    let mut rng = ChaCha8Rng::seed_from_u64(2024);
    let mut outcomes = [0usize; 3];
    for case in 0..3000 {
        let acyclic = case % 3 == 0;
        let (nodes, edges) = random_graph(&mut rng, 7, acyclic);
        let count = rng.random_range(1..=3);
        let tokens: Vec<u32> = (0..count).map(|_| rng.random_range(0..nodes)).collect();
        check_case(nodes, &edges, &tokens);
        let report = analyze_graph_bytes(
            graph_text(nodes, &edges, &tokens).as_bytes(),
            "case",
            &GraphOptions::default(),
        )
        .unwrap();
        outcomes[report.winner as usize] += 1;
    }
    // Every outcome came up many times, so each branch was checked.
    assert!(outcomes.iter().all(|&n| n > 200), "{outcomes:?}");
}

#[test]
fn larger_values_in_cyclic_parts_agree_with_retrograde_analysis() {
    // Denser graphs of up to 9 nodes, one token: more rounds of the
    // cyclic solver (values above 2 inside the cyclic part), and ∞(K)
    // with larger K.
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut most_rounds = 0;
    for _ in 0..400 {
        let nodes = rng.random_range(4..=9);
        let edges: Vec<(u32, u32)> = (0..rng.random_range(nodes..=4 * nodes))
            .map(|_| (rng.random_range(0..nodes), rng.random_range(0..nodes)))
            .collect();
        let token = rng.random_range(0..nodes);
        check_case(nodes, &edges, &[token]);
        let graph = Graph::from_edges(u64::from(nodes), edges.iter().copied()).unwrap();
        most_rounds = most_rounds.max(graph.solve().rounds());
    }
    assert!(most_rounds >= 4, "at most {most_rounds} rounds");
}

#[test]
fn values_past_thirty_one_agree_with_retrograde_analysis() {
    // Dense graphs of 40 to 48 nodes, most pairs joined from the lower
    // node, a few back: values run past 31, where a waiting node's bits of
    // values give out and the larger values are noted on the side.
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    let mut largest = 0;
    for case in 0..12 {
        let nodes = rng.random_range(40..=48u32);
        let mut edges = Vec::new();
        for from in 0..nodes {
            for to in from + 1..nodes {
                if rng.random_bool(0.97) {
                    edges.push((from, to));
                }
            }
        }
        if case % 3 == 2 {
            edges.extend((0..3).map(|_| (rng.random_range(20..nodes), rng.random_range(0..nodes))));
        }
        let token = rng.random_range(0..nodes);
        check_case(nodes, &edges, &[token]);
        let graph = Graph::from_edges(u64::from(nodes), edges.iter().copied()).unwrap();
        let solution = graph.solve();
        let values = (0..nodes).filter_map(|node| solution.finite_value(node));
        largest = largest.max(values.max().unwrap_or(0));
    }
    assert!(largest > 31, "the largest value was {largest}");
}

/// Runs the binary in the crate root with `args` and `stdin`.
fn run(args: &[&str], stdin: &[u8]) -> Output {
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

/// Runs the binary and expects success; gives standard output.
fn run_ok(args: &[&str]) -> String {
    let output = run(args, b"");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{args:?}: {stderr}");
    String::from_utf8(output.stdout).unwrap()
}

/// Runs the binary and expects exit status 1, nothing on standard output,
/// and one error line; gives it.
fn run_error(args: &[&str], stdin: &[u8]) -> String {
    let output = run(args, stdin);
    assert_eq!(output.status.code(), Some(1), "{args:?}");
    assert!(output.stdout.is_empty(), "{args:?} printed on an error");
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    stderr
}

const SEED: &str = "fixtures/game-graph.txt";

#[test]
fn the_seed_example_in_text() {
    let text = run_ok(&["graph", SEED]);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[..6],
        [
            "input   fixtures/game-graph.txt (44 bytes)",
            "graph   7 nodes, 8 edges; no cycle can be reached",
            "tokens  3: values #0 = 0, #1 = 1, #2 = 0",
            "sum     1 = 0b1",
            "winner  the first player (the player to move)",
            "move    token 1 from node 2 to node 3 (value 1 → 0)",
        ]
    );
    assert!(lines[6].starts_with("stats   "), "{text}");
}

#[test]
fn the_seed_example_in_json() {
    let json: Json = serde_json::from_str(&run_ok(&["graph", SEED, "--json"])).unwrap();
    let stats = json["stats"].clone();
    let mut json = json;
    json.as_object_mut().unwrap().remove("stats");
    assert_eq!(
        json,
        serde_json::json!({
            "schema": 1,
            "input": {"path": SEED, "bytes": 44},
            "nodes": 7, "edges": 8, "tokens": 3,
            "values": [0, 1, 0],
            "sum": 1,
            "winner": "first",
            "move": {"token": 1, "from": 2, "to": 3},
        })
    );
    for field in ["read_seconds", "solve_seconds", "seconds"] {
        assert!(stats[field].as_f64().unwrap() >= 0.0, "{stats}");
    }
    assert_eq!(
        (stats["acyclic_nodes"].as_u64(), stats["rounds"].as_u64()),
        (Some(7), Some(0))
    );
    assert!(
        stats["working_memory_bytes"].as_u64().unwrap() > 0,
        "{stats}"
    );
}

#[test]
fn infinite_values_draws_and_the_values_file() {
    // 0 ⇄ 1 (a draw), 2 with a self-loop and an exit to the sink 3, and
    // 4 → 3 (twice): tokens on 2 and 4 are ∞({0}) and 1, and 1 is not in
    // {0}: a draw.
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("g.txt");
    let values = dir.path().join("values.txt");
    let text = "5 6\n0 1\n1 0\n2 2\n2 3\n4 3\n4 3\n";
    std::fs::write(&graph, format!("{text}2\n2 4\n")).unwrap();
    let path = graph.to_str().unwrap();
    let out = run_ok(&[
        "graph",
        path,
        "--json",
        "--values-out",
        values.to_str().unwrap(),
    ]);
    let json: Json = serde_json::from_str(&out).unwrap();
    assert_eq!(json["values"], serde_json::json!([{"infinite": [0]}, 1]));
    assert_eq!(
        (json["sum"].clone(), json["winner"].clone()),
        (Json::Null, "draw".into())
    );
    assert_eq!(json["move"], Json::Null);
    assert_eq!(json["stats"]["acyclic_nodes"], 2);
    assert_eq!(
        std::fs::read_to_string(&values).unwrap(),
        "inf\ninf\ninf 0\n0\n1\n"
    );
    // A token on 2 alone: 0 ∈ K, the first player wins by leaving to 3.
    std::fs::write(&graph, format!("{text}1\n2\n")).unwrap();
    let json: Json = serde_json::from_str(&run_ok(&["graph", path, "--json"])).unwrap();
    assert_eq!(json["winner"], "first");
    assert_eq!(
        json["move"],
        serde_json::json!({"token": 0, "from": 2, "to": 3})
    );
    let human = run_ok(&["graph", path]);
    assert!(
        human.contains("\nsum     none: a token has an infinite value\n"),
        "{human}"
    );
    assert!(
        human.contains("\nmove    token 0 from node 2 to node 3 (value ∞(0) → 0)\n"),
        "{human}"
    );
}

#[test]
fn standard_input_is_read_whole() {
    let output = run(&["graph", "-", "--json"], b"2 1\n0 1\n1\n0\n");
    assert!(output.status.success());
    let json: Json = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["input"], serde_json::json!({"path": "-", "bytes": 12}));
    assert_eq!(json["winner"], "first");
    let error = run_error(&["graph", "-"], b"2 1\n0 2\n1\n0\n");
    assert_eq!(
        error,
        "error: <stdin>: offset 6 (line 2, column 3): node 2 is out of range: the graph has 2 nodes (0 to 1)\n"
    );
}

#[test]
fn every_error_names_its_offset_line_and_column() {
    let cases: [(&str, &str); 9] = [
        ("", "offset 0 (line 1, column 1): the file ends too early: expected the node count n"),
        (
            "3 2\n0 1\n",
            "offset 8 (line 3, column 1): the file ends too early: expected edge 1 of the 2 the header announces",
        ),
        (
            "3 1\n0 1\n2\n1",
            "offset 11 (line 4, column 2): the file ends too early: expected the start node of token 1 (of 2)",
        ),
        (
            "3 1\n0 3\n1\n0\n",
            "offset 6 (line 2, column 3): node 3 is out of range: the graph has 3 nodes (0 to 2)",
        ),
        (
            "3 1\n0 1\n1\n\n  9\n",
            "offset 13 (line 5, column 3): node 9 is out of range: the graph has 3 nodes (0 to 2)",
        ),
        (
            "3 1\n0 1\n1\n2 0\n",
            "offset 12 (line 4, column 3): a number after the 1 start node the file announces: the file should end there",
        ),
        (
            "3 1\r\n0 x\r\n",
            "offset 7 (line 2, column 3): expected a decimal digit (0-9) or whitespace, found 'x' (0x78)",
        ),
        (
            "3 1\n0 1\n1\n-1\n",
            "offset 10 (line 4, column 1): expected a decimal digit (0-9) or whitespace, found '-' (0x2d)",
        ),
        (
            "4294967296 0\n0\n",
            "offset 0 (line 1, column 1): the node count n is 4294967296: at most 4294967295 nodes are supported",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (text, expected) in cases {
        let path = dir.path().join("bad.txt");
        std::fs::write(&path, text).unwrap();
        let path = path.to_str().unwrap();
        let error = run_error(&["graph", path, "--json"], b"");
        assert_eq!(error, format!("error: {path}: {expected}\n"), "{text:?}");
        // The library gives the same error for the bytes in memory.
        let from_bytes = analyze_graph_bytes(text.as_bytes(), path, &GraphOptions::default());
        assert_eq!(
            from_bytes.unwrap_err().to_string(),
            format!("{path}: {expected}")
        );
    }
}

#[test]
fn no_values_file_is_left_behind_on_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let values = dir.path().join("values.txt");
    let bad = dir.path().join("bad.txt");
    std::fs::write(&bad, "2 1\n0 5\n1\n0\n").unwrap();
    let out = values.to_str().unwrap();
    run_error(&["graph", bad.to_str().unwrap(), "--values-out", out], b"");
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        1,
        "only the input"
    );
    let missing = dir.path().join("no/such/folder/values.txt");
    let error = run_error(
        &["graph", SEED, "--values-out", missing.to_str().unwrap()],
        b"",
    );
    assert!(error.contains("no/such/folder/values.txt"), "{error}");
}

/// A path 0 → 1 → … → n − 1 written to a file, with one token on 0:
/// node i has value (n − 1 − i) mod 2.
fn check_path(nodes: u32) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("path.txt");
    let mut text = Vec::with_capacity(nodes as usize * 18);
    text.extend(format!("{nodes} {}\n", nodes - 1).bytes());
    for node in 1..nodes {
        text.extend(format!("{} {node}\n", node - 1).bytes());
    }
    text.extend(b"1\n0\n");
    std::fs::write(&path, &text).unwrap();
    let values = dir.path().join("values.txt");
    let options = GraphOptions {
        values_out: Some(values.clone()),
    };
    let report = analyze_graph_path(&path, &options).unwrap();
    let top = (nodes - 1) % 2;
    assert_eq!(report.values, [Value::Finite(top)]);
    let expected_move = (top == 1).then_some(TokenMove {
        token: 0,
        from: 0,
        to: 1,
    });
    assert_eq!(report.winning_move, expected_move);
    let written = std::fs::read(&values).unwrap();
    let lines: Vec<&[u8]> = written.split(|&b| b == b'\n').collect();
    assert_eq!(lines.len(), nodes as usize + 1);
    assert!(lines[..nodes as usize]
        .iter()
        .enumerate()
        .all(|(node, line)| *line == [b'0' + ((nodes - 1 - node as u32) % 2) as u8]));
}

#[test]
fn a_path_of_a_million_nodes_needs_no_recursion() {
    check_path(1_000_000);
}

/// In the release run of `.ci/run` (about a second there; minutes in a
/// debug build).
#[test]
#[ignore]
fn a_path_of_ten_million_nodes() {
    check_path(10_000_000);
}

/// A small header (so that no count asks for much memory) and a body of
/// bytes biased towards graph files: digits, separators, a few bad bytes.
fn noisy_graph() -> impl Strategy<Value = Vec<u8>> {
    let byte = prop_oneof![
        8 => proptest::sample::select(b"0123 \n".to_vec()),
        1 => proptest::sample::select(b"456789\t\r".to_vec()),
        1 => any::<u8>(),
    ];
    let body = proptest::collection::vec(byte, 0..80);
    (0..12u32, 0..12u32, body).prop_map(|(nodes, edges, body)| {
        let mut text = format!("{nodes} {edges}\n").into_bytes();
        text.extend(body);
        text
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Random bytes give a report or an input error inside the file, never
    /// a panic; memory and a mapped file agree.
    #[test]
    fn random_bytes_give_a_report_or_a_located_error(bytes in noisy_graph()) {
        let from_bytes = analyze_graph_bytes(&bytes, "fuzz", &GraphOptions::default());
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), &bytes).unwrap();
        let from_file = analyze_graph_path(file.path(), &GraphOptions::default());
        match (from_bytes, from_file) {
            (Ok(a), Ok(b)) => {
                prop_assert_eq!(a.values, b.values);
                prop_assert_eq!(a.winner, b.winner);
                prop_assert_eq!(a.winning_move, b.winning_move);
            }
            (Err(Error::Input { offset, line_col, message, .. }), Err(other)) => {
                prop_assert!(offset <= bytes.len() as u64);
                prop_assert!(line_col.is_some());
                let Error::Input { offset: o, message: m, .. } = other else {
                    return Err(TestCaseError::fail(format!("{other}")));
                };
                prop_assert_eq!((offset, message), (o, m));
            }
            (a, b) => prop_assert!(false, "{:?} / {:?}", a.map(|r| r.winner), b.map(|r| r.winner)),
        }
    }
}
