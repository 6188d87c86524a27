//! Output files that appear whole or not at all: bytes go to a temporary
//! file in the destination's folder, renamed over the destination only when
//! complete. An error (or an interrupt) leaves no partial file behind.

use crate::error::Error;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use tempfile::NamedTempFile;

/// Buffer size of output files: small, so it barely counts as working memory.
const BUFFER_BYTES: usize = 4096;

/// A file being written, invisible under its name until [`AtomicFile::commit`].
pub struct AtomicFile {
    writer: BufWriter<NamedTempFile>,
    path: PathBuf,
}

impl AtomicFile {
    /// Starts a file that will be named `path`.
    pub fn create(path: &Path) -> Result<AtomicFile, Error> {
        let folder = match path.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let temp = tempfile::Builder::new()
            .prefix(".nimstream-")
            .suffix(".part")
            .tempfile_in(folder)
            .map_err(|e| Error::io(path.display().to_string(), e))?;
        Ok(AtomicFile {
            writer: BufWriter::with_capacity(BUFFER_BYTES, temp),
            path: path.to_path_buf(),
        })
    }

    /// Flushes and renames the file into place.
    pub fn commit(self) -> Result<(), Error> {
        let name = self.path.display().to_string();
        let temp = self
            .writer
            .into_inner()
            .map_err(|e| Error::io(&name, e.into_error()))?;
        temp.persist(&self.path)
            .map_err(|e| Error::io(&name, e.error))?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writer.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.writer.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_appears_until_commit_and_nothing_stays_on_drop() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bits");
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_all(b"101\n").unwrap();
        assert!(!path.exists());
        file.commit().unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"101\n");

        let dropped = dir.path().join("dropped.bits");
        let mut file = AtomicFile::create(&dropped).unwrap();
        file.write_all(b"1").unwrap();
        drop(file);
        assert!(!dropped.exists());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }
}
