//! Where the bytes come from: a buffer in memory, a regular file, or a
//! stream (standard input, a pipe, a FIFO), and how each pass reads them.
//!
//! [`Input::open`] is the one place that tells a regular file from a
//! stream, and [`FileInput::reading`] the one place that decides whether a
//! pass over a regular file reads it in pieces cut at heap boundaries or
//! whole ranges in place from its memory map (ripgrep's searcher makes a
//! like decision once, per search). The map is opened the first time a
//! pass asks for it; pieces are read from it too, and with positioned
//! reads only when the file has no map (`--no-mmap`). Regular files
//! carry a [`Stamp`](file_changes::Stamp) so that a change while they are read is an error,
//! never a wrong report (see [`file_changes`]). Where an offset
//! lies in lines is looked up in `line_lookup`.
//!
//! The rooms: an input (`input.rs`) and a regular file (`file.rs`), the
//! format an input is in (`detect.rs`), a file's changes
//! (`file_changes.rs`), its map's pages released behind a pass
//! (`page_release.rs`), where an offset lies in lines (`line_lookup.rs`),
//! and the flag that stops the reads (`cancel.rs`).

pub mod cancel;
pub(crate) mod detect;
pub(crate) mod file;
pub(crate) mod file_changes;
pub(crate) mod input;
mod line_lookup;
pub(crate) mod page_release;
mod pipe;

pub(crate) use file::FileInput;
pub(crate) use input::{fill, InPlace, Input, InputBytes, RandomAccess, STDIN_NAME};
