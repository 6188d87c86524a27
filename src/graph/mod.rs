//! Game graphs (SPEC section 9; seed 003's fourth program): tokens on the
//! nodes of a directed graph, a move slides one token along one edge, and
//! whoever cannot move loses. Graphs may have cycles, where play can go on
//! forever: a draw.
//!
//! Every node gets its generalized Sprague–Grundy value (Smith 1966;
//! Fraenkel–Yesha 1986): a natural number, or ∞(K), K the finite values of
//! its followers. A sum of tokens is then decided without searching the
//! product of their positions ([`Solution::decide`]).
//!
//! The data flows: text → `parse.rs` (one pass over the memory map with
//! a word-at-a-time digit loop, `numbers.rs`, the edges bucketed by target
//! as they come) → rows (`layout.rs`, `csr.rs`: the predecessors and
//! out-degrees of [`Graph`], `game_graph.rs`; its followers when first
//! asked for) → the acyclic pass (mex in Kahn's order from the sinks,
//! without recursion, `acyclic.rs`) → the cyclic solver for the nodes that
//! reach a cycle (`cyclic.rs`, whose module documentation proves it
//! against the definition) → [`Solution`] → [`GraphReport`]. Time and
//! memory are O(n + m) on acyclic graphs; see `cyclic.rs` for graphs with
//! cycles.
//!
//! ```
//! use nimstream::graph::{Graph, Outcome, TokenMove, Value};
//!
//! // 0 → 1 → 2 (a sink), and 3 ⇄ 4, where 4 may also leave to 2.
//! let graph = Graph::from_edges(6, [(0, 1), (1, 2), (3, 4), (4, 3), (4, 2), (5, 5), (5, 2)])?;
//! let solution = graph.solve();
//! assert_eq!(solution.value(1), Value::Finite(1));
//! // From 4 the mover leaves to the sink and wins: 4 has value 1, and 3,
//! // whose only move is to 4, value 0. 5 can only pass (its self-loop) or
//! // leave to the sink: ∞({0}).
//! assert_eq!((solution.value(3), solution.value(4)), (Value::Finite(0), Value::Finite(1)));
//! assert_eq!(solution.value(5), Value::Infinite(vec![0]));
//!
//! // Tokens on 1 and 4: values 1 ⊕ 1 = 0, the second player wins.
//! assert_eq!(solution.decide(&[1, 4])?.winner, Outcome::Second);
//! // Tokens on 5 and 1: ∞({0}) and 1, and 1 is not in {0}: a draw (the
//! // mover passes on 5 for ever rather than lose).
//! assert_eq!(solution.decide(&[5, 1])?.winner, Outcome::Draw);
//! // A token on 5 alone: 0 is in {0}, so the first player wins by moving
//! // it to the sink.
//! let decision = solution.decide(&[5])?;
//! assert_eq!(decision.winner, Outcome::First);
//! assert_eq!(decision.winning_move, Some(TokenMove { token: 0, from: 5, to: 2 }));
//! # Ok::<(), nimstream::graph::GraphError>(())
//! ```
//!
//! A graph file is read and decided by [`analyze_graph_path`] (what
//! `nimstream graph FILE` runs) or [`analyze_graph_bytes`].

mod acyclic;
mod csr;
mod cyclic;
mod game_graph;
mod layout;
mod numbers;
mod parse;
mod report;
mod run;
mod solution;

pub use csr::{GraphError, MAX_EDGES, MAX_NODES};
pub use game_graph::Graph;
pub use report::{render_human, GraphInput, GraphReport, GraphStats};
pub use run::{analyze_graph_bytes, analyze_graph_path, GraphOptions};
pub use solution::{Decision, Solution};

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use std::fmt;

/// The generalized Sprague–Grundy value of a node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Value {
    /// A natural number: the node is worth a Nim heap of this size.
    Finite(u32),
    /// ∞(K): play from the node alone may go on forever; K, ascending,
    /// are the finite values of its followers.
    Infinite(Vec<u32>),
}

impl Serialize for Value {
    /// A number, or `{"infinite": [K, ascending]}` (SPEC section 9).
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Finite(value) => serializer.serialize_u32(*value),
            Value::Infinite(values) => {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry("infinite", values)?;
                map.end()
            }
        }
    }
}

impl fmt::Display for Value {
    /// `3`, `∞(0, 2)`, or `∞(∅)` for an empty K.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::Finite(value) => write!(f, "{value}"),
            Value::Infinite(values) if values.is_empty() => f.write_str("∞(∅)"),
            Value::Infinite(values) => {
                let list: Vec<String> = values.iter().map(u32::to_string).collect();
                write!(f, "∞({})", list.join(", "))
            }
        }
    }
}

/// The result of a sum of tokens under best play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// The player to move wins.
    First,
    /// The other player wins.
    Second,
    /// Neither can force a win: play goes on forever.
    Draw,
}

/// A move of one token along one edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TokenMove {
    /// The token's index, in the order of the start nodes.
    pub token: u64,
    /// The node it leaves.
    pub from: u32,
    /// The node it moves to: a follower of `from`.
    pub to: u32,
}
