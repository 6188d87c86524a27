//! The rules of SPEC section 1: who wins and which move wins, given the
//! survey counts and the nim-sum's msb.
//!
//! Nothing here touches heap values: the accumulator computes the nim-sum and
//! the passes find heaps; this module only decides what to look for. It is
//! the one place the move is chosen ([`choose_move`]): a whole analysis
//! (`analysis/nim/run.rs`), the merge of sharded runs
//! (`sharded/whole_file.rs`) and a live position (`updates/moves.rs`) each
//! say how they find the heap it names ([`MoveFinder`]), and take the
//! count of the heaps that admit a winning move from here.

use crate::error::Error;
use std::fmt;

/// The play convention.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Rule {
    /// The player who cannot move loses.
    Normal,
    /// The player who cannot move wins.
    Misere,
}

impl Rule {
    /// Parses `normal`, `misere` or `misère` (case-insensitive).
    pub fn from_name(name: &str) -> Option<Rule> {
        match name.to_lowercase().as_str() {
            "normal" => Some(Rule::Normal),
            "misere" | "misère" => Some(Rule::Misere),
            _ => None,
        }
    }

    /// The ASCII name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Rule::Normal => "normal",
            Rule::Misere => "misere",
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which player wins with perfect play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Player {
    /// The player to move.
    First,
    /// The other player.
    Second,
}

/// The heap counts that, with the nim-sum, decide the game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Heaps equal to 1.
    pub ones: u64,
    /// Heaps of size 2 or more.
    pub big: u64,
}

/// Which heap the winning move is played on, and how its target is found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MovePlan {
    /// No winning move: the position is lost, or no heap is non-zero.
    None,
    /// The lowest-index heap whose bit `msb` is set goes to `x ⊕ g`.
    XorMsb,
    /// Misère with one heap ≥ 2: that heap goes to `target` (0 or 1), leaving
    /// an odd number of 1-heaps.
    SingleBig {
        /// The value left on the big heap.
        target: u64,
    },
    /// Misère with only 1-heaps, an even number of them: empty the first one.
    TakeOne,
}

/// The winner under `rule`, from the counts and whether the nim-sum is non-zero.
pub fn winner(rule: Rule, counts: Counts, nim_sum_nonzero: bool) -> Player {
    let first_wins = match rule {
        Rule::Normal => nim_sum_nonzero,
        Rule::Misere if counts.big == 0 => counts.ones.is_multiple_of(2),
        // One heap ≥ 2 among 0s and 1s: its bits above bit 0 make the
        // nim-sum non-zero, so the winner is known without it (`--decide`
        // skips computing it).
        Rule::Misere if counts.big == 1 => true,
        Rule::Misere => nim_sum_nonzero,
    };
    if first_wins {
        Player::First
    } else {
        Player::Second
    }
}

/// The deterministic winning move of SPEC section 1.
fn move_plan(rule: Rule, counts: Counts, nim_sum_nonzero: bool) -> MovePlan {
    match (rule, counts.big) {
        (Rule::Normal, _) | (Rule::Misere, 2..) if nim_sum_nonzero => MovePlan::XorMsb,
        (Rule::Normal, _) | (Rule::Misere, 2..) => MovePlan::None,
        // The other heaps are all 0 or 1; zero heaps must not count.
        (Rule::Misere, 1) => MovePlan::SingleBig {
            target: u64::from(counts.ones.is_multiple_of(2)),
        },
        (Rule::Misere, 0) if counts.ones > 0 && counts.ones.is_multiple_of(2) => MovePlan::TakeOne,
        (Rule::Misere, 0) => MovePlan::None,
    }
}

/// How many heaps admit a winning move; `msb_holders` is the number of heaps
/// whose bit `msb` is set (only consulted for [`MovePlan::XorMsb`]).
fn winning_moves(plan: MovePlan, counts: Counts, msb_holders: u64) -> u64 {
    match plan {
        MovePlan::None => 0,
        MovePlan::XorMsb => msb_holders,
        MovePlan::SingleBig { .. } => 1,
        MovePlan::TakeOne => counts.ones,
    }
}

