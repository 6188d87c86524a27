//! nimstream reads no compressed file (it maps and seeks its input), so a
//! compressed one gets a hint to decompress it on the way in: refused up
//! front when its name says so (`.gz`, `.xz`, `.zst`, `.bz2`) and its
//! first bytes agree (a raw array would otherwise read the compressed
//! bytes as heaps, without a word), and named in the error when only its
//! first bytes say so (`r.hex` holding gzip data fails at offset 0).

use crate::error::Error;
use crate::Format;
use std::io::Read;
use std::path::Path;

/// A compressor: its extension, its magic bytes, and its tool (`TOOL -dc
/// FILE` decompresses to standard output).
struct Compressor {
    extension: &'static str,
    magic: &'static [u8],
    tool: &'static str,
}

const COMPRESSORS: [Compressor; 4] = [
    Compressor {
        extension: "gz",
        magic: &[0x1f, 0x8b],
        tool: "gzip",
    },
    Compressor {
        extension: "xz",
        magic: &[0xfd, b'7', b'z', b'X', b'Z', 0],
        tool: "xz",
    },
    Compressor {
        extension: "zst",
        magic: &[0x28, 0xb5, 0x2f, 0xfd],
        tool: "zstd",
    },
    Compressor {
        extension: "bz2",
        magic: b"BZh",
        tool: "bzip2",
    },
];

/// The compressor whose magic the file at `path` starts with. Only a
/// regular file is looked at: a FIFO's bytes would be taken from the
/// reader (and opening one blocks once its writer is gone).
fn compressor_of(path: &Path) -> Option<&'static Compressor> {
    if !std::fs::metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let mut start = [0u8; 6];
    let mut file = std::fs::File::open(path).ok()?;
    let read = file.read(&mut start).ok()?;
    COMPRESSORS
        .iter()
        .find(|c| start[..read].starts_with(c.magic))
}

/// What to type instead: `gzip -dc r.hex.gz | nimstream analyze - -f hex`.
fn hint(path: &Path, compressor: &Compressor, command: &str, format: Option<Format>) -> String {
    // The format: given, else the one the name says under the compressor's
    // extension, else the name's own.
    let inner = path.file_stem().map(Path::new).and_then(Format::from_path);
    let format = format
        .or(inner)
        .or(Format::from_path(path))
        .map_or("FORMAT", Format::name);
    format!(
        "it is {tool}-compressed, and nimstream reads no compressed file: decompress it on the \
         way in, e.g. `{tool} -dc {} | nimstream {command} - -f {format}`",
        path.display(),
        tool = compressor.tool
    )
}

/// Refuses (exit 2) a file named as compressed whose first bytes agree,
/// before `command` reads it.
pub(crate) fn refuse(path: &Path, command: &str, format: Option<Format>) -> Result<(), Error> {
    let named = path.extension().and_then(|e| e.to_str()).and_then(|e| {
        COMPRESSORS
            .iter()
            .find(|c| c.extension.eq_ignore_ascii_case(e))
    });
    match named
        .filter(|_| path.as_os_str() != "-")
        .and_then(|_| compressor_of(path))
    {
        Some(compressor) => Err(Error::Usage(format!(
            "{}: {}",
            path.display(),
            hint(path, compressor, command, format)
        ))),
        None => Ok(()),
    }
}

/// `error`, with the hint when the file at `path` (not standard input)
/// is compressed.
pub(crate) fn explained(error: Error, path: &Path, command: &str, format: Option<Format>) -> Error {
    let Some(compressor) = (path.as_os_str() != "-")
        .then(|| compressor_of(path))
        .flatten()
    else {
        return error;
    };
    let hint = hint(path, compressor, command, format);
    match error {
        Error::Input {
            path,
            offset,
            line_col,
            message,
        } => Error::Input {
            path,
            offset,
            line_col,
            message: format!("{message}; {hint}"),
        },
        Error::Usage(message) => Error::Usage(format!("{message}; {hint}")),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hint_names_the_decompressor_and_the_format_under_the_extension() {
        let gzip = &COMPRESSORS[0];
        assert_eq!(
            hint(Path::new("r.hex.gz"), gzip, "analyze", None),
            "it is gzip-compressed, and nimstream reads no compressed file: decompress it on \
             the way in, e.g. `gzip -dc r.hex.gz | nimstream analyze - -f hex`"
        );
        let misnamed = hint(Path::new("r.dec"), gzip, "analyze", None);
        assert!(
            misnamed.ends_with("`gzip -dc r.dec | nimstream analyze - -f dec`"),
            "{misnamed}"
        );
        let bare = hint(Path::new("r.gz"), &COMPRESSORS[2], "convert", None);
        assert!(
            bare.ends_with("`zstd -dc r.gz | nimstream convert - -f FORMAT`"),
            "{bare}"
        );
        let given = hint(Path::new("r.gz"), gzip, "analyze", Some(Format::U8));
        assert!(given.ends_with("- -f u8`"), "{given}");
    }
}
