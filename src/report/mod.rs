//! The report of an analysis: plain data built from the analysis's facts,
//! serialised as JSON schema 1, and rendered for people by [`human`].
//!
//! Every field of the schema is always present; a value that is unknown
//! (with `--decide`) or does not exist (no move) is `null`, never skipped.

pub mod human;

pub use crate::analysis::facts::Stats;

use crate::analysis::facts::{
    Facts, GameFacts, GameMoveFacts, MisereFacts, MisereMoveFacts, MoveFacts, Number,
};
use crate::analysis::{Player, Rule};
use crate::input::Format;
use num_bigint::BigUint;
use serde::Serialize;

/// The report, JSON schema 1 (its fields in the specification's order;
/// [`Report::to_json`] writes it).
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    /// Always 1.
    pub schema: u32,
    /// What was read.
    pub input: InputInfo,
    /// The play convention.
    pub rule: Rule,
    /// The game, canonical (`nim`, `sub:…`, `octal:…`).
    pub game: String,
    /// Number of heaps.
    pub heaps: u64,
    /// Heaps > 0.
    pub nonzero_heaps: u64,
    /// Heaps = 1.
    pub ones: u64,
    /// Heaps ≥ 2.
    pub big: u64,
    /// Bit length of the longest heap (0 when all are 0).
    pub max_bit_length: u64,
    /// The game's value sequence (a game other than Nim only).
    pub grundy: Option<Grundy>,
    /// The XOR of the heaps' Grundy values (a game other than Nim only).
    pub grundy_sum: Option<u64>,
    /// The game's misère quotient (misère play of a game other than Nim).
    pub quotient: Option<MisereQuotient>,
    /// The name of the class of the sum (misère play of a game other than
    /// Nim).
    pub product: Option<String>,
    /// The XOR of all heaps (null when `--decide` stopped before it was known).
    pub nim_sum: Option<Value>,
    /// Position of the nim-sum's highest set bit (null when it is 0 or unknown).
    pub msb: Option<u64>,
    /// Who wins with perfect play.
    pub winner: Player,
    /// How many heaps admit a winning move (null when unknown).
    pub winning_moves: Option<u64>,
    /// The deterministic winning move of Nim (null when there is none or
    /// it is unknown).
    pub winning_move: Option<Move>,
    /// The deterministic winning move of a game other than Nim.
    pub game_move: Option<GameMove>,
    /// The deterministic winning move under misère play of a game other
    /// than Nim.
    pub misere_move: Option<MisereMove>,
    /// Whether no heap has a move (misère play of a game other than Nim:
    /// the player to move wins by having none). Not in the JSON.
    pub stuck: bool,
    /// Measured costs.
    pub stats: Stats,
}

/// A game's value sequence, as far as it was computed.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Grundy {
    /// The least preperiod of the least period (null when none was proven).
    pub preperiod: Option<u64>,
    /// The least period (null when none was proven).
    pub period: Option<u64>,
    /// How many values were computed.
    pub values_computed: u64,
}

/// A game's misère quotient, as far as it was computed (SPEC section 12).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct MisereQuotient {
    /// Its number of elements.
    pub order: usize,
    /// The pretending function's least preperiod (null when no period was
    /// proven).
    pub preperiod: Option<u64>,
    /// Its least period (null when none was proven).
    pub period: Option<u64>,
    /// n: exact for every sum of heaps ≤ n.
    pub heaps_computed: u64,
}

impl MisereQuotient {
    fn of(misere: &MisereFacts) -> MisereQuotient {
        MisereQuotient {
            order: misere.order,
            preperiod: misere.period.map(|p| p.preperiod),
            period: misere.period.map(|p| p.period),
            heaps_computed: misere.heaps_computed,
        }
    }
}

/// The winning move under misère play of a game other than Nim: take
/// `take` tokens from a heap, leaving the heaps of `leave`, the sum's
/// product then `to_product`.
///
/// ```
/// use nimstream::{analyze_bytes, Format, Options, Player, Rule};
///
/// // Misère Kayles, rows of 3 and 2 pins: the player to move wins by
/// // knocking an end pin off the 3, leaving two rows of 2, a misère
/// // P-position (their product b² lies in the P-portion).
/// let options = Options {
///     game: "kayles".parse()?,
///     rule: Rule::Misere,
///     ..Options::default()
/// };
/// let report = analyze_bytes(b"3 2\n", Format::Dec, "example", &options)?;
/// assert_eq!(report.winner, Player::First);
/// assert_eq!(report.quotient.as_ref().map(|q| q.order), Some(40));
/// let chosen = report.misere_move.expect("a move");
/// assert_eq!((chosen.heap, chosen.take), (0, 1));
/// assert_eq!(chosen.leave[0].dec.as_deref(), Some("2"));
/// assert_eq!(chosen.to_product, "b²");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct MisereMove {
    /// 0-based heap index.
    pub heap: u64,
    /// 0-based offset of the heap's first byte.
    pub offset: u64,
    /// 1-based line of that byte (text formats only).
    pub line: Option<u64>,
    /// The heap's value.
    pub from: Value,
    /// The tokens taken.
    pub take: u64,
    /// The non-empty heaps left (0 to 2), the smaller first.
    pub leave: Vec<Value>,
    /// The name of the sum's product after the move (in the P-portion).
    pub to_product: String,
}

