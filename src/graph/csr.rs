//! The game graph in compressed sparse rows: for each node, its followers
//! (the nodes one move leads to) as one slice of a flat array.
//!
//! Node ids and edge positions are `u32`: a graph holds fewer than 2^32
//! nodes and at most 2^32 − 1 edges, which keeps the two arrays at 4 bytes
//! a node and 4 bytes an edge. Larger counts are refused with
//! [`GraphError`], never truncated.
//!
//! Edges arrive in any order, from a file or an iterator, and are counted
//! and held as they come ([`EdgeList`]: a source and a target array, and
//! the out-degrees); [`EdgeList::into_graph`] then lays them out in rows by
//! a counting sort (the followers of a node keep their input order). The
//! peak is 12 bytes an edge and 4 a node, while the edge list and the rows
//! are both held; the edge list is dropped before a graph is solved. Two
//! passes over a file (degrees, then rows) would hold 4 bytes an edge
//! less, but read and parse the text twice, which costs more than the
//! copy; a stream could not be read twice at all.
//!
//! Every array is allocated with `try_reserve`, so a count too large for
//! the machine is an error ([`GraphError::OutOfMemory`]) rather than an
//! abort. Since the system may promise more memory than it has (and kill
//! the process when the pages are touched), a graph whose least needs, 8
//! bytes a node and 12 an edge, exceed the machine's physical memory is
//! refused before anything is allocated: a header of a few bytes can ask
//! for 4 billion nodes.

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

/// A game graph: nodes `0..nodes()`, and for each node its followers.
/// Duplicate edges and self-loops are kept as given (a self-loop is a
/// move that leaves the position as it is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Graph {
    /// `offsets[u]..offsets[u + 1]` are the positions of `u`'s followers.
    offsets: Vec<u32>,
    /// The followers of every node, node after node.
    targets: Vec<u32>,
}

impl Graph {
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
                if node >= list.nodes {
                    return Err(GraphError::NodeOutOfRange {
                        node: u64::from(node),
                        nodes: list.nodes,
                    });
                }
            }
            list.push_checked(from, to)?;
        }
        list.into_graph()
    }

    /// The number of nodes.
    pub fn nodes(&self) -> u32 {
        (self.offsets.len() - 1) as u32
    }

    /// The number of edges.
    pub fn edges(&self) -> u64 {
        self.targets.len() as u64
    }

    /// The followers of `node`, duplicates included, in input order.
    /// Panics if `node` is not below [`Graph::nodes`].
    #[inline]
    pub fn followers(&self, node: u32) -> &[u32] {
        let at = node as usize;
        &self.targets[self.offsets[at] as usize..self.offsets[at + 1] as usize]
    }

    /// The number of edges out of `node`.
    #[inline]
    pub fn out_degree(&self, node: u32) -> u32 {
        let at = node as usize;
        self.offsets[at + 1] - self.offsets[at]
    }

    /// The row offsets: `offsets()[u]..offsets()[u + 1]` index `targets()`.
    #[inline]
    pub(crate) fn offsets(&self) -> &[u32] {
        &self.offsets
    }

    /// The followers of every node, node after node.
    #[inline]
    pub(crate) fn targets(&self) -> &[u32] {
        &self.targets
    }
}

/// Edges as they arrive, with the out-degree of every node counted on the
/// way; [`EdgeList::into_graph`] lays them out in rows.
pub(crate) struct EdgeList {
    nodes: u32,
    sources: Vec<u32>,
    targets: Vec<u32>,
    /// `counts[u]`: the edges out of `u` so far (one more slot, for the
    /// end offset the rows need).
    counts: Vec<u32>,
}

impl EdgeList {
    /// An empty list for a graph of `nodes` nodes, with room for
    /// `capacity` edges (more may be pushed).
    pub(crate) fn new(nodes: u64, capacity: u64) -> Result<EdgeList, GraphError> {
        if nodes > MAX_NODES {
            return Err(GraphError::TooManyNodes { nodes });
        }
        let capacity = capacity.min(MAX_EDGES);
        let too_large = GraphError::OutOfMemory {
            nodes,
            edges: capacity,
        };
        if 8 * nodes + 12 * capacity > physical_memory_bytes() {
            return Err(too_large);
        }
        let out_of_memory = |_| too_large.clone();
        Ok(EdgeList {
            nodes: nodes as u32,
            sources: with_capacity(capacity as usize).map_err(out_of_memory)?,
            targets: with_capacity(capacity as usize).map_err(out_of_memory)?,
            counts: zeroed(nodes as usize + 1).map_err(out_of_memory)?,
        })
    }

