//! The generalized Sprague–Grundy function γ (C. A. B. Smith, "Graphs and
//! composite games", 1966; A. S. Fraenkel and Y. Yesha, "The generalized
//! Sprague–Grundy function and its invariance under certain mappings",
//! 1986) on the nodes from which a cycle can be reached, the part the
//! acyclic pass ([`super::acyclic`]) leaves.
//!
//! # The definition
//!
//! With F(u) the followers of u, γ maps each node to a natural number or
//! ∞, and there is a *counter* c, a number for each node of finite γ,
//! such that:
//!
//! - (A) if γ(u) < ∞, γ(u) = mex γ(F(u)) (the least natural number that is
//!   not the value of a follower; ∞ is ignored);
//! - (B) if γ(u) < ∞ and a follower v has γ(v) > γ(u) (∞ included), then v
//!   has a follower w with γ(w) = γ(u) and c(w) < c(u);
//! - (C) if γ(u) = ∞, u has a follower v with γ(v) = ∞ of which no
//!   follower has the value mex γ(F(u)).
//!
//! On a finite graph γ exists and is unique. A node of infinite value is
//! written ∞(K), K the finite values of its followers. The counter is what
//! makes γ unique: without it, on a 2-cycle u ⇄ v, γ(u) = 0 and γ(v) = 1
//! would satisfy (A)–(C), each value justified by the other, while play
//! there never ends (γ = ∞(∅) for both). Smith's theorem decides sums: γ
//! of a sum is the XOR of the finite values, ∞(K ⊕ b) with one infinite
//! term ∞(K) and the others' XOR b, ∞(∅) with two or more; the player to
//! move loses at 0, wins at another finite value or at ∞(K) with 0 ∈ K,
//! and the game is a draw at any other ∞(K).
//!
//! # The algorithm
//!
//! Nodes get their labels in order, and that order is the counter: first
//! the acyclic part in its post-order, then rounds k = 0, 1, 2, …. Let
//! C_k be the unlabelled nodes whose labelled followers have every value
//! below k at the start of round k (C_0: the whole part). Round k gives
//! the label k, one node at a time for as long as there is one, to a node
//! u of C_k such that
//!
//! - (i) no follower of u is labelled k, and
//! - (ii) every unlabelled follower of u has a follower labelled k (it is
//!   *blocked*).
//!
//! Then the unlabelled nodes of C_k with a follower labelled k form
//! C_{k+1}, and those without one are *dead*: they get γ = ∞. Rounds end
//! when C_k is empty; unlabelled nodes left outside every C_k died in an
//! earlier round.
//!
//! Round k runs backwards from what is labelled, like a retrograde
//! analysis: each node of C_k counts its edges to unlabelled nodes that
//! are not yet blocked (`need`, from `open`, its edges to unlabelled
//! nodes), the nodes with an acyclic follower of value k are blocked
//! first, and a node labelled k blocks its unlabelled predecessors; when
//! a node is blocked, each predecessor in C_k counts one edge down, and
//! one that reaches 0 and meets (i) is labelled.
//!
//! # Why the labels are γ
//!
//! A node of C_k that is blocked never gets the label k (it fails (i)),
//! nor a label below k (those rounds are over), and after round k no node
//! gets k; a label j > k needs a follower of value k, which a dead node of
//! round k lacks, so dead nodes stay unlabelled, as they should.
//!
//! (A) for u labelled k: u is in C_k, so every value below k is among its
//! followers. Its followers labelled before round k have values below k,
//! or acyclic values other than k (by (i)); none is labelled k during the
//! round (by (i) when u was labelled, and by the previous paragraph
//! after); the rest were blocked when u was labelled, and end above k or
//! at ∞. So mex γ(F(u)) = k.
//!
//! (B) for u labelled k and a follower v with γ(v) > k: v was not labelled
//! in an earlier round (those labels are below k) nor in round k. Either v
//! is acyclic, and has a follower w of value k by (A), acyclic too, so
//! labelled before every round; or v was unlabelled when u was labelled,
//! and by (ii) had a follower w labelled k before u. In the acyclic part,
//! a follower v with γ(v) > γ(u) has a follower w with γ(w) = γ(u), and w
//! is finished before v, which is finished before u.
//!
//! (C) for u dead after round k: u is in C_k and no follower of u is
//! labelled k, so mex γ(F(u)) = k. u met (i) to the end of the round and
//! was not labelled, so its count did not reach 0: it has an edge to a
//! node v, unlabelled at the start of the round, that no node labelled k
//! blocked and that was not labelled k either (u would have been
//! blocked). v has no follower of value k, so it never gets a finite
//! label: γ(v) = ∞, and no follower of v has the value k.
//!
//! So the labels satisfy the definition, and by uniqueness they are γ.
//!
//! # Cost
//!
//! A node is in C_k only if its followers have k distinct values, so the
//! rounds visit at most n + m members of some C_k in all. A node is blocked
//! at most once a round and only in rounds k where a follower has the
//! value k, and labelled once; each time its predecessors are scanned. In
//! all O(n + m + m·R) time, R the number of rounds, at most the largest
//! finite value in the part plus 2 (and below 92,683: see
//! [`super::acyclic`]); Fraenkel and Yesha's bound is O(n·m). On graphs
//! whose values are small, as in random graphs, it is linear.
//!
//! Memory, for n′ nodes in the part: 16 bytes a node (the global id,
//! `open`, `need`, the mark), 4 bytes an edge leaving the part (the nodes
//! blocked from the start, by value), up to 8 bytes a node for the lists
//! of a round, and the graph's forward rows, which this is the first to
//! ask for (4 bytes a node and an edge of the whole graph). The
//! predecessors are the graph's reverse rows (every predecessor of a node
//! that reaches a cycle reaches it too), read in local ids through the
//! slots, which hold the part's local ids while the rounds run.

