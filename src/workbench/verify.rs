//! Checks the analyzer against exhaustive game-tree search, and computes the
//! Sprague–Grundy table x ∘ y by the mex recursion alone.
//!
//! Nothing here decides a game with XOR. A game tree labels positions from
//! the definition of the game: the player to move wins iff some move leads
//! to a position where the opponent loses; with no move left, the player to
//! move loses under normal play and wins under misère. Labels are memoized
//! on the multiset of non-zero heaps, which is all a position is up to the
//! order of its heaps. [`check_rule`] runs the real analyzer on every small
//! instance and compares each of its answers with the search.
//!
//! The search is exponential in the number of heaps, so it is meant for
//! small bounds (the defaults, 4 heaps of at most 7, take a fraction of a
//! second). [`MexTable`] is quadratic in memory and cubic in time in its
//! size. XOR appears only in [`MexTable::first_xor_mismatch`], which
//! compares the table with it.
//!
//! ```
//! use nimstream::workbench::verify::check_rule;
//! use nimstream::Rule;
//!
//! let check = check_rule(Rule::Misere, 2, 3);
//! assert_eq!(check.instances, 1 + 4 + 16);
//! assert!(check.disagreements.is_empty());
//! ```

use crate::input::Format;
use crate::report::{Move, Value};
use crate::workbench::play::player_name;
use crate::{analyze_bytes, Options, Player, Rule};
use std::collections::HashMap;
use std::fmt;

/// Win/lose labels of Nim positions under one rule, found by searching the
/// game tree (never by XOR).
#[derive(Debug)]
struct GameTree {
    rule: Rule,
    labels: HashMap<Vec<u32>, bool>,
}

impl GameTree {
    /// An empty search for positions played under `rule`.
    fn new(rule: Rule) -> GameTree {
        GameTree {
            rule,
            labels: HashMap::new(),
        }
    }

    /// True when the player to move from `heaps` wins with perfect play.
    fn player_to_move_wins(&mut self, heaps: &[u32]) -> bool {
        self.label(position_key(heaps))
    }

    /// True when moving heap `index` of `heaps` down to `target` leaves the
    /// opponent in a lost position.
    fn is_winning_move(&mut self, heaps: &[u32], index: usize, target: u32) -> bool {
        let mut after = heaps.to_vec();
        after[index] = target;
        !self.player_to_move_wins(&after)
    }

    /// How many heaps of `heaps` admit some winning move.
    fn winning_heaps(&mut self, heaps: &[u32]) -> u64 {
        let heaps_with_a_win = (0..heaps.len())
            .filter(|&index| (0..heaps[index]).any(|t| self.is_winning_move(heaps, index, t)))
            .count();
        heaps_with_a_win as u64
    }

    /// The label of a position given by its key (see [`position_key`]).
    fn label(&mut self, key: Vec<u32>) -> bool {
        if let Some(&wins) = self.labels.get(&key) {
            return wins;
        }
        let children = successors(&key);
        let wins = if children.is_empty() {
            self.rule == Rule::Misere
        } else {
            children.into_iter().any(|child| !self.label(child))
        };
        self.labels.insert(key, wins);
        wins
    }
}

/// The non-zero heaps in ascending order: the position up to the order of
/// its heaps and its empty heaps, neither of which changes the game.
fn position_key(heaps: &[u32]) -> Vec<u32> {
    let mut key: Vec<u32> = heaps.iter().copied().filter(|&h| h > 0).collect();
    key.sort_unstable();
    key
}

/// The keys of every position one move away from `key`; equal heaps give
/// the same positions, so only the first of a run is moved.
fn successors(key: &[u32]) -> Vec<Vec<u32>> {
    let mut children = Vec::new();
    for (index, &heap) in key.iter().enumerate() {
        if index > 0 && key[index - 1] == heap {
            continue;
        }
        for target in 0..heap {
            let mut child = key.to_vec();
            child[index] = target;
            children.push(position_key(&child));
        }
    }
    children
}

/// Every sequence of 0 to `max_heaps` heaps with values 0 to `max_size`:
/// shorter sequences first, each length in lexicographic order, so there are
/// Σ_{k=0..max_heaps} (max_size + 1)^k of them.
fn instances(max_heaps: usize, max_size: u32) -> Instances {
    Instances {
        next: Some(Vec::new()),
        max_heaps,
        max_size,
    }
}

