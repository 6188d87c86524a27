//! `nimstream verify`: the analyzer against exhaustive game-tree search, or
//! (`--table N`) the mex table of x ∘ y against XOR.

use crate::error::Error;
use crate::games::Game;
use crate::workbench::verify::{check_rule, MexTable, RuleCheck};
use crate::workbench::verify_game::check_game_under;
use crate::Rule;
use clap::Args;
use std::io::Write;

/// Options of `verify`.
#[derive(Debug, Args)]
pub(crate) struct VerifyArgs {
    /// Check every instance of 0 to K heaps [default: 4, or 3 with --game].
    #[arg(long, value_name = "K", conflicts_with = "table")]
    pub max_heaps: Option<usize>,
    /// Check heap sizes 0 to M [default: 7, or 12 with --game].
    #[arg(long, value_name = "M", conflicts_with = "table")]
    pub max_size: Option<u32>,
    /// Check a heap game other than Nim: kayles, sub:1,3,4, octal:0.16, …
    /// (normal play unless --rule says otherwise; misère play also checks
    /// every position of at most 20 tokens).
    #[arg(short, long, value_parser = super::parse_game, conflicts_with = "table")]
    pub game: Option<Game>,
    /// Play convention: normal, misere or both [default: both, or normal
    /// with --game].
    #[arg(short, long, value_parser = parse_rules, conflicts_with = "table")]
    pub rule: Option<Rules>,
    /// Instead, print the table of x ∘ y for x, y ≤ N from the mex recursion
    /// and say whether it equals x ⊕ y.
    #[arg(long, value_name = "N")]
    pub table: Option<usize>,
}

/// `--rule`: the rules to check, in order.
#[derive(Clone, Debug)]
pub(crate) struct Rules(pub Vec<Rule>);

fn parse_rules(text: &str) -> Result<Rules, String> {
    if text.eq_ignore_ascii_case("both") {
        return Ok(Rules(vec![Rule::Normal, Rule::Misere]));
    }
    Rule::from_name(text)
        .map(|rule| Rules(vec![rule]))
        .ok_or_else(|| format!("unknown rule '{text}': expected normal, misere or both"))
}

/// Runs `verify`: exit status 1 on any disagreement.
pub(crate) fn run(args: VerifyArgs) -> Result<(), Error> {
    match (args.table, &args.game) {
        (Some(size), _) => print_table(size),
        (None, Some(game)) if *game != Game::Nim => check_heap_game(&args, game),
        (None, _) => check_rules(&args),
    }
}

/// The positions of at most this many tokens that misère play also
/// checks (SPEC section 12).
const MISERE_TOKENS: u64 = 20;

/// Checks one heap game under each rule, printing its disagreements and a
/// summary line for each.
fn check_heap_game(args: &VerifyArgs, game: &Game) -> Result<(), Error> {
    let max_heaps = args.max_heaps.unwrap_or(3);
    let max_size = args.max_size.unwrap_or(12);
    let rules = args
        .rule
        .clone()
        .map_or(vec![Rule::Normal], |rules| rules.0);
    let mut disagreements = 0;
    for rule in rules {
        let tokens = match rule {
            Rule::Misere => MISERE_TOKENS,
            Rule::Normal => 0,
        };
        let check = check_game_under(game, rule, max_heaps, u64::from(max_size), tokens);
        let mut text: String = check
            .disagreements
            .iter()
            .map(|(heaps, problem)| format!("{} {heaps:?}: {problem}\n", check.game))
            .collect();
        let verdict = match check.disagreements.len() {
            0 => "all agree".to_string(),
            n => format!("{n} disagreements"),
        };
        let (under, positions) = match rule {
            Rule::Normal => (String::new(), String::new()),
            Rule::Misere => (
                " under misère play".to_string(),
                format!(", and every position of at most {tokens} tokens"),
            ),
        };
        text += &format!(
            "checked {} instances of {}{under} (up to {max_heaps} heaps of at most \
             {max_size}{positions}): {verdict}\n",
            check.instances, check.game
        );
        if let (true, Some(bound)) = (check.beyond > 0, check.heaps_computed) {
            text += &format!(
                "  and {} more hold a heap past the {bound} heaps its misère quotient was \
                 computed for (no period proven): the analyzer refuses them, as it must\n",
                check.beyond
            );
        }
        print(&text)?;
        disagreements += check.disagreements.len();
    }
    match disagreements {
        0 => Ok(()),
        n => Err(Error::Check(format!(
            "verify: {n} disagreements between the analyzer and the game-tree search"
        ))),
    }
}

/// Checks each rule, printing its disagreements and a summary line.
fn check_rules(args: &VerifyArgs) -> Result<(), Error> {
    let mut disagreements = 0;
    let rules = args
        .rule
        .clone()
        .map_or(vec![Rule::Normal, Rule::Misere], |rules| rules.0);
    for &rule in &rules {
        let check = check_rule(
            rule,
            args.max_heaps.unwrap_or(4),
            args.max_size.unwrap_or(7),
        );
        print(&rule_report(&check))?;
        disagreements += check.disagreements.len();
    }
    if disagreements > 0 {
        return Err(Error::Check(format!(
            "verify: {disagreements} disagreements between the analyzer and the game-tree search"
        )));
    }
    Ok(())
}

/// One line per disagreement, then `checked N instances under RULE: …`.
fn rule_report(check: &RuleCheck) -> String {
    let mut text: String = check
        .disagreements
        .iter()
        .map(|d| format!("{d}\n"))
        .collect();
    let verdict = match check.disagreements.len() {
        0 => "all agree".to_string(),
        n => format!("{n} disagreements"),
    };
    text += &format!(
        "checked {} instances under {}: {verdict}\n",
        check.instances, check.rule
    );
    text
}

/// Prints the mex table and whether it equals XOR.
fn print_table(size: usize) -> Result<(), Error> {
    let table = MexTable::compute(size);
    print(&format!("{}{}\n", table.render(), table.summary()))?;
    match table.first_xor_mismatch() {
        None => Ok(()),
        Some(_) => Err(Error::Check(format!(
            "verify: the mex table differs from XOR: {}",
            table.summary()
        ))),
    }
}

fn print(text: &str) -> Result<(), Error> {
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| Error::io("<stdout>", e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::verify::Disagreement;

    #[test]
    fn a_rule_report_lists_each_disagreement_before_its_summary() {
        let check = RuleCheck {
            rule: Rule::Misere,
            instances: 3,
            disagreements: vec![Disagreement {
                rule: Rule::Misere,
                heaps: vec![0, 1],
                problem: "winner: the analyzer says first, the search says second".into(),
            }],
        };
        assert_eq!(
            rule_report(&check),
            "misere [0, 1]: winner: the analyzer says first, the search says second\n\
             checked 3 instances under misere: 1 disagreements\n"
        );
    }

    #[test]
    fn both_rules_are_checked_in_order() {
        assert_eq!(
            parse_rules("both").unwrap().0,
            vec![Rule::Normal, Rule::Misere]
        );
        assert_eq!(parse_rules("misère").unwrap().0, vec![Rule::Misere]);
        assert!(parse_rules("either").is_err());
    }
}
