//! Where the bytes come from: a buffer in memory, a regular file, or a
//! stream (standard input, a pipe, a FIFO), and how each pass reads them.
//!
//! [`Input::open`] is the one place that tells a regular file from a
//! stream, and [`FileInput::reading`] the one place that decides whether a
//! pass over a regular file reads it with positioned reads or through a
//! memory map (ripgrep's searcher makes the same decision once, per
//! search). The map is opened the first time a pass asks for it, so a file
//! that one pass over small buffers analyses is never mapped. Regular files
//! carry a [`Stamp`] so that a change while they are read is an error,
//! never a wrong report (see [`super::file_changes`]). Where an offset
//! lies in lines is looked up in `line_lookup`.

mod line_lookup;

use super::cancel::{Cancel, CancellableRead};
use super::file_changes::{self, MapGuard, Stamp};
use super::page_release::PageReleaser;
use super::Format;
use crate::error::{Error, ParseError};
use memmap2::{Advice, Mmap};
use std::borrow::Cow;
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::OnceLock;

/// The name of standard input in messages.
pub const STDIN_NAME: &str = "<stdin>";

/// An input opened for reading, with its name for messages.
pub struct Input<'a> {
    name: String,
    bytes: InputBytes<'a>,
    /// Looked at between pieces of bytes read in place (a file's reads
    /// and a stream's look at their own copy).
    cancel: Cancel,
}