/// The iterator returned by [`instances`].
#[derive(Clone, Debug)]
struct Instances {
    next: Option<Vec<u32>>,
    max_heaps: usize,
    max_size: u32,
}

impl Iterator for Instances {
    type Item = Vec<u32>;

    fn next(&mut self) -> Option<Vec<u32>> {
        let current = self.next.take()?;
        self.next = self.successor(&current);
        Some(current)
    }
}

impl Instances {
    /// The sequence after `current`: an odometer step, or the first sequence
    /// one heap longer when every heap is at `max_size`.
    fn successor(&self, current: &[u32]) -> Option<Vec<u32>> {
        let mut next = current.to_vec();
        for slot in next.iter_mut().rev() {
            if *slot < self.max_size {
                *slot += 1;
                return Some(next);
            }
            *slot = 0;
        }
        (current.len() < self.max_heaps).then(|| vec![0; current.len() + 1])
    }
}

/// One answer of the analyzer that the search contradicts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The rule the instance was analyzed under.
    pub rule: Rule,
    /// The instance, in order.
    pub heaps: Vec<u32>,
    /// What the analyzer said and what the search found.
    pub problem: String,
}

impl fmt::Display for Disagreement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {:?}: {}", self.rule, self.heaps, self.problem)
    }
}

/// The outcome of checking every small instance under one rule.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleCheck {
    /// The rule checked.
    pub rule: Rule,
    /// How many instances were analyzed.
    pub instances: u64,
    /// Every answer the search contradicts, in instance order.
    pub disagreements: Vec<Disagreement>,
}

/// Runs the analyzer on every sequence of 0 to `max_heaps` heaps of 0 to
/// `max_size` (shorter ones first) under `rule` and checks each answer
/// against the game tree: the winner, the legality and effect of the move,
/// the absence of a move, and `winning_moves`.
pub fn check_rule(rule: Rule, max_heaps: usize, max_size: u32) -> RuleCheck {
    let mut tree = GameTree::new(rule);
    let options = Options {
        rule,
        ..Options::default()
    };
    let mut check = RuleCheck {
        rule,
        instances: 0,
        disagreements: Vec::new(),
    };
    for heaps in instances(max_heaps, max_size) {
        check.instances += 1;
        for problem in check_instance(&mut tree, &options, &heaps) {
            check.disagreements.push(Disagreement {
                rule,
                heaps: heaps.clone(),
                problem,
            });
        }
    }
    check
}

/// Analyzes one instance as `dec` text and lists what the search contradicts.
fn check_instance(tree: &mut GameTree, options: &Options, heaps: &[u32]) -> Vec<String> {
    let text = dec_text(heaps);
    let report = match analyze_bytes(text.as_bytes(), Format::Dec, "<verify>", options) {
        Ok(report) => report,
        Err(error) => return vec![format!("the analyzer failed: {error}")],
    };
    let mut problems = Vec::new();
    let winner = if tree.player_to_move_wins(heaps) {
        Player::First
    } else {
        Player::Second
    };
    if report.winner != winner {
        problems.push(format!(
            "winner: the analyzer says {}, the search says {}",
            player_name(report.winner),
            player_name(winner)
        ));
    }
    let winning_heaps = tree.winning_heaps(heaps);
    if report.winning_moves != Some(winning_heaps) {
        problems.push(format!(
            "winning_moves: the analyzer says {}, the search finds {winning_heaps}",
            report
                .winning_moves
                .map_or_else(|| "null".to_string(), |n| n.to_string())
        ));
    }
    match &report.winning_move {
        Some(chosen) => problems.extend(check_move(tree, heaps, chosen)),
        None if winning_heaps > 0 => problems
            .push("move: the analyzer gives none, the search finds a winning move".to_string()),
        None => {}
    }
    problems
}

