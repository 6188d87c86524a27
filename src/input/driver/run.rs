//! The passes: [`run`] over any input, [`run_random`] over an input
//! that can be read at any offset, [`run_span`] over a span of one. Every
//! pass of every analysis goes through one of them.

use super::fold::Fold;
use super::pass::{Folded, Located, Reads};
use super::progress;
use super::ranges::run_located;
use super::stream::read_stream;
use crate::error::{Error, ParseError};
use crate::input::format::Format;
use crate::input::source::Input;
use std::ops::Range;

/// Runs one pass over `input`: pushes its heaps into folds made by
/// `make`, one per range, and merges them. A regular file is checked for
/// changes at the end of the pass.
pub fn run<F: Fold>(
    input: &mut Input<'_>,
    format: Format,
    reads: &Reads,
    make: impl Fn() -> F + Sync,
) -> Result<Folded<F>, Error> {
    let Some(reader) = input.stream_mut() else {
        return run_random(input, format, reads, make);
    };
    let mut fold = make();
    progress::pass_started();
    let (bytes, heaps, error) = read_stream(reader, format, reads, &mut fold);
    match error {
        None => Ok(Folded {
            fold,
            bytes_read: bytes,
            ranges: 1,
            heaps,
        }),
        Some(error) => Err(error.into_error(input, format)),
    }
}

/// [`run`] over an input that can be read at any offset (a stream is
/// read only once, by [`run`]): the ranges are read on threads of their
/// own.
pub fn run_random<F: Fold>(
    input: &Input<'_>,
    format: Format,
    reads: &Reads,
    make: impl Fn() -> F + Sync,
) -> Result<Folded<F>, Error> {
    let source = input
        .random_access()
        .expect("a stream is read once, by run");
    let folded = run_located(input, format, reads, 0..source.size(), make)
        .map_err(|error| error.into_error(input, format))?;
    input.check_unchanged()?;
    Ok(folded)
}

/// Why a pass over a span stopped ([`run_span`]): a malformed byte, as
/// the scanner found it (no line and column: the span's reader does not
/// know the lines before it), or any other error.
pub enum SpanError {
    /// A malformed byte.
    Parse(ParseError),
    /// Anything else, complete.
    Failed(Error),
}

/// [`run_random`] over `span` alone, which must start and end on heap
/// boundaries (a `nimb` span after the header, unless it starts at 0):
/// its heaps are pushed into folds, indices counted from 0. A malformed
/// byte comes back as the scanner found it, for the caller to locate
/// (the sharded runs of `analyze --range`, which know the lines before
/// the span only once every range is merged).
pub fn run_span<F: Fold>(
    input: &Input<'_>,
    format: Format,
    reads: &Reads,
    span: Range<u64>,
    make: impl Fn() -> F + Sync,
) -> Result<Folded<F>, SpanError> {
    run_located(input, format, reads, span, make).map_err(|error| match error {
        Located::Parse(error, _) => SpanError::Parse(error),
        Located::Io(error) => SpanError::Failed(Error::io(input.name(), error)),
        Located::Failed(error) => SpanError::Failed(error),
    })
}