/// The bytes of an [`Input`].
pub enum InputBytes<'a> {
    /// Bytes in memory.
    Memory(Cow<'a, [u8]>),
    /// A regular file: read in several passes, at any offset.
    File(FileInput),
    /// Anything that can only be read once, front to back.
    Stream(Box<dyn Read + 'a>),
}

impl<'a> Input<'a> {
    /// Opens `path`, named `name` in messages (`-` is standard input,
    /// named `<stdin>`): a regular file is read at any offset, anything
    /// else that is not a directory as a stream. `allow_map` false keeps
    /// every pass over a regular file to positioned reads (`--no-mmap`).
    pub fn open(path: &Path, name: &str, allow_map: bool) -> Result<Input<'static>, Error> {
        if name == "-" {
            return Ok(Input::stream(Box::new(std::io::stdin()), name));
        }
        let file = File::open(path).map_err(|e| Error::io(name, e))?;
        let metadata = file.metadata().map_err(|e| Error::io(name, e))?;
        if metadata.is_dir() {
            let why = std::io::Error::other("is a directory, not an input file");
            return Err(Error::io(name, why));
        }
        if !metadata.is_file() {
            return Ok(Input::stream(Box::new(file), name));
        }
        let file = FileInput {
            stamp: Stamp::take(file, name)?,
            allow_map,
            map: OnceLock::new(),
            cancel: Cancel::default(),
        };
        Ok(Input {
            name: name.to_string(),
            bytes: InputBytes::File(file),
            cancel: Cancel::default(),
        })
    }

    /// Bytes in memory, named `name` in messages.
    pub fn memory(bytes: impl Into<Cow<'a, [u8]>>, name: &str) -> Input<'a> {
        Input {
            name: name.to_string(),
            bytes: InputBytes::Memory(bytes.into()),
            cancel: Cancel::default(),
        }
    }

    /// A stream, named `name` in messages (`-` becomes `<stdin>`).
    pub fn stream(reader: Box<dyn Read + 'a>, name: &str) -> Input<'a> {
        let name = if name == "-" { STDIN_NAME } else { name };
        Input {
            name: name.to_string(),
            bytes: InputBytes::Stream(reader),
            cancel: Cancel::default(),
        }
    }

    /// The input, its reads stopped once `cancel` is raised (see
    /// [`super::cancel`]).
    pub fn with_cancel(self, cancel: Cancel) -> Input<'a> {
        let bytes = match self.bytes {
            InputBytes::File(file) => InputBytes::File(FileInput {
                cancel: cancel.clone(),
                ..file
            }),
            InputBytes::Stream(reader) => InputBytes::Stream(Box::new(CancellableRead {
                reader,
                cancel: cancel.clone(),
            })),
            memory => memory,
        };
        Input {
            name: self.name,
            bytes,
            cancel,
        }
    }

    /// The flag that stops the reads of this input.
    pub fn cancel(&self) -> &Cancel {
        &self.cancel
    }

    /// The input's name in messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Where the bytes come from.
    pub fn bytes(&self) -> &InputBytes<'a> {
        &self.bytes
    }

    /// The input as one that can be read at any offset, unless it is a
    /// stream.
    pub fn random_access(&self) -> Option<RandomAccess<'_>> {
        match &self.bytes {
            InputBytes::Memory(bytes) => Some(RandomAccess::Memory(bytes)),
            InputBytes::File(file) => Some(RandomAccess::File(file)),
            InputBytes::Stream(_) => None,
        }
    }

    /// The stream, when the input is one.
    pub(crate) fn stream_mut(&mut self) -> Option<&mut (dyn Read + 'a)> {
        match &mut self.bytes {
            InputBytes::Stream(reader) => Some(reader.as_mut()),
            _ => None,
        }
    }

    /// The size in bytes of an input that can be read at any offset.
    pub fn size(&self) -> Option<u64> {
        match &self.bytes {
            InputBytes::Memory(bytes) => Some(bytes.len() as u64),
            InputBytes::File(file) => Some(file.stamp.len_at_open()),
            InputBytes::Stream(_) => None,
        }
    }

    /// Reads all of the input into memory, and names it as before.
    pub fn into_memory(self) -> Result<Input<'a>, Error> {
        let (name, cancel) = (self.name, self.cancel);
        let bytes: Vec<u8> = match self.bytes {
            InputBytes::Memory(bytes) => return Ok(Input::memory(bytes, &name).with_cancel(cancel)),
            InputBytes::File(file) => read_to_end(&mut file.stamp.file(), &name)?,
            InputBytes::Stream(mut reader) => read_to_end(&mut reader, &name)?,
        };
        Ok(Input::memory(bytes, &name).with_cancel(cancel))
    }

    /// Checks that a regular file has not changed since it was opened.
    pub fn check_unchanged(&self) -> Result<(), Error> {
        match &self.bytes {
            InputBytes::File(file) => file.stamp.check(),
            _ => Ok(()),
        }
    }

    /// The error for bad input at `offset` (of the text formats, located
    /// at `line_col` when the caller counted lines itself, as a stream
    /// does): a change of the file explains it first. The one place an
    /// input error is built.
    pub fn error_at(
        &self,
        format: Format,
        offset: u64,
        message: String,
        line_col: Option<(u64, u64)>,
    ) -> Error {
        if let Err(changed) = self.check_unchanged() {
            return changed;
        }
        let line_col = match (format.is_text(), line_col) {
            (false, _) => None,
            (true, Some(known)) => Some(known),
            (true, None) => match self.line_and_column(offset) {
                Ok(found) => found,
                Err(failed) => return failed,
            },
        };
        Error::Input {
            path: self.name.clone(),
            offset,
            line_col,
            message,
        }
    }

    /// [`Input::error_at`] for a parse error.
    pub fn parse_error(&self, format: Format, error: ParseError) -> Error {
        self.error_at(format, error.offset, error.message, None)
    }
}

/// Reads `reader` to its end.
fn read_to_end(reader: &mut impl Read, name: &str) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(name, e))?;
    Ok(bytes)
}

/// An input that can be read at any offset: what the threads of a pass
/// share.
#[derive(Clone, Copy)]
pub enum RandomAccess<'a> {
    /// Bytes in memory.
    Memory(&'a [u8]),
    /// A regular file.
    File(&'a FileInput),
}

impl RandomAccess<'_> {
    /// The size in bytes.
    pub fn size(&self) -> u64 {
        match self {
            RandomAccess::Memory(bytes) => bytes.len() as u64,
            RandomAccess::File(file) => file.stamp.len_at_open(),
        }
    }

    /// Fills `buffer` from `offset`.
    pub fn read_exact_at(&self, buffer: &mut [u8], offset: u64) -> Result<(), Error> {
        match self {
            RandomAccess::Memory(bytes) => {
                let at = offset as usize;
                buffer.copy_from_slice(&bytes[at..at + buffer.len()]);
                Ok(())
            }
            RandomAccess::File(file) => file.read_exact_at(buffer, offset),
        }
    }
}

