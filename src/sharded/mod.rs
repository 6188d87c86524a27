//! Sharded runs (docs/cluster.md): the analysis of a file cut into byte
//! ranges, each analysed on its own (a Spark task, a cluster node), the
//! partial summaries merged into the report `analyze --json` prints for
//! the whole file, `stats` aside.
//!
//! # The protocol
//!
//! 1. **First phase**, per range: [`analyze_range`] (`nimstream analyze
//!    FILE --range START..END --partial`) reads the heaps whose first byte
//!    lies in `[START, END)` (the last one to its end, past `END`) through
//!    the same driver and folds as a whole analysis, and writes a
//!    [`Partial`]: the survey counts, the nim-sum (or the Grundy sum and
//!    the first holder of each of its 16 bits), the line feeds of the
//!    range's bytes, and the earliest bad input of the range as data
//!    (offset, message, line feeds before it) — a range cannot know its
//!    lines, so the merge locates the error as `analyze` would. Every
//!    heap a partial names (a `Mark`) carries its index and line feeds
//!    from the range's start, which the merge shifts.
//! 2. **Merge**: [`merge`] (`nimstream merge PARTIAL…`) appends partials
//!    of adjacent ranges (associative; any order, any tree). Merged over
//!    the whole file it gives the report, or the error of the earliest
//!    bad range (exit 1), or — when Nim's move is played on the first
//!    holder of the msb and the first phase did not find it — the plan of
//!    the second phase ([`Outcome::SecondPhase`]). `merge` prints a plan,
//!    or the partial of part of the file ([`Outcome::Partial`]), with
//!    exit status 3 and a line on standard error that says which.
//! 3. **Second phase** (rare), per range: [`holders_range`] (`analyze
//!    FILE --range … --partial --phase2 PLAN`) counts the heaps holding
//!    the msb and finds the first; `merge PLAN PARTIAL…` then gives the
//!    report.
//!
//! # Why the first phase usually suffices
//!
//! `winning_moves` counts the heaps holding the msb of the *whole* nim-sum,
//! which no range knows: a range may hold that bit an even number of
//! times, its own nim-sum showing nothing. A one-phase protocol would
//! need every range to count the holders of every bit position up to its
//! longest heap (O(bit length × log heaps)). A range's pass already counts
//! the holders of its top `range_passes::TABLE_BITS` bit
//! positions and keeps the first holder of every position (the one pass
//! of `analyze` does, for its move): the partial carries that table
//! (constant size), and the merge keeps the positions every range knows.
//! The msb of a random instance lies near the longest heap's top, so the
//! table holds it and one phase gives the report, with one pass over each
//! range as `analyze` makes. Only when the msb lies more than 128 bits
//! below some range's longest heap does the second phase run, a pass per
//! range. Misère's other moves are on the first heap ≥ 2 or the first
//! 1-heap, which the survey names; a game's move on the first holder of
//! one of 16 bits, which the partial names: one phase.
//!
//! # Costs and limits
//!
//! A partial holds the range's nim-sum (O(its longest heap) bytes) and a
//! constant: the table, two survey marks, 16 game holders, one error. The
//! merge reads one heap of the file (the move's), at the path the
//! partials name, so it runs where the file is (a shared file system).
//! Finding a range's heaps costs a look at the byte before it, its own
//! bytes when it starts inside a token, and the token that crosses its
//! end; a `nimb` range hops through the records before it from the header
//! (see `input/driver/span.rs`). Counting line feeds reads a text range's bytes once
//! more (at memory speed).
//!
//! ```
//! use nimstream::sharded::{analyze_range, merge, Outcome};
//! use nimstream::{analyze_path, Options};
//!
//! // Every one-byte range of a small file, merged: the report of the whole.
//! let path = "fixtures/three-four-five.dec".as_ref();
//! let options = Options::default();
//! let partials = (0..6)
//!     .map(|start| analyze_range(path, start..start + 1, &options))
//!     .collect::<Result<Vec<_>, _>>()?;
//! let Outcome::Report(merged) = merge(partials, &options)? else { unreachable!() };
//! let whole = analyze_path(path, &options)?;
//! assert_eq!(merged.winning_move, whole.winning_move);
//! assert_eq!((merged.heaps, merged.nim_sum), (whole.heaps, whole.nim_sum));
//! # Ok::<(), nimstream::Error>(())
//! ```

mod finish;
mod marks;
mod partial;
mod range_passes;
mod table;
mod whole_file;
mod worker;

pub use finish::{merge, Outcome};
pub use partial::{parse_partials, read_partials, Partial};
pub use worker::{analyze_range, holders_range};
