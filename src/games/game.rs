//! The heap games of SPEC section 8 — Nim, subtraction games and octal
//! (take-and-break) games — and Grundy's game (SPEC section 13), with
//! their canonical strings and the options of a heap, in the order the
//! move rule searches them.
//!
//! A subtraction game `sub:S` is the octal game whose digit is 3 at each
//! t ∈ S (take t, leave nothing or one heap), so past parsing and printing
//! the code treats both through one list of take rules, [`Game::take_rules`].
//! Grundy's game is the octal game `4.` (split a heap in two without
//! taking) with the splits into equal parts left out: the same list, one
//! rule, and [`Game::unequal_splits`]. Nim has no finite list (any t may
//! be taken) and is handled on its own.

use super::GameError;
use std::fmt;
use std::str::FromStr;

/// The most digits after the point of an octal code.
const MAX_OCTAL_DIGITS: usize = 32;

/// A digit's bit allowing a move that leaves no heap (t = h).
pub(crate) const LEAVE_NOTHING: u8 = 1;
/// A digit's bit allowing a move that leaves one heap (t < h).
pub(crate) const LEAVE_ONE: u8 = 2;
/// A digit's bit allowing a move that leaves two non-empty heaps.
pub(crate) const LEAVE_TWO: u8 = 4;

/// The digit of a subtraction game at each t ∈ S.
const SUBTRACTION_DIGIT: u8 = LEAVE_NOTHING | LEAVE_ONE;

/// A heap game.
///
/// ```
/// use nimstream::games::Game;
///
/// let kayles: Game = "kayles".parse()?;
/// assert_eq!(kayles.to_string(), "octal:0.77");
/// let sub: Game = "sub:4,1,3".parse()?;
/// assert_eq!(sub.to_string(), "sub:1,3,4");
/// assert_eq!(sub.max_take(), Some(4));
/// assert!("sub:1,0".parse::<Game>().is_err());
/// assert_eq!("grundys-game".parse::<Game>()?, Game::Grundy);
/// # Ok::<(), nimstream::games::GameError>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Game {
    /// Nim: take any t ≥ 1 tokens from a heap.
    Nim,
    /// A subtraction game: take t ∈ S tokens. The set is sorted ascending,
    /// distinct, each in 1..=65535 ([`Game::subtraction`] checks that).
    Subtraction(Vec<u16>),
    /// An octal (take-and-break) game.
    Octal(OctalCode),
    /// Grundy's game: split one heap into two unequal non-empty heaps.
    Grundy,
}

/// An octal game's code `d0.d1…dk`: d0 is 0 (a `0.` code) or 4 (a `4.`
/// code, which may split a heap without taking), 1 ≤ k ≤ 32, each digit
/// 0–7, dk ≠ 0.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OctalCode {
    digits: Vec<u8>,
}

/// One option of a heap: take `take` tokens and leave `leave`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Move {
    /// The tokens taken.
    pub take: u64,
    /// The heaps left in place of the heap.
    pub leave: Leave,
}

/// What a move leaves in place of the heap it was made on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leave {
    /// No heap (the whole heap was taken).
    Nothing,
    /// One non-empty heap of this size.
    One(u64),
    /// Two non-empty heaps, the smaller first.
    Two(u64, u64),
}

/// The options of one heap, in the order of SPEC section 8: t ascending;
/// for each t, leaving no heap, then one heap, then two heaps (a, h − t − a)
/// with a = 1, 2, …. Made by [`Game::options`].
#[derive(Clone, Debug)]
pub struct HeapOptions<'g> {
    game: &'g Game,
    heap: u64,
    rule: u64,
    step: Step,
}

/// Where [`HeapOptions`] is within the moves of one take.
#[derive(Clone, Copy, Debug)]
enum Step {
    Nothing,
    One,
    Two { smaller: u64 },
}

impl Game {
    /// The subtraction game of the takes `set`, in any order.
    ///
    /// Fails on an empty set, a 0, or a take listed twice.
    pub fn subtraction(set: impl IntoIterator<Item = u16>) -> Result<Game, GameError> {
        let mut takes: Vec<u16> = set.into_iter().collect();
        if takes.is_empty() {
            return Err(GameError::new(
                "`sub:` needs a comma list of distinct positive integers ≤ 65535, found none",
            ));
        }
        takes.sort_unstable();
        if takes[0] == 0 {
            return Err(subtraction_error("`0`"));
        }
        if let Some(pair) = takes.windows(2).find(|pair| pair[0] == pair[1]) {
            return Err(subtraction_error(&format!("`{}` twice", pair[0])));
        }
        Ok(Game::Subtraction(takes))
    }

    /// The most tokens a move takes: k for an octal code `d0.d1…dk`, the
    /// largest element of S for `sub:S`, `None` for Nim (no bound).
    pub fn max_take(&self) -> Option<u64> {
        match self {
            Game::Nim => None,
            Game::Subtraction(set) => set.last().map(|&t| u64::from(t)),
            Game::Octal(code) => Some(code.digits.len() as u64 - 1),
            Game::Grundy => Some(0),
        }
    }