/// What is wrong with the analyzer's move, if anything: it must be legal and
/// leave the opponent in a lost position.
fn check_move(tree: &mut GameTree, heaps: &[u32], chosen: &Move) -> Option<String> {
    let Some(index) = usize::try_from(chosen.heap)
        .ok()
        .filter(|&i| i < heaps.len())
    else {
        return Some(format!(
            "move: heap {} does not exist ({} heaps)",
            chosen.heap,
            heaps.len()
        ));
    };
    let from = heaps[index];
    let Some(target) = small_value(&chosen.to).filter(|&t| t < from) else {
        return Some(format!(
            "move: heap {index} from {from} to {} is not a legal move",
            chosen.to.dec.as_deref().unwrap_or("a long value")
        ));
    };
    (!tree.is_winning_move(heaps, index, target)).then(|| {
        format!("move: heap {index} from {from} to {target} leaves the opponent a won position")
    })
}

/// A report value as a `u32`, when it is inlined and small enough.
fn small_value(value: &Value) -> Option<u32> {
    value.dec.as_deref()?.parse().ok()
}

/// The heaps as `dec` text: one token each, separated by spaces, and a LF.
fn dec_text(heaps: &[u32]) -> String {
    let tokens: Vec<String> = heaps.iter().map(u32::to_string).collect();
    tokens.join(" ") + "\n"
}

/// The table of x ∘ y for x, y ≤ n, where x ∘ y is the Grundy value of the
/// sum of heaps x and y, computed by the mex recursion alone:
/// x ∘ y = mex({x' ∘ y : x' < x} ∪ {x ∘ y' : y' < y}).
///
/// ```
/// use nimstream::workbench::verify::MexTable;
/// let table = MexTable::compute(7);
/// assert_eq!(table.get(3, 5), 6);
/// assert_eq!(table.first_xor_mismatch(), None);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MexTable {
    rows: Vec<Vec<u64>>,
}

impl MexTable {
    /// Computes the table for x, y ≤ `n`, row by row.
    pub fn compute(n: usize) -> MexTable {
        let mut rows = vec![vec![0; n + 1]; n + 1];
        for x in 0..=n {
            for y in 0..=n {
                rows[x][y] = mex_at(&rows, x, y);
            }
        }
        MexTable { rows }
    }

    /// The largest x (and y) in the table.
    pub fn size(&self) -> usize {
        self.rows.len() - 1
    }

    /// x ∘ y; panics when x or y is above [`size`](Self::size).
    pub fn get(&self, x: usize, y: usize) -> u64 {
        self.rows[x][y]
    }

    /// The first (x, y), row by row, where x ∘ y ≠ x ⊕ y.
    pub fn first_xor_mismatch(&self) -> Option<(usize, usize)> {
        let n = self.size();
        (0..=n)
            .flat_map(|x| (0..=n).map(move |y| (x, y)))
            .find(|&(x, y)| self.get(x, y) != (x ^ y) as u64)
    }

    /// The table in aligned columns: a header row of y, a rule, then one
    /// row per x, each line ending in LF.
    pub fn render(&self) -> String {
        let n = self.size();
        let widest = self.rows.iter().flatten().copied().max().unwrap_or(0);
        let width = digits(widest.max(n as u64)).max(1);
        let mut text = format!("{:>width$} |", "∘");
        for y in 0..=n {
            text += &format!(" {y:>width$}");
        }
        text += &format!(
            "\n{}+{}\n",
            "-".repeat(width + 1),
            "-".repeat((width + 1) * (n + 1))
        );
        for (x, row) in self.rows.iter().enumerate() {
            text += &format!("{x:>width$} |");
            for value in row {
                text += &format!(" {value:>width$}");
            }
            text.push('\n');
        }
        text
    }

    /// One line saying whether the table equals x ⊕ y everywhere, and if
    /// not, where it first differs.
    pub fn summary(&self) -> String {
        match self.first_xor_mismatch() {
            None => format!("x ∘ y = x ⊕ y for all x, y ≤ {}", self.size()),
            Some((x, y)) => format!(
                "x ∘ y ≠ x ⊕ y at x = {x}, y = {y}: the mex recursion gives {}, XOR gives {}",
                self.get(x, y),
                x ^ y
            ),
        }
    }
}

