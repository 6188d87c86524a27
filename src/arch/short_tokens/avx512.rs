//! The block loop with AVX-512 F, BW, DQ, VBMI, VBMI2 and IFMA: a block's
//! tokens read together, eight a step, with no branch on a token's length
//! or on where it lies.
//!
//! A block is classified into mask registers. Its end positions, and its
//! start positions after the start of the token that runs in from the
//! block before, are compressed into byte vectors (`vpcompressb`,
//! `vpexpandb`), so that lane `j` holds token `j`'s end and length. Eight
//! tokens a step then get their values from the two blocks that hold them
//! (the block and the one before: 128 bytes, one two-table byte permute):
//!
//! - `bits`: the block's `1`s, reversed by a byte permute before the
//!   compare, make a mask in which a token's digits are a segment, its
//!   last digit lowest: eight concatenating shifts of the two blocks' masks;
//! - `hex`: each byte of the block becomes the pair of its digit and the
//!   one before (`16 · before + digit`), so that byte `k` of a value is
//!   the pair that ends `2k` digits before the token's end: one permute
//!   gathers eight tokens' eight bytes, the bytes past the token zeroed
//!   (a non-digit's value is 0, so that the top byte of an odd length is
//!   its first digit alone);
//! - `dec`: the 8 digits that end at a token's end, the 8 before them and
//!   the 4 before those (20 at most), each eight tokens a permute, are
//!   combined by multiply-adds into three numbers, the first times 10^16
//!   (one IFMA product) added in 128 bits.
//!
//! The offsets are the starts plus the block's place, widened to 64 bits
//! eight at a time. Lanes past the block's tokens are written too (the
//! buffer has room for them) and not counted.
//!
//! `unary` lines are read the same way ([`fill_lines`]): the LFs'
//! positions compressed and widened, eight a step, each line's start the
//! position after the LF before.

use super::{ShortHeaps, Stopped, Syntax, BLOCK, RUN_BYTES};
use crate::arch::prefetch::read_ahead;
use std::arch::x86_64::*;

/// [`super::ShortKernel::fill`] with AVX-512.
///
/// # Safety
/// The CPU must support AVX-512 F, BW, DQ, VBMI, VBMI2 and IFMA, BMI1, BMI2,
/// LZCNT and POPCNT.
#[target_feature(
    enable = "avx512f,avx512bw,avx512dq,avx512vbmi,avx512vbmi2,avx512ifma,bmi1,bmi2,lzcnt,popcnt"
)]
pub(super) unsafe fn fill(
    syntax: Syntax,
    data: &[u8],
    from: usize,
    base: u64,
    heaps: &mut ShortHeaps,
) -> Stopped {
    // One loop per syntax, each with its lanes inlined.
    match syntax {
        // SAFETY (both): this function's caller guarantees the features.
        Syntax::Bits => unsafe { tokens::<Bits>(data, from, base, heaps) },
        Syntax::Hex => unsafe { tokens::<Hex<false>>(data, from, base, heaps) },
        // SAFETY: as above.
        Syntax::WideHex => unsafe { tokens::<Hex<true>>(data, from, base, heaps) },
        // SAFETY: as above.
        Syntax::Dec => unsafe { tokens::<Dec>(data, from, base, heaps) },
        // SAFETY: as above.
        Syntax::Unary => unsafe { fill_lines(data, from, base, heaps) },
    }
}

/// [`fill_tokens`] for `L`, storing high limbs when its values have them
/// or the heaps held already store theirs (a loop for each, so that the
/// loop asks nothing of it).
///
/// # Safety
/// The CPU must have the features of [`fill`].
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512dq,avx512vbmi,avx512vbmi2,avx512ifma,bmi1,bmi2,lzcnt,popcnt"
)]
unsafe fn tokens<L: Lanes>(data: &[u8], from: usize, base: u64, heaps: &mut ShortHeaps) -> Stopped {
    heaps.high_stored |= L::HIGH;
    // SAFETY (both): the caller guarantees the features.
    match heaps.high_stored {
        true => unsafe { fill_tokens::<L, true>(data, from, base, heaps) },
        false => unsafe { fill_tokens::<L, false>(data, from, base, heaps) },
    }
}

