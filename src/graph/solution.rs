//! The values of a solved graph, and the decision of a sum of tokens on
//! it (SPEC section 9): the winner and the deterministic move.
//!
//! A [`Solution`] keeps one `u32` per node: a finite value, or the mark
//! of an infinite one. The set K of a node of value ∞(K) (the finite
//! values of its followers) is not stored: [`Solution::value`] gathers it
//! from the followers when asked, so a graph of many infinite nodes costs
//! no more memory than one without.

use super::acyclic::solve_acyclic;
use super::csr::GraphError;
use super::cyclic::{solve_cyclic, INFINITE};
use super::game_graph::Graph;
use super::{Outcome, TokenMove, Value};
use std::collections::HashMap;

/// The generalized Sprague–Grundy value of every node of a graph.
#[derive(Clone, Debug)]
pub struct Solution<'g> {
    graph: &'g Graph,
    /// A finite value, or [`INFINITE`].
    slots: Vec<u32>,
    acyclic_nodes: u64,
    rounds: u32,
}

/// Who wins a sum of tokens, with the values that decide it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decision {
    /// The value of each token's node, in token order.
    pub values: Vec<Value>,
    /// The XOR of the values, when every one is finite.
    pub sum: Option<u32>,
    /// Who wins, or a draw.
    pub winner: Outcome,
    /// The deterministic winning move, when the player to move wins.
    pub winning_move: Option<TokenMove>,
}

impl Graph {
    /// Every node's value: the Grundy value by mex where no cycle can be
    /// reached (in retrograde order from the sinks, without recursion),
    /// and the generalized Sprague–Grundy function elsewhere. See
    /// [`super`] for an example.
    pub fn solve(&self) -> Solution<'_> {
        let (mut slots, done) = solve_acyclic(self);
        let (acyclic_nodes, rounds) = match done {
            None => (u64::from(self.nodes()), 0),
            Some(done) => {
                let count: u32 = done.iter().map(|word| word.count_ones()).sum();
                (u64::from(count), solve_cyclic(self, &mut slots, &done))
            }
        };
        Solution {
            graph: self,
            slots,
            acyclic_nodes,
            rounds,
        }
    }
}

