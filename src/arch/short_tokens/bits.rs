//! The `bits` loop of the portable and AVX2 builds, in two halves while
//! the tokens are one non-digit apart (one a line, as `gen` writes them),
//! and in one pass from the first block where two non-digits meet.
//!
//! A block is classified into its digits and its `1`s, the mask of `1`s
//! reversed (bit 63 for byte 0). The token that ends before byte `e` of a
//! block has its last digit at bit `64 - e` of that mask and the digits
//! before it above, running into the previous block's reversed mask
//! (bit 0 for its byte 63): the 128 bits of the two masks shifted right by
//! `64 - e` hold the value in order, the last digit lowest, and the
//! token's length keeps its bits.
//!
//! - Two halves ([`search_single_spaced`], then [`take_values`]): the
//!   blocks' token ends are written out by bit scans, a group at a time
//!   whatever the block holds ([`Found::add_ends`]), and each block's
//!   reversed `1`s kept; then each token's value is taken from the two
//!   masks around its end, its first digit the end before it plus one.
//!   Neither half branches on a block's tokens, where a block of short
//!   `bits` ends one, two or three the predictor cannot tell apart.
//! - One pass ([`fill_any_spacing`]): each token's value shifted out of
//!   the masks as its end is found, its first digit after the last
//!   non-digit before its end (a bit scan), or that of the token open
//!   where the block began.

use super::find::Found;
use super::{block_at, read_ahead, Blocks, ShortHeaps, Stopped, Syntax, BLOCK, RUN_BYTES};
use std::mem::MaybeUninit;

/// The most blocks [`search_single_spaced`] reads in a run: their
/// reversed `1`s are kept, 8 bytes a block. A run of [`SHORT_HEAPS`](super::SHORT_HEAPS)
/// tokens one byte apart, each of at most 64 digits, reads fewer; the
/// one pass goes on past them.
const SEARCHED_BLOCKS: usize = 1280;

/// The ends a block's bit scans write at once, whatever it holds: of the
/// blocks of `gen`'s short `bits` (1-64 digits), 36 % end one token, 42 %
/// two, 17 % three, 4 % four and under 1 % more. Three at once took the
/// same time.
const ENDS_GROUP: usize = 4;

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
    let held = heaps.len;
    let mut found = Found::new();
    let mut ones = Ones::new();
    let searched = search_single_spaced(build, data, from, heaps.room(), &mut found, &mut ones);
    let ends = found.ends();
    let written = take_values::<B, HIGH>(build, ends, searched.first, &ones, from, base, heaps);
    heaps.len = held + written.taken;
    let taken_to = match written.taken {
        0 => from,
        taken => from + ends[taken - 1] as usize,
    };
    if let Some(long) = written.long {
        return Stopped {
            at: taken_to,
            long: Some(long),
        };
    }
    // The token open where the search stopped starts after the last end
    // (or is the run's first); none is open after a non-digit.
    let open = match (searched.carry, ends.last()) {
        (0, _) => searched.at,
        (_, Some(&end)) => from + end as usize + 1,
        (_, None) => from + searched.first as usize,
    };
    let state = Pass {
        at: searched.at,
        carry: searched.carry,
        open,
        last_ones: ones.last(),
        taken_to,
    };
    fill_any_spacing::<B, HIGH>(build, data, from, base, heaps, state)
}

/// Each block's reversed `1`s as [`search_single_spaced`] reads them,
/// after a 0 for the bytes before the run. The places are not cleared
/// when a run begins (10 KiB of stores a run, for a run that reads about
/// 34 KiB of short `bits`): only those written are read.
struct Ones {
    masks: [MaybeUninit<u64>; SEARCHED_BLOCKS + 1],
    /// The places written: 1 and one a block.
    len: usize,
}

impl Ones {
    fn new() -> Ones {
        let mut masks = [MaybeUninit::uninit(); SEARCHED_BLOCKS + 1];
        masks[0].write(0);
        Ones { masks, len: 1 }
    }

    /// The blocks' it has room for.
    fn room(&self) -> usize {
        self.masks.len() - self.len
    }

    /// Appends the next block's; there must be room.
    #[inline(always)]
    fn push(&mut self, mask: u64) {
        self.masks[self.len].write(mask);
        self.len += 1;
    }

    /// Those held: the 0, then the blocks' in order.
    #[inline(always)]
    fn masks(&self) -> &[u64] {
        // SAFETY: `new` and `push` wrote every place below `len`, and a
        // `MaybeUninit<u64>` has the layout of a `u64`.
        unsafe { std::slice::from_raw_parts(self.masks.as_ptr().cast(), self.len) }
    }

    /// The last block's, or 0 if there is none.
    fn last(&self) -> u64 {
        self.masks()[self.len - 1]
    }
}

/// Where [`search_single_spaced`] stopped.
struct Searched {
    /// The run's first digit, from its start (0 if it found none).
    first: u32,
    /// The first block it did not take.
    at: usize,
    /// Whether the byte before that block is a digit (0 or 1).
    carry: u64,
}