/// What a syntax adds to the loop of [`fill_tokens`]. Every method must
/// be called only where the CPU has the features of [`fill`].
trait Lanes {
    /// The syntax read.
    const SYNTAX: Syntax;

    /// Whether a value may have a high limb (else [`Lanes::values`] gives
    /// zeros for it, which need not be stored).
    const HIGH: bool = false;

    /// What a block keeps for the values of the tokens that end in it or
    /// the next one.
    type Block: Copy;

    /// The state before the first block: nothing runs into it.
    ///
    /// # Safety
    /// The CPU must have the features of [`fill`].
    unsafe fn nothing() -> Self::Block;

    /// The digit mask of `bytes`, if every other byte is whitespace.
    ///
    /// # Safety
    /// The CPU must have the features of [`fill`].
    unsafe fn digits(bytes: __m512i) -> Option<u64>;

    /// What the values of `bytes`, whose digit mask is `digits`, are read
    /// from, given the block before's.
    ///
    /// # Safety
    /// The CPU must have the features of [`fill`].
    unsafe fn prepare(bytes: __m512i, digits: u64, before: Self::Block) -> Self::Block;

    /// The low and high limbs of the eight tokens whose ends (window
    /// positions, 64-127) and lengths (1 to the syntax's most) are bytes
    /// 0-7 of `ends` and `lengths`, read from the block before and the
    /// block. Lanes past the tokens may hold anything.
    ///
    /// # Safety
    /// The CPU must have the features of [`fill`].
    unsafe fn values(
        ends: __m512i,
        lengths: __m512i,
        before: Self::Block,
        block: Self::Block,
    ) -> (__m512i, __m512i);
}

/// `byte` in every lane.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn splat(byte: u8) -> __m512i {
    _mm512_set1_epi8(byte as i8)
}

/// Lane `i` holds `i / divisor * step + i % divisor * scale + offset`:
/// the constant vectors of the loop.
const fn table(divisor: usize, step: usize, scale: usize, offset: usize) -> [u8; BLOCK] {
    let mut bytes = [0u8; BLOCK];
    let mut i = 0;
    while i < BLOCK {
        bytes[i] = (i / divisor * step + i % divisor * scale + offset) as u8;
        i += 1;
    }
    bytes
}

/// Lane `i` holds `i` (its position in the block).
const POSITIONS: [u8; BLOCK] = table(BLOCK, 0, 1, 0);
/// Lane `i` holds `64 + i` (its position in the window).
const WINDOW_POSITIONS: [u8; BLOCK] = table(BLOCK, 0, 1, BLOCK);
/// Lane `i` holds `i + 63`: the byte before, in a permute of two blocks.
const BYTE_BEFORE: [u8; BLOCK] = table(BLOCK, 0, 1, BLOCK - 1);
/// Lane `i` holds `63 - i`: a permute by it reverses a block.
const REVERSED: [u8; BLOCK] = {
    let mut bytes = [0u8; BLOCK];
    let mut i = 0;
    while i < BLOCK {
        bytes[i] = (BLOCK - 1 - i) as u8;
        i += 1;
    }
    bytes
};
/// Lane `8j + k` holds `j`: the token of its eight.
const TOKEN_OF_EIGHT: [u8; BLOCK] = table(8, 1, 0, 0);
/// Lane `8j + k` holds `2k`.
const TWICE_K: [u8; BLOCK] = table(8, 0, 2, 0);
/// Lane `8j + k` holds `8 - k`: how far before a token's end the digit
/// of lane `k` of eight lies, the last eight digits.
const EIGHT_LESS_K: [u8; BLOCK] = {
    let mut bytes = [0u8; BLOCK];
    let mut i = 0;
    while i < BLOCK {
        bytes[i] = (8 - i % 8) as u8;
        i += 1;
    }
    bytes
};

