//! nimstream decides and solves the game of Nim on instances of any size,
//! following C. Calabro, "The complexity of nim" (2006): who wins, and a
//! winning move, from one streaming pass and bounded working memory.
//!
//! The data flows file → [`input`] (the sources, one scanner per format,
//! and the driver that pushes heaps into folds) → `nimsum` (limb
//! arithmetic) → `analysis` (the folds, the rules, the move) →
//! [`report`](mod@report) (JSON and human text). [`analyze_path`], [`analyze_bytes`]
//! and [`analyze_reader`] run the whole way and return a [`Report`].
//! Their hot loops run on the SIMD kernels of `arch`, picked once per
//! process from the CPU's features (the environment variable
//! `NIMSTREAM_SIMD` caps them: `portable`, `avx2` or `avx512`; the library
//! ignores any other value).
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
//!
//! The same under a heap game other than Nim (SPEC section 8): Kayles,
//! where heaps 3, 4, 5 have the Grundy values 3, 1, 4.
//!
//! ```
//! use nimstream::{analyze_bytes, games::Game, Format, Options, Player};
//!
//! let options = Options { game: "kayles".parse::<Game>()?, ..Options::default() };
//! let report = analyze_bytes(b"3 4 5\n", Format::Dec, "example", &options)?;
//! assert_eq!((report.grundy_sum, report.winner), (Some(6), Player::First));
//! let winning = report.game_move.expect("a winning move");
//! // Knock one pin out of the row of 5, leaving rows of 1 and 3.
//! assert_eq!((winning.heap, winning.take, winning.leave.len()), (2, 1, 2));
//! # Ok::<(), nimstream::Error>(())
//! ```
//!
//! The public modules:
//!
//! - [`report`](mod@report): the [`Report`] (serde, JSON schema 1) and [`report::human`],
//!   its text for people.
//! - [`error`]: the one [`Error`], and the scanners' [`error::ParseError`].
//! - [`input`]: the formats ([`Format`]) and one scanner per format.
//! - [`games`]: heap games beyond Nim (subtraction and octal games), their
//!   Grundy value sequences with proven periods, the residues of heaps of
//!   any length, and their moves.
//! - [`graph`]: game graphs, cycles included: every node's generalized
//!   Sprague–Grundy value, and sums of tokens decided (win, loss or draw).
//! - [`sharded`]: sharded runs (Apache Spark, a cluster): a byte range's
//!   partial summary, and the merge of partials into the report.
//! - [`updates`]: live updates (SPEC section 10): a [`updates::Position`]
//!   read once from a file, then kept up to date as heaps are set anew.
//! - [`workbench`]: the tools around the analysis: generating instances,
//!   converting them, checking the analyzer against exhaustive search,
//!   playing games out, measuring growth.
//! - [`output`]: output files that appear whole or not at all.
//! - [`working_memory`]: the counting allocator that measures working
//!   memory, for a program to install.
//!
//! The `nimstream` binary is a thin layer over these; its command line
//! lives in the binary, not here.
#![deny(missing_docs)]

mod analysis;
/// Public only for the crate's benchmarks and fuzz targets, not a stable
/// interface.
#[doc(hidden)]
pub mod arch;
#[doc(hidden)]
pub mod cli;
pub mod error;
pub mod games;
pub mod graph;
#[doc(hidden)]
pub mod input;
mod nimsum;
pub mod output;
pub mod report;
pub mod sharded;
pub mod updates;
pub mod workbench;
pub mod working_memory;

pub use analysis::nim::held::{HeldHeaps, Reads};
pub use analysis::{parse_byte_size, MemoryBudget, Options, Player, Rule, DEFAULT_MAX_VALUES};
pub use error::Error;
pub use input::source::cancel::Cancel;
pub use input::Format;
pub use report::Report;

use input::source::Input;
use report::InputInfo;
use std::io::Read;
use std::path::Path;

/// Analyzes the file at `path` (`-` reads standard input, which needs
/// `options.format`).
///
/// ```
/// use nimstream::{analyze_path, Options, Player};
/// let report = analyze_path("fixtures/three-four-five.dec".as_ref(), &Options::default())?;
/// assert_eq!(report.winner, Player::First);
/// assert_eq!(report.winning_move.unwrap().heap, 0);
/// # Ok::<(), nimstream::Error>(())
/// ```
pub fn analyze_path(path: &Path, options: &Options) -> Result<Report, Error> {
    let name = path.display().to_string();
    let format = input::format_of(path, &name, options.format, "--format")?;
    let mut input = Input::open(path, &name, !options.no_mmap)?.with_cancel(options.cancel.clone());
    report(&mut input, format, name, options)
}

