//! From edges in any order to rows both ways, for [`super::Graph`].
//!
//! Edges arrive from a file or an iterator and are held as they come, in
//! buckets by the high bits of their target ([`EdgeList`]: a bucket is a
//! list of blocks of `(source, target)` pairs, 8 bytes an edge, and holds
//! the edges into [`BUCKET_NODES`] consecutive nodes). Then:
//!
//! 1. bucket after bucket, the reverse rows (the predecessors of each
//!    node, in input order) are laid out by a counting sort on the
//!    target's low bits, and the out-degrees counted: the sort's counters
//!    and the piece of the rows it writes stay in the caches, and each
//!    bucket's blocks are freed once it is done, so the peak is the 8
//!    bytes an edge of the buckets;
//! 2. the forward rows, when asked for ([`forward_rows`]), are filled from
//!    the reverse ones, from the last node back, each of its predecessors
//!    getting it at the end of what is left of its row, so every row of
//!    followers ascends.
//!
//! The peak while reading is 8 bytes an edge, and a graph holds 4 bytes
//! an edge and 8 a node (12 with its forward rows). A counting sort
//! straight into rows writes each edge to a random place of a 200 MB array
//! (for 5·10^7 edges) and reads a random counter of a 40 MB one; appending
//! to the buckets touches the tails of a thousand or so blocks, which the
//! caches hold. The forward rows are filled by random writes, which is
//! why they wait until asked for. Two passes over a file (degrees, then
//! rows) would hold less while reading, but read and parse the text
//! twice; a stream could not be read twice at all.
//!
//! Every array is allocated with `try_reserve`, so a count too large for
//! the machine is an error ([`GraphError::OutOfMemory`]) rather than an
//! abort. Since the system may promise more memory than it has (and kill
//! the process when the pages are touched), a graph whose least needs (16
//! bytes a node and 8 an edge, when it is solved) exceed the machine's
//! physical memory is refused before anything is allocated: a header of a
//! few bytes can ask for 4 billion nodes.

use super::csr::{GraphError, Rows, MAX_EDGES, MAX_NODES};
use std::collections::TryReserveError;

/// Nodes per bucket: a bucket's counters (32 KiB) stay in the
/// first-level cache.
const BUCKET_BITS: u32 = 13;
/// `2^BUCKET_BITS`.
const BUCKET_NODES: usize = 1 << BUCKET_BITS;
/// Edges per block of a bucket, at most (512 KiB): few allocations, and
/// only the pages written count towards the resident size.
const BLOCK_EDGES: usize = 1 << 16;
/// Edges per block of a bucket, at least (128 KiB), unless the graph has
/// fewer: the system allocator (glibc's) gives a block this large pages
/// of its own and returns them to the system when it is freed, so the
/// resident size falls as the buckets are laid out (smaller blocks come
/// from a heap that keeps its pages: measured, the peak rose by 40 %).
const MIN_BLOCK_EDGES: usize = 1 << 14;
/// Blocks per bucket, about, when the edges are spread evenly and the
/// blocks not at their largest: the last, partly filled block of each
/// bucket is a fraction of it.
const BLOCKS_PER_BUCKET: usize = 4;

/// An edge packed in a word: the source in the high half.
type Pair = u64;

/// Edges as they arrive, in buckets by target; [`EdgeList::into_rows`]
/// lays them out in rows.
pub(crate) struct EdgeList {
    nodes: u32,
    edges: u64,
    /// By `target >> BUCKET_BITS`: blocks of pairs, the last one filling.
    buckets: Vec<Vec<Vec<Pair>>>,
    /// The size of each new block: a [`BLOCKS_PER_BUCKET`]th of the edges
    /// expected per bucket, within [`MIN_BLOCK_EDGES`] and
    /// [`BLOCK_EDGES`], but no more than the edges expected in all.
    block_edges: usize,
}