/// One of the tables above as a vector.
#[inline]
#[target_feature(enable = "avx512f")]
fn vector(table: &[u8; BLOCK]) -> __m512i {
    // SAFETY: `table` holds 64 bytes; an unaligned load.
    unsafe { _mm512_loadu_si512(table.as_ptr().cast()) }
}

/// The lanes of `bytes` that hold a space, tab, LF or CR: the byte equals
/// the entry of a table indexed by its low nibble (`' '` at 0, each of the
/// others at its own value, 0 elsewhere, which no byte with that nibble
/// equals; bytes from `0x80` look up 0).
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn spaces(bytes: __m512i) -> u64 {
    let table = _mm512_broadcast_i32x4(_mm_setr_epi8(
        0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0x09, 0x0a, 0, 0, 0x0d, 0, 0,
    ));
    _mm512_cmpeq_epi8_mask(_mm512_shuffle_epi8(table, bytes), bytes)
}

/// Where a run's blocks must start before: the last whole block of
/// `data`, and [`RUN_BYTES`] from `from`.
#[inline]
fn run_limit(data: &[u8], from: usize) -> usize {
    (data.len() + 1).saturating_sub(BLOCK).min(from + RUN_BYTES)
}

/// The low `count` bits set (`count` up to 64).
#[inline]
#[target_feature(enable = "bmi2")]
fn low_bits(count: usize) -> u64 {
    _bzhi_u64(u64::MAX, count as u32)
}

