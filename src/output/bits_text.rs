//! `bits` text as the tool writes it (SPEC section 3): binary digits,
//! most significant first, no leading zeros, `0` for zero, one trailing LF.
//! [`BitsFile`] writes a value that arrives limb by limb from the most
//! significant end, so a value longer than memory never needs to be held.

use super::AtomicFile;
use crate::error::Error;
use std::io::Write;
use std::path::Path;

/// ASCII `0`/`1` for each byte value, most significant bit first.
const BYTE_DIGITS: [[u8; 8]; 256] = {
    let mut table = [[b'0'; 8]; 256];
    let mut byte = 0;
    while byte < 256 {
        let mut bit = 0;
        while bit < 8 {
            if byte >> (7 - bit) & 1 == 1 {
                table[byte][bit] = b'1';
            }
            bit += 1;
        }
        byte += 1;
    }
    table
};

/// The 64 binary digits of a limb, most significant first.
pub(crate) fn limb_binary_digits(limb: u64) -> [u8; 64] {
    let mut text = [0u8; 64];
    for (i, byte) in limb.to_be_bytes().iter().enumerate() {
        text[8 * i..8 * i + 8].copy_from_slice(&BYTE_DIGITS[usize::from(*byte)]);
    }
    text
}

/// A `bits` text file written limb by limb from the most significant end.
pub(crate) struct BitsFile {
    file: AtomicFile,
    path: String,
    started: bool,
}

impl BitsFile {
    /// Starts writing to `path` (completed by [`BitsFile::finish`]).
    pub(crate) fn create(path: &Path) -> Result<BitsFile, Error> {
        Ok(BitsFile {
            file: AtomicFile::create(path)?,
            path: path.display().to_string(),
            started: false,
        })
    }

    /// Appends the next limb (the next 64 bits going down).
    pub(crate) fn push(&mut self, limb: u64) -> Result<(), Error> {
        let skip = if self.started {
            0
        } else if limb == 0 {
            return Ok(());
        } else {
            self.started = true;
            limb.leading_zeros() as usize
        };
        self.write(&limb_binary_digits(limb)[skip..])
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.file
            .write_all(bytes)
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Ends the number (writing `0` if it had no set bit): the next limb
    /// starts a new line.
    pub(crate) fn end_line(&mut self) -> Result<(), Error> {
        let tail: &[u8] = if self.started { b"\n" } else { b"0\n" };
        self.started = false;
        self.write(tail)
    }

    /// Writes a line of little-endian `limbs`.
    pub(crate) fn line(&mut self, limbs: &[u64]) -> Result<(), Error> {
        limbs.iter().rev().try_for_each(|&limb| self.push(limb))?;
        self.end_line()
    }

    /// Commits the file, as many lines as were ended.
    pub(crate) fn commit(self) -> Result<(), Error> {
        self.file.commit()
    }

    /// Ends the number (writing `0` if it had no set bit) and commits the file.
    pub(crate) fn finish(mut self) -> Result<(), Error> {
        self.end_line()?;
        self.commit()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_written_without_leading_zeros() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.bits");
        for (limbs, text) in [
            (&[][..], "0\n"),
            (&[0, 0][..], "0\n"),
            (&[0, 5][..], "101\n"),
            (&[1, 0][..], &*format!("1{}\n", "0".repeat(64))),
        ] {
            let mut file = BitsFile::create(&path).unwrap();
            for &limb in limbs {
                file.push(limb).unwrap();
            }
            file.finish().unwrap();
            assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
        }
    }

    #[test]
    fn lines_are_ended_one_by_one_and_committed_together() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("v.bits");
        let mut file = BitsFile::create(&path).unwrap();
        file.line(&[5]).unwrap();
        file.line(&[]).unwrap();
        file.line(&[0, 1]).unwrap();
        file.commit().unwrap();
        let want = format!("101\n0\n1{}\n", "0".repeat(64));
        assert_eq!(std::fs::read_to_string(&path).unwrap(), want);
    }
}
