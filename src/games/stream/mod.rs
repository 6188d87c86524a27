//! Value sequences past memory (SPEC section 13): a game's values computed
//! as a stream, each proven exactly, in bounded memory.
//!
//! The proof of a value (`rare_common`) reads three things: the single
//! moves' values, at most k heaps back; the rare heaps' splits, whose
//! larger parts lie as far back as the last rare heap; and the walk of the
//! splits with two common parts, a = 1, 2, …, which reads g(a) from the
//! start of the sequence and g(m − a) from just before the heap, and stops
//! after a few hundred splits. So a run keeps the first P values (the
//! prefix, where the rare heaps of the sparse games lie) and the last R
//! (a ring), and nothing between (`kept.rs`). Every value is proven as in
//! memory: when a proof needs a value that is no longer kept — a walk that
//! runs past both ends, as when the heap's own value is rare and every
//! split must be seen — the run stops, naming the heap, how far back the
//! value lay, and a `--memory` that keeps it ([`Limits::memory_to_keep`]);
//! it never guesses.
//!
//! The rest of a run:
//!
//! - `run.rs`: the [`Streamer`]: the loop, the period search on the last
//!   values (proofs whose run fits in the ring, `period.rs`), the heaps
//!   watched, the [`Outcome`];
//! - `plan.rs`: `--memory` → P and R ([`Limits`]), and back;
//! - `stats.rs`: the counts of each value, the frequencies at each power of
//!   two, the rare values;
//! - `outputs.rs`: the values, CSV and frequencies files ([`Outputs`]);
//! - `checkpoint.rs`: the state saved to a file and read back, so that
//!   a resumed run writes the same bytes as one without a break.
//!
//! ```
//! use nimstream::games::stream::{Control, Limits, Outputs, Settings, Status, Streamer};
//! use nimstream::games::{Game, Sequence};
//!
//! let game: Game = "octal:0.161".parse()?;
//! // Keep 30,000 values at each end: the rare heaps of 0.161 end at 23,784.
//! let limits = Limits { prefix: 30_000, ring: 30_000 };
//! let settings = Settings { max_values: 100_000, limits, watch: vec![99_999], threads: 0 };
//! let mut run = Streamer::new(&game, settings);
//! assert_eq!(run.run(&mut Outputs::none(), &Control::default())?, Status::Done);
//! let outcome = run.into_outcome();
//! assert!(!outcome.all_kept);
//! assert_eq!(outcome.rare.as_ref().unwrap().last_rare_heap, Some(23_784));
//! let in_memory = Sequence::compute(&game, 100_000)?;
//! assert_eq!(outcome.value(99_999), in_memory.value(99_999));
//! # Ok::<(), nimstream::Error>(())
//! ```

mod checkpoint;
mod kept;
mod outputs;
mod plan;
mod run;
mod stats;
#[cfg(test)]
mod tests;

pub use outputs::{OutputPaths, Outputs};
pub use plan::{Limits, MIN_KEPT};
pub use run::{Control, Outcome, Settings, Status, Streamer, MAX_VALUES};