/// The token loop: every block's tokens read together (see the module
/// documentation). Window positions count from the start of the block
/// before: the block's bytes are 64-127.
///
/// # Safety
/// The CPU must have the features of [`fill`].
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512dq,avx512vbmi,avx512vbmi2,avx512ifma,bmi1,bmi2,lzcnt,popcnt"
)]
unsafe fn fill_tokens<L: Lanes, const STORE_HIGH: bool>(
    data: &[u8],
    from: usize,
    base: u64,
    heaps: &mut ShortHeaps,
) -> Stopped {
    let max = L::SYNTAX.max_digits() as u8;
    let window_positions = vector(&WINDOW_POSITIONS);
    let mut stopped = Stopped {
        at: from,
        long: None,
    };
    // SAFETY: the caller guarantees the features.
    let mut before = unsafe { L::nothing() };
    // The block's place, the window position of the token that runs into
    // it (if `carry`), and the heaps held.
    let (mut at, mut running, mut carry) = (from, 0u8, 0u64);
    let (mut len, most, limit) = (heaps.len, heaps.most(), run_limit(data, from));
    // The heaps held before the run.
    let first = len;
    let mut high_or = _mm512_setzero_si512();
    // The window's place in the input: the block before's first byte.
    let mut window_base = _mm512_set1_epi64((base + from as u64).wrapping_sub(BLOCK as u64) as i64);
    // The last block that held an end, and its ends (`from` and none, as
    // `last_end` reads them, before any).
    let (mut ended_at, mut ended) = (from, 0u64);
    while len < most && at < limit {
        read_ahead(data, at);
        // SAFETY: `at + 64 <= data.len()`; an unaligned load.
        let bytes = unsafe { _mm512_loadu_si512(data.as_ptr().add(at).cast()) };
        // SAFETY (this and the other calls of `L`): the caller guarantees
        // the features.
        let Some(digits) = (unsafe { L::digits(bytes) }) else {
            break;
        };
        let block = unsafe { L::prepare(bytes, digits, before) };
        let after_digit = digits << 1 | carry;
        let (starts, ends) = (digits & !after_digit, !digits & after_digit);
        let count = ends.count_ones() as usize;
        let end_at = _mm512_maskz_compress_epi8(ends, window_positions);
        // The running token's start first, if there is one: its window
        // position stands in lane 0, whose byte (a digit after a digit)
        // is no start then, and is taken with the starts.
        let running_first = _mm512_mask_set1_epi8(window_positions, carry, running as i8);
        let start_at = _mm512_maskz_compress_epi8(starts | carry, running_first);
        let lengths = _mm512_sub_epi8(end_at, start_at);
        // The block's tokens too long, if any. The steps below and the
        // count of heaps follow `count` alone, found from the masks; how
        // many tokens come before the first too long, which waits for the
        // compressed lengths, is counted only where one is (the run stops
        // there), and the common path tests the mask and nothing more.
        // A block with a token too long writes lanes past the heaps
        // counted, as lanes past a block's tokens are.
        let too_long = match L::SYNTAX.max_digits() >= BLOCK {
            true => running_too_long(running, carry, ends, max),
            false => _mm512_mask_cmpgt_epu8_mask(low_bits(count), lengths, splat(max)),
        };
        let (mut ends_left, mut lengths_left, mut starts_left) = (end_at, lengths, start_at);
        let mut step = 0;
        loop {
            let (low, high) = unsafe { L::values(ends_left, lengths_left, before, block) };
            if L::HIGH {
                let kept = low_bits(count - step) as u8;
                high_or = _mm512_or_si512(high_or, _mm512_maskz_mov_epi64(kept, high));
            }
            let starts = _mm512_cvtepu8_epi64(_mm512_castsi512_si128(starts_left));
            let i = len + step;
            // SAFETY: `i + 8 <= len + 64 + 8`, within the room for
            // `SHORT_HEAPS + 64 + 8` heaps (`len < most <= SHORT_HEAPS`, and a
            // block ends at most 64 tokens); unaligned stores.
            unsafe {
                _mm512_storeu_si512(heaps.limbs[0].as_mut_ptr().add(8 * i).cast(), low);
                if STORE_HIGH {
                    _mm512_storeu_si512(heaps.limbs[1].as_mut_ptr().add(8 * i).cast(), high);
                }
                let offsets = _mm512_add_epi64(window_base, starts);
                _mm512_storeu_si512(heaps.offsets.as_mut_ptr().add(i).cast(), offsets);
            }
            step += 8;
            if step >= count {
                break;
            }
            ends_left = _mm512_alignr_epi64(ends_left, ends_left, 1);
            lengths_left = _mm512_alignr_epi64(lengths_left, lengths_left, 1);
            starts_left = _mm512_alignr_epi64(starts_left, starts_left, 1);
        }
        if too_long != 0 {
            let taken = too_long.trailing_zeros() as usize;
            len += taken;
            if L::HIGH {
                // The OR above took the block's values past the first too
                // long (a value read from its last digits among them).
                high_or = _mm512_set1_epi64(heaps.stored_high_or(first, len) as i64);
            }
            stopped.at = last_end(ended_at, ended);
            stopped = long_token(stopped, at, starts, ends, carry, running, taken);
            break;
        }
        len += count;
        if ends != 0 {
            (ended_at, ended) = (at, ends);
        }
        if digits >> 63 != 0 {
            if starts == 0 {
                // The running token runs through the whole block.
                stopped.at = last_end(ended_at, ended);
                stopped.long = Some((at + usize::from(running) - BLOCK, at + BLOCK));
                break;
            }
            running = (63 - starts.leading_zeros()) as u8;
        }
        carry = digits >> 63;
        before = block;
        at += BLOCK;
        window_base = _mm512_add_epi64(window_base, _mm512_set1_epi64(BLOCK as i64));
    }
    if stopped.long.is_none() {
        stopped.at = last_end(ended_at, ended);
    }
    heaps.len = len;
    heaps.high_or |= _mm512_reduce_or_epi64(high_or) as u64;
    stopped
}