impl MisereMove {
    fn of(found: &MisereMoveFacts) -> MisereMove {
        MisereMove {
            heap: found.heap,
            offset: found.offset,
            line: found.line,
            from: Value::of(&found.from),
            take: found.take,
            leave: found.leave.iter().map(Value::of).collect(),
            to_product: found.to_product.clone(),
        }
    }
}

/// The winning move of a game other than Nim: take `take` tokens from a
/// heap, leaving the heaps of `leave`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct GameMove {
    /// 0-based heap index.
    pub heap: u64,
    /// 0-based offset of the heap's first byte.
    pub offset: u64,
    /// 1-based line of that byte (text formats only).
    pub line: Option<u64>,
    /// The heap's value.
    pub from: Value,
    /// Its Grundy value.
    pub from_grundy: u64,
    /// The tokens taken.
    pub take: u64,
    /// The non-empty heaps left (0 to 2), the smaller first.
    pub leave: Vec<Value>,
    /// The Grundy value of what is left.
    pub to_grundy: u64,
}

impl GameMove {
    fn of(found: &GameMoveFacts) -> GameMove {
        GameMove {
            heap: found.heap,
            offset: found.offset,
            line: found.line,
            from: Value::of(&found.from),
            from_grundy: u64::from(found.from_grundy),
            take: found.take,
            leave: found.leave.iter().map(Value::of).collect(),
            to_grundy: u64::from(found.to_grundy),
        }
    }
}

impl Grundy {
    fn of(game: &GameFacts) -> Grundy {
        Grundy {
            preperiod: game.period.map(|p| p.preperiod),
            period: game.period.map(|p| p.period),
            values_computed: game.values_computed,
        }
    }
}

/// The report as JSON: the fields of a game other than Nim present only
/// in its reports, and `move` whichever move the game has.
#[derive(Serialize)]
struct ReportJson<'r> {
    schema: u32,
    input: &'r InputInfo,
    rule: Rule,
    game: &'r str,
    heaps: u64,
    nonzero_heaps: u64,
    ones: u64,
    big: u64,
    max_bit_length: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    grundy: Option<&'r Grundy>,
    #[serde(skip_serializing_if = "Option::is_none")]
    grundy_sum: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    quotient: Option<&'r MisereQuotient>,
    #[serde(skip_serializing_if = "Option::is_none")]
    product: Option<&'r str>,
    nim_sum: Option<&'r Value>,
    msb: Option<u64>,
    winner: Player,
    winning_moves: Option<u64>,
    #[serde(rename = "move")]
    winning_move: Option<MoveJson<'r>>,
    stats: &'r Stats,
}

/// Either move, as JSON.
#[derive(Serialize)]
#[serde(untagged)]
enum MoveJson<'r> {
    Nim(&'r Move),
    Game(&'r GameMove),
    Misere(&'r MisereMove),
}

impl Serialize for Report {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let winning_move = match (&self.winning_move, &self.game_move, &self.misere_move) {
            (Some(nim), _, _) => Some(MoveJson::Nim(nim)),
            (None, Some(game), _) => Some(MoveJson::Game(game)),
            (None, None, Some(misere)) => Some(MoveJson::Misere(misere)),
            (None, None, None) => None,
        };
        ReportJson {
            schema: self.schema,
            input: &self.input,
            rule: self.rule,
            game: &self.game,
            heaps: self.heaps,
            nonzero_heaps: self.nonzero_heaps,
            ones: self.ones,
            big: self.big,
            max_bit_length: self.max_bit_length,
            grundy: self.grundy.as_ref(),
            grundy_sum: self.grundy_sum,
            quotient: self.quotient.as_ref(),
            product: self.product.as_deref(),
            nim_sum: self.nim_sum.as_ref(),
            msb: self.msb,
            winner: self.winner,
            winning_moves: self.winning_moves,
            winning_move,
            stats: &self.stats,
        }
        .serialize(serializer)
    }
}

/// The input as it was named and read.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct InputInfo {
    /// The path as given (`-` for standard input).
    pub path: String,
    /// The format it was read as.
    pub format: Format,
    /// Its size in bytes.
    pub bytes: u64,
}