use super::acyclic::{is_done, DoneSet};
use super::game_graph::Graph;

/// The slot of a node of infinite value.
pub(crate) const INFINITE: u32 = u32::MAX;

/// The mark of a labelled node: this bit, and the label below it.
const LABELLED: u32 = 1 << 31;

/// Round k's mark of a node of C_k that is not blocked.
fn candidate_mark(round: u32) -> u32 {
    2 * round + 1
}

/// Round k's mark of a blocked node.
fn blocked_mark(round: u32) -> u32 {
    2 * round + 2
}

/// Lists by value: list k is `items[offsets[k]..offsets[k + 1]]`.
struct ByValue {
    offsets: Vec<u32>,
    items: Vec<u32>,
}

impl ByValue {
    /// List `value`, empty past the last.
    fn list(&self, value: u32) -> &[u32] {
        let at = value as usize;
        match (self.offsets.get(at), self.offsets.get(at + 1)) {
            (Some(&start), Some(&end)) => &self.items[start as usize..end as usize],
            _ => &[],
        }
    }
}

/// The nodes that reach a cycle, in local ids `0..n′`.
struct CyclicPart<'g> {
    graph: &'g Graph,
    /// The node of each local id, ascending.
    global: Vec<u32>,
    /// By value k: the local nodes with a follower of value k outside the
    /// part (once per such edge).
    blocked_from_start: ByValue,
}

impl<'g> CyclicPart<'g> {
    /// The nodes of `graph` not in `done`; their slots then hold their
    /// local ids, until the rounds are over. Gives the part and each
    /// local node's edges into the part (its `open` count).
    fn new(graph: &'g Graph, slots: &mut [u32], done: &DoneSet) -> (CyclicPart<'g>, Vec<u32>) {
        let global: Vec<u32> = (0..graph.nodes())
            .filter(|&node| !is_done(done, node))
            .collect();
        for (local, &node) in global.iter().enumerate() {
            slots[node as usize] = local as u32;
        }
        let mut open = vec![0u32; global.len()];
        let mut counts = Vec::new();
        for (local, &node) in global.iter().enumerate() {
            for &follower in graph.followers(node) {
                if !is_done(done, follower) {
                    open[local] += 1;
                    continue;
                }
                let value = slots[follower as usize] as usize;
                if counts.len() <= value + 1 {
                    counts.resize(value + 2, 0);
                }
                counts[value] += 1;
            }
        }
        let mut total = 0u32;
        for count in counts.iter_mut() {
            total += *count;
            *count = total;
        }
        let mut items = vec![0u32; total as usize];
        for (local, &node) in global.iter().enumerate() {
            for &follower in graph.followers(node) {
                if is_done(done, follower) {
                    let end = &mut counts[slots[follower as usize] as usize];
                    *end -= 1;
                    items[*end as usize] = local as u32;
                }
            }
        }
        let blocked_from_start = ByValue {
            offsets: counts,
            items,
        };
        let part = CyclicPart {
            graph,
            global,
            blocked_from_start,
        };
        (part, open)
    }

    /// The predecessors of local node `node`, in local ids (`slots` hold
    /// them).
    fn predecessors<'a>(&'a self, slots: &'a [u32], node: u32) -> impl Iterator<Item = u32> + 'a {
        let node = self.global[node as usize];
        self.graph
            .predecessors(node)
            .iter()
            .map(|&before| slots[before as usize])
    }
}

/// The rounds' state: the marks, the counts, and the queue of nodes
/// ready to be labelled.
struct Rounds {
    marks: Vec<u32>,
    /// Edges from each local node to unlabelled nodes of the part.
    open: Vec<u32>,
    /// In a round, the edges of each node of C_k to unlabelled nodes not
    /// yet blocked.
    need: Vec<u32>,
    queue: Vec<u32>,
}