/// The mex of the values one move away from (x, y) in a table whose rows
/// before x and whose row x before column y are filled.
fn mex_at(rows: &[Vec<u64>], x: usize, y: usize) -> u64 {
    // x + y options, so the mex is at most x + y.
    let mut seen = vec![false; x + y + 1];
    let column = (0..x).map(|smaller| rows[smaller][y]);
    let row = rows[x][..y].iter().copied();
    for value in column.chain(row) {
        if let Some(slot) = usize::try_from(value).ok().and_then(|v| seen.get_mut(v)) {
            *slot = true;
        }
    }
    seen.iter().position(|&s| !s).unwrap_or(x + y) as u64
}

/// The number of decimal digits of `value` (1 for 0).
fn digits(value: u64) -> usize {
    value.to_string().len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_four_five_is_a_first_player_win_in_both_rules() {
        for rule in [Rule::Normal, Rule::Misere] {
            let mut tree = GameTree::new(rule);
            assert!(tree.player_to_move_wins(&[3, 4, 5]), "{rule}");
            assert!(tree.is_winning_move(&[3, 4, 5], 0, 1), "{rule}");
            assert_eq!(tree.winning_heaps(&[3, 4, 5]), 1, "{rule}");
        }
    }

    #[test]
    fn a_pair_of_ones_loses_in_normal_play_and_wins_in_misere() {
        assert!(!GameTree::new(Rule::Normal).player_to_move_wins(&[1, 1]));
        assert!(GameTree::new(Rule::Misere).player_to_move_wins(&[1, 1]));
    }

    #[test]
    fn zero_heaps_do_not_change_the_position() {
        let mut tree = GameTree::new(Rule::Misere);
        assert!(tree.player_to_move_wins(&[]));
        assert!(tree.player_to_move_wins(&[0, 0]));
        assert!(!tree.player_to_move_wins(&[0, 1, 0]));
        assert_eq!(position_key(&[0, 3, 0, 1]), vec![1, 3]);
    }

    #[test]
    fn the_seed_misere_game_keeps_the_opponent_lost() {
        // Seed 004: after each of the winner's moves the opponent is lost.
        let mut tree = GameTree::new(Rule::Misere);
        for position in [[1, 4, 5], [1, 2, 3], [0, 2, 2], [0, 0, 1]] {
            assert!(!tree.player_to_move_wins(&position), "{position:?}");
        }
    }

    #[test]
    fn instances_come_shorter_first_each_length_in_order() {
        let all: Vec<Vec<u32>> = instances(2, 1).collect();
        let expected: [&[u32]; 7] = [&[], &[0], &[1], &[0, 0], &[0, 1], &[1, 0], &[1, 1]];
        assert_eq!(all, expected);
    }

    #[test]
    fn instances_count_every_sequence_once() {
        let all: Vec<Vec<u32>> = instances(3, 2).collect();
        assert_eq!(all.len(), 1 + 3 + 9 + 27);
        assert_eq!(all.first(), Some(&vec![]));
        assert_eq!(all.last(), Some(&vec![2, 2, 2]));
        assert_eq!(instances(0, 7).count(), 1);
    }

    #[test]
    fn the_analyzer_agrees_with_the_search_on_small_instances() {
        for rule in [Rule::Normal, Rule::Misere] {
            let check = check_rule(rule, 3, 4);
            assert_eq!(check.instances, 1 + 5 + 25 + 125);
            assert_eq!(check.disagreements, vec![], "{rule}");
        }
    }

    #[test]
    fn disagreements_name_the_rule_and_the_instance() {
        let line = Disagreement {
            rule: Rule::Misere,
            heaps: vec![1, 2],
            problem: "winner: x".into(),
        };
        assert_eq!(line.to_string(), "misere [1, 2]: winner: x");
    }

    #[test]
    fn the_mex_table_equals_xor_up_to_seven() {
        let table = MexTable::compute(7);
        assert_eq!(table.first_xor_mismatch(), None);
        assert_eq!(table.summary(), "x ∘ y = x ⊕ y for all x, y ≤ 7");
    }

    #[test]
    fn the_mex_table_renders_in_aligned_columns() {
        let text = MexTable::compute(2).render();
        assert_eq!(
            text,
            "∘ | 0 1 2\n--+------\n0 | 0 1 2\n1 | 1 0 3\n2 | 2 3 0\n"
        );
    }
}
