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
//! last) is an input error naming the stream (`<stdin>`, or the path
//! given), the line's offset, line and column, after the answers to the
//! lines before it have been written out. With [`BadLines::Stop`] (files
//! and pipes: a script's stream) it stops the session; with
//! [`BadLines::Report`] (a person typing at a terminal) it is written as
//! one `error:` line and the session goes on with the next line.

use super::render;
use super::update_lines::{parse, LineError, Update};
use super::update_reader::{UpdateLine, UpdateReader};
use super::Position;
use crate::error::Error;
use crate::input::source::STDIN_NAME;
use std::collections::VecDeque;
use std::io::{Read, Write};

/// Updates parsed ahead of the one being applied.
const LOOKAHEAD: usize = 16;

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

/// What the session does with a line that is not an update.
pub enum BadLines<'e> {
    /// Stops with its error.
    Stop,
    /// Writes its error to the writer, after the answers before it, as the
    /// binary prints errors (`error: …`, one line), and goes on.
    Report(&'e mut dyn Write),
}

/// Writes the status of `position`, then applies each update line of
/// `updates` (named `stream` in errors; `-` is standard input) and writes
/// the status after it, to `out`; a bad line goes as `bad_lines` says.
///
/// ```
/// use nimstream::updates::{serve, BadLines, Position, Style, UpdateOptions};
/// use nimstream::Format;
///
/// let mut position =
///     Position::from_bytes(b"3 4 5\n", Format::Dec, "example", &UpdateOptions::default())?;
/// let mut out = Vec::new();
/// let updates = b"0 1\n# heaps 1 4 5\n1 5\n";
/// serve(&mut position, &mut &updates[..], "-", &mut out, Style::Json, BadLines::Stop)?;
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
    mut bad_lines: BadLines<'_>,
) -> Result<(), Error> {
    let name = if stream == "-" { STDIN_NAME } else { stream };
    let mut output = Output {
        out,
        buffer: Vec::with_capacity(OUTPUT_BYTES),
        line: String::new(),
        style,
    };
    let mut reader = UpdateReader::new(updates, name);
    let applied = output
        .position(position)
        .and_then(|()| apply_all(position, &mut reader, &mut output, &mut bad_lines));
    let flushed = output.flush();
    applied.and(flushed)?;
    position.check_unchanged()
}

/// Applies every update of `reader` and writes the status after each.
///
/// The updates already in the reader's buffer are parsed up to
/// [`LOOKAHEAD`] ahead, so that the memory each will touch (its sample
/// in the index, then FILE's bytes there) is being fetched while the
/// ones before it are applied: a stream of updates to random heaps of a
/// large file otherwise waits on a cache miss or two per update. A bad
/// line met ahead stops the reading; it is reported once the updates
/// before it are answered (and with [`BadLines::Report`] the reading goes
/// on after it).
fn apply_all(
    position: &mut Position<'_>,
    reader: &mut UpdateReader<'_>,
    output: &mut Output<'_>,
    bad_lines: &mut BadLines<'_>,
) -> Result<(), Error> {
    let name = reader.name();
    let mut ahead: VecDeque<Update> = VecDeque::with_capacity(LOOKAHEAD);
    let mut bad_line = None;
    loop {
        while bad_line.is_none() && ahead.len() < LOOKAHEAD {
            let Some(line) = reader.buffered_line() else {
                break;
            };
            match parse(line.bytes, position.heaps(), position.name()) {
                Ok(Some(update)) => {
                    position.prefetch_index(update.heap);
                    ahead.push_back(update);
                }
                Ok(None) => {}
                Err(error) => bad_line = Some(located(name, &line, error)),
            }
        }
        let update = match ahead.pop_front() {
            Some(update) => update,
            None => match bad_line.take() {
                Some(error) => {
                    bad(error, bad_lines, output)?;
                    continue;
                }
                None => match reader.next_line(&mut || output.flush())? {
                    None => return Ok(()),
                    Some(line) => match parse(line.bytes, position.heaps(), position.name()) {
                        Ok(Some(update)) => update,
                        Ok(None) => continue,
                        Err(error) => {
                            bad(located(name, &line, error), bad_lines, output)?;
                            continue;
                        }
                    },
                },
            },
        };
        if let Some(later) = ahead.get(LOOKAHEAD / 2) {
            position.prefetch_heap(later.heap);
        }
        position.set(update.heap, update.value.limbs())?;
        output.position(position)?;
    }
}

/// Stops at the bad line's `error`, or reports it after the answers so
/// far and goes on, as `bad_lines` says.
fn bad(error: Error, bad_lines: &mut BadLines<'_>, output: &mut Output<'_>) -> Result<(), Error> {
    let BadLines::Report(errors) = bad_lines else {
        return Err(error);
    };
    output.flush()?;
    writeln!(errors, "error: {error}")
        .and_then(|()| errors.flush())
        .map_err(|e| Error::io("<stderr>", e))
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
    /// Renders the line of `position` into the buffer.
    fn position(&mut self, position: &mut Position<'_>) -> Result<(), Error> {
        self.line.clear();
        match (self.style, position.summary()) {
            (Style::Human, Some(summary)) => render::write_summary(&summary, &mut self.line),
            (Style::Human, None) => render::write_human(&position.status()?, &mut self.line),
            (Style::Json, _) => {
                let status = position.status()?;
                serde_json::to_writer(&mut self.buffer, &status)
                    .expect("a status always serialises");
                self.buffer.push(b'\n');
            }
        }
        self.buffer.extend_from_slice(self.line.as_bytes());
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
