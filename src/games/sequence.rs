//! A game's Grundy value sequence g(0), g(1), …: the table of the values
//! computed, 2 bytes each, and the least period once proven, through which
//! it answers g(h) for a heap of any size.
//!
//! [`Sequence::compute`] drives the mex engine (`rare_common.rs`) and
//! the period search (`period.rs`) until a period is proven or the
//! allowed number of values exists. Nim needs neither: g(h) = h, so its
//! table is 0, 1, … up to 65,535 and it has no period.

use super::period::PeriodSearch;
use super::rare_common::{Shortfall, ValueEngine};
use super::{Game, GameError};

/// The most values a table holds: a period check indexes values with
/// 32 bits.
const MAX_VALUES: u64 = u32::MAX as u64;

/// The number of Nim values a table can hold (g(h) = h ≤ 65,535).
const NIM_VALUES: u64 = 1 << 16;

/// A proven period: g(h + period) = g(h) for every h ≥ preperiod.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Period {
    /// The least preperiod p for the period.
    pub preperiod: u64,
    /// The least period q.
    pub period: u64,
}

/// A game's value sequence, as far as computed, and its period if proven.
#[derive(Clone, Debug)]
pub struct Sequence {
    game: Game,
    values: Vec<u16>,
    period: Option<Period>,
}

impl Sequence {
    /// Computes g(0), g(1), … until a period is proven or `max_values`
    /// values exist (at most 2^32 − 1 are computed whatever `max_values`
    /// says). The period reported is the least, and the preperiod the
    /// least for it.
    ///
    /// Fails when a value is past 65,535, naming the heap.
    ///
    /// ```
    /// use nimstream::games::{Game, Period, Sequence};
    ///
    /// let kayles: Game = "kayles".parse()?;
    /// let sequence = Sequence::compute(&kayles, 1 << 20)?;
    /// assert_eq!(sequence.period(), Some(Period { preperiod: 71, period: 12 }));
    /// assert_eq!(&sequence.values()[..8], [0, 1, 2, 3, 1, 4, 3, 2]);
    /// # Ok::<(), nimstream::games::GameError>(())
    /// ```
    pub fn compute(game: &Game, max_values: u64) -> Result<Sequence, GameError> {
        let wanted = max_values.min(MAX_VALUES);
        let (values, period) = match (ValueEngine::for_game(game), PeriodSearch::for_game(game)) {
            (Some(engine), Some(search)) => values_until_period(engine, search, wanted)?,
            _ => (
                (0..max_values.min(NIM_VALUES)).map(|h| h as u16).collect(),
                None,
            ),
        };
        Ok(Sequence {
            game: game.clone(),
            values,
            period,
        })
    }

    /// A sequence of other values than Grundy values (a misère quotient's
    /// classes, [`super::misere::Quotient::as_sequence`]) with its period,
    /// for the residue and move machinery.
    pub(crate) fn from_parts(game: Game, values: Vec<u16>, period: Option<Period>) -> Sequence {
        Sequence {
            game,
            values,
            period,
        }
    }

    /// The game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The values computed, g(0) first.
    pub fn values(&self) -> &[u16] {
        &self.values
    }

    /// The number of values computed.
    pub fn values_computed(&self) -> u64 {
        self.values.len() as u64
    }

    /// The least period and its least preperiod, if proven.
    pub fn period(&self) -> Option<Period> {
        self.period
    }

    /// g(`heap`): from the table below [`values_computed`](Self::values_computed),
    /// through the period above it, `None` past the table when no period
    /// was proven.
    ///
    /// ```
    /// use nimstream::games::{Game, Sequence};
    ///
    /// let sequence = Sequence::compute(&"kayles".parse::<Game>()?, 1 << 20)?;
    /// // Past the preperiod 71, Kayles repeats with period 12.
    /// assert_eq!(sequence.value(10_u64.pow(18)), sequence.value(76));
    /// # Ok::<(), nimstream::games::GameError>(())
    /// ```
    pub fn value(&self, heap: u64) -> Option<u16> {
        match usize::try_from(heap).ok().and_then(|h| self.values.get(h)) {
            Some(&value) => Some(value),
            None => self.value_at_residue(heap % self.period?.period),
        }
    }

    /// g(h) for every heap h ≥ p with h mod q = `residue` mod q, given a
    /// proven period q from p (`None` without one): the value at index
    /// p + ((h − p) mod q), computed from the residue alone as
    /// p + ((r + q − p mod q) mod q) with r = `residue` mod q. This is how
    /// a heap too long to hold in a `u64` gets its value.
    pub fn value_at_residue(&self, residue: u64) -> Option<u16> {
        let Period { preperiod, period } = self.period?;
        let offset = (residue % period + period - preperiod % period) % period;
        Some(self.values[(preperiod + offset) as usize])
    }
}

/// Computes values with `engine` until `search` proves a period or
/// `wanted` values exist.
fn values_until_period(
    mut engine: ValueEngine,
    mut search: PeriodSearch,
    wanted: u64,
) -> Result<(Vec<u16>, Option<Period>), GameError> {
    let mut values: Vec<u16> = Vec::new();
    while (values.len() as u64) < wanted {
        let heap = values.len() as u64;
        let value = engine.next_value(&values[..]).map_err(too_large)?;
        values.push(value);
        engine.record(heap, value, Some(&values));
        let known = heap + 1;
        if search.is_due(known) || known == wanted {
            if let Some(period) = search.check(&values) {
                return Ok((values, Some(period)));
            }
        }
    }
    Ok((values, None))
}

/// The error of a shortfall: in memory, a value past 65,535 (every value
/// is kept, so no proof lacks one).
fn too_large(shortfall: Shortfall) -> GameError {
    match shortfall {
        Shortfall::TooLarge { heap } => GameError::new(format!(
            "the Grundy value of heap {heap} is past 65535, the largest value a table holds"
        )),
        Shortfall::Forgotten { heap, needs } => GameError::new(format!(
            "the proof of heap {heap} needs the value of heap {needs}, which is not kept"
        )),
    }
}
