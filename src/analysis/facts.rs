//! What an analysis found, as numbers: the facts the report is built
//! from ([`crate::report::Report`] renders them as JSON or text).

use super::rules::Player;
use super::survey::Survey;
use crate::games::Period;
use crate::input::driver::Folded;
use crate::input::HeapValue;
use crate::working_memory::outside_working_memory;

/// A number of any size: its bit length, and its limbs when it is short
/// enough to be written into the report (`--inline-bits`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Number {
    /// Number of bits (0 for zero).
    pub bit_length: u64,
    /// Little-endian limbs, `bit_length.div_ceil(64)` of them, when the
    /// bit length is at most the inline bits.
    pub limbs: Option<Vec<u64>>,
}

impl Number {
    /// A number of `bit_length` bits whose low limbs are `limbs` (at
    /// least as many as it has, when it is at most `inline_bits` long).
    /// The copy kept is output, the size the user asked for with
    /// `--inline-bits`, not working memory of the analysis.
    pub fn new(bit_length: u64, limbs: &[u64], inline_bits: u64) -> Number {
        let inline = bit_length <= inline_bits;
        let used = bit_length.div_ceil(64) as usize;
        Number {
            bit_length,
            limbs: inline.then(|| outside_working_memory(|| limbs[..used].to_vec())),
        }
    }

    /// A number of `bit_length` bits, its limbs unknown (too long to
    /// write out).
    pub fn long(bit_length: u64) -> Number {
        Number {
            bit_length,
            limbs: None,
        }
    }

    /// A heap's value, its limbs read only when they are written out.
    pub fn of_heap(value: &HeapValue<'_>, inline_bits: u64) -> Number {
        let bit_length = value.bit_length();
        match bit_length <= inline_bits {
            true => {
                outside_working_memory(|| Number::new(bit_length, &value.to_limbs(), inline_bits))
            }
            false => Number::long(bit_length),
        }
    }
}

/// The winning move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveFacts {
    /// 0-based heap index.
    pub heap: u64,
    /// 0-based offset of the heap's first byte.
    pub offset: u64,
    /// 1-based line of that byte (text formats only).
    pub line: Option<u64>,
    /// The heap's value.
    pub from: Number,
    /// The value to leave on the heap.
    pub to: Number,
    /// The number of tokens taken.
    pub remove: Number,
}

/// The winning move of a game other than Nim (SPEC section 8): `take`
/// tokens from a heap, leaving 0 to 2 heaps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameMoveFacts {
    /// 0-based heap index.
    pub heap: u64,
    /// 0-based offset of the heap's first byte.
    pub offset: u64,
    /// 1-based line of that byte (text formats only).
    pub line: Option<u64>,
    /// The heap's value.
    pub from: Number,
    /// Its Grundy value.
    pub from_grundy: u16,
    /// The tokens taken.
    pub take: u64,
    /// The non-empty heaps left, the smaller first.
    pub leave: Vec<Number>,
    /// The Grundy value of what is left.
    pub to_grundy: u16,
}

/// What an analysis under a game other than Nim found besides the survey
/// and the winner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameFacts {
    /// The game, canonical.
    pub game: String,
    /// The proven period of its values, if any.
    pub period: Option<Period>,
    /// How many values were computed.
    pub values_computed: u64,
    /// The XOR of the heaps' Grundy values.
    pub grundy_sum: u16,
    /// The deterministic winning move.
    pub winning_move: Option<GameMoveFacts>,
}

/// What an analysis under misère play of a game other than Nim found
/// besides the survey and the winner.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MisereFacts {
    /// The game, canonical.
    pub game: String,
    /// The quotient's order.
    pub order: usize,
    /// The pretending function's proven period, if any.
    pub period: Option<Period>,
    /// n: the quotient is exact for every sum of heaps ≤ n (and of every
    /// heap, with a period).
    pub heaps_computed: u64,
    /// The sum's product: the name of its class.
    pub product: String,
    /// The deterministic winning move.
    pub winning_move: Option<MisereMoveFacts>,
    /// Whether no heap has a move: the player to move wins by having none
    /// (and there is no move to report).
    pub stuck: bool,
}

/// The winning move under misère play: `take` tokens from a heap,
/// leaving 0 to 2 heaps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MisereMoveFacts {
    /// 0-based heap index.
    pub heap: u64,
    /// 0-based offset of the heap's first byte.
    pub offset: u64,
    /// 1-based line of that byte (text formats only).
    pub line: Option<u64>,
    /// The heap's value.
    pub from: Number,
    /// The tokens taken.
    pub take: u64,
    /// The non-empty heaps left, the smaller first.
    pub leave: Vec<Number>,
    /// The name of the sum's product after the move.
    pub to_product: String,
}

/// What the analysis cost, measured (the report's `stats`).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct Stats {
    /// Passes over the input.
    pub passes: u64,
    /// Bytes read, every read of the input together (passes, heaps read
    /// again, lines counted).
    pub bytes_scanned: u64,
    /// Peak bytes allocated by the analysis (counting allocator).
    pub working_memory_bytes: u64,
    /// Worker threads used: the most ranges a pass read at once.
    pub threads: u64,
    /// Wall-clock time.
    pub seconds: f64,
    /// Bits of nim-sum one pass computes (the `--memory` window); heaps
    /// no longer than this need no extra passes, which is always the case
    /// for unary and raw arrays (at most 64 bits a heap).
    pub window_bits: u64,
}

impl Stats {
    /// Counts a pass.
    pub(crate) fn count_pass<F>(&mut self, folded: &Folded<F>) {
        self.passes += 1;
        self.bytes_scanned += folded.bytes_read;
        self.threads = self.threads.max(folded.ranges as u64);
    }
}

/// Everything an analysis found (SPEC sections 1 and 3).
#[derive(Clone, Debug, PartialEq)]
pub struct Facts {
    /// Counts and landmarks of the heaps.
    pub survey: Survey,
    /// The nim-sum (`None` when `--decide` stopped before it was known).
    pub nim_sum: Option<Number>,
    /// The nim-sum's highest set bit.
    pub msb: Option<u64>,
    /// Who wins with perfect play.
    pub winner: Player,
    /// How many heaps admit a winning move (`None` when unknown).
    pub winning_moves: Option<u64>,
    /// The deterministic winning move.
    pub winning_move: Option<MoveFacts>,
    /// What a game other than Nim found under normal play (`None` for
    /// Nim).
    pub game: Option<GameFacts>,
    /// What a game other than Nim found under misère play.
    pub misere: Option<MisereFacts>,
    /// What it cost.
    pub stats: Stats,
}