/// The `unary` loop: every block's lines read together (see the module
/// documentation).
///
/// # Safety
/// The CPU must have the features of [`fill`].
#[inline]
#[target_feature(
    enable = "avx512f,avx512bw,avx512dq,avx512vbmi,avx512vbmi2,avx512ifma,bmi1,bmi2,lzcnt,popcnt"
)]
unsafe fn fill_lines(data: &[u8], from: usize, base: u64, heaps: &mut ShortHeaps) -> Stopped {
    let positions = vector(&POSITIONS);
    // Where the block is, the first byte of the line being read, and the
    // heaps held.
    let (mut at, mut line, mut len) = (from, from, heaps.len);
    let (most, limit) = (heaps.most(), run_limit(data, from));
    let store_high = heaps.high_stored;
    while len < most && at < limit {
        if at - line >= LONG_LINE {
            // SAFETY: the caller guarantees the features.
            let past = unsafe { skip_ones(data, at, limit) };
            if past > at {
                at = past;
                continue;
            }
        }
        read_ahead(data, at);
        // SAFETY: `at + 64 <= data.len()`; an unaligned load.
        let bytes = unsafe { _mm512_loadu_si512(data.as_ptr().add(at).cast()) };
        let ones = _mm512_cmpeq_epi8_mask(bytes, splat(b'1'));
        let lfs = _mm512_cmpeq_epi8_mask(bytes, splat(b'\n'));
        if ones | lfs != u64::MAX {
            break;
        }
        let count = lfs.count_ones() as usize;
        let block_at = _mm512_set1_epi64(at as i64);
        // Lane 7: the first line's start.
        let mut before = _mm512_set1_epi64(line as i64);
        let mut ends_left = _mm512_maskz_compress_epi8(lfs, positions);
        let mut step = 0;
        loop {
            let widened = _mm512_cvtepu8_epi64(_mm512_castsi512_si128(ends_left));
            let ends = _mm512_add_epi64(block_at, widened);
            let after = _mm512_add_epi64(ends, _mm512_set1_epi64(1));
            let starts = _mm512_alignr_epi64(after, before, 7);
            let i = len + step;
            // SAFETY: as in `fill_tokens`: within the room past
            // `SHORT_HEAPS`; unaligned stores.
            unsafe {
                let low = _mm512_sub_epi64(ends, starts);
                let offsets = _mm512_add_epi64(_mm512_set1_epi64(base as i64), starts);
                _mm512_storeu_si512(heaps.limbs[0].as_mut_ptr().add(8 * i).cast(), low);
                if store_high {
                    let high = _mm512_setzero_si512();
                    _mm512_storeu_si512(heaps.limbs[1].as_mut_ptr().add(8 * i).cast(), high);
                }
                _mm512_storeu_si512(heaps.offsets.as_mut_ptr().add(i).cast(), offsets);
            }
            step += 8;
            if step >= count {
                break;
            }
            before = after;
            ends_left = _mm512_alignr_epi64(ends_left, ends_left, 1);
        }
        len += count;
        if count > 0 {
            line = at + BLOCK - lfs.leading_zeros() as usize;
        }
        at += BLOCK;
    }
    heaps.len = len;
    Stopped {
        at: line,
        long: (line < at).then_some((line, at)),
    }
}

/// A line that has run for this many bytes without an LF is likely to
/// run on: its blocks are skipped by [`skip_ones`], a loop with a branch
/// on each block, which lines of a few blocks would mispredict. Skipped,
/// a block costs a third of a block read for its lines.
const LONG_LINE: usize = 16 * BLOCK;

/// The first block from `at` (before `limit`, at most the last whole
/// block of `data`) that is not all `1`s.
///
/// # Safety
/// The CPU must have the features of [`fill`].
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn skip_ones(data: &[u8], mut at: usize, limit: usize) -> usize {
    while at < limit {
        read_ahead(data, at);
        // SAFETY: `at + 64 <= data.len()`; an unaligned load.
        let bytes = unsafe { _mm512_loadu_si512(data.as_ptr().add(at).cast()) };
        if _mm512_cmpneq_epi8_mask(bytes, splat(b'1')) != 0 {
            break;
        }
        at += BLOCK;
    }
    at
}

/// The end of the last token of the block at `at` whose ends are `ends`
/// (where the run started, if no block had an end).
#[inline]
#[target_feature(enable = "lzcnt")]
fn last_end(at: usize, ends: u64) -> usize {
    match ends {
        0 => at,
        _ => at + 63 - ends.leading_zeros() as usize,
    }
}

