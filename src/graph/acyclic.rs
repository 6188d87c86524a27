//! The Grundy value of every node from which no cycle can be reached, by
//! mex, without recursion; the other nodes are marked for
//! [`super::cyclic`].
//!
//! A depth-first search over the followers, with its own stack of
//! `(node, next edge)` frames (8 bytes a frame, at most one frame a node:
//! a path of 10^7 nodes needs 80 MB of stack here, where seed 003's
//! recursion needs a process stack of that size), gives each node its
//! value in post-order, when all its followers are done: the mex of their
//! values. A follower found on the search's path (a back edge, a
//! self-loop included) or already marked makes its predecessor *reach a
//! cycle*; the mark travels down the path as the search returns. Exactly
//! the nodes that can reach a cycle are marked: a node left unmarked
//! finished after all its followers, which are unmarked too, so finishing
//! times fall strictly along every walk from it, and no walk from it can
//! close a cycle; a marked node has a follower on a cycle's path or a
//! marked follower. On the unmarked part the graph is acyclic and the
//! ordinary Sprague–Grundy function is the generalized one (SPEC
//! section 9) restricted to it, since followers of unmarked nodes are
//! unmarked.
//!
//! The search reads only the forward rows. Kahn's order (counting down
//! out-degrees from the sinks) would need the reverse rows as well, 4
//! bytes a node and an edge more, and twice the random accesses; the
//! cyclic solver builds reverse rows for the marked part only.
//!
//! Values and marks share one `u32` per node (the *slot*): the marks are
//! the four highest `u32` values, and no Grundy value comes near them: a
//! node of value g has followers of every value below g, so the nodes it
//! reaches hold at least g(g+1)/2 edges, and with at most 2^32 − 1 edges
//! every value is below 92,682.
//!
//! The mex of a node of out-degree d is at most d: followers' values up to
//! 63 are gathered in one `u64` mask; a node of more than 63 followers
//! uses a table of stamps ([`MexScratch`]) that grows to the largest such
//! degree and is never cleared (each node stamps it with its own id).

use super::csr::Graph;

/// A slot not yet reached by the search.
pub(crate) const UNSEEN: u32 = u32::MAX;
/// A slot of a node on the search's path.
const ON_PATH: u32 = u32::MAX - 1;
/// A slot of a node on the path that is known to reach a cycle.
const ON_PATH_REACHES_CYCLE: u32 = u32::MAX - 2;
/// The slot of a finished node that reaches a cycle.
pub(crate) const REACHES_CYCLE: u32 = u32::MAX - 3;

/// The mex of followers' values, without allocating per node.
#[derive(Default)]
pub(crate) struct MexScratch {
    /// `stamps[v] == stamp` when value `v` was seen for the current node.
    stamps: Vec<u32>,
    /// Changes for every node that uses the table.
    stamp: u32,
}

impl MexScratch {
    /// The least value not among `values` (which has `len` items).
    #[inline]
    pub(crate) fn mex(&mut self, values: impl Iterator<Item = u32>, len: usize) -> u32 {
        if len < 64 {
            let seen = values
                .filter(|&value| value < 64)
                .fold(0u64, |seen, value| seen | 1 << value);
            return seen.trailing_ones();
        }
        self.mex_of_many(values, len)
    }

