//! nimstream decides and solves the game of Nim on instances of any size,
//! following C. Calabro, "The complexity of nim" (2006): who wins, and a
//! winning move, from one streaming pass and bounded working memory.
//!
//! The data flows file → [`input`] (one scanner per format) → [`nimsum`]
//! (the window accumulator) → [`analysis`] (survey, passes, the rules) →
//! [`report`] (JSON and human text). Their hot loops run on the SIMD
//! kernels of `arch`, picked once per process from the CPU's features
//! (the environment variable `NIMSTREAM_SIMD` caps them: `portable`,
//! `avx2` or `avx512`; the library ignores any other value).
//!
//! ```
//! use nimstream::{analyze_bytes, Format, Options, Player};
//!
//! // Heaps 3, 4, 5: the nim-sum is 2, and taking 2 from the first heap wins.
//! let report = analyze_bytes(b"3 4 5\n", Format::Dec, "example", &Options::default())?;
//! assert_eq!(report.winner, Player::First);
//! let winning = report.winning_move.expect("a winning move");
//! assert_eq!((winning.heap, winning.to.dec.as_deref()), (0, Some("1")));
//! # Ok::<(), nimstream::Error>(())
//! ```
#![deny(missing_docs)]

pub mod analysis;
/// Public only for the crate's benchmarks and fuzz targets, not a stable
/// interface.
#[doc(hidden)]
pub mod arch;
pub mod cli;
pub mod complexity;
pub mod convert;
pub mod encode;
pub mod error;
pub mod gen;
pub mod input;
pub mod memory;
pub mod nimsum;
pub mod output;
pub mod play;
pub mod report;
pub mod verify;

pub use analysis::{
    analyze_bytes, analyze_path, analyze_reader, MemoryBudget, Options, Player, Rule,
};
pub use error::Error;
pub use input::Format;
pub use report::Report;