/// The token mask of [`fill_tokens`]'s too long tokens where a token may
/// have as many digits as a block has bytes (`max` ≥ 64): only the token
/// that runs into the block (if `carry`) may have more, and it is the
/// first to end, `64 + e - running` digits long for its end `e`. Found
/// from the masks alone, the run's control does not wait for the vectors
/// of positions.
#[inline]
#[target_feature(enable = "bmi1")]
fn running_too_long(running: u8, carry: u64, ends: u64, max: u8) -> u64 {
    let length = BLOCK + ends.trailing_zeros() as usize - usize::from(running);
    u64::from(carry == 1 && ends != 0 && length > usize::from(max))
}

/// Where a run stops at token `k` of the block at `at`, too long: the
/// tokens before it were taken. Its end is the `k`-th end bit, its start
/// the running token's (if `carry` and `k` is 0) or a start bit.
#[inline]
#[target_feature(enable = "bmi1,bmi2")]
fn long_token(
    mut stopped: Stopped,
    at: usize,
    starts: u64,
    ends: u64,
    carry: u64,
    running: u8,
    k: usize,
) -> Stopped {
    let nth = |mask: u64, n: usize| at + _pdep_u64(1 << n, mask).trailing_zeros() as usize;
    let start = match (carry, k) {
        (1, 0) => at + usize::from(running) - BLOCK,
        _ => nth(starts, k - carry as usize),
    };
    stopped.long = Some((start, nth(ends, k)));
    if k > 0 {
        stopped.at = nth(ends, k - 1);
    }
    stopped
}

/// `bits`: see the module documentation.
struct Bits;

impl Lanes for Bits {
    const SYNTAX: Syntax = Syntax::Bits;

