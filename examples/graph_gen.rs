//! Writes a random game graph in seed 003's layout (`n m`, the edges, `k`,
//! the start nodes), for `bench/graph.sh`: deterministic for a seed (a
//! ChaCha8 stream, the same bytes on every platform), and fast enough for
//! 5·10^7 edges (numbers are formatted by hand into a large buffer).
//!
//! ```text
//! cargo run --release --example graph_gen -- dag NODES EDGES TOKENS SEED FILE
//! cargo run --release --example graph_gen -- cyclic NODES EDGES TOKENS SEED FILE
//! ```
//!
//! `dag`: each edge joins two distinct nodes drawn uniformly, directed
//! from the lower to the higher in a random order of the nodes (a random
//! permutation relabels them, so ids say nothing of the order); acyclic.
//! `cyclic`: each edge joins two nodes drawn uniformly (self-loops
//! included). Edges come in the order drawn; tokens sit on uniform nodes.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::process::ExitCode;

/// Bytes gathered before each write.
const CHUNK: usize = 1 << 20;

/// Appends `value` and then `end` to `out`.
fn push_number(out: &mut Vec<u8>, value: u64, end: u8) {
    out.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
    out.push(end);
}

/// What to write, from the command line.
struct Plan {
    acyclic: bool,
    nodes: u32,
    edges: u64,
    tokens: u64,
    seed: u64,
    path: String,
}

fn parse_plan(args: &[String]) -> Result<Plan, String> {
    let [kind, nodes, edges, tokens, seed, path] = args else {
        return Err("usage: graph_gen dag|cyclic NODES EDGES TOKENS SEED FILE".into());
    };
    let number = |text: &str| text.parse::<u64>().map_err(|e| format!("{text}: {e}"));
    let acyclic = match kind.as_str() {
        "dag" => true,
        "cyclic" => false,
        other => return Err(format!("unknown kind {other}: expected dag or cyclic")),
    };
    let nodes = u32::try_from(number(nodes)?).map_err(|e| e.to_string())?;
    if nodes < 2 {
        return Err("at least 2 nodes".into());
    }
    Ok(Plan {
        acyclic,
        nodes,
        edges: number(edges)?,
        tokens: number(tokens)?,
        seed: number(seed)?,
        path: path.clone(),
    })
}

/// A uniform random order of `0..nodes` (Fisher–Yates).
fn random_order(rng: &mut ChaCha8Rng, nodes: u32) -> Vec<u32> {
    let mut order: Vec<u32> = (0..nodes).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.random_range(0..=i));
    }
    order
}

fn write(plan: &Plan) -> std::io::Result<()> {
    let mut rng = ChaCha8Rng::seed_from_u64(plan.seed);
    let order = plan.acyclic.then(|| random_order(&mut rng, plan.nodes));
    let mut out = BufWriter::new(File::create(&plan.path)?);
    let mut chunk = Vec::with_capacity(CHUNK + 64);
    push_number(&mut chunk, u64::from(plan.nodes), b' ');
    push_number(&mut chunk, plan.edges, b'\n');
    for _ in 0..plan.edges {
        let a = rng.random_range(0..plan.nodes);
        let (from, to) = match &order {
            Some(order) => {
                // A second node, distinct from the first.
                let b = rng.random_range(0..plan.nodes - 1);
                let b = if b >= a { b + 1 } else { b };
                (order[a.min(b) as usize], order[a.max(b) as usize])
            }
            None => (a, rng.random_range(0..plan.nodes)),
        };
        push_number(&mut chunk, u64::from(from), b' ');
        push_number(&mut chunk, u64::from(to), b'\n');
        if chunk.len() >= CHUNK {
            out.write_all(&chunk)?;
            chunk.clear();
        }
    }
    push_number(&mut chunk, plan.tokens, b'\n');
    for token in 0..plan.tokens {
        let node = rng.random_range(0..plan.nodes);
        let last = token + 1 == plan.tokens;
        push_number(&mut chunk, u64::from(node), if last { b'\n' } else { b' ' });
    }
    out.write_all(&chunk)?;
    out.flush()
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let written = parse_plan(&args).and_then(|plan| write(&plan).map_err(|e| e.to_string()));
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
