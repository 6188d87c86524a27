//! One error type for the library and the binary: where the input went wrong
//! (file, byte offset, line and column), an I/O failure, or bad usage.
//!
//! The binary prints `error: ` followed by the [`Display`](std::fmt::Display)
//! text, and exits with [`Error::exit_code`].

use std::fmt;
use std::io;

/// Everything that can go wrong, with enough context to fix it.
#[derive(Debug)]
pub enum Error {
    /// The input bytes are not a valid instance of their format.
    Input {
        /// The file as the user named it (`<stdin>` for standard input).
        path: String,
        /// 0-based offset of the first wrong byte.
        offset: u64,
        /// 1-based line and column of that byte, for the text formats.
        line_col: Option<(u64, u64)>,
        /// What was found and what was expected.
        message: String,
    },
    /// Reading or writing a file failed.
    Io {
        /// The file involved.
        path: String,
        /// The operating system's reason.
        source: io::Error,
    },
    /// The command line asks for something impossible (exit status 2).
    Usage(String),
    /// A self-check failed: `verify` found the analyzer disagreeing with
    /// the game-tree search, or a strategy in `play` chose an illegal move.
    Check(String),
    /// A computation stopped where going on would need what it no longer
    /// keeps (a proof of a value past `grundy --memory`).
    Stopped(String),
    /// Ctrl-C ended a run that saved its state to go on later (exit
    /// status 130).
    Interrupted(String),
}

/// The source of the error of an analysis stopped by its
/// [`Cancel`](crate::Cancel) flag.
#[derive(Debug)]
pub(crate) struct Cancelled;

impl fmt::Display for Cancelled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the analysis was cancelled")
    }
}

impl std::error::Error for Cancelled {}

/// A parse failure inside a format module, before the file name and the
/// line and column are attached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError {
    /// Absolute 0-based offset of the first wrong byte.
    pub offset: u64,
    /// What was found and what was expected.
    pub message: String,
}

impl ParseError {
    /// A parse error at `offset`.
    pub(crate) fn new(offset: u64, message: impl Into<String>) -> ParseError {
        ParseError {
            offset,
            message: message.into(),
        }
    }

    /// The error for an unexpected byte `found`, saying what was `expected`.
    pub(crate) fn unexpected(offset: u64, found: u8, expected: &str) -> ParseError {
        ParseError::new(
            offset,
            format!("expected {expected}, found {}", describe_byte(found)),
        )
    }
}

/// A byte as a person reads it: `'x'` for printable ASCII, else its name or hex.
fn describe_byte(byte: u8) -> String {
    match byte {
        b'\n' => "a line feed (0x0a)".to_string(),
        b'\r' => "a carriage return (0x0d)".to_string(),
        b'\t' => "a tab (0x09)".to_string(),
        0x0b => "a vertical tab (0x0b)".to_string(),
        0x0c => "a form feed (0x0c)".to_string(),
        b' ' => "a space (0x20)".to_string(),
        0x21..=0x7e => format!("'{}' (0x{byte:02x})", byte as char),
        _ => format!("byte 0x{byte:02x}"),
    }
}

impl Error {
    /// The process exit status for this error: 2 for usage, 130 for an
    /// interrupt, 1 otherwise.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) => 2,
            Error::Interrupted(_) => 130,
            Error::Input { .. } | Error::Io { .. } | Error::Check(_) | Error::Stopped(_) => 1,
        }
    }

    /// An I/O error on `path`.
    pub fn io(path: impl Into<String>, source: io::Error) -> Error {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// True when the analysis was stopped by its
    /// [`Cancel`](crate::Cancel) flag.
    pub fn is_cancelled(&self) -> bool {
        matches!(self, Error::Io { source, .. }
            if source.get_ref().is_some_and(|inner| inner.is::<Cancelled>()))
    }

    /// True when the error is a write to a closed pipe (the reader went away).
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Io { source, .. } if source.kind() == io::ErrorKind::BrokenPipe)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Input {
                path,
                offset,
                line_col: Some((line, column)),
                message,
            } => write!(
                f,
                "{path}: offset {offset} (line {line}, column {column}): {message}"
            ),
            Error::Input {
                path,
                offset,
                line_col: None,
                message,
            } => write!(f, "{path}: offset {offset}: {message}"),
            Error::Io { path, source } => write!(f, "{path}: {}", io_reason(source)),
            Error::Usage(message)
            | Error::Check(message)
            | Error::Stopped(message)
            | Error::Interrupted(message) => f.write_str(message),
        }
    }
}

/// The OS reason without the "(os error N)" suffix Rust appends.
fn io_reason(source: &io::Error) -> String {
    let text = source.to_string();
    match text.find(" (os error") {
        Some(cut) => text[..cut].to_string(),
        None => text,
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_errors_name_offset_line_and_column() {
        let error = Error::Input {
            path: "a.bits".into(),
            offset: 7,
            line_col: Some((2, 3)),
            message: "expected '0'".into(),
        };
        assert_eq!(
            error.to_string(),
            "a.bits: offset 7 (line 2, column 3): expected '0'"
        );
        assert_eq!(error.exit_code(), 1);
    }

    #[test]
    fn bytes_are_described_readably() {
        assert_eq!(describe_byte(b'x'), "'x' (0x78)");
        assert_eq!(describe_byte(0x0c), "a form feed (0x0c)");
        assert_eq!(describe_byte(0xff), "byte 0xff");
    }

    #[test]
    fn io_errors_drop_the_os_error_number() {
        let error = Error::io("x", io::Error::from_raw_os_error(2));
        assert_eq!(error.to_string(), "x: No such file or directory");
    }
}