/// How a pass reads a regular file.
#[derive(Clone, Copy)]
pub enum Reading<'a> {
    /// Positioned reads (`pread`) into buffers of a fixed size.
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
    /// How a pass reads the file. `heaps_in_place`: the pass needs heaps
    /// of any length without holding them (the windowed passes, whose
    /// working memory is one window).
    ///
    /// A pass over heaps that fit small buffers reads with positioned
    /// reads: on the machines this was measured on, a `pread` into a
    /// buffer that stays in the L2 cache reads a cached file about twice
    /// as fast as touching mapped pages (each costs a fault on first
    /// touch, and the kernels then read DRAM), and the process never holds
    /// more of the file than its buffers. A pass that must read heaps of
    /// any length reads the map: a heap is read where it lies, releasing
    /// its pages behind, so no buffer grows with it. Without a map
    /// (`--no-mmap`, or mapping failed) every pass uses positioned reads,
    /// and a heap longer than a buffer is read into one that grows to
    /// hold it.
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
    /// allowed, the file is empty (an empty file cannot be mapped), or
    /// mapping failed.
    pub fn map(&self) -> Option<&MappedFile> {
        if !self.allow_map || self.stamp.len_at_open() == 0 {
            return None;
        }
        self.map
            .get_or_init(|| MappedFile::open(&self.stamp))
            .as_ref()
    }

    /// Fills `buffer` from `offset`; a file that ends early has shrunk.
    pub fn read_exact_at(&self, buffer: &mut [u8], offset: u64) -> Result<(), Error> {
        self.cancel.check(self.stamp.name())?;
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
    /// Maps the file behind `stamp`; `None` when it cannot be mapped.
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
        let guard = MapGuard::new(&map, stamp.name());
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

/// Reads until the buffer is full or the input ends; true at the end.
pub fn fill(reader: &mut (impl Read + ?Sized), buffer: &mut Vec<u8>) -> std::io::Result<bool> {
    while buffer.len() < buffer.capacity() {
        let start = buffer.len();
        buffer.resize(buffer.capacity(), 0);
        match reader.read(&mut buffer[start..]) {
            Ok(0) => {
                buffer.truncate(start);
                return Ok(true);
            }
            Ok(n) => buffer.truncate(start + n),
            Err(e) if e.kind() == ErrorKind::Interrupted => buffer.truncate(start),
            Err(e) => return Err(e),
        }
    }
    Ok(false)
}

/// Reads the first bytes of `path` (up to `len`), for magic detection.
pub fn peek(path: &Path, name: &str, len: usize) -> Result<Vec<u8>, Error> {
    let mut file = File::open(path).map_err(|e| Error::io(name, e))?;
    let mut head = Vec::with_capacity(len);
    (&mut file)
        .take(len as u64)
        .read_to_end(&mut head)
        .map_err(|e| Error::io(name, e))?;
    Ok(head)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn file_input(
        bytes: &[u8],
        allow_map: bool,
    ) -> (tempfile::NamedTempFile, Input<'static>) {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), bytes).unwrap();
        let input = Input::open(file.path(), "t", allow_map).unwrap();
        (file, input)
    }

    #[test]
    fn a_file_is_mapped_only_when_a_pass_asks() {
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
    fn directories_are_refused_and_other_files_stream() {
        let dir = tempfile::tempdir().unwrap();
        let error = Input::open(dir.path(), "d", true).err().unwrap();
        assert!(error.to_string().contains("is a directory"), "{error}");
        let null = Input::open(Path::new("/dev/null"), "n", true).unwrap();
        assert!(matches!(null.bytes(), InputBytes::Stream(_)));
        assert_eq!(Input::stream(Box::new(&b""[..]), "-").name(), STDIN_NAME);
    }
}
