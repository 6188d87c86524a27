//! Where a partial's heaps are: a [`Mark`] (a heap's index and the line
//! feeds before it, counted from its range's start) and [`Lines`], which
//! the merge shifts by the heaps and line feeds of the ranges before; and
//! the usage error of partials that do not fit together.

use crate::error::Error;
use serde::{Deserialize, Serialize};

/// Line feeds counted over bytes from a range's start.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lines {
    /// How many.
    pub lfs: u64,
    /// The offset of the last one, if any.
    pub last_lf: Option<u64>,
}

impl Lines {
    /// These lines after `earlier`, the lines of the bytes before them.
    pub fn after(self, earlier: Lines) -> Lines {
        Lines {
            lfs: earlier.lfs + self.lfs,
            last_lf: self.last_lf.or(earlier.last_lf),
        }
    }

    /// The 1-based line and column of `offset`, these being the lines
    /// before it from the file's start.
    pub fn line_and_column(self, offset: u64) -> (u64, u64) {
        let line_start = self.last_lf.map_or(0, |lf| lf + 1);
        (self.lfs + 1, offset - line_start + 1)
    }
}

/// A heap of a range: its index from the range's first heap, its first
/// byte, and the line feeds from the range's start up to that byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mark {
    /// 0-based index among the range's heaps.
    pub index: u64,
    /// 0-based offset in the file.
    pub offset: u64,
    /// Line feeds in `[range start, offset)`, and the last of them.
    pub lines: Lines,
}

impl Mark {
    /// The mark as seen from an earlier range start: `heaps` heaps and
    /// `lines` lie between the two.
    pub fn after(self, heaps: u64, lines: Lines) -> Mark {
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
