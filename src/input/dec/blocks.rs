//! The `dec` scanner's block path: where each token starts and ends, found
//! from the digit masks of 64-byte blocks without a byte loop and without a
//! branch on the token's length.
//!
//! Each block is classified once ([`DecKernel::digit_mask`]) into the
//! bits of the digits that start a token (no digit before them) and of
//! the bytes that end one (a non-digit after a digit), the digit before
//! the block carried in from the block before. The next token's start is
//! the lowest start bit and its end the lowest end bit, each cleared once
//! read: two bit scans per token. A token's end comes after its start, so
//! when a block has no end left, the token runs into the next block and
//! the block after it is classified; that block's starts are then the
//! next ones too, as no token starts after one that does not end in its
//! block.
//!
//! Whatever the blocks cannot say (a block holding a byte that is neither
//! a digit nor whitespace, the last bytes of the slice, a token with a
//! whole block of digits) is left to the scanner's general path, after
//! which the blocks start again where that path stopped
//! ([`BlockCursor::at`]).

use crate::arch::dec_tokens::{DecKernel, BLOCK};

/// The starts and ends of tokens in one block not yet read.
#[derive(Clone, Copy, Debug)]
pub(super) struct BlockCursor {
    /// Bit `i`: a token starts at byte `block + i`.
    starts: u64,
    /// Bit `i`: a token ends at byte `block + i` (the byte after its
    /// last digit, which is whitespace).
    ends: u64,
    /// The first byte after the block: the next block to classify.
    next: usize,
    /// 1 if the last byte of the block is a digit.
    carry: u64,
}

impl BlockCursor {
    /// A cursor that reads blocks from `pos` (the scanner's position, not
    /// inside a token).
    pub(super) fn at(pos: usize) -> BlockCursor {
        BlockCursor {
            starts: 0,
            ends: 0,
            next: pos,
            carry: 0,
        }
    }

    /// The start and end (the index of the byte after its last digit,
    /// which is whitespace) of the next token, if it has at most `max_len`
    /// digits and ends in the block it starts in or the next one; its
    /// digits are valid, and so are the bytes between the scanner's
    /// position and the token. `None` leaves
    /// the next token to the general path, and the cursor must then start
    /// again with [`BlockCursor::at`].
    #[inline(always)]
    pub(super) fn next_token(
        &mut self,
        data: &[u8],
        kernel: DecKernel,
        max_len: usize,
    ) -> Option<(usize, usize)> {
        while self.starts == 0 {
            self.advance(data, kernel)?;
        }
        let start = self.next - BLOCK + self.starts.trailing_zeros() as usize;
        self.starts &= self.starts - 1;
        if self.ends == 0 {
            // The token runs into the next block, and has no start after it
            // in this one: the next block's starts are the next ones.
            self.advance(data, kernel)?;
            if self.ends == 0 {
                return None;
            }
        }
        let end = self.next - BLOCK + self.ends.trailing_zeros() as usize;
        self.ends &= self.ends - 1;
        (end - start <= max_len).then_some((start, end))
    }

    /// Moves to the next block, classifying it; `None` if it is not all in
    /// `data` or holds a byte that is neither a digit nor whitespace.
    #[inline(always)]
    fn advance(&mut self, data: &[u8], kernel: DecKernel) -> Option<()> {
        let block = data.get(self.next..self.next + BLOCK)?;
        let digits = kernel.digit_mask(block.try_into().expect("a block"))?;
        let after_digit = digits << 1 | self.carry;
        self.starts = digits & !after_digit;
        self.ends = !digits & after_digit;
        self.carry = digits >> (BLOCK - 1);
        self.next += BLOCK;
        Some(())
    }
}
