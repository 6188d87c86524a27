//! An input opened for reading ([`Input`]): bytes in memory, a regular
//! file, or a stream, with its name for messages and the flag that stops
//! its reads; and the same input as the threads of a pass share it when it
//! can be read at any offset ([`RandomAccess`]).

use super::cancel::{Cancel, CancellableRead};
use super::file::{FileInput, Reading};
use super::file_changes::Stamp;
use super::page_release::PageReleaser;
use crate::error::{Error, ParseError};
use crate::input::format::Format;
use std::borrow::Cow;
use std::fs::File;
use std::io::{ErrorKind, Read};
use std::path::Path;

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
            let stdin = std::io::stdin();
            super::pipe::widen(&stdin);
            return Ok(Input::stream(Box::new(stdin), name));
        }
        let file = File::open(path).map_err(|e| Error::io(name, e))?;
        let metadata = file.metadata().map_err(|e| Error::io(name, e))?;
        if metadata.is_dir() {
            let why = std::io::Error::other("is a directory, not an input file");
            return Err(Error::io(name, why));
        }
        if !metadata.is_file() {
            super::pipe::widen(&file);
            return Ok(Input::stream(Box::new(file), name));
        }
        let file = FileInput::new(Stamp::take(file, name)?, allow_map);
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
            InputBytes::File(file) => InputBytes::File(file.with_cancel(cancel.clone())),
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

    /// The input's bytes where they lie, whatever a pass would choose (a
    /// reader that needs them all at once, or at random): in memory, or a
    /// file's map (opened now); `None` for a stream, or a file that cannot
    /// be mapped (no bytes, for an empty one).
    pub(crate) fn in_place(&self) -> Option<InPlace<'_>> {
        let source = self.random_access()?;
        match source.in_place(true) {
            Some(bytes) => Some(bytes),
            None if source.size() == 0 => Some(InPlace::memory(&[])),
            None => None,
        }
    }

    /// The input, its bytes where [`Input::in_place`] finds them: a
    /// stream, or a file that cannot be mapped, is read into memory first.
    pub(crate) fn held_in_place(self) -> Result<Input<'a>, Error> {
        match self.in_place() {
            Some(_) => Ok(self),
            None => self.into_memory(),
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
            InputBytes::File(file) => Some(file.stamp().len_at_open()),
            InputBytes::Stream(_) => None,
        }
    }

    /// Reads all of the input into memory, and names it as before.
    pub fn into_memory(self) -> Result<Input<'a>, Error> {
        let (name, cancel) = (self.name, self.cancel);
        let bytes: Vec<u8> = match self.bytes {
            InputBytes::Memory(bytes) => return Ok(Input::memory(bytes, &name).with_cancel(cancel)),
            InputBytes::File(file) => read_to_end(&mut file.stamp().file(), &name)?,
            InputBytes::Stream(mut reader) => read_to_end(&mut reader, &name)?,
        };
        Ok(Input::memory(bytes, &name).with_cancel(cancel))
    }

    /// Checks that a regular file has not changed since it was opened.
    pub fn check_unchanged(&self) -> Result<(), Error> {
        match &self.bytes {
            InputBytes::File(file) => file.stamp().check(),
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

/// Bytes of an input read where they lie (in memory, or a file's map),
/// and what releases their pages behind a reader (nothing, for bytes in
/// memory).
#[derive(Clone, Copy)]
pub(crate) struct InPlace<'a> {
    /// The bytes, from the input's first.
    pub(crate) bytes: &'a [u8],
    /// Releases the pages of the bytes a reader is done with.
    pub(crate) pages: PageReleaser<'a>,
}

impl<'a> InPlace<'a> {
    /// Bytes in memory, whose pages are never released.
    pub(crate) fn memory(bytes: &'a [u8]) -> InPlace<'a> {
        InPlace {
            bytes,
            pages: PageReleaser::NONE,
        }
    }
}

impl<'a> RandomAccess<'a> {
    /// The bytes a pass reads in place: bytes in memory always, a file's
    /// map when [`FileInput::reading`] says so (`heaps_in_place`: the pass
    /// needs heaps of any length without holding them); `None`: the pass
    /// reads the file with positioned reads.
    pub(crate) fn in_place(self, heaps_in_place: bool) -> Option<InPlace<'a>> {
        match self {
            RandomAccess::Memory(bytes) => Some(InPlace::memory(bytes)),
            RandomAccess::File(file) => match file.reading(heaps_in_place) {
                Reading::Mapped(map) => Some(InPlace {
                    bytes: map.map(),
                    pages: map.pages(),
                }),
                Reading::Positioned => None,
            },
        }
    }
}

impl RandomAccess<'_> {
    /// The size in bytes.
    pub fn size(&self) -> u64 {
        match self {
            RandomAccess::Memory(bytes) => bytes.len() as u64,
            RandomAccess::File(file) => file.stamp().len_at_open(),
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

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn file_input(
        bytes: &[u8],
        allow_map: bool,
    ) -> (tempfile::NamedTempFile, Input<'static>) {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), bytes).unwrap();
        let input = Input::open(file.path(), "t", allow_map).unwrap();
        (file, input)
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
