//! What one pass is, whatever reads it: how it reads ([`Reads`], the
//! sizes the memory budget allows), what it gives back ([`Folded`]), and
//! why the reading of a range stops ([`Stop`], [`Located`]).

use crate::error::{Error, ParseError};
use crate::input::format::Format;
use crate::input::source::Input;

/// The alignment the read buffers keep: a cache line.
pub(super) const LINE: usize = 64;

/// How a pass reads its input: the sizes the memory budget allows.
#[derive(Clone, Copy, Debug)]
pub struct Reads {
    /// Ranges read at once, each on a thread (inputs read at any offset).
    pub ranges: usize,
    /// A range shorter than this is not worth a thread of its own.
    pub min_range_bytes: u64,
    /// Bytes per positioned read (or piece read in place from the map).
    pub read_bytes: usize,
    /// Bytes a range reads in place from the map between releases of
    /// their pages.
    pub release_bytes: usize,
    /// A heap of more text than this is not buffered in a positioned
    /// pass: a `bits` or `hex` token is read in pieces, any other heap in
    /// place from the map.
    pub max_buffered_heap_bytes: usize,
    /// The most memory a token read in pieces may pack into; a longer one
    /// is read in place from the map.
    pub max_packed_bytes: usize,
    /// The first size of a stream's read buffer (it grows to hold a heap).
    pub stream_chunk_bytes: usize,
    /// Whether the pass needs heaps of any length without holding them
    /// (see [`crate::input::source::FileInput::reading`]).
    pub heaps_in_place: bool,
}

/// A pass's merged fold and what it cost.
pub struct Folded<F> {
    /// The folds of every range, merged.
    pub fold: F,
    /// Bytes read from the input.
    pub bytes_read: u64,
    /// Ranges read at once.
    pub ranges: usize,
    /// Heaps read.
    pub heaps: u64,
}

/// Why the reading of a range stopped early.
pub(super) enum Stop {
    /// A malformed byte.
    Parse(ParseError),
    /// The fold or a read failed.
    Failed(Error),
    /// The fold needs nothing more.
    Done,
}

impl From<ParseError> for Stop {
    fn from(error: ParseError) -> Stop {
        Stop::Parse(error)
    }
}

impl From<Error> for Stop {
    fn from(error: Error) -> Stop {
        Stop::Failed(error)
    }
}

/// One range's fold, heap count and bytes read.
pub(super) type RangeRun<F> = (F, u64, u64);

/// An error of a range or a stream, before the input's name (and, when
/// the reader did not count lines, the line) is attached.
pub(super) enum Located {
    /// A malformed byte; its line and column when the reader counted them.
    Parse(ParseError, Option<(u64, u64)>),
    /// A failed read of a stream.
    Io(std::io::Error),
    /// Anything else, complete.
    Failed(Error),
}

impl Located {
    pub(super) fn into_error(self, input: &Input<'_>, format: Format) -> Error {
        match self {
            Located::Parse(error, line_col) => {
                input.error_at(format, error.offset, error.message, line_col)
            }
            Located::Io(error) => Error::io(input.name(), error),
            Located::Failed(error) => error,
        }
    }
}
