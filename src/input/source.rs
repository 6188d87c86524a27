//! Where the bytes come from: a memory map (or plain reads) for regular
//! files, streaming reads for everything else (standard input, pipes, FIFOs).
//!
//! Mapping is decided here and nowhere else. A mapped file can be read in
//! several passes; so can a regular file read with plain reads
//! ([`RereadFile`], for `--no-mmap` or when mapping fails); a stream only
//! once. Regular files carry a [`Stamp`] so that a change while they are
//! read is an error, never a wrong report (see [`super::watch`]).

use super::watch::{self, MapGuard, Stamp};
use super::{complete_prefix, Format, Heap, HeapScanner, HeapValue, LineTracker, Scanner};
use crate::analysis::HeapPos;
use crate::error::{Error, ParseError};
use memmap2::{Advice, Mmap, UncheckedAdvice};
use std::fs::File;
use std::io::{ErrorKind, Read, Seek, SeekFrom};
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::Path;

/// An opened input.
pub enum Source {
    /// A regular file, mapped read-only.
    Mapped(MappedFile),
    /// A regular file read with plain reads, once per pass.
    Reread(RereadFile),
    /// Anything that can only be read front to back.
    Stream(Box<dyn Read>),
}

/// Opens `path` (named `display` in errors): maps a regular file (or,
/// with `mmap` false, prepares plain reads of it), streams anything else,
/// and refuses a directory.
pub fn open(path: &Path, display: &str, mmap: bool) -> Result<Source, Error> {
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
    let stamp = Stamp::take(file, display)?;
    // An empty file cannot be mapped; reading it costs nothing.
    if !mmap || stamp.len_at_open() == 0 {
        return Ok(Source::Reread(RereadFile { stamp }));
    }
    // SAFETY: the map is read-only and private to this process. Another
    // process may still truncate or rewrite the file while it is mapped:
    // rewritten bytes are caught by the stamp when the pass ends, and a
    // read of a truncated page raises SIGBUS, which the MapGuard of the
    // MappedFile turns into an error line and exit status 1. Safe code
    // only reads `&[u8]` borrowed from the map, never past its lifetime.
    match unsafe { Mmap::map(stamp.file()) } {
        Ok(map) => {
            // Sequential access lets the kernel read ahead; a failure here
            // only costs speed.
            let _ = map.advise(Advice::Sequential);
            let guard = MapGuard::new(&map, display);
            Ok(Source::Mapped(MappedFile {
                map,
                stamp,
                _guard: guard,
            }))
        }
        Err(_) => Ok(Source::Reread(RereadFile { stamp })),
    }
}

/// A regular file mapped read-only, guarded against truncation.
pub struct MappedFile {
    map: Mmap,
    stamp: Stamp,
    _guard: MapGuard,
}

impl MappedFile {
    /// The mapped bytes.
    pub fn map(&self) -> &Mmap {
        &self.map
    }

    /// The size and modification time at open.
    pub fn stamp(&self) -> &Stamp {
        &self.stamp
    }
}

/// A regular file read front to back with plain reads, once per pass, in
/// chunks cut at heap boundaries. A chunk grows to hold the longest heap,
/// so memory is bounded by the chunk size or the longest heap's bytes.
pub struct RereadFile {
    stamp: Stamp,
}

impl RereadFile {
    /// The size and modification time at open.
    pub fn stamp(&self) -> &Stamp {
        &self.stamp
    }

