//! The misère quotient of a heap game as far as computed: the public type
//! [`Quotient`] and the loop over n that builds it.

use super::build::{Added, Blocked, Build};
use super::present::present;
use super::table::Table;
use crate::games::period::PeriodSearch;
use crate::games::{Game, GameError, Period};

/// The most elements a quotient may have: its product table is then
/// 2 MiB (2 bytes a cell).
pub const MAX_ORDER: usize = 1024;

/// The most states one proof (a heap that extends the quotient) explores.
pub const MAX_PROOF_STATES: usize = 1 << 20;

/// The most heaps computed, whatever the caller asks.
pub const MAX_HEAPS: u64 = 1 << 16;

/// The default bound on the work of [`Quotient::compute_within`]: one to
/// three seconds of candidates on this project's machines (Dawson's Kayles
/// then stops after Q_29 in 1.5 s, `octal:0.4` after Q_30, Daisies (4.7)
/// after Q_14 in 2.7 s).
pub const DEFAULT_WORK: u64 = 1 << 31;

/// The default bound on the heaps computed (`grundy --max-heap`).
pub const DEFAULT_MAX_HEAP: u64 = 4096;

/// Why the computation stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The periodicity theorem proved the period: the quotient is the
    /// whole game's.
    Proven,
    /// The bound on the heaps was reached with no period proven.
    MaxHeap,
    /// The next heap would have made the quotient larger than
    /// [`MAX_ORDER`].
    Order,
    /// A candidate model for the next heap passed [`MAX_CANDIDATE`](super::MAX_CANDIDATE)
    /// elements.
    Candidate,
    /// The proof for the next heap passed [`MAX_PROOF_STATES`] states.
    ProofStates,
    /// No candidate for the next heap was proven within the bounds on
    /// the candidates tried (their number, coordinates and stems).
    Unproven,
    /// The candidates passed the bound on the work of the whole
    /// computation ([`Quotient::compute_within`]).
    Work,
}

impl Stop {
    /// Why, in words, for the reports.
    pub fn describe(self) -> &'static str {
        match self {
            Stop::Proven => "period proven",
            Stop::MaxHeap => "no period proven within the heaps allowed",
            Stop::Order => "the next heap passes the bound on the quotient's order",
            Stop::Candidate => "the next heap's candidate model passes the bound on its elements",
            Stop::ProofStates => "the next heap's proof passes the bound on its states",
            Stop::Unproven => "no candidate quotient for the next heap could be proven",
            Stop::Work => "the next heap's candidates pass the bound on the work",
        }
    }
}

/// The misère quotient Q_n of a heap game: the classes of all sums of
/// heaps of size ≤ n under o⁻(G + X) = o⁻(H + X) for every such X, their
/// product, the P-portion and the pretending function Φ (SPEC section
/// 12). With a proven period it is the quotient of every sum, heaps of
/// any size.
///
/// Plambeck's octal game 0.75, whose quotient has 8 elements:
///
/// ```
/// use nimstream::games::{misere::Quotient, Game};
///
/// let game: Game = "octal:0.75".parse()?;
/// let q = Quotient::compute(&game, 4096)?;
/// assert_eq!(q.order(), 8);
/// assert!(q.period().is_some());
/// // One token (class a) loses for the player to move; two heaps of one
/// // token win (a² = 1, and 1 is not in the P-portion).
/// let a = q.class_of(1).unwrap();
/// assert!(q.is_p(a));
/// assert!(!q.is_p(q.mul(a, a)));
/// // A sum is decided from its heaps' classes, however long they are.
/// let big = 10_u64.pow(18);
/// let period = q.period().unwrap().period;
/// assert_eq!(q.is_p_position(&[1, big]), q.is_p_position(&[1, big - period]));
/// # Ok::<(), nimstream::games::GameError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Quotient {
    game: Game,
    table: Table,
    p_portion: Vec<bool>,
    pretending: Vec<u16>,
    period: Option<Period>,
    stop: Stop,
    names: Vec<String>,
    generators: Vec<(String, u64)>,
    presentation: String,
}

impl Quotient {
    /// Computes Q_1, Q_2, … until the periodicity theorem proves Φ's
    /// period, or Q_`max_heap` is computed (at most [`MAX_HEAPS`]), or a
    /// bound stops it ([`Stop`] says which). The period reported is the
    /// least, and the preperiod the least for it.
    ///
    /// Fails for a game whose moves have no bound (Nim: its misère play
    /// is SPEC section 1's rule).
    pub fn compute(game: &Game, max_heap: u64) -> Result<Quotient, GameError> {
        Quotient::compute_within(game, max_heap, DEFAULT_WORK)
    }

    /// [`compute`](Self::compute) with `work` units of work at most for
    /// the candidate models of the heaps that extend the quotient (a unit
    /// is an element of a candidate, or a state of a proof, times the
    /// kinds of heaps; [`DEFAULT_WORK`] is a few seconds), so that a game
    /// whose quotient grows fast stops in a time known in advance.
    pub fn compute_within(game: &Game, max_heap: u64, work: u64) -> Result<Quotient, GameError> {
        let (Some(_), Some(_)) = (game.max_take(), game.take_rules()) else {
            return Err(GameError::new(format!(
                "misère quotients are for games whose moves take at most k tokens, not {game}"
            )));
        };
        let max_heap = max_heap.min(MAX_HEAPS);
        let mut build = Build::new(game);
        let mut work = work;
        let search =
            PeriodSearch::for_game(game).expect("a game whose moves take at most k tokens");
        let (stop, period) = extend_until(&mut build, search, max_heap, &mut work);
        let presented = present(&build.table, &build.pretending);
        let number = |class: u16| presented.number[class as usize];
        let mut p_portion = vec![false; presented.table.order()];
        for (class, &in_p) in build.p_portion.iter().enumerate() {
            p_portion[number(class as u16) as usize] = in_p;
        }
        Ok(Quotient {
            game: game.clone(),
            table: presented.table,
            p_portion,
            pretending: build.pretending.iter().map(|&c| number(c)).collect(),
            period,
            stop,
            names: presented.names,
            generators: presented.generators,
            presentation: presented.presentation,
        })
    }