    /// The block's `1`s reversed: bit `63 - i` for byte `i`.
    type Block = u64;

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn nothing() -> u64 {
        0
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn digits(bytes: __m512i) -> Option<u64> {
        let digits = _mm512_cmpeq_epi8_mask(_mm512_or_si512(bytes, splat(1)), splat(b'1'));
        (digits | spaces(bytes) == u64::MAX).then_some(digits)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn prepare(bytes: __m512i, _: u64, _: u64) -> u64 {
        let reversed = _mm512_permutexvar_epi8(vector(&REVERSED), bytes);
        _mm512_cmpeq_epi8_mask(reversed, splat(b'1'))
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi2")]
    unsafe fn values(
        ends: __m512i,
        lengths: __m512i,
        before: u64,
        block: u64,
    ) -> (__m512i, __m512i) {
        // The reversed window (the block before's mask high, the block's
        // low) shifted left by the end's place in the block (its window
        // position mod 64, as the concatenating shift takes its count),
        // the high half kept: the 64 bits whose lowest is the token's
        // last digit.
        let widen = |bytes: __m512i| _mm512_cvtepu8_epi64(_mm512_castsi512_si128(bytes));
        let window = (
            _mm512_set1_epi64(before as i64),
            _mm512_set1_epi64(block as i64),
        );
        let digits = _mm512_shldv_epi64(window.0, window.1, widen(ends));
        let beyond = _mm512_sllv_epi64(_mm512_set1_epi64(-1), widen(lengths));
        (_mm512_andnot_si512(beyond, digits), _mm512_setzero_si512())
    }
}

/// `hex`: see the module documentation; `WIDE` for [`Syntax::WideHex`],
/// whose values' high limbs are the pairs of the 16 digits before the
/// last 16, read the same way.
struct Hex<const WIDE: bool>;

/// A `hex` block: each byte's digit value, and each byte's pair.
#[derive(Clone, Copy)]
struct HexBlock {
    digits: __m512i,
    pairs: __m512i,
}

impl<const WIDE: bool> Lanes for Hex<WIDE> {
    const SYNTAX: Syntax = match WIDE {
        true => Syntax::WideHex,
        false => Syntax::Hex,
    };

    const HIGH: bool = WIDE;

    type Block = HexBlock;

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn nothing() -> HexBlock {
        HexBlock {
            digits: _mm512_setzero_si512(),
            pairs: _mm512_setzero_si512(),
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn digits(bytes: __m512i) -> Option<u64> {
        let decimal = _mm512_cmplt_epu8_mask(_mm512_sub_epi8(bytes, splat(b'0')), splat(10));
        // A letter of either case is `a`-`f` once bit 5 is set.
        let lower = _mm512_or_si512(bytes, splat(0x20));
        let letter = _mm512_cmplt_epu8_mask(_mm512_sub_epi8(lower, splat(b'a')), splat(6));
        let digits = decimal | letter;
        (digits | spaces(bytes) == u64::MAX).then_some(digits)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn prepare(bytes: __m512i, digit_mask: u64, before: HexBlock) -> HexBlock {
        // A digit's value is its low nibble, plus 9 for a letter (above
        // 0x40); other bytes get 0, so that the pair of a token's first
        // digit and the byte before it is the digit's value.
        let letters = _mm512_cmpgt_epu8_mask(bytes, splat(0x40));
        let with_nine = _mm512_mask_add_epi8(bytes, letters, bytes, splat(9));
        let digits = _mm512_maskz_mov_epi8(digit_mask, _mm512_and_si512(with_nine, splat(0x0f)));
        // Byte i - 1's value (the block before's last for byte 0).
        let previous = _mm512_permutex2var_epi8(before.digits, vector(&BYTE_BEFORE), digits);
        // Values are below 16: the 16-bit shift moves no bit across bytes.
        let pairs = _mm512_or_si512(_mm512_slli_epi16(previous, 4), digits);
        HexBlock { digits, pairs }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    unsafe fn values(
        ends: __m512i,
        lengths: __m512i,
        before: HexBlock,
        block: HexBlock,
    ) -> (__m512i, __m512i) {
        // Lane 8j + k: token j's byte k, the pair that ends 2k digits
        // before the token's end, kept while 2k is below its length. The
        // top byte of an odd length pairs the first digit with the byte
        // before the token, a non-digit, whose value is 0.
        let token = vector(&TOKEN_OF_EIGHT);
        let twice_k = vector(&TWICE_K);
        let end = _mm512_permutexvar_epi8(token, ends);
        let length = _mm512_permutexvar_epi8(token, lengths);
        let at = _mm512_sub_epi8(end, _mm512_add_epi8(twice_k, splat(1)));
        let kept = _mm512_cmplt_epu8_mask(twice_k, length);
        let low = _mm512_maskz_permutex2var_epi8(kept, before.pairs, at, block.pairs);
        if !WIDE {
            return (low, _mm512_setzero_si512());
        }
        // A token of up to 32 digits ends at 64 or more into the window:
        // 16 digits further back is still in it.
        let twice_k_high = _mm512_add_epi8(twice_k, splat(16));
        let kept_high = _mm512_cmplt_epu8_mask(twice_k_high, length);
        let at_high = _mm512_sub_epi8(at, splat(16));
        let high = _mm512_maskz_permutex2var_epi8(kept_high, before.pairs, at_high, block.pairs);
        (low, high)
    }
}

/// `dec`: see the module documentation.
struct Dec;

/// The eight digits of each of eight tokens that end `ahead` bytes before
/// the token's end (lane `8j + k`: token `j`'s digit `ahead + 8 - k`
/// bytes before its end, or 0 where the token is shorter), from the
/// window's digit values, `ends` and `lengths` spread to each token's
/// lanes.
#[inline]
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
fn eight_digits(ends: __m512i, lengths: __m512i, ahead: u8, window: (__m512i, __m512i)) -> __m512i {
    let back = _mm512_add_epi8(vector(&EIGHT_LESS_K), splat(ahead));
    let kept = _mm512_cmple_epu8_mask(back, lengths);
    let at = _mm512_sub_epi8(ends, back);
    _mm512_maskz_permutex2var_epi8(kept, window.0, at, window.1)
}

/// The two numbers of four digits (0-9, one a byte, the first most
/// significant) in each 64-bit lane of `digits`, the first four's in its
/// low half: pairs by one byte multiply-add, fours by a 16-bit one.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn fours(digits: __m512i) -> __m512i {
    let pairs = _mm512_maddubs_epi16(digits, _mm512_set1_epi16(10 + (1 << 8)));
    _mm512_madd_epi16(pairs, _mm512_set1_epi32(100 + (1 << 16)))
}

/// The numbers of sixteen digits in each 64-bit lane, from the
/// [`fours`] of each lane's first eight (`high`) and last eight (`low`):
/// the four fours of two lanes packed to 16 bits into one 128-bit lane
/// (each below 10^4), merged into eights by one 16-bit multiply-add
/// (`10^4 · first + second`), each lane's two eights brought together,
/// and the first times 10^8 plus the second. Against each eight made from
/// its fours by a 32-bit multiply, this takes two instructions fewer.
#[inline]
#[target_feature(enable = "avx512f,avx512bw")]
fn sixteens(high: __m512i, low: __m512i) -> __m512i {
    // 128-bit lane: the high eights of two lanes, then the low eights.
    let eights = _mm512_madd_epi16(
        _mm512_packus_epi32(high, low),
        _mm512_set1_epi32(10_000 + (1 << 16)),
    );
    // Each 64-bit lane: its high eight, then its low eight.
    let paired = _mm512_shuffle_epi32::<0b11_01_10_00>(eights);
    _mm512_add_epi64(
        _mm512_mul_epu32(paired, _mm512_set1_epi64(100_000_000)),
        _mm512_srli_epi64(paired, 32),
    )
}

impl Lanes for Dec {
    const SYNTAX: Syntax = Syntax::Dec;

    const HIGH: bool = true;

    /// Each byte's digit value (anything for other bytes).
    type Block = __m512i;

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn nothing() -> __m512i {
        _mm512_setzero_si512()
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn digits(bytes: __m512i) -> Option<u64> {
        let digits = _mm512_cmplt_epu8_mask(_mm512_sub_epi8(bytes, splat(b'0')), splat(10));
        (digits | spaces(bytes) == u64::MAX).then_some(digits)
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    unsafe fn prepare(bytes: __m512i, _: u64, _: __m512i) -> __m512i {
        _mm512_sub_epi8(bytes, splat(b'0'))
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vbmi,avx512ifma")]
    unsafe fn values(
        ends: __m512i,
        lengths: __m512i,
        before: __m512i,
        block: __m512i,
    ) -> (__m512i, __m512i) {
        let token = vector(&TOKEN_OF_EIGHT);
        let (ends, lengths) = (
            _mm512_permutexvar_epi8(token, ends),
            _mm512_permutexvar_epi8(token, lengths),
        );
        // The last eight digits, the eight before, and the (at most four)
        // before those: the second four of the eight from 24 back.
        let window = (before, block);
        let fours_at = |ahead| fours(eight_digits(ends, lengths, ahead, window));
        let low = sixteens(fours_at(8), fours_at(0));
        let first = _mm512_srli_epi64(fours_at(16), 32);
        // first · 10^16 = (first · 5^16) · 2^16, below 2^67, plus low;
        // first is below 10^4 and 5^16 below 2^38, so the 52-bit product
        // of IFMA is the whole product.
        let five_16 = _mm512_set1_epi64(152_587_890_625);
        let times_five = _mm512_madd52lo_epu64(_mm512_setzero_si512(), first, five_16);
        let sum = _mm512_add_epi64(_mm512_slli_epi64(times_five, 16), low);
        let carry = _mm512_cmplt_epu64_mask(sum, low);
        let top = _mm512_srli_epi64(times_five, 48);
        let top = _mm512_mask_add_epi64(top, carry, top, _mm512_set1_epi64(1));
        (sum, top)
    }
}