    /// Whether some move splits a heap in two (an octal digit with bit 4
    /// set); never for Nim and subtraction games.
    pub fn splits(&self) -> bool {
        match self {
            Game::Octal(code) => code.digits.iter().any(|d| d & LEAVE_TWO != 0),
            Game::Grundy => true,
            Game::Nim | Game::Subtraction(_) => false,
        }
    }

    /// Whether a split must leave two unequal heaps (Grundy's game).
    pub fn unequal_splits(&self) -> bool {
        *self == Game::Grundy
    }

    /// The largest smaller part of a split of `rest` tokens into two
    /// non-empty heaps: ⌊rest/2⌋, or ⌊(rest − 1)/2⌋ when the parts must be
    /// unequal (0 when there is no split).
    pub fn largest_smaller_part(&self, rest: u64) -> u64 {
        largest_smaller_part(rest, self.unequal_splits())
    }

    /// The options of a heap of `heap` tokens, in the order of SPEC
    /// section 8.
    ///
    /// ```
    /// use nimstream::games::{Game, Leave, Move};
    ///
    /// let kayles: Game = "kayles".parse()?;
    /// let options: Vec<Move> = kayles.options(3).collect();
    /// assert_eq!(options, [
    ///     Move { take: 1, leave: Leave::One(2) },
    ///     Move { take: 1, leave: Leave::Two(1, 1) },
    ///     Move { take: 2, leave: Leave::One(1) },
    /// ]);
    /// # Ok::<(), nimstream::games::GameError>(())
    /// ```
    pub fn options(&self, heap: u64) -> HeapOptions<'_> {
        HeapOptions {
            game: self,
            heap,
            rule: 0,
            step: Step::Nothing,
        }
    }

    /// The game's moves as (t, digit) pairs with a non-zero digit, t
    /// ascending; `None` for Nim, whose takes have no bound.
    pub(crate) fn take_rules(&self) -> Option<Vec<(u64, u8)>> {
        match self {
            Game::Nim => None,
            Game::Subtraction(set) => Some(
                set.iter()
                    .map(|&t| (u64::from(t), SUBTRACTION_DIGIT))
                    .collect(),
            ),
            Game::Octal(code) => Some(
                (0u64..)
                    .zip(code.digits.iter().copied())
                    .filter(|&(_, digit)| digit != 0)
                    .collect(),
            ),
            Game::Grundy => Some(vec![(0, LEAVE_TWO)]),
        }
    }

    /// The `index`-th take of the game and its digit (0 when the take is
    /// not allowed at all), or `None` past the last.
    fn rule(&self, index: u64) -> Option<(u64, u8)> {
        match self {
            Game::Nim => index.checked_add(1).map(|t| (t, SUBTRACTION_DIGIT)),
            Game::Subtraction(set) => usize::try_from(index)
                .ok()
                .and_then(|i| set.get(i))
                .map(|&t| (u64::from(t), SUBTRACTION_DIGIT)),
            Game::Octal(code) => usize::try_from(index)
                .ok()
                .and_then(|i| code.digits.get(i))
                .map(|&digit| (index, digit)),
            Game::Grundy => (index == 0).then_some((0, LEAVE_TWO)),
        }
    }
}

impl OctalCode {
    /// The code with digits d0, d1, …, dk.
    ///
    /// Fails unless d0 is 0 or 4, 1 ≤ k ≤ 32, every digit is 0–7 and
    /// dk ≠ 0.
    pub fn new(digits: Vec<u8>) -> Result<OctalCode, GameError> {
        let shown = || digits.iter().map(|d| d.to_string()).collect::<String>();
        match digits.first() {
            Some(0 | 4) => {}
            _ => {
                return Err(GameError::new(format!(
                    "an octal code starts with 0 or 4, found the digits `{}`",
                    shown()
                )))
            }
        }
        if !(1..=MAX_OCTAL_DIGITS).contains(&(digits.len() - 1)) {
            return Err(GameError::new(format!(
                "an octal code has 1 to {MAX_OCTAL_DIGITS} digits after the point, found {}",
                digits.len() - 1
            )));
        }
        if let Some(digit) = digits.iter().find(|&&d| d > 7) {
            return Err(GameError::new(format!(
                "{digit} is not an octal digit (0–7)"
            )));
        }
        if digits.last() == Some(&0) {
            return Err(GameError::new(
                "the last digit is 0: drop the trailing zeros",
            ));
        }
        Ok(OctalCode { digits })
    }

    /// The digits d0, d1, …, dk.
    pub fn digits(&self) -> &[u8] {
        &self.digits
    }
}

impl<'g> Iterator for HeapOptions<'g> {
    type Item = Move;

    fn next(&mut self) -> Option<Move> {
        loop {
            let (take, digit) = self.game.rule(self.rule)?;
            if take > self.heap {
                return None;
            }
            if let Some(found) = self.step_within(take, digit) {
                return Some(found);
            }
        }
    }
}