    /// The game.
    pub fn game(&self) -> &Game {
        &self.game
    }

    /// The number of elements.
    pub fn order(&self) -> usize {
        self.table.order()
    }

    /// The product of elements `i` and `j` (element 0 is the identity).
    pub fn mul(&self, i: u16, j: u16) -> u16 {
        self.table.mul(i, j)
    }

    /// The classes of the options of heap `h` ≤ n, ascending, each once.
    pub(crate) fn option_classes(&self, h: u64) -> Vec<u16> {
        let class = |a: u64| self.class_of(a).expect("a part of a heap ≤ n");
        self.table.option_classes(&self.game, h, class)
    }

    /// `x` to the power `exponent`.
    pub fn pow(&self, x: u16, exponent: u64) -> u16 {
        self.table.pow(x, exponent)
    }

    /// The product table, row by row.
    pub fn rows(&self) -> impl Iterator<Item = &[u16]> {
        self.table.rows()
    }

    /// Whether element `e` lies in the P-portion: a sum whose product is
    /// `e` is a misère P-position (the player to move loses).
    pub fn is_p(&self, e: u16) -> bool {
        self.p_portion[e as usize]
    }

    /// The P-portion's elements, ascending.
    pub fn p_portion(&self) -> Vec<u16> {
        (0..self.order() as u16).filter(|&e| self.is_p(e)).collect()
    }

    /// Φ(0), Φ(1), …, Φ(n): each heap's class, n = [`heaps_computed`](Self::heaps_computed).
    pub fn pretending(&self) -> &[u16] {
        &self.pretending
    }

    /// n: the quotient is exact for every sum of heaps ≤ n.
    pub fn heaps_computed(&self) -> u64 {
        self.pretending.len() as u64 - 1
    }

    /// Φ's least period and least preperiod, if proven: Φ(h) = Φ(p + (h − p) mod q)
    /// for every h ≥ p.
    pub fn period(&self) -> Option<Period> {
        self.period
    }

    /// Why the computation stopped.
    pub fn stop(&self) -> Stop {
        self.stop
    }

    /// The elements' names, element 0 (the identity) `1`.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The generators' names and the first heap of each one's class.
    pub fn generators(&self) -> &[(String, u64)] {
        &self.generators
    }

    /// The presentation, ⟨a, b, … | relations⟩.
    pub fn presentation(&self) -> &str {
        &self.presentation
    }

    /// Φ(`heap`): from the table up to n, through the period past it;
    /// `None` past n with no proven period.
    pub fn class_of(&self, heap: u64) -> Option<u16> {
        match usize::try_from(heap)
            .ok()
            .and_then(|h| self.pretending.get(h))
        {
            Some(&class) => Some(class),
            None => self.class_at_residue(heap % self.period?.period),
        }
    }

    /// Φ(h) for every h ≥ p with h mod q = `residue` mod q (`None`
    /// without a proven period).
    pub fn class_at_residue(&self, residue: u64) -> Option<u16> {
        let Period { preperiod, period } = self.period?;
        let offset = (residue % period + period - preperiod % period) % period;
        Some(self.pretending[(preperiod + offset) as usize])
    }

    /// Whether the sum of `heaps` is a misère P-position (`None` if a heap
    /// has no class).
    pub fn is_p_position(&self, heaps: &[u64]) -> Option<bool> {
        let product = heaps
            .iter()
            .try_fold(0, |product, &h| Some(self.mul(product, self.class_of(h)?)))?;
        Some(self.is_p(product))
    }

    /// The quotient's heap classes as a value sequence (Φ in place of
    /// Grundy values), for the residue and move machinery of
    /// [`crate::games`].
    pub fn as_sequence(&self) -> crate::games::Sequence {
        crate::games::Sequence::from_parts(self.game.clone(), self.pretending.clone(), self.period)
    }
}

/// Adds heaps to `build` until a period is proven, `max_heap` heaps are
/// in, or a heap is refused. A heap that extends the quotient can change
/// the classes of the smaller heaps, and the period search starts again
/// (from `fresh`).
fn extend_until(
    build: &mut Build,
    fresh: PeriodSearch,
    max_heap: u64,
    work: &mut u64,
) -> (Stop, Option<Period>) {
    let mut search = fresh.clone();
    while build.heaps() < max_heap {
        match build.push(MAX_ORDER, MAX_PROOF_STATES, work) {
            Ok(Added::ByOptions) => {}
            Ok(Added::Extended) => search = fresh.clone(),
            Err(blocked) => {
                let stop = match blocked {
                    Blocked::Unproven => Stop::Unproven,
                    Blocked::Candidate => Stop::Candidate,
                    Blocked::States => Stop::ProofStates,
                    Blocked::Order => Stop::Order,
                    Blocked::Work => Stop::Work,
                };
                return (stop, None);
            }
        }
        if search.is_due(build.pretending.len() as u64) || build.heaps() == max_heap {
            if let Some(found) = search.check(&build.pretending) {
                return (Stop::Proven, Some(found));
            }
        }
    }
    (Stop::MaxHeap, None)
}
