//! Where the bytes come from: a memory map for regular files, streaming
//! reads for everything else (standard input, pipes, FIFOs).
//!
//! Mapping is decided here and nowhere else. A mapped file can be read in
//! several passes; a stream only once.

use crate::error::Error;
use memmap2::{Advice, Mmap};
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