impl Rounds {
    /// Marks `node` blocked in `round` (unless it is labelled or already
    /// blocked), and counts one edge down for each predecessor in C_k,
    /// queueing those that reach 0.
    fn block(&mut self, part: &CyclicPart<'_>, slots: &[u32], node: u32, round: u32) {
        let mark = self.marks[node as usize];
        if mark & LABELLED != 0 || mark == blocked_mark(round) {
            return;
        }
        self.marks[node as usize] = blocked_mark(round);
        for before in part.predecessors(slots, node) {
            if self.marks[before as usize] == candidate_mark(round) {
                let need = &mut self.need[before as usize];
                *need -= 1;
                if *need == 0 {
                    self.queue.push(before);
                }
            }
        }
    }

    /// Round `round` over C_k, `members`; leaves C_{k+1} in `members`.
    fn run(&mut self, part: &CyclicPart<'_>, slots: &[u32], members: &mut Vec<u32>, round: u32) {
        self.queue.clear();
        for &node in members.iter() {
            let open = self.open[node as usize];
            self.need[node as usize] = open;
            if open == 0 {
                self.queue.push(node);
            }
        }
        for &node in part.blocked_from_start.list(round) {
            self.block(part, slots, node, round);
        }
        while let Some(node) = self.queue.pop() {
            if self.marks[node as usize] != candidate_mark(round) {
                continue; // Blocked from the start after it was queued.
            }
            self.marks[node as usize] = LABELLED | round;
            for before in part.predecessors(slots, node) {
                self.open[before as usize] -= 1;
                self.block(part, slots, before, round);
            }
        }
        members.retain(|&node| self.marks[node as usize] == blocked_mark(round));
        for &node in members.iter() {
            self.marks[node as usize] = candidate_mark(round + 1);
        }
    }
}

/// Gives every node not in `done` its value, in its slot: a number, or
/// [`INFINITE`]; returns the number of rounds run.
pub(crate) fn solve_cyclic(graph: &Graph, slots: &mut [u32], done: &DoneSet) -> u32 {
    let (part, open) = CyclicPart::new(graph, slots, done);
    let size = part.global.len();
    let mut rounds = Rounds {
        marks: vec![candidate_mark(0); size],
        open,
        need: vec![0; size],
        queue: Vec::new(),
    };
    let mut members: Vec<u32> = (0..size as u32).collect();
    let mut round = 0;
    while !members.is_empty() {
        debug_assert!(candidate_mark(round) < LABELLED);
        rounds.run(&part, slots, &mut members, round);
        round += 1;
    }
    for (&node, &mark) in part.global.iter().zip(&rounds.marks) {
        slots[node as usize] = match mark & LABELLED {
            0 => INFINITE,
            _ => mark & !LABELLED,
        };
    }
    round
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::acyclic::solve_acyclic;

    fn values(nodes: u64, edges: &[(u32, u32)]) -> Vec<u32> {
        let graph = Graph::from_edges(nodes, edges.iter().copied()).unwrap();
        let (mut slots, done) = solve_acyclic(&graph);
        if let Some(done) = done {
            solve_cyclic(&graph, &mut slots, &done);
        }
        slots
    }

    const INF: u32 = INFINITE;

    #[test]
    fn cycles_without_exits_are_draws() {
        assert_eq!(values(2, &[(0, 1), (1, 0)]), [INF, INF]);
        assert_eq!(values(1, &[(0, 0)]), [INF]);
        assert_eq!(values(3, &[(0, 1), (1, 2), (2, 0)]), [INF, INF, INF]);
    }

    #[test]
    fn a_cycle_with_an_exit_takes_finite_values() {
        // 0 ⇄ 1, 1 → 2 (a sink): from 1 the mover goes to 2 and wins, so
        // 1 has value 1 and 0, whose only move is to 1, value 0.
        assert_eq!(values(3, &[(0, 1), (1, 0), (1, 2)]), [0, 1, 0]);
        // A self-loop with an exit to a sink: ∞({0}).
        assert_eq!(values(2, &[(0, 0), (0, 1)]), [INF, 0]);
    }

    #[test]
    fn values_above_zero_in_the_cyclic_part() {
        // 0 → 1 → 2 → 0, each of them also moving to a sink 3 (value 0)
        // and to 4 (value 1, 4 → 3): their finite values would be at
        // least 2, and nothing has the value 2, so all three are ∞({0, 1}).
        let exits = [(0, 3), (1, 3), (2, 3), (0, 4), (1, 4), (2, 4), (4, 3)];
        let edges: Vec<_> = [(0, 1), (1, 2), (2, 0)].into_iter().chain(exits).collect();
        assert_eq!(values(5, &edges), [INF, INF, INF, 0, 1]);
        // With 2 → 5, 5 of value 2 (5 → 3, 5 → 4): 2 is blocked from the
        // start of round 2, so 1 (its unlabelled follower 2 blocked) gets
        // 2; that blocks 0, which gets 3 in round 3, and then 2 gets 4.
        // 1's follower 2 has a value above 2 and reverses out through 5.
        let more: Vec<_> = edges
            .iter()
            .copied()
            .chain([(2, 5), (5, 3), (5, 4)])
            .collect();
        assert_eq!(values(6, &more), [3, 2, 4, 0, 1, 2]);
    }
}