/// Whether the winning move is played on the first heap holding the
/// nim-sum's msb (then x → x ⊕ g), whose holders a caller must find: when
/// the nim-sum is not 0 (`nim_sum_nonzero`) under normal play, or under
/// misère play with two heaps ≥ 2 or more.
pub fn moves_on_msb_holder(rule: Rule, counts: Counts, nim_sum_nonzero: bool) -> bool {
    move_plan(rule, counts, nim_sum_nonzero) == MovePlan::XorMsb
}

/// How a caller finds the heap the winning move is played on: the rules
/// say which heap ([`choose_move`]), the caller where it is and what the
/// move on it is.
pub trait MoveFinder {
    /// The move, as the caller builds it.
    type Move;

    /// The move x → x ⊕ g on the first heap holding bit `msb` of the
    /// nim-sum g, and how many heaps hold that bit.
    fn on_msb_holder(&mut self, msb: u64) -> Result<(u64, Self::Move), Error>;

    /// The move that leaves `target` (0 or 1) on the first heap ≥ 2, the
    /// only one (misère play).
    fn on_first_big(&mut self, target: u64) -> Result<Self::Move, Error>;

    /// The move that empties the first heap equal to 1 (misère play, only
    /// 1-heaps, an even number of them).
    fn on_first_one(&mut self) -> Result<Self::Move, Error>;
}

/// The deterministic winning move of SPEC section 1 under `rule`, from the
/// counts and the nim-sum's msb (`None` for 0), found by `finder`; and how
/// many heaps admit a winning move.
pub fn choose_move<F: MoveFinder>(
    rule: Rule,
    counts: Counts,
    msb: Option<u64>,
    finder: &mut F,
) -> Result<(u64, Option<F::Move>), Error> {
    let plan = move_plan(rule, counts, msb.is_some());
    let (msb_holders, found) = match plan {
        MovePlan::None => (0, None),
        MovePlan::XorMsb => {
            let msb = msb.expect("the plan moves on the msb of a non-zero nim-sum");
            let (holders, found) = finder.on_msb_holder(msb)?;
            (holders, Some(found))
        }
        MovePlan::SingleBig { target } => (0, Some(finder.on_first_big(target)?)),
        MovePlan::TakeOne => (0, Some(finder.on_first_one()?)),
    };
    Ok((winning_moves(plan, counts, msb_holders), found))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(ones: u64, big: u64) -> Counts {
        Counts { ones, big }
    }

    #[test]
    fn normal_play_follows_bouton() {
        assert_eq!(winner(Rule::Normal, counts(0, 3), true), Player::First);
        assert_eq!(winner(Rule::Normal, counts(0, 0), false), Player::Second);
        assert_eq!(move_plan(Rule::Normal, counts(2, 0), false), MovePlan::None);
        assert_eq!(
            move_plan(Rule::Normal, counts(1, 0), true),
            MovePlan::XorMsb
        );
    }

    #[test]
    fn misere_without_big_heaps_counts_ones() {
        assert_eq!(winner(Rule::Misere, counts(0, 0), false), Player::First);
        assert_eq!(winner(Rule::Misere, counts(3, 0), true), Player::Second);
        assert_eq!(move_plan(Rule::Misere, counts(0, 0), false), MovePlan::None);
        assert_eq!(
            move_plan(Rule::Misere, counts(4, 0), false),
            MovePlan::TakeOne
        );
        assert_eq!(winning_moves(MovePlan::TakeOne, counts(4, 0), 0), 4);
    }

    #[test]
    fn misere_single_big_heap_leaves_odd_ones() {
        assert_eq!(
            move_plan(Rule::Misere, counts(2, 1), true),
            MovePlan::SingleBig { target: 1 }
        );
        assert_eq!(
            move_plan(Rule::Misere, counts(1, 1), true),
            MovePlan::SingleBig { target: 0 }
        );
        assert_eq!(winner(Rule::Misere, counts(1, 1), false), Player::First);
    }

    #[test]
    fn rule_names_accept_the_accent() {
        assert_eq!(Rule::from_name("misère"), Some(Rule::Misere));
        assert_eq!(Rule::from_name("MISERE"), Some(Rule::Misere));
        assert_eq!(Rule::from_name("normal"), Some(Rule::Normal));
        assert_eq!(Rule::from_name("other"), None);
    }
}