    /// The node count.
    pub(crate) fn nodes(&self) -> u32 {
        self.nodes
    }

    /// Adds the edge `from → to`; both must be below the node count, and
    /// the list must hold fewer than [`MAX_EDGES`] edges (the text reader
    /// checks both before it pushes).
    #[inline(always)]
    pub(crate) fn push(&mut self, from: u32, to: u32) {
        debug_assert!(from < self.nodes && to < self.nodes);
        debug_assert!((self.sources.len() as u64) < MAX_EDGES);
        self.sources.push(from);
        self.targets.push(to);
        self.counts[from as usize] += 1;
    }

    /// [`EdgeList::push`] after checking the edge count.
    fn push_checked(&mut self, from: u32, to: u32) -> Result<(), GraphError> {
        let edges = self.sources.len() as u64;
        if edges >= MAX_EDGES {
            return Err(GraphError::TooManyEdges { edges: edges + 1 });
        }
        self.push(from, to);
        Ok(())
    }

    /// The graph in rows, by a counting sort: the counts become the end
    /// offset of each row (their running sums), and the edges, taken from
    /// the last, fill each row from its end, so a row keeps the input order
    /// of its edges and each count ends at its row's start.
    pub(crate) fn into_graph(self) -> Result<Graph, GraphError> {
        let EdgeList {
            nodes,
            sources,
            targets: edge_targets,
            mut counts,
        } = self;
        let edges = sources.len();
        let mut total = 0u32;
        for count in counts.iter_mut() {
            total += *count;
            *count = total;
        }
        let mut targets = zeroed(edges).map_err(|_| GraphError::OutOfMemory {
            nodes: u64::from(nodes),
            edges: edges as u64,
        })?;
        for (&from, &to) in sources.iter().zip(&edge_targets).rev() {
            let end = &mut counts[from as usize];
            *end -= 1;
            targets[*end as usize] = to;
        }
        // Each row's start is now in its node's slot; the extra slot, which
        // counted no edge, kept the total: the end of the last row.
        Ok(Graph {
            offsets: counts,
            targets,
        })
    }
}

/// The machine's physical memory (`u64::MAX` if the system does not
/// say).
fn physical_memory_bytes() -> u64 {
    // SAFETY: `sysconf` only reads system configuration; it has no
    // preconditions and returns -1 for a name it does not know.
    let (pages, page_size) = unsafe {
        (
            libc::sysconf(libc::_SC_PHYS_PAGES),
            libc::sysconf(libc::_SC_PAGESIZE),
        )
    };
    match (u64::try_from(pages), u64::try_from(page_size)) {
        (Ok(pages), Ok(size)) => pages.saturating_mul(size),
        _ => u64::MAX,
    }
}

/// An empty vector with room for `len` items, or the allocation error.
pub(crate) fn with_capacity(len: usize) -> Result<Vec<u32>, std::collections::TryReserveError> {
    let mut vector = Vec::new();
    vector.try_reserve_exact(len)?;
    Ok(vector)
}

/// `len` zeros, or the allocation error.
pub(crate) fn zeroed(len: usize) -> Result<Vec<u32>, std::collections::TryReserveError> {
    let mut vector = with_capacity(len)?;
    vector.resize(len, 0);
    Ok(vector)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_hold_every_edge_in_input_order() {
        let edges = [(2, 0), (0, 1), (2, 2), (0, 1), (3, 0), (2, 1)];
        let graph = Graph::from_edges(5, edges).unwrap();
        assert_eq!(graph.nodes(), 5);
        assert_eq!(graph.edges(), 6);
        for node in 0..5 {
            let expected: Vec<u32> = edges
                .iter()
                .filter(|(from, _)| *from == node)
                .map(|(_, to)| *to)
                .collect();
            assert_eq!(graph.followers(node), expected, "node {node}");
            assert_eq!(graph.out_degree(node) as usize, expected.len());
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
