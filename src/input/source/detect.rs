//! Which format an input is in: the one the user named, else the one its
//! extension names, else `nimb` when its first bytes are the magic.

use crate::error::Error;
use crate::input::format::{Format, NIMB_HEADER};
use std::fs::File;
use std::io::Read;
use std::path::Path;

/// The format of the input at `path` (named `name` in messages): `given`
/// if the user named one (with the option `flag`), else detected from the
/// file; standard input (`-`), with nothing to detect it from, needs
/// `flag`.
pub fn format_of(
    path: &Path,
    name: &str,
    given: Option<Format>,
    flag: &str,
) -> Result<Format, Error> {
    match (given, name) {
        (Some(format), _) => Ok(format),
        (None, "-") => Err(Error::Usage(format!(
            "<stdin>: standard input needs {flag} (bits, hex, dec, unary, u8, u16le, \
             u32le, u64le or nimb): there is no extension to detect it from"
        ))),
        (None, _) => detect(path, name),
    }
}

/// The format of the file at `path` (named `name` in messages), from its
/// extension or the `nimb` magic; a usage error when neither tells.
pub fn detect(path: &Path, name: &str) -> Result<Format, Error> {
    if let Some(format) = Format::from_path(path) {
        return Ok(format);
    }
    if peek(path, name, 4)? == NIMB_HEADER[..4] {
        return Ok(Format::Nimb);
    }
    Err(Error::Usage(format!(
        "{name}: cannot tell the input format from the file name; pass --format \
         (bits, hex, dec, unary, u8, u16le, u32le, u64le or nimb)"
    )))
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
