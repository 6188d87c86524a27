//! Where the bytes come from: a memory map for regular files, streaming
//! reads for everything else (standard input, pipes, FIFOs).
//!
//! Mapping is decided here and nowhere else. A mapped file can be read in
//! several passes; a stream only once.

use crate::error::Error;
use memmap2::{Advice, Mmap, UncheckedAdvice};
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// An opened input.
pub enum Source {
    /// A regular file, mapped read-only.
    Mapped(Mmap),
    /// An empty regular file (which cannot be mapped).
    Empty,
    /// Anything that can only be read front to back.
    Stream(Box<dyn Read>),
}

/// Opens `path` (named `display` in errors): maps a regular file, streams
/// anything else, and refuses a directory.
pub fn open(path: &Path, display: &str) -> Result<Source, Error> {
    let file = File::open(path).map_err(|e| Error::io(display, e))?;
    let metadata = file.metadata().map_err(|e| Error::io(display, e))?;
    if metadata.is_dir() {
        return Err(Error::io(
            display,
            std::io::Error::other("is a directory, not an input file"),
        ));
    }
    if !metadata.is_file() {
        return Ok(Source::Stream(Box::new(file)));
    }
    if metadata.len() == 0 {
        return Ok(Source::Empty);
    }
    // SAFETY: the map is read-only and private to this process. Another
    // process may still truncate or rewrite the file while it is mapped;
    // the worst outcome is a SIGBUS or changed bytes, never memory unsafety
    // in safe code that only reads `&[u8]` without keeping references past
    // the map's lifetime.
    match unsafe { Mmap::map(&file) } {
        Ok(map) => {
            // Sequential access lets the kernel read ahead; a failure here
            // only costs speed.
            let _ = map.advise(Advice::Sequential);
            Ok(Source::Mapped(map))
        }
        Err(_) => Ok(Source::Stream(Box::new(file))),
    }
}

/// Reads the first bytes of `path` (up to `len`), for magic detection.
pub fn peek(path: &Path, display: &str, len: usize) -> Result<Vec<u8>, Error> {
    let mut file = File::open(path).map_err(|e| Error::io(display, e))?;
    let mut head = Vec::with_capacity(len);
    (&mut file)
        .take(len as u64)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(display, e))?;
    Ok(head)
}

/// Pages are released in steps of this many bytes as a pass moves on.
pub const RELEASE_STEP_BYTES: usize = 8 << 20;

/// Drops the resident pages of `map` in `start..end` (rounded inward to
/// whole pages), so that a pass over a file larger than memory keeps a
/// bounded resident size. The bytes stay readable: touching them again
/// reads them back from the file (or the page cache).
pub fn release_pages(map: &Mmap, start: usize, end: usize) {
    const PAGE: usize = 4096;
    let first = start.div_ceil(PAGE) * PAGE;
    let last = (end.min(map.len()) / PAGE) * PAGE;
    if last <= first {
        return;
    }
    // SAFETY: the map is a read-only file mapping that this process never
    // writes, so MADV_DONTNEED only drops clean pages: a later read faults
    // them back in from the file with the same contents, and every `&[u8]`
    // into the map stays valid. The range lies inside the map. A failure
    // only means the pages stay resident.
    let _ = unsafe { map.unchecked_advise_range(UncheckedAdvice::DontNeed, first, last - first) };
}