impl EdgeList {
    /// An empty list for a graph of `nodes` nodes, sized for about
    /// `expected` edges (more may be pushed).
    pub(crate) fn new(nodes: u64, expected: u64) -> Result<EdgeList, GraphError> {
        if nodes > MAX_NODES {
            return Err(GraphError::TooManyNodes { nodes });
        }
        let expected = expected.min(MAX_EDGES);
        if 16 * nodes + 8 * expected > physical_memory_bytes() {
            return Err(GraphError::OutOfMemory {
                nodes,
                edges: expected,
            });
        }
        let count = (nodes as usize).div_ceil(BUCKET_NODES);
        let mut buckets = Vec::new();
        buckets
            .try_reserve_exact(count)
            .map_err(|_| GraphError::OutOfMemory {
                nodes,
                edges: expected,
            })?;
        buckets.resize_with(count, Vec::new);
        let per_bucket = expected as usize / count.max(1);
        Ok(EdgeList {
            nodes: nodes as u32,
            edges: 0,
            buckets,
            block_edges: (per_bucket / BLOCKS_PER_BUCKET)
                .clamp(MIN_BLOCK_EDGES, BLOCK_EDGES)
                .min(expected as usize + 1),
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
    pub(crate) fn push(&mut self, from: u32, to: u32) -> Result<(), GraphError> {
        debug_assert!(from < self.nodes && to < self.nodes);
        debug_assert!(self.edges < MAX_EDGES);
        let bucket = &mut self.buckets[(to >> BUCKET_BITS) as usize];
        let pair = Pair::from(from) << 32 | Pair::from(to);
        match bucket.last_mut() {
            Some(block) if block.len() < block.capacity() => block.push(pair),
            _ => Self::start_block(bucket, self.block_edges, pair, self.nodes, self.edges)?,
        }
        self.edges += 1;
        Ok(())
    }

    /// Starts a new block of `bucket` with `pair`: of `block_edges`, or
    /// twice the size of the bucket's last block, up to [`BLOCK_EDGES`]
    /// (so that a list sized for few edges that gets many, as from an
    /// iterator that does not know its length, still has few blocks).
    #[cold]
    fn start_block(
        bucket: &mut Vec<Vec<Pair>>,
        block_edges: usize,
        pair: Pair,
        nodes: u32,
        edges: u64,
    ) -> Result<(), GraphError> {
        let size = bucket.last().map_or(block_edges, |last| {
            (2 * last.capacity()).clamp(block_edges, BLOCK_EDGES.max(block_edges))
        });
        let mut block = Vec::new();
        let allocated = block
            .try_reserve_exact(size)
            .and_then(|()| bucket.try_reserve(1));
        allocated.map_err(|_| GraphError::OutOfMemory {
            nodes: u64::from(nodes),
            edges,
        })?;
        block.push(pair);
        bucket.push(block);
        Ok(())
    }

    /// [`EdgeList::push`] after checking the edge count.
    pub(crate) fn push_checked(&mut self, from: u32, to: u32) -> Result<(), GraphError> {
        if self.edges >= MAX_EDGES {
            return Err(GraphError::TooManyEdges {
                edges: self.edges + 1,
            });
        }
        self.push(from, to)
    }

    /// The graph's reverse rows and out-degrees, bucket by bucket.
    pub(crate) fn into_rows(self) -> Result<(Rows, Vec<u32>), GraphError> {
        let (nodes, edges) = (self.nodes, self.edges);
        self.reverse_rows().map_err(|_| GraphError::OutOfMemory {
            nodes: u64::from(nodes),
            edges,
        })
    }

    /// The predecessors and the out-degree of every node: a counting sort
    /// of each bucket on the targets' low bits, its blocks freed once it
    /// is laid out.
    fn reverse_rows(self) -> Result<(Rows, Vec<u32>), TryReserveError> {
        let nodes = self.nodes as usize;
        let mut offsets = zeroed(nodes + 1)?;
        let mut out_degrees = zeroed(nodes)?;
        let mut items = with_capacity(self.edges as usize)?;
        let mut counts = vec![0u32; BUCKET_NODES + 1];
        for (bucket, blocks) in self.buckets.into_iter().enumerate() {
            let first = bucket * BUCKET_NODES;
            let width = BUCKET_NODES.min(nodes - first);
            let pairs = || blocks.iter().flatten().copied();
            counts.fill(0);
            for pair in pairs() {
                counts[(pair as usize & (BUCKET_NODES - 1)) + 1] += 1;
            }
            let start = items.len() as u32;
            for node in 0..width {
                counts[node + 1] += counts[node];
                offsets[first + node] = start + counts[node];
            }
            items.resize(items.len() + counts[width] as usize, 0);
            let laid = &mut items[start as usize..];
            for pair in pairs() {
                let slot = &mut counts[pair as usize & (BUCKET_NODES - 1)];
                let from = (pair >> 32) as u32;
                laid[*slot as usize] = from;
                *slot += 1;
                out_degrees[from as usize] += 1;
            }
        }
        offsets[nodes] = items.len() as u32;
        Ok((Rows { offsets, items }, out_degrees))
    }
}

/// The followers of every node, from the predecessors and the
/// out-degrees: each row ascends. Allocates 4 bytes a node and an edge,
/// without a recoverable error (the graph itself holds as much again).
pub(crate) fn forward_rows(reverse: &Rows, out_degrees: &[u32]) -> Rows {
    let nodes = out_degrees.len() as u32;
    let mut counts = Vec::with_capacity(out_degrees.len() + 1);
    counts.extend_from_slice(out_degrees);
    counts.push(0);
    let items = vec![0; reverse.items.len()];
    Filler::rows(counts, items, |rows| {
        for to in (0..nodes).rev() {
            for &from in reverse.row(to) {
                rows.place(from, to);
            }
        }
    })
}

/// Fills rows from their ends.
struct Filler<'a> {
    /// The end of what is left to fill of each row.
    ends: &'a mut [u32],
    items: &'a mut [u32],
}

impl Filler<'_> {
    /// The rows whose sizes are `counts` (one slot more than rows, the
    /// last 0), their items stored in `items` (as long as the counts'
    /// total), filled by `fill` with [`Filler::place`].
    fn rows(mut counts: Vec<u32>, mut items: Vec<u32>, fill: impl FnOnce(&mut Filler<'_>)) -> Rows {
        let mut total = 0u32;
        for count in counts.iter_mut() {
            total += *count;
            *count = total;
        }
        debug_assert_eq!(total as usize, items.len());
        fill(&mut Filler {
            ends: &mut counts,
            items: &mut items,
        });
        // Each row's start is now in its slot; the last slot, which
        // counted nothing, kept the total: the end of the last row.
        Rows {
            offsets: counts,
            items,
        }
    }

    /// Puts `item` at the end of what is left of `row`: items come in the
    /// reverse order of their rows.
    #[inline(always)]
    fn place(&mut self, row: u32, item: u32) {
        let end = &mut self.ends[row as usize];
        *end -= 1;
        self.items[*end as usize] = item;
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
fn with_capacity(len: usize) -> Result<Vec<u32>, TryReserveError> {
    let mut vector = Vec::new();
    vector.try_reserve_exact(len)?;
    Ok(vector)
}

/// `len` zeros, or the allocation error.
fn zeroed(len: usize) -> Result<Vec<u32>, TryReserveError> {
    let mut vector = with_capacity(len)?;
    vector.resize(len, 0);
    Ok(vector)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Graph;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// Random edges on `nodes` nodes: uniform, or most of them into a
    /// few nodes (one bucket much fuller than the others).
    fn edges(rng: &mut ChaCha8Rng, nodes: u32, count: usize, skewed: bool) -> Vec<(u32, u32)> {
        (0..count)
            .map(|_| {
                let from = rng.random_range(0..nodes);
                let to = match skewed && rng.random_bool(0.8) {
                    true => rng.random_range(0..nodes.min(3)),
                    false => rng.random_range(0..nodes),
                };
                (from, to)
            })
            .collect()
    }

    #[test]
    fn an_edge_list_sized_for_none_grows_its_blocks() {
        let mut list = EdgeList::new(10, 0).unwrap();
        for edge in 0..100_000u32 {
            list.push_checked(edge % 10, (edge * 7) % 10).unwrap();
        }
        assert!(
            list.buckets[0].len() < 20,
            "{} blocks",
            list.buckets[0].len()
        );
        let (reverse, out_degrees) = list.into_rows().unwrap();
        assert_eq!(out_degrees, [10_000; 10]);
        assert_eq!(reverse.items.len(), 100_000);
    }

    #[test]
    fn rows_across_many_buckets_match_the_edges() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let sizes = [1, 2, 100, 8191, 8192, 8193, 20_000, 50_000];
        for (case, &nodes) in sizes.iter().enumerate() {
            for skewed in [false, true] {
                let count = rng.random_range(0..4 * nodes as usize + 10);
                let list = edges(&mut rng, nodes, count, skewed);
                let graph = Graph::from_edges(u64::from(nodes), list.iter().copied()).unwrap();
                let mut forward = vec![Vec::new(); nodes as usize];
                let mut reverse = vec![Vec::new(); nodes as usize];
                for &(from, to) in &list {
                    forward[from as usize].push(to);
                    reverse[to as usize].push(from);
                }
                for node in 0..nodes {
                    let followers = &mut forward[node as usize];
                    followers.sort_unstable();
                    assert_eq!(graph.followers(node), &followers[..], "case {case}");
                    // In input order.
                    assert_eq!(
                        graph.predecessors(node),
                        &reverse[node as usize][..],
                        "case {case}"
                    );
                }
            }
        }
    }
}