    /// One pass over the file: visits every heap in order, reading chunks
    /// of at least `chunk` bytes. Returns the number of bytes read.
    pub fn for_each_heap(
        &self,
        format: Format,
        chunk: usize,
        mut visit: impl FnMut(&Heap<'_>),
    ) -> Result<u64, Error> {
        self.chunks_from(0, format, chunk, |piece, base| {
            let mut scanner = Scanner::new(format, piece, base);
            while let Some(heap) = scanner
                .next_heap()
                .map_err(|e| self.input_error(format, e))?
            {
                visit(&heap);
            }
            Ok(true)
        })
    }

    /// One pass that stops at the first heap for which `wanted` holds:
    /// its position (index and offset), and the number of bytes read.
    pub fn find_heap(
        &self,
        format: Format,
        chunk: usize,
        wanted: impl Fn(&Heap<'_>) -> bool,
    ) -> Result<(Option<HeapPos>, u64), Error> {
        let (mut index, mut found) = (0, None);
        let read = self.chunks_from(0, format, chunk, |piece, base| {
            let mut scanner = Scanner::new(format, piece, base);
            while let Some(heap) = scanner
                .next_heap()
                .map_err(|e| self.input_error(format, e))?
            {
                if wanted(&heap) {
                    found = Some(HeapPos {
                        index,
                        offset: heap.offset,
                    });
                    return Ok(false);
                }
                index += 1;
            }
            Ok(true)
        })?;
        Ok((found, read))
    }

    /// The heap that starts at `offset`, copied out as limbs.
    pub fn heap_at(&self, format: Format, offset: u64) -> Result<Heap<'static>, Error> {
        let mut found = None;
        self.chunks_from(offset, format, 4096, |piece, base| {
            let mut scanner = Scanner::new(format, piece, base);
            found = scanner
                .next_heap()
                .map_err(|e| self.input_error(format, e))?
                .map(|heap| Heap {
                    offset: heap.offset,
                    value: HeapValue::Limbs(heap.value.to_limbs()),
                });
            Ok(found.is_none())
        })?;
        // The heap was read before: if it is gone, the file changed.
        found.ok_or_else(|| watch::changed(self.stamp.name(), "a heap read before is gone"))
    }

    /// Feeds `piece(bytes, base)` the file from `start` in chunks that end
    /// on heap boundaries (the last one at the end of the file), until it
    /// returns false. Returns the number of bytes read.
    fn chunks_from(
        &self,
        start: u64,
        format: Format,
        chunk: usize,
        mut piece: impl FnMut(&[u8], u64) -> Result<bool, Error>,
    ) -> Result<u64, Error> {
        let mut file = self.stamp.file();
        file.seek(SeekFrom::Start(start))
            .map_err(|e| Error::io(self.stamp.name(), e))?;
        let mut buffer: Vec<u8> = Vec::with_capacity(chunk);
        let mut base = start;
        loop {
            if buffer.len() == buffer.capacity() {
                buffer.reserve(buffer.capacity());
            }
            let eof = fill(&mut file, &mut buffer).map_err(|e| Error::io(self.stamp.name(), e))?;
            let usable = if eof {
                buffer.len()
            } else {
                complete_prefix(format, &buffer, base == 0)
            };
            if usable > 0 || eof {
                let more = piece(&buffer[..usable], base)?;
                buffer.drain(..usable);
                base += usable as u64;
                if !more || eof {
                    return Ok(base - start);
                }
            }
        }
    }

    fn input_error(&self, format: Format, error: ParseError) -> Error {
        input_error(&self.stamp, format, error)
    }
}

/// A parse error in the file behind `stamp`, with its line and column for
/// text formats; a change of the file explains it first.
pub fn input_error(stamp: &Stamp, format: Format, error: ParseError) -> Error {
    if let Err(changed) = stamp.check() {
        return changed;
    }
    let line_col = if format.is_text() {
        match line_and_column_at(stamp.file(), stamp.name(), error.offset) {
            Ok(at) => Some(at),
            Err(io) => return io,
        }
    } else {
        None
    };
    Error::Input {
        path: stamp.name().to_string(),
        offset: error.offset,
        line_col,
        message: error.message,
    }
}

/// The 1-based line and column of `offset` in `file` (named `name` in
/// errors; lines end at LF), read with positioned reads.
pub fn line_and_column_at(file: &File, name: &str, offset: u64) -> Result<(u64, u64), Error> {
    line_and_column_skipping(file, name, offset, &[])
}

/// [`line_and_column_at`], without reading the byte ranges of `no_lf`
/// (in increasing order), known to hold no LF.
pub fn line_and_column_skipping(
    file: &File,
    name: &str,
    offset: u64,
    no_lf: &[Range<u64>],
) -> Result<(u64, u64), Error> {
    let mut buffer = vec![0; (64 << 10).min(usize::try_from(offset).unwrap_or(usize::MAX))];
    let (mut lines, mut read) = (LineTracker::default(), 0u64);
    let mut skips = no_lf.iter().peekable();
    while read < offset {
        while let Some(skip) = skips.next_if(|s| s.start <= read) {
            read = read.max(skip.end.min(offset));
        }
        let next_skip = skips.peek().map_or(offset, |s| s.start.min(offset));
        let want = buffer.len().min((next_skip - read) as usize);
        if want == 0 {
            continue;
        }
        let n = match file.read_at(&mut buffer[..want], read) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(Error::io(name, e)),
        };
        lines.advance(&buffer[..n], read);
        read += n as u64;
    }
    Ok(lines.locate(&[], offset, offset))
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

#[cfg(test)]
mod tests {
    use super::*;

    fn reread(bytes: &[u8]) -> (tempfile::NamedTempFile, RereadFile) {
        let file = tempfile::NamedTempFile::new().unwrap();
        std::fs::write(file.path(), bytes).unwrap();
        let source = open(file.path(), "t", false).unwrap();
        let Source::Reread(reread) = source else {
            panic!("--no-mmap reads a regular file with plain reads");
        };
        (file, reread)
    }

    #[test]
    fn lines_and_columns_are_counted_across_read_buffers() {
        let mut text = Vec::new();
        for i in 0..30_000 {
            text.extend_from_slice(if i % 7 == 0 { b"1\n" } else { b"101 " });
        }
        let (_file, reread) = reread(&text);
        for offset in [0, 1, 65_535, 65_536, 65_537, 100_000, text.len() as u64 - 1] {
            assert_eq!(
                line_and_column_at(reread.stamp().file(), "t", offset).unwrap(),
                crate::input::line_and_column(&text, offset as usize),
                "offset {offset}"
            );
        }
    }

    #[test]
    fn a_pass_in_small_chunks_sees_every_heap_and_long_heaps_whole() {
        let mut text = vec![b'1'; 10_000];
        text.extend_from_slice(b" 10 ");
        text.extend(vec![b'1'; 5_000]);
        let (_file, reread) = reread(&text);
        let mut seen = Vec::new();
        let bytes = reread
            .for_each_heap(Format::Bits, 4096, |heap| {
                seen.push((heap.offset, heap.value.bit_length()))
            })
            .unwrap();
        assert_eq!(bytes, text.len() as u64);
        assert_eq!(seen, [(0, 10_000), (10_001, 2), (10_004, 5_000)]);
        let heap = reread.heap_at(Format::Bits, 10_004).unwrap();
        assert_eq!(heap.value.bit_length(), 5_000);
        assert_eq!(heap.value.limb(0), u64::MAX);
    }
}
