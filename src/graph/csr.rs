//! Compressed sparse rows of node ids, and the limits and errors of a
//! graph's size.
//!
//! Node ids and edge positions are `u32`: a graph holds fewer than 2^32
//! nodes and at most 2^32 − 1 edges, which keeps its rows at 4 bytes a
//! node and 4 bytes an edge each way. Larger counts are refused with
//! [`GraphError`], never truncated.

use std::fmt;

/// The most nodes a graph may have: ids are `u32` values below it.
pub const MAX_NODES: u64 = u32::MAX as u64;

/// The most edges a graph may have: edge positions are `u32`.
pub const MAX_EDGES: u64 = u32::MAX as u64;

/// Why a graph could not be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GraphError {
    /// More nodes than [`MAX_NODES`].
    TooManyNodes {
        /// The node count asked for.
        nodes: u64,
    },
    /// More edges than [`MAX_EDGES`].
    TooManyEdges {
        /// The edge count asked for (or reached).
        edges: u64,
    },
    /// An edge or a token names a node that is not in the graph.
    NodeOutOfRange {
        /// The node named.
        node: u64,
        /// The graph's node count.
        nodes: u32,
    },
    /// The arrays for the graph could not be allocated.
    OutOfMemory {
        /// The node count.
        nodes: u64,
        /// The edge count.
        edges: u64,
    },
}

impl fmt::Display for GraphError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GraphError::TooManyNodes { nodes } => write!(
                f,
                "a graph of {nodes} nodes is too large: at most {MAX_NODES} nodes are supported"
            ),
            GraphError::TooManyEdges { edges } => write!(
                f,
                "a graph of {edges} edges is too large: at most {MAX_EDGES} edges are supported"
            ),
            GraphError::NodeOutOfRange { node, nodes } => {
                write!(f, "node {node} is out of range: {}", node_range(*nodes))
            }
            GraphError::OutOfMemory { nodes, edges } => write!(
                f,
                "not enough memory for a graph of {nodes} nodes and {edges} edges"
            ),
        }
    }
}

impl std::error::Error for GraphError {}

/// "the graph has 10 nodes (0 to 9)", for messages.
pub(crate) fn node_range(nodes: u32) -> String {
    match nodes {
        0 => "the graph has no nodes".to_string(),
        1 => "the graph has 1 node (0)".to_string(),
        n => format!("the graph has {n} nodes (0 to {})", n - 1),
    }
}

/// Rows of node ids: row `u` is `items[offsets[u]..offsets[u + 1]]`.
#[derive(Clone, Debug)]
pub(crate) struct Rows {
    pub(crate) offsets: Vec<u32>,
    pub(crate) items: Vec<u32>,
}

impl Rows {
    /// Row `row`.
    #[inline]
    pub(crate) fn row(&self, row: u32) -> &[u32] {
        let at = row as usize;
        &self.items[self.offsets[at] as usize..self.offsets[at + 1] as usize]
    }
}
