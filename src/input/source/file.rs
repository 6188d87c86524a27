//! A regular file ([`FileInput`]): read at any offset, with the size and
//! modification time it had when it was opened, and how each pass reads
//! it ([`FileInput::reading`]: positioned reads, or its memory map,
//! [`MappedFile`]).

use super::cancel::Cancel;
use super::file_changes::{self, MapGuard, Stamp};
use super::page_release::PageReleaser;
use crate::error::Error;
use memmap2::{Advice, Mmap};
use std::io::ErrorKind;
use std::os::unix::fs::FileExt;
use std::sync::OnceLock;

/// How a pass reads a regular file.
#[derive(Clone, Copy)]
pub enum Reading<'a> {
    /// Pieces of a fixed size cut at heap boundaries: in place from the
    /// map when there is one, up to the first heap that fills a piece, and
    /// from there (or with no map) with positioned reads (`pread`) into a
    /// buffer.
    Positioned,
    /// The memory map, in place.
    Mapped(&'a MappedFile),
}

/// A regular file, read at any offset, with the size and modification
/// time it had when it was opened.
pub struct FileInput {
    stamp: Stamp,
    allow_map: bool,
    /// The map, opened on first use (`None` inside when mapping failed).
    map: OnceLock<Option<MappedFile>>,
    /// Looked at before each read.
    cancel: Cancel,
}

impl FileInput {
    /// The file behind `stamp`; `allow_map` false keeps every pass to
    /// positioned reads (`--no-mmap`).
    pub(crate) fn new(stamp: Stamp, allow_map: bool) -> FileInput {
        FileInput {
            stamp,
            allow_map,
            map: OnceLock::new(),
            cancel: Cancel::default(),
        }
    }

    /// The file, its reads stopped once `cancel` is raised.
    pub(crate) fn with_cancel(self, cancel: Cancel) -> FileInput {
        FileInput { cancel, ..self }
    }

    /// How a pass reads the file. `heaps_in_place`: the pass needs heaps
    /// of any length without holding them (the windowed passes, whose
    /// working memory is one window).
    ///
    /// A pass over heaps that fit small buffers reads pieces of a fixed
    /// size cut at heap boundaries ([`Reading::Positioned`]): in place
    /// from the map when there is one, from the first heap longer than a
    /// piece on through a buffer (a long heap from the range's end, in
    /// pieces, or whole). A pass that
    /// must read heaps of any length reads the map as it lies: a heap is
    /// read where it is, releasing its pages behind, so no buffer grows
    /// with it. Without a map (`--no-mmap`, or mapping failed) every pass
    /// uses positioned reads (`pread`), and a heap longer than a buffer is
    /// read into one that grows to hold it.
    pub fn reading(&self, heaps_in_place: bool) -> Reading<'_> {
        match heaps_in_place.then(|| self.map()).flatten() {
            Some(map) => Reading::Mapped(map),
            None => Reading::Positioned,
        }
    }

    /// The size and modification time at open.
    pub fn stamp(&self) -> &Stamp {
        &self.stamp
    }

    /// The file's map, opened on first use: `None` if maps are not
    /// allowed, the file is empty (an empty file cannot be mapped), mapping
    /// failed, or every truncation guard is taken ([`MapGuard::new`]).
    pub fn map(&self) -> Option<&MappedFile> {
        if !self.allow_map || self.stamp.len_at_open() == 0 {
            return None;
        }
        self.map
            .get_or_init(|| MappedFile::open(&self.stamp))
            .as_ref()
    }

    /// The file's map if a pass has opened it (line lookups read through
    /// it then, and read the file otherwise).
    pub(crate) fn opened_map(&self) -> Option<&MappedFile> {
        self.map.get().and_then(Option::as_ref)
    }

    /// An error once the analysis is cancelled: looked at before each
    /// read, and each piece read in place from the map.
    pub fn check_cancel(&self) -> Result<(), Error> {
        self.cancel.check(self.stamp.name())
    }

    /// Fills `buffer` from `offset`; a file that ends early has shrunk.
    pub fn read_exact_at(&self, buffer: &mut [u8], offset: u64) -> Result<(), Error> {
        self.check_cancel()?;
        self.stamp
            .file()
            .read_exact_at(buffer, offset)
            .map_err(|e| match e.kind() {
                ErrorKind::UnexpectedEof => {
                    file_changes::changed(self.stamp.name(), "it is shorter than when opened")
                }
                _ => Error::io(self.stamp.name(), e),
            })
    }
}

/// A regular file mapped read-only, guarded against truncation.
pub struct MappedFile {
    map: Mmap,
    _guard: MapGuard,
}

impl MappedFile {
    /// Maps the file behind `stamp`; `None` when it cannot be mapped or
    /// the map cannot be guarded (every guard is taken).
    fn open(stamp: &Stamp) -> Option<MappedFile> {
        // SAFETY: the map is read-only and private to this process. Another
        // process may still truncate or rewrite the file while it is mapped:
        // rewritten bytes are caught by the stamp when the pass ends, and a
        // read of a truncated page raises SIGBUS, which the MapGuard of the
        // MappedFile turns into an error line and exit status 1. Safe code
        // only reads `&[u8]` borrowed from the map, never past its lifetime.
        let map = unsafe { Mmap::map(stamp.file()) }.ok()?;
        // Sequential access lets the kernel read ahead; a failure here only
        // costs speed.
        let _ = map.advise(Advice::Sequential);
        let guard = MapGuard::new(&map, stamp.name())?;
        Some(MappedFile { map, _guard: guard })
    }

    /// The mapped bytes.
    pub fn map(&self) -> &[u8] {
        &self.map
    }

    /// Releases the map's pages behind a pass.
    pub fn pages(&self) -> PageReleaser<'_> {
        PageReleaser::of(&self.map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::source::input::tests::file_input;
    use crate::input::source::InputBytes;

    #[test]
    fn a_file_is_mapped_only_when_a_pass_asks() {
        let _slots = file_changes::tests::hold_slot_tests();
        let (_file, input) = file_input(b"1 10 11", true);
        let InputBytes::File(file) = input.bytes() else {
            panic!("a regular file");
        };
        assert!(matches!(file.reading(false), Reading::Positioned));
        assert!(file.map.get().is_none(), "mapped without being read");
        assert!(matches!(file.reading(true), Reading::Mapped(_)));
        let (_file, unmapped) = file_input(b"1 10 11", false);
        let InputBytes::File(file) = unmapped.bytes() else {
            panic!("a regular file");
        };
        assert!(matches!(file.reading(true), Reading::Positioned));
    }

    #[test]
    fn a_file_opened_while_every_guard_is_taken_is_read_without_its_map() {
        let _slots = file_changes::tests::hold_slot_tests();
        // Every slot, as the other tests running now give theirs back.
        let bytes = [0u8; 1];
        let mut held = Vec::new();
        while held.len() < file_changes::WATCHED_MAPS {
            match MapGuard::new(&bytes, "x") {
                Some(guard) => held.push(guard),
                None => std::thread::sleep(std::time::Duration::from_millis(1)),
            }
        }
        let (_file, input) = file_input(b"1 10 11", true);
        let InputBytes::File(file) = input.bytes() else {
            panic!("a regular file");
        };
        assert!(matches!(file.reading(true), Reading::Positioned));
        assert!(file.map().is_none(), "mapped with no guard");
        drop(held);
        let (_file, input) = file_input(b"1 10 11", true);
        let InputBytes::File(file) = input.bytes() else {
            panic!("a regular file");
        };
        assert!(matches!(file.reading(true), Reading::Mapped(_)));
    }
}