    /// [`MexScratch::mex`] with the table of stamps.
    #[cold]
    fn mex_of_many(&mut self, values: impl Iterator<Item = u32>, len: usize) -> u32 {
        if self.stamps.len() <= len {
            self.stamps.resize(len + 1, 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // Stamps wrapped around: old ones could match again.
            self.stamps.fill(0);
            self.stamp = 1;
        }
        for value in values {
            if (value as usize) <= len {
                self.stamps[value as usize] = self.stamp;
            }
        }
        let free = self.stamps[..=len].iter().position(|&s| s != self.stamp);
        free.expect("at most len of the len + 1 values are seen") as u32
    }
}

/// The slots of the graph's nodes after the search: the Grundy value of
/// each node that reaches no cycle, [`REACHES_CYCLE`] for the others; and
/// the number of the others.
pub(crate) fn solve_acyclic(graph: &Graph) -> (Vec<u32>, u64) {
    let offsets = graph.offsets();
    let targets = graph.targets();
    let mut slots = vec![UNSEEN; graph.nodes() as usize];
    let mut stack: Vec<(u32, u32)> = Vec::new();
    let mut scratch = MexScratch::default();
    let mut reaching = 0u64;
    for root in 0..graph.nodes() {
        if slots[root as usize] != UNSEEN {
            continue;
        }
        slots[root as usize] = ON_PATH;
        stack.push((root, offsets[root as usize]));
        'frames: while let Some(&(node, next)) = stack.last() {
            let end = offsets[node as usize + 1];
            for at in next..end {
                let follower = targets[at as usize];
                match slots[follower as usize] {
                    UNSEEN => {
                        stack.last_mut().expect("a frame").1 = at + 1;
                        slots[follower as usize] = ON_PATH;
                        stack.push((follower, offsets[follower as usize]));
                        continue 'frames;
                    }
                    REACHES_CYCLE.. => slots[node as usize] = ON_PATH_REACHES_CYCLE,
                    _ => {}
                }
            }
            stack.pop();
            if slots[node as usize] == ON_PATH_REACHES_CYCLE {
                slots[node as usize] = REACHES_CYCLE;
                reaching += 1;
                if let Some(&(parent, _)) = stack.last() {
                    slots[parent as usize] = ON_PATH_REACHES_CYCLE;
                }
            } else {
                let followers = graph.followers(node);
                let values = followers.iter().map(|&f| slots[f as usize]);
                slots[node as usize] = scratch.mex(values, followers.len());
            }
        }
    }
    (slots, reaching)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The slots by the definition, one node at a time until nothing
    /// changes: a node all of whose followers have values gets their mex;
    /// what is left reaches a cycle.
    fn reference(graph: &Graph) -> Vec<u32> {
        let mut slots = vec![UNSEEN; graph.nodes() as usize];
        loop {
            let mut changed = false;
            for node in 0..graph.nodes() {
                let followers = graph.followers(node);
                if slots[node as usize] != UNSEEN
                    || followers.iter().any(|&f| slots[f as usize] == UNSEEN)
                {
                    continue;
                }
                let values: Vec<u32> = followers.iter().map(|&f| slots[f as usize]).collect();
                slots[node as usize] = (0..).find(|v| !values.contains(v)).unwrap();
                changed = true;
            }
            if !changed {
                break;
            }
        }
        slots
            .into_iter()
            .map(|s| if s == UNSEEN { REACHES_CYCLE } else { s })
            .collect()
    }

    #[test]
    fn random_graphs_match_the_definition() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        for case in 0..2000 {
            let nodes = rng.random_range(1..=12u32);
            let edges = rng.random_range(0..3 * nodes);
            let acyclic = case % 2 == 0;
            let list: Vec<(u32, u32)> = (0..edges)
                .map(|_| (rng.random_range(0..nodes), rng.random_range(0..nodes)))
                .map(|(a, b)| {
                    if acyclic {
                        (a.min(b), a.max(b))
                    } else {
                        (a, b)
                    }
                })
                .filter(|&(a, b)| !acyclic || a < b)
                .collect();
            let graph = Graph::from_edges(u64::from(nodes), list.iter().copied()).unwrap();
            let (slots, reaching) = solve_acyclic(&graph);
            let expected = reference(&graph);
            assert_eq!(slots, expected, "{list:?}");
            let marked = expected.iter().filter(|&&s| s == REACHES_CYCLE).count();
            assert_eq!(reaching, marked as u64);
        }
    }

    #[test]
    fn a_long_path_needs_no_recursion() {
        let nodes = 1_000_000u32;
        let graph = Graph::from_edges(u64::from(nodes), (1..nodes).map(|v| (v - 1, v))).unwrap();
        let (slots, reaching) = solve_acyclic(&graph);
        assert_eq!(reaching, 0);
        assert!(slots
            .iter()
            .enumerate()
            .all(|(node, &value)| value == (nodes - 1 - node as u32) % 2));
    }

    #[test]
    fn the_mex_of_many_values_uses_the_table() {
        let mut scratch = MexScratch::default();
        let values: Vec<u32> = (0..200).filter(|&v| v != 150).collect();
        assert_eq!(scratch.mex(values.iter().copied(), values.len()), 150);
        let values: Vec<u32> = (0..100).collect();
        assert_eq!(scratch.mex(values.iter().copied(), values.len()), 100);
        assert_eq!(scratch.mex([1, 2, 0, 70].into_iter(), 4), 3);
        assert_eq!(scratch.mex([63, 64].into_iter(), 2), 0);
    }
}
