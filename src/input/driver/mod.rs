//! The driver: reads an input in pieces cut at heap boundaries and pushes
//! its heaps, in file order, into a `Fold` (`fold.rs`). Every pass of
//! every analysis goes through `run` (`run.rs`).
//!
//! One function reads each kind of source:
//!
//! - bytes in memory or a memory map (`Reading::Mapped`), in place: the
//!   scanner runs over the range itself, and a map's pages are released
//!   behind the pass (and inside long heaps, step by step);
//! - a regular file read in pieces (`Reading::Positioned`): pieces of a
//!   fixed size cut at heap boundaries, in place from the map up to the
//!   first heap longer than a piece (or, from there and with no map, with
//!   positioned reads into a buffer); a `bits` or `hex` token longer than
//!   a piece is read into the buffer in pieces, and any other
//!   heap too long to buffer is read in place from the map (or, with no
//!   map, into a buffer that grows to hold it);
//! - a stream: chunks cut at heap boundaries, the unused tail carried to
//!   the next read, lines counted as the chunks go by.
//!
//! Work is split across threads in one place (`ranges.rs`): a source that can
//! be read at any offset is cut into ranges that start on heap boundaries,
//! one fold per range, and the folds merge in file order (`Fold::merge`),
//! which is what lets threads (and later machines) share a pass. The
//! earliest error wins.
//!
//! The rooms: what a fold is (`fold.rs`) and a pass (`pass.rs`), the
//! passes (`run.rs`), the ranges and the reading of each
//! (`ranges.rs`: in place, `in_place.rs`; in pieces,
//! `positioned.rs`, and long tokens from their end, `from_end.rs`), a
//! stream (`stream.rs`), the loop over a piece's heaps (`heap_loop.rs`),
//! one heap read again (`reread.rs`), the span of a sharded run's range
//! (`span.rs`), and how far the passes have read (`progress.rs`).

pub(crate) mod fold;
mod from_end;
mod heap_loop;
mod in_place;
pub(crate) mod pass;
mod positioned;
pub(crate) mod progress;
mod ranges;
pub(crate) mod reread;
pub(crate) mod run;
mod span;
mod stream;
#[cfg(test)]
mod tests;

pub(crate) use fold::{each_element, each_word, narrow_runs, At, Fold, Needs};
pub(crate) use pass::{Folded, Reads};
pub(crate) use reread::{byte_at, heap_at, Reread};
pub(crate) use run::{run, run_random, run_span, SpanError};
pub(crate) use span::span_of;
