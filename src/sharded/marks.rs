//! Where a partial's heaps are: a [`Mark`] (a heap's index and the line
//! feeds before it, counted from its range's start) and [`Lines`], which
//! the merge shifts by the heaps and line feeds of the ranges before; and
//! the usage error of partials that do not fit together.

use crate::error::Error;
use serde::{Deserialize, Serialize};

/// Line feeds counted over bytes from a range's start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Lines {
    /// How many.
    pub(crate) lfs: u64,
    /// The offset of the last one, if any.
    pub(crate) last_lf: Option<u64>,
}

impl Lines {
    /// These lines after `earlier`, the lines of the bytes before them.
    pub(crate) fn after(self, earlier: Lines) -> Lines {
        Lines {
            lfs: earlier.lfs + self.lfs,
            last_lf: self.last_lf.or(earlier.last_lf),
        }
    }

    /// The 1-based line and column of `offset`, these being the lines
    /// before it from the file's start.
    pub(crate) fn line_and_column(self, offset: u64) -> (u64, u64) {
        let line_start = self.last_lf.map_or(0, |lf| lf + 1);
        (self.lfs + 1, offset - line_start + 1)
    }
}

/// A heap of a range: its index from the range's first heap, its first
/// byte, and the line feeds from the range's start up to that byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Mark {
    /// 0-based index among the range's heaps.
    pub(crate) index: u64,
    /// 0-based offset in the file.
    pub(crate) offset: u64,
    /// Line feeds in `[range start, offset)`, and the last of them.
    pub(crate) lines: Lines,
}

impl Mark {
    /// The mark as seen from an earlier range start: `heaps` heaps and
    /// `lines` lie between the two.
    pub(crate) fn after(self, heaps: u64, lines: Lines) -> Mark {
        Mark {
            index: self.index + heaps,
            offset: self.offset,
            lines: self.lines.after(lines),
        }
    }
}

/// A usage error about partials that cannot be merged.
pub(super) fn mismatch(what: String) -> Error {
    Error::Usage(format!("cannot merge these partials: {what}"))
}