/// The first half while the tokens are one non-digit apart: from the
/// first block of the run that holds a digit, the ends of its tokens into
/// `found` (as positions from `from`) and each block's reversed `1`s into
/// `ones`, until it has found `room` ends or more or [`RUN_BYTES`] are
/// read, or at the first block that is not all in `data`, holds a byte
/// that is neither a digit nor whitespace, has two non-digits side by
/// side after the run's first digit, or holds only the digits of a token
/// open before it, or once `ones` is full. The one pass takes over there,
/// and stops where the run stops.
#[inline(always)]
fn search_single_spaced<B: Blocks>(
    build: &B,
    data: &[u8],
    from: usize,
    room: usize,
    found: &mut Found,
    ones: &mut Ones,
) -> Searched {
    let first = block_at(data, from).and_then(|block| build.bits_block(block));
    let Some((first, _)) = first.filter(|&(digits, _)| digits != 0) else {
        return Searched {
            first: 0,
            at: from,
            carry: 0,
        };
    };
    let first = first.trailing_zeros();
    // Whether the byte before the block is a digit, and whether it is a
    // non-digit; the positions of the block checked for two non-digits
    // side by side (from the run's first digit on).
    let (mut carry, mut gap_carry) = (0u64, 0u64);
    let mut checked = u64::MAX << first;
    // The blocks it may read: all in `data`, within the run's bytes, and
    // with room in `ones`; a counted loop over them checks no bounds.
    let most = (RUN_BYTES / BLOCK).min(ones.room());
    let blocks = data[from..].chunks_exact(BLOCK).take(most);
    let mut taken = 0;
    for (place, block) in (0..).step_by(BLOCK).zip(blocks) {
        if found.ended >= room {
            break;
        }
        read_ahead(data, from + place);
        let block = block.try_into().expect("a block");
        let Some((digits, block_ones)) = build.bits_block(block) else {
            break;
        };
        let gaps = !digits;
        if gaps & (gaps << 1 | gap_carry) & checked != 0 || digits == u64::MAX && carry == 1 {
            break;
        }
        found.add_ends::<ENDS_GROUP>(gaps & (digits << 1 | carry), place as u32);
        ones.push(block_ones);
        carry = digits >> (BLOCK - 1);
        gap_carry = gaps >> (BLOCK - 1);
        checked = u64::MAX;
        taken = place + BLOCK;
    }
    let at = from + taken;
    Searched { first, at, carry }
}

/// What [`take_values`] wrote.
struct Written {
    /// The heaps taken: the tokens before the first too long, or all.
    taken: usize,
    /// The first token longer than 64 digits, if one is: its first digit
    /// and its end.
    long: Option<(usize, usize)>,
}

/// The second half: the value and offset of every token that `ends` (from
/// `from`, the first token's first digit at `first`, each other's one
/// byte past the end before it) into `heaps` past those it holds, each
/// from the blocks' reversed `1`s around its end; `heaps.len` is left as
/// it is. No branch depends on the tokens: the first longer than 64
/// digits (its value a wrong one, past those taken) is looked for after.
#[inline(always)]
fn take_values<B: Blocks, const HIGH: bool>(
    build: &B,
    ends: &[u32],
    first: u32,
    ones: &Ones,
    from: usize,
    base: u64,
    heaps: &mut ShortHeaps,
) -> Written {
    let (held, n) = (heaps.len, ends.len());
    let masks = ones.masks();
    let base = base + from as u64;
    let values = heaps.limbs[0][8 * held..8 * (held + n)].chunks_exact_mut(8);
    let offsets = &mut heaps.offsets[held..held + n];
    let (mut start, mut longest) = (first, 0);
    for ((&end, value), offset) in ends.iter().zip(values).zip(offsets) {
        let len = end - start;
        longest = longest.max(len);
        // The end's block (the `1`s after the run's 0) and its place there.
        let block = (end / BLOCK as u32) as usize;
        let [before, this] = masks[block..block + 2] else {
            unreachable!("two masks")
        };
        // The 128 bits of the two masks shifted left by the end's place
        // in its block: their high half is the value (a double shift).
        let both = u128::from(before) << 64 | u128::from(this);
        let bits = (both << (end % BLOCK as u32) >> 64) as u64;
        // A length over 64 is a token too long: its value is not taken.
        let bits = build.low_bits_of(bits, len);
        value.copy_from_slice(&bits.to_le_bytes());
        *offset = base + u64::from(start);
        start = end + 1;
    }
    if HIGH {
        heaps.limbs[1][8 * held..8 * (held + n)].fill(0);
    }
    let max = Syntax::Bits.max_digits() as u32;
    if longest <= max {
        return Written {
            taken: n,
            long: None,
        };
    }
    let starts = std::iter::once(first).chain(ends.iter().map(|&end| end + 1));
    let (k, start) = (starts.zip(ends).enumerate())
        .find_map(|(k, (start, &end))| (end - start > max).then_some((k, start)))
        .expect("a token too long");
    Written {
        taken: k,
        long: Some((from + start as usize, from + ends[k] as usize)),
    }
}

/// The state of the one pass where it begins: the block it enters,
/// whether the byte before it is a digit, the first digit of the token
/// open there, the previous block's reversed `1`s, and the end of the
/// last token taken.
struct Pass {
    at: usize,
    carry: u64,
    open: usize,
    last_ones: u64,
    taken_to: usize,
}

/// The one pass, from `state` in the run that began at `from`: block by
/// block, each token's value taken from masks as its end is found, until
/// `heaps` is full or [`RUN_BYTES`] are read from `from`,
/// or a block stops the run.
#[inline(always)]
fn fill_any_spacing<B: Blocks, const HIGH: bool>(
    build: &B,
    data: &[u8],
    from: usize,
    base: u64,
    heaps: &mut ShortHeaps,
    state: Pass,
) -> Stopped {
    let max = Syntax::Bits.max_digits();
    let Pass {
        mut at,
        mut carry,
        mut open,
        mut last_ones,
        mut taken_to,
    } = state;
    let (mut n, most) = (heaps.len, heaps.most());
    let mut long = None;
    'blocks: while n < most && at - from < RUN_BYTES {
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