impl HeapOptions<'_> {
    /// Advances one step within the moves of `take` (moving on to the next
    /// take after its last), and returns the move of that step if the digit
    /// allows it.
    fn step_within(&mut self, take: u64, digit: u8) -> Option<Move> {
        let left = self.heap - take;
        let leave = match self.step {
            Step::Nothing => {
                self.step = Step::One;
                (digit & LEAVE_NOTHING != 0 && left == 0).then_some(Leave::Nothing)
            }
            Step::One => {
                self.step = Step::Two { smaller: 1 };
                (digit & LEAVE_ONE != 0 && left > 0).then_some(Leave::One(left))
            }
            Step::Two { smaller }
                if digit & LEAVE_TWO != 0 && smaller <= self.game.largest_smaller_part(left) =>
            {
                self.step = Step::Two {
                    smaller: smaller + 1,
                };
                Some(Leave::Two(smaller, left - smaller))
            }
            Step::Two { .. } => {
                self.rule += 1;
                self.step = Step::Nothing;
                None
            }
        };
        leave.map(|leave| Move { take, leave })
    }
}

/// The largest smaller part of a split of `rest` tokens into two non-empty
/// heaps, unequal ones when `unequal`.
pub(crate) fn largest_smaller_part(rest: u64, unequal: bool) -> u64 {
    match unequal {
        true => rest.saturating_sub(1) / 2,
        false => rest / 2,
    }
}

/// The error for a bad element of a `sub:` list, `found` already quoted.
fn subtraction_error(found: &str) -> GameError {
    GameError::new(format!(
        "`sub:` needs distinct positive integers ≤ 65535, found {found}"
    ))
}

/// Parses the list after `sub:`.
fn parse_subtraction(list: &str) -> Result<Game, GameError> {
    let takes = list
        .split(',')
        .map(|item| {
            item.parse::<u16>()
                .map_err(|_| subtraction_error(&format!("`{item}`")))
        })
        .collect::<Result<Vec<u16>, GameError>>()?;
    Game::subtraction(takes)
}

impl FromStr for OctalCode {
    type Err = GameError;

    /// Parses a code `0.d1…dk` or `4.d1…dk`.
    fn from_str(code: &str) -> Result<OctalCode, GameError> {
        let bad = |why: &str| GameError::new(format!("`octal:{code}`: {why}"));
        let (whole, fraction) = code
            .split_once('.')
            .ok_or_else(|| bad("a code is `0.d…` or `4.d…`, with a point"))?;
        let d0 = match whole {
            "0" => 0,
            "4" => 4,
            _ => return Err(bad("a code starts with `0.` or `4.`")),
        };
        let mut digits = vec![d0];
        for c in fraction.chars() {
            match c.to_digit(8) {
                Some(digit) => digits.push(digit as u8),
                None => return Err(bad(&format!("`{c}` is not an octal digit (0–7)"))),
            }
        }
        OctalCode::new(digits).map_err(|error| bad(error.message()))
    }
}

impl FromStr for Game {
    type Err = GameError;

    /// Parses `nim`, `sub:S`, `octal:D`, `grundys-game` or an alias
    /// (`kayles`, `dawsons-kayles`, `dawsons-chess`).
    fn from_str(name: &str) -> Result<Game, GameError> {
        let octal = |code: &str| code.parse().map(Game::Octal);
        match name {
            "nim" => Ok(Game::Nim),
            "grundys-game" => Ok(Game::Grundy),
            "kayles" => octal("0.77"),
            "dawsons-kayles" => octal("0.07"),
            "dawsons-chess" => octal("0.137"),
            _ => {
                if let Some(list) = name.strip_prefix("sub:") {
                    parse_subtraction(list)
                } else if let Some(code) = name.strip_prefix("octal:") {
                    octal(code)
                } else {
                    Err(GameError::new(format!(
                        "unknown game `{name}`: expected `nim`, `sub:S` (e.g. `sub:1,3,4`), \
                         `octal:0.d…` or `octal:4.d…` (e.g. `octal:0.77`), `kayles`, \
                         `dawsons-kayles`, `dawsons-chess` or `grundys-game`"
                    )))
                }
            }
        }
    }
}

impl fmt::Display for OctalCode {
    /// The code as `0.d1…dk` or `4.d1…dk`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.", self.digits[0])?;
        self.digits[1..]
            .iter()
            .try_for_each(|digit| write!(f, "{digit}"))
    }
}

impl fmt::Display for Game {
    /// The canonical string: `nim`, `sub:` with the set ascending,
    /// `octal:` with the code (aliases resolved), or `grundys-game`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Game::Nim => f.write_str("nim"),
            Game::Subtraction(set) => {
                f.write_str("sub:")?;
                let list: Vec<String> = set.iter().map(|t| t.to_string()).collect();
                f.write_str(&list.join(","))
            }
            Game::Octal(code) => write!(f, "octal:{code}"),
            Game::Grundy => f.write_str("grundys-game"),
        }
    }
}