/// Analyzes an instance held in memory; `name` stands for its path.
///
/// ```
/// use nimstream::{analyze_bytes, Format, Options, Player, Rule};
/// let options = Options { rule: Rule::Misere, ..Options::default() };
/// let report = analyze_bytes(b"1 1", Format::Dec, "pair", &options)?;
/// assert_eq!(report.winner, Player::First);
/// # Ok::<(), nimstream::Error>(())
/// ```
pub fn analyze_bytes(
    data: &[u8],
    format: Format,
    name: &str,
    options: &Options,
) -> Result<Report, Error> {
    let mut input = Input::memory(data, name).with_cancel(options.cancel.clone());
    report(&mut input, format, name.to_string(), options)
}

/// Analyzes a stream in one pass; `name` stands for its path (`-` for
/// standard input, named `<stdin>` in errors). Every heap must fit in one
/// `--memory` window.
///
/// ```
/// use nimstream::{analyze_reader, Format, Options};
/// let mut stream = &b"11 100 101\n"[..];
/// let report = analyze_reader(&mut stream, Format::Bits, "-", &Options::default())?;
/// assert_eq!(report.nim_sum.unwrap().dec.as_deref(), Some("2"));
/// # Ok::<(), nimstream::Error>(())
/// ```
pub fn analyze_reader(
    reader: &mut dyn Read,
    format: Format,
    name: &str,
    options: &Options,
) -> Result<Report, Error> {
    let mut input = Input::stream(Box::new(reader), name).with_cancel(options.cancel.clone());
    report(&mut input, format, name.to_string(), options)
}

/// Analyzes heaps held in memory as digits, read where they lie (the
/// Python package's lists of ints), as Nim under the rule of `options`;
/// `name` stands for their path. The report is the one of the heaps'
/// `nimb` encoding (offsets and size are the records'), found in two
/// passes over the heaps: the nim-sum, then the holders of its msb.
///
/// ```
/// use nimstream::{analyze_held, Error, HeldHeaps, Options, Reads};
///
/// /// Heaps as base-2^30 digits, as CPython holds its ints.
/// struct Ints(Vec<Vec<u32>>);
///
/// impl HeldHeaps for Ints {
///     type Error = Error;
///     fn digit_bits(&self) -> u32 {
///         30
///     }
///     fn each(&mut self, _: Reads, mut visit: impl FnMut(&[u32])) -> Result<(), Error> {
///         self.0.iter().for_each(|digits| visit(digits));
///         Ok(())
///     }
/// }
///
/// // 3, 4 and 2^30 + 5: the nim-sum is 2^30 + 2, and the move is on 2^30 + 5.
/// let mut heaps = Ints(vec![vec![3], vec![4], vec![5, 1]]);
/// let report = analyze_held(&mut heaps, "ints", &Options::default())?;
/// assert_eq!(report.nim_sum.unwrap().dec.as_deref(), Some("1073741826"));
/// assert_eq!(report.winning_move.unwrap().heap, 2);
/// # Ok::<(), Error>(())
/// ```
pub fn analyze_held<H: HeldHeaps>(
    heaps: &mut H,
    name: &str,
    options: &Options,
) -> Result<Report, H::Error> {
    let (facts, bytes) = analysis::nim::held::analyze_held(heaps, options)?;
    let info = InputInfo {
        path: name.to_string(),
        format: Format::Nimb,
        bytes,
    };
    Ok(Report::new(facts, info, options.rule))
}

/// Runs the analysis and builds its report; `path` is the input as named
/// on the command line.
fn report(
    input: &mut Input<'_>,
    format: Format,
    path: String,
    options: &Options,
) -> Result<Report, Error> {
    let facts = analysis::entry::analyze(input, format, options)?;
    let bytes = input.size().unwrap_or(facts.stats.bytes_scanned);
    let info = InputInfo {
        path,
        format,
        bytes,
    };
    Ok(Report::new(facts, info, options.rule))
}
