//! The block path the token formats share: a scanner's short tokens
//! parsed a run of 64-byte blocks at a time into a [`WordBuffer`] by the
//! kernels of [`short_tokens`](crate::arch::short_tokens), the best build
//! the CPU allows, and what the scanner's general path takes over where a
//! run stops.
//!
//! A run stops before the first token it does not take: one near the end
//! of the slice, one whose block holds a byte that is neither a digit nor
//! whitespace (the general path finds the error where it always did), or
//! one longer than a block takes, which goes to the long-token paths. For
//! that last (and a `unary` line a run stopped in), the run says how far
//! its digits are already checked ([`Resume`]), so that the general path
//! does not read them again.

use crate::arch::short_tokens::{ShortKernel, Syntax};
use crate::input::blocks::WordBuffer;

/// Where the general path takes over from a run of blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Resume {
    /// The token that stopped the run by its length, or the line it
    /// stopped in: its first digit, and the end of the bytes already
    /// checked to be its digits.
    long: Option<(usize, usize)>,
}

impl Resume {
    /// Where the digits of the token whose first digit is at `start` are
    /// still to be checked: past those the run checked, if that token
    /// stopped it, else from `start`. Forgets the run: it speaks only of
    /// the token right after it.
    #[inline(always)]
    pub(super) fn unchecked_from(&mut self, start: usize) -> usize {
        match self.long.take() {
            Some((first, checked)) if first == start => checked,
            _ => start,
        }
    }
}

/// Parses the short tokens of `data` (first byte at offset `base`) from
/// `pos`, which is not inside a token, into `words` in `syntax`; returns
/// where the scanner goes on and what it may skip there.
#[inline]
pub(super) fn fill(
    syntax: Syntax,
    data: &[u8],
    pos: usize,
    base: u64,
    words: &mut WordBuffer,
) -> (usize, Resume) {
    let stopped = ShortKernel::best().fill(syntax, data, pos, base, words.heaps_mut());
    (stopped.at, Resume { long: stopped.long })
}