/// A number of any size: its bit length, and its digits when short enough.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Value {
    /// Number of bits (0 for zero).
    pub bit_length: u64,
    /// Lowercase hex without prefix or leading zeros (null past `--inline-bits`).
    pub hex: Option<String>,
    /// Decimal (null past `--inline-bits`).
    pub dec: Option<String>,
}

impl Value {
    /// A number's bit length, and its digits when the analysis kept them.
    fn of(number: &Number) -> Value {
        let digits = number.limbs.as_deref().map(|limbs| {
            let value = BigUint::from_slice(&limbs_as_u32(limbs));
            (value.to_str_radix(16), value.to_string())
        });
        let (hex, dec) = digits.unzip();
        Value {
            bit_length: number.bit_length,
            hex,
            dec,
        }
    }
}

/// Little-endian 64-bit limbs as little-endian 32-bit digits.
fn limbs_as_u32(limbs: &[u64]) -> Vec<u32> {
    limbs
        .iter()
        .flat_map(|&limb| [limb as u32, (limb >> 32) as u32])
        .collect()
}

/// The winning move.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Move {
    /// 0-based heap index.
    pub heap: u64,
    /// 0-based offset of the heap's first byte.
    pub offset: u64,
    /// 1-based line of that byte (text formats only).
    pub line: Option<u64>,
    /// The heap's value.
    pub from: Value,
    /// The value to leave on the heap.
    pub to: Value,
    /// The number of tokens taken.
    pub remove: Value,
}

impl Move {
    fn of(found: &MoveFacts) -> Move {
        Move {
            heap: found.heap,
            offset: found.offset,
            line: found.line,
            from: Value::of(&found.from),
            to: Value::of(&found.to),
            remove: Value::of(&found.remove),
        }
    }
}

impl Report {
    /// The report of what an analysis of `input` under `rule` found.
    pub(crate) fn new(facts: Facts, input: InputInfo, rule: Rule) -> Report {
        let survey = &facts.survey;
        Report {
            schema: 1,
            input,
            rule,
            game: match (&facts.game, &facts.misere) {
                (Some(game), _) => game.game.clone(),
                (None, Some(misere)) => misere.game.clone(),
                (None, None) => "nim".to_string(),
            },
            heaps: survey.heaps,
            nonzero_heaps: survey.nonzero,
            ones: survey.ones,
            big: survey.big,
            max_bit_length: survey.max_bit_length,
            grundy: facts.game.as_ref().map(Grundy::of),
            grundy_sum: facts.game.as_ref().map(|game| u64::from(game.grundy_sum)),
            quotient: facts.misere.as_ref().map(MisereQuotient::of),
            product: facts.misere.as_ref().map(|misere| misere.product.clone()),
            nim_sum: facts.nim_sum.as_ref().map(Value::of),
            msb: facts.msb,
            winner: facts.winner,
            winning_moves: facts.winning_moves,
            winning_move: facts.winning_move.as_ref().map(Move::of),
            game_move: facts
                .game
                .as_ref()
                .and_then(|game| game.winning_move.as_ref())
                .map(GameMove::of),
            misere_move: facts
                .misere
                .as_ref()
                .and_then(|misere| misere.winning_move.as_ref())
                .map(MisereMove::of),
            stuck: facts.misere.as_ref().is_some_and(|misere| misere.stuck),
            stats: facts.stats,
        }
    }

    /// The report as one line of JSON (schema 1, no trailing LF).
    ///
    /// ```
    /// use nimstream::{analyze_bytes, Format, Options};
    ///
    /// let report = analyze_bytes(b"3 4 5", Format::Dec, "example", &Options::default())?;
    /// let json = report.to_json();
    /// assert!(json.starts_with(r#"{"schema":1,"input":{"path":"example","format":"dec","bytes":5}"#));
    /// assert!(json.contains(r#""winner":"first""#));
    /// # Ok::<(), nimstream::Error>(())
    /// ```
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a report always serialises")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_render_inline_only_when_kept() {
        let small = Value::of(&Number::new(5, &[0x1f], 8));
        assert_eq!(small.hex.as_deref(), Some("1f"));
        assert_eq!(small.dec.as_deref(), Some("31"));
        let zero = Value::of(&Number::new(0, &[], 0));
        assert_eq!(
            (zero.hex.as_deref(), zero.dec.as_deref()),
            (Some("0"), Some("0"))
        );
        assert_eq!(Value::of(&Number::new(9, &[0x1ff], 8)).hex, None);
        let wide = Value::of(&Number::new(65, &[0, 1], 4096));
        assert_eq!(wide.dec.as_deref(), Some("18446744073709551616"));
    }
}