impl<'g> Solution<'g> {
    /// The graph solved.
    pub fn graph(&self) -> &'g Graph {
        self.graph
    }

    /// The finite value of `node`, or `None` for an infinite one.
    #[inline]
    pub fn finite_value(&self, node: u32) -> Option<u32> {
        match self.slots[node as usize] {
            INFINITE => None,
            value => Some(value),
        }
    }

    /// The value of `node`: finite, or ∞(K) with K gathered from its
    /// followers. Panics if `node` is not in the graph.
    pub fn value(&self, node: u32) -> Value {
        match self.finite_value(node) {
            Some(value) => Value::Finite(value),
            None => Value::Infinite(self.finite_follower_values(node)),
        }
    }

    /// The distinct finite values of `node`'s followers, ascending.
    fn finite_follower_values(&self, node: u32) -> Vec<u32> {
        let mut values: Vec<u32> = self
            .graph
            .followers(node)
            .iter()
            .filter_map(|&follower| self.finite_value(follower))
            .collect();
        values.sort_unstable();
        values.dedup();
        values
    }

    /// The nodes the acyclic pass solved: those from which no cycle can
    /// be reached.
    pub fn acyclic_nodes(&self) -> u64 {
        self.acyclic_nodes
    }

    /// The rounds the cyclic solver ran (0 on an acyclic graph).
    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    /// The lowest-numbered follower of `node` whose value is `value`: in
    /// the forward rows if they are laid out, else the first node of that
    /// value, in order, that has `node` among its predecessors (one pass,
    /// cheaper than laying out the forward rows for one move).
    fn follower_of_value(&self, node: u32, value: u32) -> Option<u32> {
        let has_value = |follower: u32| self.slots[follower as usize] == value;
        match self.graph.forward_if_built() {
            Some(forward) => forward.row(node).iter().copied().find(|&f| has_value(f)),
            None => (0..self.graph.nodes())
                .find(|&f| has_value(f) && self.graph.predecessors(f).contains(&node)),
        }
    }

    /// Decides the sum of tokens on the nodes `tokens` (several may share
    /// a node): with every value finite, their XOR (0: the second player
    /// wins); with exactly one token at ∞(K) and the XOR b of the others
    /// in K, the first player wins; otherwise a draw. The move: with every
    /// value finite, the lowest-index token whose value has the sum's
    /// highest bit, to its lowest-numbered follower of value (its value ⊕
    /// sum); in the infinite case, the infinite token to its
    /// lowest-numbered follower of value b.
    pub fn decide(&self, tokens: &[u32]) -> Result<Decision, GraphError> {
        let nodes = self.graph.nodes();
        if let Some(&node) = tokens.iter().find(|&&node| node >= nodes) {
            let node = u64::from(node);
            return Err(GraphError::NodeOutOfRange { node, nodes });
        }
        let mut sum = 0u32;
        let mut infinite = Vec::new();
        for (index, &node) in tokens.iter().enumerate() {
            match self.finite_value(node) {
                Some(value) => sum ^= value,
                None => infinite.push(index),
            }
        }
        let (winner, winning_move) = match infinite[..] {
            [] => self.finite_move(tokens, sum),
            [index] => self.infinite_move(tokens, index, sum),
            _ => (Outcome::Draw, None),
        };
        Ok(Decision {
            values: self.token_values(tokens),
            sum: infinite.is_empty().then_some(sum),
            winner,
            winning_move,
        })
    }

    /// The values of the tokens; the K of an infinite node is gathered
    /// once, however many tokens share it.
    fn token_values(&self, tokens: &[u32]) -> Vec<Value> {
        let mut infinite: HashMap<u32, Value> = HashMap::new();
        tokens
            .iter()
            .map(|&node| match self.finite_value(node) {
                Some(value) => Value::Finite(value),
                None => infinite
                    .entry(node)
                    .or_insert_with(|| self.value(node))
                    .clone(),
            })
            .collect()
    }

    /// Every token finite, of values XORing to `sum`.
    fn finite_move(&self, tokens: &[u32], sum: u32) -> (Outcome, Option<TokenMove>) {
        if sum == 0 {
            return (Outcome::Second, None);
        }
        let msb = 31 - sum.leading_zeros();
        let value_of = |node: u32| self.slots[node as usize];
        let token = tokens
            .iter()
            .position(|&node| value_of(node) >> msb & 1 == 1)
            .expect("a value holds the sum's highest bit");
        let from = tokens[token];
        let to = self
            .follower_of_value(from, value_of(from) ^ sum)
            .expect("by mex, a follower has every value below the node's");
        let token = token as u64;
        (Outcome::First, Some(TokenMove { token, from, to }))
    }

    /// One token, `index`, infinite; the others' values XOR to `others`.
    fn infinite_move(
        &self,
        tokens: &[u32],
        index: usize,
        others: u32,
    ) -> (Outcome, Option<TokenMove>) {
        let from = tokens[index];
        match self.follower_of_value(from, others) {
            Some(to) => {
                let token = index as u64;
                (Outcome::First, Some(TokenMove { token, from, to }))
            }
            None => (Outcome::Draw, None),
        }
    }

    /// Writes every node's value to `out`, one a line: the number, or
    /// `inf` and the members of K, ascending, each after a space.
    pub fn write_values(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        let mut line = Vec::with_capacity(64);
        for node in 0..self.graph.nodes() {
            line.clear();
            match self.finite_value(node) {
                Some(value) => push_decimal(&mut line, value),
                None => {
                    line.extend_from_slice(b"inf");
                    for value in self.finite_follower_values(node) {
                        line.push(b' ');
                        push_decimal(&mut line, value);
                    }
                }
            }
            line.push(b'\n');
            out.write_all(&line)?;
        }
        Ok(())
    }
}

/// Appends `value` in decimal (itoa: no formatting machinery per value,
/// for the ten million lines of a large graph's values).
fn push_decimal(out: &mut Vec<u8>, value: u32) {
    out.extend_from_slice(itoa::Buffer::new().format(value).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_finite_value_is_the_mex_of_its_followers() {
        let edges = [(0, 1), (1, 2), (0, 2), (3, 0), (3, 2), (4, 4), (4, 3)];
        let graph = Graph::from_edges(5, edges).unwrap();
        let solution = graph.solve();
        for node in 0..5 {
            if let Some(value) = solution.finite_value(node) {
                let followers = graph.followers(node);
                let values: Vec<u32> = followers
                    .iter()
                    .filter_map(|&f| solution.finite_value(f))
                    .collect();
                assert_eq!((0..).find(|v| !values.contains(v)), Some(value));
            }
        }
        assert_eq!(solution.value(4), Value::Infinite(vec![1]));
    }

    #[test]
    fn values_are_written_one_a_line() {
        let graph = Graph::from_edges(4, [(0, 0), (0, 1), (0, 2), (2, 1), (3, 3)]).unwrap();
        let mut out = Vec::new();
        graph.solve().write_values(&mut out).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), "inf 0 1\n0\n1\ninf\n");
        let mut text = Vec::new();
        for value in [0, 7, 10, 4_294_967_295] {
            push_decimal(&mut text, value);
        }
        assert_eq!(text, b"07104294967295");
    }
}
