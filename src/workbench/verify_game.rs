//! `verify --game G`: the analyzer under a heap game against exhaustive
//! game-tree search ([`GameTree`]), with no Grundy value, no misère
//! quotient and no XOR anywhere.
//!
//! [`check_game`] runs the real analyzer on every instance of up to
//! `max_heaps` heaps of at most `max_size` tokens (and, with
//! [`check_game_under`], every position of at most a number of tokens in
//! all) and checks its winner, and that its move is one of the game's
//! options and leaves a lost position: under normal play (the Grundy
//! analysis) or misère play (the misère quotient, SPEC section 12).
//!
//! ```
//! use nimstream::games::Game;
//! use nimstream::workbench::verify_game::{check_game, check_game_under};
//! use nimstream::Rule;
//!
//! let kayles: Game = "kayles".parse()?;
//! let check = check_game(&kayles, 2, 5);
//! assert_eq!(check.instances, 1 + 6 + 36);
//! assert!(check.disagreements.is_empty());
//! let misere = check_game_under(&kayles, Rule::Misere, 2, 5, 8);
//! assert!(misere.disagreements.is_empty());
//! # Ok::<(), nimstream::Error>(())
//! ```

use crate::games::{Game, Leave};
use crate::input::Format;
use crate::report::{Report, Value};
use crate::workbench::game_tree::{after, leave_heaps, GameTree};
use crate::workbench::misere_check::sums;
use crate::workbench::play::player_name;
use crate::{analyze_bytes, Options, Player, Rule};

/// The outcome of checking one game.
#[derive(Debug)]
pub struct GameCheck {
    /// The game, canonical.
    pub game: String,
    /// How many instances were analyzed and checked.
    pub instances: u64,
    /// Every answer the search contradicts: the heaps and what is wrong.
    pub disagreements: Vec<(Vec<u64>, String)>,
    /// Instances with a heap past the heaps a misère quotient with no
    /// proven period was computed for, which the analyzer refuses (exit 1,
    /// as SPEC section 12 says) and the search cannot hold it to.
    pub beyond: u64,
    /// That bound, when the analyzer named it (its reports'
    /// `heaps_computed`, with no period).
    pub heaps_computed: Option<u64>,
}

/// Runs the analyzer under `game` (normal play) on every sequence of 0 to
/// `max_heaps` heaps of 0 to `max_size` tokens and checks each answer
/// against the search: the winner, and that the move is legal and leaves
/// a lost position.
pub fn check_game(game: &Game, max_heaps: usize, max_size: u64) -> GameCheck {
    check_game_under(game, Rule::Normal, max_heaps, max_size, 0)
}

/// [`check_game`] under `rule`, on the sequences of heaps and on every
/// position of at most `max_tokens` tokens in all (its heaps ascending).
pub fn check_game_under(
    game: &Game,
    rule: Rule,
    max_heaps: usize,
    max_size: u64,
    max_tokens: u64,
) -> GameCheck {
    let mut tree = GameTree::new(game, rule);
    let options = Options {
        game: game.clone(),
        rule,
        ..Options::default()
    };
    let mut check = GameCheck {
        game: game.to_string(),
        instances: 0,
        disagreements: Vec::new(),
        beyond: 0,
        heaps_computed: None,
    };
    let positions = sums(max_tokens, max_tokens)
        .into_iter()
        .filter(|sum| !sum.is_empty());
    for heaps in instances(max_heaps, max_size).chain(positions) {
        check.instances += 1;
        let report = analyze_bytes(
            dec_text(&heaps).as_bytes(),
            Format::Dec,
            "<verify>",
            &options,
        );
        if let Ok(report) = &report {
            // The bound of a misère quotient with no period, which the
            // analyzer refuses heaps past.
            check.heaps_computed = report
                .quotient
                .as_ref()
                .filter(|quotient| quotient.period.is_none())
                .map(|quotient| quotient.heaps_computed);
        }
        let past = |bound: u64| heaps.iter().any(|&h| h > bound);
        let problem = match report {
            Err(_) if check.heaps_computed.is_some_and(past) => {
                (check.instances, check.beyond) = (check.instances - 1, check.beyond + 1);
                continue;
            }
            Err(error) => Some(format!("the analyzer failed: {error}")),
            Ok(report) => check_report(&mut tree, &report, &heaps),
        };
        if let Some(problem) = problem {
            check.disagreements.push((heaps, problem));
        }
    }
    check
}

/// The heaps as one line of `dec` text.
fn dec_text(heaps: &[u64]) -> String {
    let text: Vec<String> = heaps.iter().map(u64::to_string).collect();
    text.join(" ") + "\n"
}

/// Every sequence of 0 to `max_heaps` heaps of 0 to `max_size`, shorter
/// first.
fn instances(max_heaps: usize, max_size: u64) -> impl Iterator<Item = Vec<u64>> {
    (0..=max_heaps).flat_map(move |len| {
        let count = (max_size + 1).pow(len as u32);
        (0..count).map(move |mut n| {
            let mut heaps = vec![0; len];
            for heap in heaps.iter_mut().rev() {
                *heap = n % (max_size + 1);
                n /= max_size + 1;
            }
            heaps
        })
    })
}

