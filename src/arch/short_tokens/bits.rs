//! The `bits` loop of the portable and AVX2 builds: one pass, block by
//! block, each token's value taken from masks as the token is found.
//!
//! A block is classified into its digits and its `1`s, the mask of `1`s
//! reversed (bit 63 for byte 0). The token that ends before byte `e` of a
//! block has its last digit at bit `64 - e` of that mask and the digits
//! before it above, running into the previous block's reversed mask
//! (bit 0 for its byte 63): the 128 bits of the two masks shifted right by
//! `64 - e` hold the value in order, the last digit lowest, and the
//! token's length keeps its bits. Its first digit follows the last
//! non-digit before `e` (a bit scan), or, if there is none, is the first
//! digit of the token open where the block began. No byte is read twice,
//! and no position is written down to be read again.

use super::{block_at, Blocks, ShortHeaps, Stopped, Syntax, BLOCK, RUN_BYTES, SHORT_HEAPS};

/// [`super::ShortKernel::fill`] for `bits` with the portable or AVX2 build,
/// the heaps' high limbs (all zero) stored if `HIGH`.
#[inline(always)]
pub(super) fn fill_bits<B: Blocks, const HIGH: bool>(
    build: &B,
    data: &[u8],
    from: usize,
    base: u64,
    heaps: &mut ShortHeaps,
) -> Stopped {
    let max = Syntax::Bits.max_digits();
    // Where the block is; whether the byte before it is a digit; the first
    // digit of the token open there; the previous block's reversed `1`s.
    let (mut at, mut carry, mut open, mut last_ones) = (from, 0u64, from, 0u64);
    // The end of the last token taken, and the heaps held.
    let (mut taken_to, mut n) = (from, heaps.len);
    let mut long = None;
    'blocks: while n < SHORT_HEAPS && at - from < RUN_BYTES {
        let Some(block) = block_at(data, at) else {
            break;
        };
        let Some((digits, ones)) = build.bits_block(block) else {
            break;
        };
        if digits == u64::MAX && carry == 1 {
            long = Some((open, at + BLOCK));
            break;
        }
        let gaps = !digits;
        let mut ends = gaps & (digits << 1 | carry);
        // The mask of `1`s shifted right by one, so that a shift by `63 -
        // e` (up to 63) takes the `e` bits above bit `64 - e`, none when
        // `e` is 0.
        let ones_above = ones >> 1;
        while ends != 0 {
            let e = ends.trailing_zeros();
            ends &= ends - 1;
            // `e` is at most 63: no shift overflows.
            let before = gaps & ((1 << e) - 1);
            let start = match before {
                0 => open,
                _ => at + BLOCK - before.leading_zeros() as usize,
            };
            let end = at + e as usize;
            if end - start > max {
                long = Some((start, end));
                break 'blocks;
            }
            let value =
                (ones_above >> (63 - e) | last_ones << e) & u64::MAX >> (64 - (end - start));
            heaps.write::<HIGH>(n, base + start as u64, u128::from(value));
            n += 1;
            taken_to = end;
        }
        // After a block of digits (carry 0 here) a token opens at its
        // first byte: 64 - 64 leading zeros.
        open = at + BLOCK - gaps.leading_zeros() as usize;
        carry = digits >> (BLOCK - 1);
        last_ones = ones;
        at += BLOCK;
    }
    heaps.len = n;
    Stopped { at: taken_to, long }
}
