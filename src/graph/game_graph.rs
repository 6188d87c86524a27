//! The game graph: for each node its predecessors and its out-degree,
//! always, and its followers (the nodes one move leads to) when they are
//! first asked for.
//!
//! The solver works backwards from the sinks, and on the part of a graph
//! from which no cycle can be reached it needs only the predecessors and
//! the out-degrees (`acyclic.rs`), as does finding the move there. The
//! forward rows cost as much again (4 bytes a node and an edge, and 0.9 s
//! of random writes for 5·10^7 edges), so they are laid out on first use:
//! by the cyclic solver, by [`Graph::followers`], and for the sets K of
//! infinite values. How edges become rows is `layout.rs`.

use super::csr::{GraphError, Rows};
use super::layout::{forward_rows, EdgeList};
use std::sync::OnceLock;

/// A game graph: nodes `0..nodes()`, and for each node its followers and
/// its predecessors. Duplicate edges and self-loops are kept as given (a
/// self-loop is a move that leaves the position as it is).
#[derive(Clone, Debug)]
pub struct Graph {
    /// The predecessors of each node.
    reverse: Rows,
    /// The number of followers of each node.
    out_degrees: Vec<u32>,
    /// The followers of each node, once asked for.
    forward: OnceLock<Rows>,
}

impl Graph {
    /// The graph of the edges of `list`.
    pub(crate) fn from_edge_list(list: EdgeList) -> Result<Graph, GraphError> {
        let (reverse, out_degrees) = list.into_rows()?;
        Ok(Graph {
            reverse,
            out_degrees,
            forward: OnceLock::new(),
        })
    }

    /// The graph on `nodes` nodes with the moves `edges` (`(from, to)`
    /// pairs), from any iterator.
    ///
    /// ```
    /// use nimstream::graph::{Graph, GraphError};
    ///
    /// let graph = Graph::from_edges(3, [(0, 1), (1, 2), (0, 2)])?;
    /// assert_eq!(graph.followers(0), &[1, 2]);
    /// assert_eq!(
    ///     Graph::from_edges(2, [(0, 2)]).unwrap_err(),
    ///     GraphError::NodeOutOfRange { node: 2, nodes: 2 }
    /// );
    /// # Ok::<(), GraphError>(())
    /// ```
    pub fn from_edges(
        nodes: u64,
        edges: impl IntoIterator<Item = (u32, u32)>,
    ) -> Result<Graph, GraphError> {
        let edges = edges.into_iter();
        let mut list = EdgeList::new(nodes, edges.size_hint().0 as u64)?;
        for (from, to) in edges {
            for node in [from, to] {
                if node >= list.nodes() {
                    return Err(GraphError::NodeOutOfRange {
                        node: u64::from(node),
                        nodes: list.nodes(),
                    });
                }
            }
            list.push_checked(from, to)?;
        }
        Graph::from_edge_list(list)
    }

    /// The number of nodes.
    pub fn nodes(&self) -> u32 {
        self.out_degrees.len() as u32
    }

    /// The number of edges.
    pub fn edges(&self) -> u64 {
        self.reverse.items.len() as u64
    }

    /// The followers of `node`, ascending, duplicates included. Panics if
    /// `node` is not below [`Graph::nodes`]. The first call lays out the
    /// followers of every node.
    #[inline]
    pub fn followers(&self, node: u32) -> &[u32] {
        self.forward().row(node)
    }

    /// The predecessors of `node` (a node once per edge into `node`), in
    /// no particular order. Panics if `node` is not below
    /// [`Graph::nodes`].
    #[inline]
    pub fn predecessors(&self, node: u32) -> &[u32] {
        self.reverse.row(node)
    }

    /// The number of edges out of `node`.
    #[inline]
    pub fn out_degree(&self, node: u32) -> u32 {
        self.out_degrees[node as usize]
    }

    /// The number of edges out of every node.
    #[inline]
    pub(crate) fn out_degrees(&self) -> &[u32] {
        &self.out_degrees
    }

    /// The followers of every node, laid out on first use.
    pub(crate) fn forward(&self) -> &Rows {
        self.forward
            .get_or_init(|| forward_rows(&self.reverse, &self.out_degrees))
    }

    /// The followers of every node, if they have been laid out.
    pub(crate) fn forward_if_built(&self) -> Option<&Rows> {
        self.forward.get()
    }

    /// The predecessors of every node.
    #[inline]
    pub(crate) fn reverse(&self) -> &Rows {
        &self.reverse
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::csr::MAX_NODES;

    #[test]
    fn rows_hold_every_edge_both_ways() {
        let edges = [(2, 0), (0, 1), (2, 2), (0, 1), (3, 0), (2, 1), (4, 1)];
        let graph = Graph::from_edges(6, edges).unwrap();
        assert_eq!(graph.nodes(), 6);
        assert_eq!(graph.edges(), 7);
        for node in 0..6 {
            let mut followers: Vec<u32> = edges
                .iter()
                .filter(|(from, _)| *from == node)
                .map(|(_, to)| *to)
                .collect();
            followers.sort_unstable();
            assert_eq!(graph.followers(node), followers, "node {node}");
            assert_eq!(graph.out_degree(node) as usize, followers.len());
            let mut predecessors: Vec<u32> = edges
                .iter()
                .filter(|(_, to)| *to == node)
                .map(|(from, _)| *from)
                .collect();
            predecessors.sort_unstable();
            let mut found = graph.predecessors(node).to_vec();
            found.sort_unstable();
            assert_eq!(found, predecessors, "node {node}");
        }
    }

    #[test]
    fn empty_graphs_and_bad_counts() {
        let graph = Graph::from_edges(0, []).unwrap();
        assert_eq!((graph.nodes(), graph.edges()), (0, 0));
        assert_eq!(
            Graph::from_edges(MAX_NODES + 1, []).unwrap_err(),
            GraphError::TooManyNodes {
                nodes: MAX_NODES + 1
            }
        );
        assert_eq!(
            Graph::from_edges(MAX_NODES, []).unwrap_err().to_string(),
            "not enough memory for a graph of 4294967295 nodes and 0 edges",
            "32 GiB for 4 billion nodes: more than a test machine has"
        );
        let error = Graph::from_edges(0, [(0, 0)]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "node 0 is out of range: the graph has no nodes"
        );
    }
}
