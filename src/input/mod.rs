//! Reading instances: where the bytes come from, one scanner per format,
//! and the driver that reads an input in pieces and pushes its heaps into
//! the analysis's folds.
//!
//! - the core types: a heap and its value (`heap.rs`), what every format's
//!   reader is (`scanner.rs`), the blocks of heaps a fold takes whole
//!   (`blocks.rs`), a short `hex` token's packed digits (`packed.rs`), the
//!   formats' names (`format.rs`), line numbers (`lines.rs`);
//! - `formats/`: one scanner per format, each a
//!   [`HeapScanner`] over a byte slice, and the
//!   [`Scanner`] for any of them;
//! - `long/`: tokens longer than a read, taken in pieces or read from
//!   their end;
//! - `source/`: where the bytes come from (a buffer, a regular file read
//!   with `pread` or through its map, a pipe), and everything about a
//!   source: its changes, its map's pages, its lines, a flag that stops
//!   its reads;
//! - `driver/`: the one read path: it reads an input in pieces cut at heap
//!   boundaries, on threads, and pushes the heaps into a
//!   `Fold`.
//!
//! This file only declares the rooms and hands their names on.

pub(crate) mod blocks;
pub(crate) mod driver;
pub(crate) mod format;
pub(crate) mod formats;
pub(crate) mod heap;
pub(crate) mod lines;
pub(crate) mod long;
pub(crate) mod packed;
pub(crate) mod scanner;
pub(crate) mod source;

pub(crate) use blocks::RawBlock;
pub use blocks::{WordBlock, WordBuffer, WORDS_PER_BLOCK};
pub use format::{Format, NIMB_HEADER};
pub use formats::any::Scanner;
pub use heap::{Heap, HeapPos, HeapValue};
pub use packed::{PackedDigits, TokenScratch};
pub use scanner::{HeapScanner, ScanVisitor};

pub(crate) use formats::dec::digits::{parse8, parse_prefix, POWERS_OF_TEN};
pub(crate) use formats::token::is_space;
pub(crate) use heap::trimmed;
pub(crate) use long::from_end::SummedHeap;
pub(crate) use long::pieces::{LongHeap, LongTail, LongToken};
pub(crate) use packed::shifted_limb;
pub(crate) use source::detect::format_of;
pub(crate) use source::page_release::PageReleaser;