/// What the search contradicts in the analyzer's report on `heaps`.
fn check_report(tree: &mut GameTree<'_>, report: &Report, heaps: &[u64]) -> Option<String> {
    let winner = match tree.player_to_move_wins(heaps) {
        true => Player::First,
        false => Player::Second,
    };
    if report.winner != winner {
        return Some(format!(
            "winner: the analyzer says {}, the search says {}",
            player_name(report.winner),
            player_name(winner)
        ));
    }
    let stuck = tree.options(&sorted(heaps)).is_empty();
    match (chosen_move(report), winner) {
        (Some(chosen), _) => check_move(tree, heaps, &chosen),
        // Misère play: with no move at all, the player to move has won.
        (None, Player::First) if stuck => None,
        (None, Player::First) => Some("move: the analyzer gives none".to_string()),
        (None, Player::Second) => None,
    }
}

/// The non-empty heaps of `heaps`, ascending: the position.
fn sorted(heaps: &[u64]) -> Vec<u64> {
    let mut position: Vec<u64> = heaps.iter().copied().filter(|&h| h > 0).collect();
    position.sort_unstable();
    position
}

/// A move as the checks read it: the heap, the tokens taken, what is
/// left.
#[derive(Clone, Debug)]
struct Chosen {
    heap: u64,
    take: u64,
    leave: Vec<Value>,
}

/// The move of a report under a game, either rule.
fn chosen_move(report: &Report) -> Option<Chosen> {
    match (&report.game_move, &report.misere_move) {
        (Some(m), _) => Some(Chosen {
            heap: m.heap,
            take: m.take,
            leave: m.leave.clone(),
        }),
        (None, Some(m)) => Some(Chosen {
            heap: m.heap,
            take: m.take,
            leave: m.leave.clone(),
        }),
        (None, None) => None,
    }
}

/// What is wrong with the analyzer's move: it must be one of the game's
/// options on its heap, and leave a lost position.
fn check_move(tree: &mut GameTree<'_>, heaps: &[u64], chosen: &Chosen) -> Option<String> {
    let index = usize::try_from(chosen.heap)
        .ok()
        .filter(|&i| i < heaps.len());
    let Some(index) = index else {
        return Some(format!("move: heap {} does not exist", chosen.heap));
    };
    let left: Option<Vec<u64>> = chosen.leave.iter().map(small_value).collect();
    let Some(left) = left else {
        return Some("move: a part left is not a small number".to_string());
    };
    let legal = tree
        .game()
        .options(heaps[index])
        .any(|option| option.take == chosen.take && leave_heaps(&option.leave) == left);
    if !legal {
        return Some(format!(
            "move: taking {} from heap {index} of {} leaving {left:?} is not a move of {}",
            chosen.take,
            heaps[index],
            tree.game()
        ));
    }
    let key = after(heaps, index, &leave_of(&left));
    match tree.player_to_move_wins(&key) {
        true => Some(format!(
            "move: taking {} from heap {index} leaving {left:?} leaves the opponent a won position",
            chosen.take
        )),
        false => None,
    }
}

/// The leave of the parts `left`.
fn leave_of(left: &[u64]) -> Leave {
    match *left {
        [] => Leave::Nothing,
        [a] => Leave::One(a),
        [a, b, ..] => Leave::Two(a, b),
    }
}

/// A report value as a `u64`, when it is inlined and small enough.
fn small_value(value: &Value) -> Option<u64> {
    value.dec.as_deref()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_of_the_spec_agrees_with_the_search_on_small_instances() {
        for game in [
            "kayles",
            "dawsons-kayles",
            "sub:1,3,4",
            "octal:4.7",
            "octal:0.16",
        ] {
            let check = check_game(&game.parse().unwrap(), 2, 8);
            assert_eq!(check.instances, 1 + 9 + 81, "{game}");
            assert!(
                check.disagreements.is_empty(),
                "{game}: {:?}",
                check.disagreements
            );
        }
    }

    /// Misère play of the games of `verify`'s CI lines and more, on small
    /// instances (the full check is `verify --game G --rule misere`).
    #[test]
    fn misere_play_agrees_with_the_search_on_small_instances() {
        for game in [
            "kayles",
            "dawsons-kayles",
            "sub:1,3,4",
            "octal:0.75",
            "octal:4.7",
            "octal:0.52",
        ] {
            let check = check_game_under(&game.parse().unwrap(), Rule::Misere, 2, 8, 10);
            assert!(
                check.disagreements.is_empty(),
                "{game}: {:?}",
                check.disagreements
            );
        }
    }

    #[test]
    fn the_search_labels_kayles_positions_from_the_rules() {
        let game: Game = "kayles".parse().unwrap();
        let mut tree = GameTree::new(&game, Rule::Normal);
        // One row of 3 pins: knocking the middle one leaves 1 + 1, lost.
        assert!(tree.player_to_move_wins(&[3]));
        // Two equal rows: the second player mirrors.
        assert!(!tree.player_to_move_wins(&[2, 2]));
        assert!(!tree.player_to_move_wins(&[]));
    }

    #[test]
    fn a_wrong_move_is_caught() {
        let game: Game = "kayles".parse().unwrap();
        let mut tree = GameTree::new(&game, Rule::Normal);
        let value = |n: u64| Value {
            bit_length: u64::from(64 - n.leading_zeros()),
            hex: Some(format!("{n:x}")),
            dec: Some(n.to_string()),
        };
        let wrong = Chosen {
            heap: 0,
            take: 1,
            leave: vec![value(2)],
        };
        assert!(check_move(&mut tree, &[3], &wrong).is_some());
        let right = Chosen {
            leave: vec![value(1), value(1)],
            ..wrong
        };
        assert!(check_move(&mut tree, &[3], &right).is_none());
    }
}
