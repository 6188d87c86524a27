//! The analysis: the rules of the game over the heaps that the driver
//! (`input/driver`) reads and pushes into folds, and the facts the report
//! is built from. One entry ([`analyze`](entry::analyze)) picks the
//! pipeline by the game and the rule:
//!
//! - `nim/`: Nim under either rule (SPEC section 1): one pass, or windowed
//!   passes under a small budget, then the move;
//! - `game/`: another heap game under normal play (SPEC section 8): one
//!   pass of Grundy values, then the move;
//! - `misere/`: another heap game under misère play (SPEC section 12): one
//!   pass counting the heaps of each kind of the game's misère quotient,
//!   then the move.
//!
//! What the pipelines share stands at the top: the options
//! (`options.rs`), the working-memory budget and everything a run reads off
//! it (`budget.rs`), the rules (`rules.rs`), the survey every pass takes
//! (`survey.rs`), the block loops over raw arrays and short heaps that the
//! folds count with (`raw_arrays.rs`), and the facts (`facts.rs`). The
//! sharded runs (`sharded/`) run the same folds over one byte range of a
//! file, and conclude from the merged ranges with the same code.

pub(crate) mod budget;
pub(crate) mod entry;
pub(crate) mod facts;
pub(crate) mod game;
pub(crate) mod misere;
pub(crate) mod nim;
pub(crate) mod options;
pub(crate) mod raw_arrays;
pub(crate) mod rules;
pub(crate) mod survey;

#[cfg(test)]
mod tests;

pub use budget::{parse_byte_size, MemoryBudget};
pub use options::{Options, DEFAULT_MAX_VALUES};
pub use rules::{Player, Rule};
