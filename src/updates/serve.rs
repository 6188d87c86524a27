//! The update session: the initial position, then one line per update
//! read from a stream, written as text or JSON.
//!
//! **Flushing.** The output is "flushed line by line, so it can drive
//! another program", but a write per line would cost a system call per
//! update (a million of them for a million updates). The session does what
//! interactive filters do: it writes its lines into a buffer and flushes
//! it whenever the update reader is about to wait for input (its buffer
//! holds no whole line and must be refilled) and at the end. A program
//! that writes a line and waits for the answer gets it before the session
//! waits for the next line; a batch of updates from a file is answered in
//! blocks of the reader's size. The buffer is also written out once it
//! holds [`OUTPUT_BYTES`].
//!
//! **Errors.** A line that is not an update (or names a heap past the
//! last) stops the session with an input error naming the stream
//! (`<stdin>`, or the path given), the line's offset, line and column,
//! after the answers to the lines before it have been written out.

use super::render;
use super::update_lines::{parse, LineError, UpdateLine, UpdateReader};
use super::{Position, Status};
use crate::error::Error;
use crate::input::source::STDIN_NAME;
use std::io::{Read, Write};

/// The output buffer is written out once it holds this many bytes.
const OUTPUT_BYTES: usize = 64 << 10;

/// How the lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    /// Text for people ([`render::human`]).
    Human,
    /// One JSON object a line ([`render::json`]).
    Json,
}

/// Writes the status of `position`, then applies each update line of
/// `updates` (named `stream` in errors; `-` is standard input) and writes
/// the status after it, to `out`.
///
/// ```
/// use nimstream::updates::{serve, Position, Style, UpdateOptions};
/// use nimstream::Format;
///
/// let mut position =
///     Position::from_bytes(b"3 4 5\n", Format::Dec, "example", &UpdateOptions::default())?;
/// let mut out = Vec::new();
/// serve(&mut position, &mut &b"0 1\n# heaps 1 4 5\n1 5\n"[..], "-", &mut out, Style::Json)?;
/// let lines: Vec<&str> = std::str::from_utf8(&out).unwrap().lines().collect();
/// assert_eq!(lines.len(), 3);
/// assert!(lines[1].starts_with(r#"{"update":1,"heap":0,"winner":"second","nim_sum":{"bit_length":0"#));
/// # Ok::<(), nimstream::Error>(())
/// ```
pub fn serve(
    position: &mut Position<'_>,
    updates: &mut dyn Read,
    stream: &str,
    out: &mut dyn Write,
    style: Style,
) -> Result<(), Error> {
    let name = if stream == "-" { STDIN_NAME } else { stream };
    let mut output = Output {
        out,
        buffer: Vec::with_capacity(OUTPUT_BYTES),
        line: String::new(),
        style,
    };
    let applied = output
        .write(&position.status()?)
        .and_then(|()| apply_all(position, &mut UpdateReader::new(updates, name), &mut output));
    let flushed = output.flush();
    applied.and(flushed)?;
    position.check_unchanged()
}

/// Applies every update of `reader` and writes the status after each.
fn apply_all(
    position: &mut Position<'_>,
    reader: &mut UpdateReader<'_>,
    output: &mut Output<'_>,
) -> Result<(), Error> {
    let name = reader.name();
    while let Some(line) = reader.next_line(&mut || output.flush())? {
        let update = parse(line.bytes, position.heaps(), position.name())
            .map_err(|error| located(name, &line, error))?;
        if let Some(update) = update {
            position.set(update.heap, update.value.limbs())?;
            output.write(&position.status()?)?;
        }
    }
    Ok(())
}

/// The input error for a bad line of the stream `name`.
fn located(name: &str, line: &UpdateLine<'_>, error: LineError) -> Error {
    Error::Input {
        path: name.to_string(),
        offset: line.offset + error.at as u64,
        line_col: Some((line.line, error.at as u64 + 1)),
        message: error.message,
    }
}

/// The lines written so far and not yet flushed.
struct Output<'o> {
    out: &'o mut dyn Write,
    buffer: Vec<u8>,
    /// Room to render one line.
    line: String,
    style: Style,
}

impl Output<'_> {
    /// Renders `status` into the buffer.
    fn write(&mut self, status: &Status) -> Result<(), Error> {
        match self.style {
            Style::Human => {
                self.line.clear();
                render::write_human(status, &mut self.line);
                self.buffer.extend_from_slice(self.line.as_bytes());
            }
            Style::Json => {
                serde_json::to_writer(&mut self.buffer, status)
                    .expect("a status always serialises");
                self.buffer.push(b'\n');
            }
        }
        if self.buffer.len() >= OUTPUT_BYTES {
            self.write_out()?;
        }
        Ok(())
    }

    /// Writes the buffer out.
    fn write_out(&mut self) -> Result<(), Error> {
        self.out.write_all(&self.buffer).map_err(stdout_error)?;
        self.buffer.clear();
        Ok(())
    }

    /// Writes the buffer out and flushes the output.
    fn flush(&mut self) -> Result<(), Error> {
        self.write_out()?;
        self.out.flush().map_err(stdout_error)
    }
}

fn stdout_error(error: std::io::Error) -> Error {
    Error::io("<stdout>", error)
}
