//! Impartial heap games beyond Nim (SPEC section 8): the games, their
//! Grundy value sequences with proven periods, and the first option of a
//! heap of any size that has a given value; and the sequences computed
//! past memory (SPEC section 13, [`stream`]).
//!
//! The data flows [`Game`] (parsed from `nim`, `sub:S`, `octal:D` or an
//! alias) → [`Sequence::compute`] (the values g(0), g(1), … until a period
//! is proven) → [`first_option`] (the move of a sum, on heaps up to 2^64 and
//! past it by their residue). Each file holds one step:
//!
//! - `game.rs`: the games, their canonical strings and their options;
//! - `sequence.rs`: the value table and what it answers;
//! - `rare_common.rs`: the mex engine, with Winning Ways' rare/common split;
//! - `period.rs`: the search for the least proven period;
//! - `moves.rs`: the first option with a given value;
//! - `residue.rs`: a heap's residue modulo the period, in every encoding,
//!   as its digits stream by, and the parts a move leaves on a huge heap;
//! - [`stream`]: the sequence computed as a stream, keeping a prefix and
//!   the last values, with its outputs and checkpoints.

mod error;
mod game;
pub mod misere;
mod moves;
mod period;
mod rare_common;
#[doc(hidden)]
pub mod residue;
mod sequence;
pub mod stream;
#[cfg(test)]
mod tests;

pub use error::GameError;
pub use game::{Game, HeapOptions, Leave, Move, OctalCode};
pub use moves::{first_option, first_option_where, FoundLeave, FoundMove, HeapSize, PartSize};
pub use sequence::{Period, Sequence};
