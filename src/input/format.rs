//! The input formats of a Nim instance (SPEC section 2): their names,
//! extensions and kinds. A format is named on the command line (`--format
//! bits`), by a file's extension (`.bits`, case-insensitive) or, for
//! `nimb`, by its magic bytes (looked at by `source/detect.rs`).

use std::fmt;
use std::path::Path;

/// One of the on-disk encodings of a Nim instance (SPEC section 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// Whitespace-separated tokens of ASCII `0`/`1`, most significant bit first.
    Bits,
    /// Whitespace-separated tokens of hex digits, optional `0x` prefix.
    Hex,
    /// Whitespace-separated tokens of decimal digits.
    Dec,
    /// One heap per line; its value is the number of `1` bytes on the line.
    Unary,
    /// A plain array of bytes.
    U8,
    /// A plain array of little-endian `u16`.
    U16le,
    /// A plain array of little-endian `u32`.
    U32le,
    /// A plain array of little-endian `u64`.
    U64le,
    /// `NIMB` header, then LEB128 length-prefixed little-endian magnitudes.
    Nimb,
}

/// The eight header bytes of a `nimb` file: magic, version 1, three zero bytes.
pub const NIMB_HEADER: [u8; 8] = *b"NIMB\x01\x00\x00\x00";

impl Format {
    /// Every format, in the order the documentation lists them.
    pub const ALL: [Format; 9] = [
        Format::Bits,
        Format::Hex,
        Format::Dec,
        Format::Unary,
        Format::U8,
        Format::U16le,
        Format::U32le,
        Format::U64le,
        Format::Nimb,
    ];

    /// The name used on the command line and in reports.
    pub fn name(self) -> &'static str {
        match self {
            Format::Bits => "bits",
            Format::Hex => "hex",
            Format::Dec => "dec",
            Format::Unary => "unary",
            Format::U8 => "u8",
            Format::U16le => "u16le",
            Format::U32le => "u32le",
            Format::U64le => "u64le",
            Format::Nimb => "nimb",
        }
    }

    /// The usual file extension (without the dot).
    pub fn extension(self) -> &'static str {
        match self {
            Format::U16le => "u16",
            Format::U32le => "u32",
            Format::U64le => "u64",
            other => other.name(),
        }
    }

    /// Parses a format name; the raw array names are also accepted without `le`.
    pub fn from_name(name: &str) -> Option<Format> {
        let lower = name.to_ascii_lowercase();
        Format::ALL
            .into_iter()
            .find(|f| f.name() == lower || f.extension() == lower)
    }

    /// The format a path's extension names, case-insensitively.
    pub fn from_path(path: &Path) -> Option<Format> {
        let ext = path.extension()?.to_str()?;
        Format::from_name(ext)
    }

    /// True for the formats whose errors carry a line and column.
    pub fn is_text(self) -> bool {
        matches!(
            self,
            Format::Bits | Format::Hex | Format::Dec | Format::Unary
        )
    }

    /// The element width in bytes of a raw array format.
    pub fn raw_width(self) -> Option<usize> {
        match self {
            Format::U8 => Some(1),
            Format::U16le => Some(2),
            Format::U32le => Some(4),
            Format::U64le => Some(8),
            _ => None,
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_extensions_round_trip() {
        for format in Format::ALL {
            assert_eq!(Format::from_name(format.name()), Some(format));
            assert_eq!(Format::from_name(format.extension()), Some(format));
        }
        assert_eq!(Format::from_name("U64LE"), Some(Format::U64le));
        assert_eq!(Format::from_name("txt"), None);
    }

    #[test]
    fn extension_detection_ignores_case() {
        assert_eq!(Format::from_path(Path::new("a/b.BITS")), Some(Format::Bits));
        assert_eq!(Format::from_path(Path::new("x.u32le")), Some(Format::U32le));
        assert_eq!(Format::from_path(Path::new("x.U16")), Some(Format::U16le));
        assert_eq!(Format::from_path(Path::new("x")), None);
    }
}
