//! The workbench: the tools around the analysis, which make instances,
//! check the analyzer's answers and measure its costs, but never decide a
//! game on a large input themselves.
//!
//! - [`gen`] generates instances: random heaps in any format, streamed,
//!   the same bytes for the same seed, with a nim-sum summed up
//!   independently of the analyzer.
//! - [`convert`] rewrites an instance in another format: the same heaps,
//!   in order.
//! - [`encode`] holds the format writers that `gen` and `convert` share.
//! - [`verify`] checks the analyzer against exhaustive game-tree search on
//!   every small instance, and computes the mex table of x ∘ y without XOR.
//! - [`grundy`] shows a heap game's value sequence, its period and the
//!   value of heaps of any length, as text, CSV, JSON and a plot.
//! - [`verify_game`] does the same under a heap game other than Nim.
//! - [`grundy_misere`] shows a heap game's misère quotient.
//! - [`game_tree`] decides sums of heaps of a game by exhaustive search
//!   under either rule, the reference `verify --game` and the misère
//!   quotients are checked against.
//! - [`misere_check`] checks a misère quotient by that search: its
//!   elements told apart (a lower bound on the order) and every small sum.
//! - `play` plays a game out move by move between two strategies.
//! - `complexity` measures how time and working memory grow with the
//!   input, in child processes of the binary.
//!
//! The workbench stands on the crate's entry points
//! ([`analyze_bytes`](crate::analyze_bytes)) and the input scanners, as a
//! library user would. Nothing below it imports from it, except the
//! analysis's tests, which write their instances with [`encode`].

pub(crate) mod complexity;
pub mod convert;
pub mod encode;
#[doc(hidden)]
pub mod game_tree;
pub mod gen;
pub mod grundy;
pub mod grundy_misere;
#[doc(hidden)]
pub mod misere_check;
pub(crate) mod play;
#[doc(hidden)]
pub mod verify;
#[doc(hidden)]
pub mod verify_game;
