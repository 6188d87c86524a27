//! How far the passes of this process have read, for a progress display
//! (the binary's bar on a terminal): the bytes read so far, the passes
//! started, and the bytes the analysis expects to read in all.
//!
//! The counters are process-wide atomics, so that the driver's threads add
//! to them without a handle passed through every pass; concurrent
//! analyses in one process add up. They are updated once a read (a
//! positioned read's buffer, a stream's chunk, a range read in place), a
//! relaxed add per 128 KiB or more, which costs nothing measurable.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

static BYTES_READ: AtomicU64 = AtomicU64::new(0);
static PASSES: AtomicU64 = AtomicU64::new(0);
static BYTES_PLANNED: AtomicU64 = AtomicU64::new(0);

/// The counters at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// Bytes read by every pass so far.
    pub bytes_read: u64,
    /// Passes started.
    pub passes: u64,
    /// Bytes the analysis expects to read in all (0 when it cannot tell,
    /// as on a stream); it grows when a pass shows more passes are needed.
    pub bytes_planned: u64,
}

/// The counters now.
pub fn progress() -> Progress {
    Progress {
        bytes_read: BYTES_READ.load(Relaxed),
        passes: PASSES.load(Relaxed),
        bytes_planned: BYTES_PLANNED.load(Relaxed),
    }
}

/// Counts `bytes` read.
pub(crate) fn read(bytes: u64) {
    BYTES_READ.fetch_add(bytes, Relaxed);
}

/// Counts a pass started.
pub(crate) fn pass_started() {
    PASSES.fetch_add(1, Relaxed);
}

/// Expects `bytes` more to be read.
pub(crate) fn plan(bytes: u64) {
    BYTES_PLANNED.fetch_add(bytes, Relaxed);
}
