//! An independent check of a misère quotient: exhaustive search from the
//! definition ([`GameTree`], misère play), never the quotient's own algebra, says
//! whether its elements are truly apart and whether it decides sums right.
//!
//! - **A lower bound on the order** ([`pairs_apart`]): for each pair of
//!   elements e ≠ f, a sum X with e·X in the P-portion and f·X not (or the
//!   other way) is looked for among cheap representatives, and the search
//!   decides the two sums G + X and H + X (G, H representatives of e and
//!   f). Different outcomes prove that no sums of those heaps can share a
//!   class: every pair told apart this way is apart in the true quotient,
//!   and when every pair is, |Q_n| ≥ the order found. The quotient is used
//!   only to choose which sums to try; the verdicts are the search's.
//! - **Rows** ([`distinct_rows`]): the outcomes of many positions beside
//!   many contexts; positions with different rows lie in different
//!   classes, so the count of distinct rows is a lower bound that uses the
//!   quotient not at all.
//! - **Every small sum** ([`sweep`]): the quotient's verdict against the
//!   search on every sum of heaps ≤ n up to a number of tokens.
//!
//! Together with the proof behind the quotient (an upper bound: a model
//! of its order decides every sum), the first makes the order exact.
//!
//! ```
//! use nimstream::games::{misere::Quotient, Game};
//! use nimstream::workbench::misere_check::{pairs_apart, sweep};
//!
//! let q = Quotient::compute(&"octal:0.75".parse::<Game>()?, 4096)?;
//! let apart = pairs_apart(&q, 24);
//! assert_eq!(apart.apart, apart.pairs);
//! assert!(apart.wrong.is_empty());
//! assert_eq!(sweep(&q, 12), Vec::<Vec<u64>>::new());
//! # Ok::<(), nimstream::games::GameError>(())
//! ```

use super::game_tree::GameTree;
use crate::analysis::Rule;
use crate::games::misere::Quotient;
use crate::games::Game;
use std::collections::HashSet;

/// What [`pairs_apart`] found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Apart {
    /// The pairs of elements.
    pub pairs: usize,
    /// The pairs the search told apart.
    pub apart: usize,
    /// The pairs not told apart within the tokens allowed, by name.
    pub not_apart: Vec<(String, String)>,
    /// Sums the search decided otherwise than the quotient.
    pub wrong: Vec<Vec<u64>>,
}

/// Tells apart every pair of elements of `q` it can by search, on sums of
/// at most `max_tokens` tokens (see the module docs).
pub fn pairs_apart(q: &Quotient, max_tokens: u64) -> Apart {
    let game = q.game().clone();
    let mut tree = GameTree::new(&game, Rule::Misere);
    let representatives = representatives(q, max_tokens);
    let tokens = |sum: &Vec<u64>| sum.iter().sum::<u64>();
    let order = q.order() as u16;
    // Witnesses by increasing tokens.
    let mut by_tokens: Vec<u16> = (0..order)
        .filter(|&z| representatives[z as usize].is_some())
        .collect();
    by_tokens.sort_by_key(|&z| representatives[z as usize].as_ref().map(tokens));
    let mut found = Apart {
        pairs: 0,
        apart: 0,
        not_apart: Vec::new(),
        wrong: Vec::new(),
    };
    let mut wrong = HashSet::new();
    for e in 0..order {
        for f in e + 1..order {
            found.pairs += 1;
            let told = match (&representatives[e as usize], &representatives[f as usize]) {
                (Some(g), Some(h)) => by_tokens.iter().any(|&z| {
                    let x = representatives[z as usize].as_ref().expect("filtered");
                    let (ez, fz) = (q.mul(e, z), q.mul(f, z));
                    if q.is_p(ez) == q.is_p(fz) || tokens(g).max(tokens(h)) + tokens(x) > max_tokens
                    {
                        return false;
                    }
                    let g_x = [g.as_slice(), x].concat();
                    let h_x = [h.as_slice(), x].concat();
                    let g_p = !tree.player_to_move_wins(&g_x);
                    let h_p = !tree.player_to_move_wins(&h_x);
                    for (sum, searched, claimed) in [(g_x, g_p, q.is_p(ez)), (h_x, h_p, q.is_p(fz))]
                    {
                        if searched != claimed && wrong.insert(sum.clone()) {
                            found.wrong.push(sum);
                        }
                    }
                    g_p != h_p
                }),
                _ => false,
            };
            match told {
                true => found.apart += 1,
                false => found
                    .not_apart
                    .push((q.names()[e as usize].clone(), q.names()[f as usize].clone())),
            }
        }
    }
    found
}

/// For each element, a sum of heaps ≤ n of fewest tokens (at most
/// `max_tokens`) that the quotient puts in it: Dijkstra over the elements.
fn representatives(q: &Quotient, max_tokens: u64) -> Vec<Option<Vec<u64>>> {
    let order = q.order();
    let largest = q.heaps_computed().min(max_tokens);
    let mut best: Vec<Option<Vec<u64>>> = vec![None; order];
    let mut cost = vec![u64::MAX; order];
    let mut done = vec![false; order];
    (best[0], cost[0]) = (Some(Vec::new()), 0);
    while let Some(e) = (0..order)
        .filter(|&e| !done[e] && cost[e] <= max_tokens)
        .min_by_key(|&e| cost[e])
    {
        done[e] = true;
        for heap in 1..=largest {
            let f = q.mul(e as u16, q.class_of(heap).expect("a heap ≤ n")) as usize;
            if cost[e] + heap < cost[f] {
                cost[f] = cost[e] + heap;
                let mut sum = best[e].clone().expect("settled");
                sum.push(heap);
                best[f] = Some(sum);
            }
        }
    }
    best
}

/// The number of distinct rows of outcomes of `positions` beside
/// `contexts`, by search alone: a lower bound on the classes the
/// positions fall in.
pub fn distinct_rows(game: &Game, positions: &[Vec<u64>], contexts: &[Vec<u64>]) -> usize {
    let mut tree = GameTree::new(game, Rule::Misere);
    let rows: HashSet<Vec<bool>> = positions
        .iter()
        .map(|g| {
            contexts
                .iter()
                .map(|x| tree.player_to_move_wins(&[g.as_slice(), x].concat()))
                .collect()
        })
        .collect();
    rows.len()
}

/// Every sum of heaps of size 1..=`largest` with at most `tokens` tokens
/// in all, each heap list ascending.
pub fn sums(largest: u64, tokens: u64) -> Vec<Vec<u64>> {
    let mut out = Vec::new();
    let mut sum = Vec::new();
    fn grow(from: u64, left: u64, largest: u64, sum: &mut Vec<u64>, out: &mut Vec<Vec<u64>>) {
        out.push(sum.clone());
        for heap in from..=largest.min(left) {
            sum.push(heap);
            grow(heap, left - heap, largest, sum, out);
            sum.pop();
        }
    }
    grow(1, tokens, largest, &mut sum, &mut out);
    out
}

/// The sums of heaps ≤ n of at most `tokens` tokens that `q` decides
/// otherwise than the search.
pub fn sweep(q: &Quotient, tokens: u64) -> Vec<Vec<u64>> {
    let game = q.game().clone();
    let mut tree = GameTree::new(&game, Rule::Misere);
    sums(q.heaps_computed(), tokens)
        .into_iter()
        .filter(|sum| q.is_p_position(sum) != Some(!tree.player_to_move_wins(sum)))
        .collect()
}
