//! Short tokens of the text formats parsed 64 bytes at a time: a run of
//! blocks turned into heaps of at most 64 bits (67 for `dec`: 20 digits),
//! each with the offset of its first byte, in a loop that does nothing
//! else.
//!
//! Each block is classified once into a mask of its digits, every other
//! byte checked to be whitespace. A token starts at a digit after a
//! non-digit and ends at the non-digit after its last digit: the starts
//! and ends of a block are two masks, and the tokens that end in a block
//! are taken in order, the token that runs into the next block carried
//! over as its start. A token's value is built from registers:
//!
//! - `bits`: the digits are bits of the mask of the block's `1`s (and the
//!   block's before), reversed so that the last digit is lowest;
//! - `hex`: four bits a digit, from the 16 bytes that end at the token's
//!   end (the bytes before its first digit cleared);
//! - `dec`: the digits that end at the token's end combined by
//!   multiply-adds, in pairs, fours, eights and sixteens.
//!
//! `unary` is read the same way with lines for tokens: a block holds only
//! `1`s and LFs, and a line's value is the distance from its start to its
//! LF, whatever its length.
//!
//! Builds: AVX-512 with VBMI, VBMI2 and IFMA (`avx512.rs`): a whole block's
//! tokens at once, their starts and ends compressed into vectors and every
//! value gathered by byte permutes, eight tokens a step; AVX2 (`avx2.rs`)
//! and portable (`portable.rs`, SWAR on 64-bit words): `bits`, `hex` and
//! `dec` in two halves while the tokens are one byte apart: first every
//! block's token ends written out by bit scans (`find.rs`; each start
//! then the end before it plus one), then each token's value (`bits`:
//! from the blocks' masks of `1`s around its end, kept by the first half,
//! `bits.rs`; `hex` and `dec`: from the bytes that end at its end, here).
//! Where two non-digits meet, `hex` and `dec` write out starts and ends
//! alike, and `bits` goes on in one pass, each token's value shifted out
//! of the masks as its end is found.
//! Every build takes the same tokens and stops at the same place, so the
//! tests hold every build against one byte-at-a-time reading.
//!
//! A run stops, leaving the rest to the scanner's general path, at the
//! first block that is not all in the slice or holds a byte that is
//! neither a digit nor whitespace, and at a token longer than the blocks
//! take ([`Syntax::max_digits`]). It never reports an error: the general
//! path reads the bytes again and finds it where it always did. A `unary`
//! run stops inside a line, which the general path then finishes from
//! where the run left it.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod bits;
mod find;
mod portable;
#[cfg(test)]
mod tests;

use crate::arch::prefetch::read_ahead;
use find::{find_tokens, Found};
pub use portable::combine8;
use portable::{from_halves, hex_digit, low_bits};

/// Bytes classified per block.
pub const BLOCK: usize = 64;

/// A run stops once it holds this many heaps (or the fewer
/// [`ShortHeaps::set_most`] asks for): the block of heaps a fold takes
/// at once. 1,024 heaps' low limbs and offsets are 16 KiB, inside
/// the first-level cache; against 256, the one pass over short hex, dec
/// and bits took 0.90-0.97 of the user time (each block's fixed costs:
/// the run's set-up, the fold's calls).
pub const SHORT_HEAPS: usize = 1024;

/// The heaps a run may write past [`SHORT_HEAPS`]: a whole block's (one
/// every byte, at most), and a vector of eight past those.
const SPARE_HEAPS: usize = BLOCK + 8;

/// The most bytes one run reads: a fold takes its heaps (and a map's pages
/// are released behind them) at least this often.
pub const RUN_BYTES: usize = 1 << 20;

/// The token syntaxes the blocks read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Syntax {
    /// `bits`: `0` and `1`, a bit a digit.
    Bits,
    /// `hex`: `0`-`9`, `a`-`f`, `A`-`F`, four bits a digit.
    Hex,
    /// `hex` with tokens of up to 32 digits, each value in two limbs: what
    /// a scanner reads with once it has met a token of 17-32 digits (a
    /// `u128` written out), which [`Syntax::Hex`] leaves to the general
    /// path. Dearer a token than `Hex`, so not the first choice.
    WideHex,
    /// `dec`: `0`-`9`.
    Dec,
    /// `unary`: lines of `1`s, each ended by an LF.
    Unary,
}

impl Syntax {
    /// The most digits of a token the blocks take (leading zeros
    /// included): its value fits in a 64-bit limb (two for `WideHex`, and
    /// 67 bits for `dec`). A longer one stops the run. A `unary` line may
    /// be as long as a run.
    pub const fn max_digits(self) -> usize {
        match self {
            Syntax::Bits => 64,
            Syntax::Hex => 16,
            Syntax::WideHex => 32,
            Syntax::Dec => 20,
            Syntax::Unary => RUN_BYTES,
        }
    }
}

/// The heaps a buffer has room for.
const ROOM: usize = SHORT_HEAPS + SPARE_HEAPS;

/// The high limbs of heaps that have none stored: all zero.
static NO_HIGH_LIMBS: [u8; 8 * ROOM] = [0; 8 * ROOM];

/// Where a run writes its heaps: each heap's two limbs (bits 0-63, then
/// 64-127) as little-endian bytes, the layout of a raw `u64le` array, and
/// the offset of its first byte. It has room for a block's heaps past
/// [`SHORT_HEAPS`], which a vector build writes eight at a time. The
/// vector builds of the syntaxes whose values fit a limb store no high
/// limbs into a buffer that holds none.
pub struct ShortHeaps {
    limbs: [[u8; 8 * ROOM]; 2],
    offsets: [u64; ROOM],
    len: usize,
    /// Whether the heaps' high limbs are stored (else they are all 0).
    high_stored: bool,
    /// The OR of the heaps' bits 64-127.
    high_or: u64,
    /// The heaps at which a run stops: [`SHORT_HEAPS`] unless set lower
    /// ([`ShortHeaps::set_most`]).
    most: usize,
}

impl Default for ShortHeaps {
    fn default() -> Self {
        ShortHeaps {
            limbs: [[0; 8 * ROOM]; 2],
            offsets: [0; ROOM],
            len: 0,
            high_stored: false,
            high_or: 0,
            most: SHORT_HEAPS,
        }
    }
}

impl ShortHeaps {
    /// The number of heaps held.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds no heap.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether it holds [`ShortHeaps::most`] heaps or more: a run stops
    /// there.
    pub fn is_full(&self) -> bool {
        self.len >= self.most
    }

    /// The heaps at which a run stops.
    pub fn most(&self) -> usize {
        self.most
    }

    /// Sets the heaps at which a run stops to `most`, at least 1 and at
    /// most [`SHORT_HEAPS`] (the room past them is a block's heaps).
    pub fn set_most(&mut self, most: usize) {
        self.most = most.clamp(1, SHORT_HEAPS);
    }

    /// The heaps a run may still find before the buffer is full.
    fn room(&self) -> usize {
        self.most.saturating_sub(self.len)
    }

    /// Appends the heap `value` whose first byte is at `offset`; the
    /// buffer must not be full.
    #[inline(always)]
    pub fn push(&mut self, offset: u64, value: u128) {
        let (i, high) = (self.len, (value >> 64) as u64);
        self.limbs[0][8 * i..8 * i + 8].copy_from_slice(&(value as u64).to_le_bytes());
        self.limbs[1][8 * i..8 * i + 8].copy_from_slice(&high.to_le_bytes());
        self.high_stored = true;
        self.high_or |= high;
        self.offsets[i] = offset;
        self.len = i + 1;
    }

    /// Writes the heap `value` whose first byte is at `offset` into place
    /// `i`, not counted; its high limb only if `HIGH`, which the loop that
    /// writes it must ask exactly when [`ShortHeaps::high_stored`] is set.
    #[inline(always)]
    fn write<const HIGH: bool>(&mut self, i: usize, offset: u64, value: u128) {
        self.limbs[0][8 * i..8 * i + 8].copy_from_slice(&(value as u64).to_le_bytes());
        if HIGH {
            let high = (value >> 64) as u64;
            self.limbs[1][8 * i..8 * i + 8].copy_from_slice(&high.to_le_bytes());
        }
        self.offsets[i] = offset;
    }

    /// Limb `j` (0 or 1) of every heap held, little-endian.
    pub fn limb(&self, j: usize) -> &[u8] {
        match (j, self.high_stored) {
            (1, false) => &NO_HIGH_LIMBS[..8 * self.len],
            _ => &self.limbs[j][..8 * self.len],
        }
    }

    /// Each heap's first byte.
    pub fn offsets(&self) -> &[u64] {
        &self.offsets[..self.len]
    }

    /// The OR of the heaps' bits 64-127: 0 when every heap fits a limb.
    pub fn high_or(&self) -> u64 {
        self.high_or
    }

    /// The OR of the high limbs written into places `from` to `to` (not
    /// counted yet, or counted): for a run that stops at a token too long,
    /// whose OR of them took values past it.
    fn stored_high_or(&self, from: usize, to: usize) -> u64 {
        self.limbs[1][8 * from..8 * to]
            .chunks_exact(8)
            .fold(0, |or, limb| {
                or | u64::from_le_bytes(limb.try_into().expect("8 bytes"))
            })
    }

    /// Empties the buffer.
    pub fn clear(&mut self) {
        self.len = 0;
        self.high_stored = false;
        self.high_or = 0;
    }
}

/// Where a run stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stopped {
    /// Where the general path goes on: the end of the last token taken
    /// (the whitespace after it), the start of the line after the last
    /// line taken, or where the run started.
    pub at: usize,
    /// The token that stopped the run by its length, or the line it
    /// stopped inside, if any: its first digit, and the end of the bytes
    /// read that are its digits (its end, whitespace, when the run saw
    /// it), so that the general path need not read them again.
    pub long: Option<(usize, usize)>,
}

/// A build of the block loop.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ShortKernel {
    /// Bit scans and SWAR on 64-bit words, for every target.
    Portable,
    /// AVX2: each block classified in two vectors, each value converted in
    /// one; the loop is compiled for AVX2 as a whole.
    #[cfg(target_arch = "x86_64")]
    Avx2,
    /// AVX-512 with VBMI, VBMI2 and IFMA: each block's tokens read together.
    #[cfg(target_arch = "x86_64")]
    Avx512,
}

impl ShortKernel {
    /// The best build [`cpu`](super::cpu) allows.
    pub fn best() -> ShortKernel {
        #[cfg(target_arch = "x86_64")]
        {
            let cpu = super::cpu();
            if cpu.avx512_vbmi2 {
                return ShortKernel::Avx512;
            }
            if cpu.avx2 {
                return ShortKernel::Avx2;
            }
        }
        ShortKernel::Portable
    }

    /// Every build this CPU has, whatever the cap: what the tests and
    /// benchmarks hold side by side.
    pub fn every_build() -> Vec<ShortKernel> {
        let mut kernels = vec![ShortKernel::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            let cpu = super::Cpu::detected();
            if cpu.avx2 {
                kernels.push(ShortKernel::Avx2);
            }
            if cpu.avx512_vbmi2 {
                kernels.push(ShortKernel::Avx512);
            }
        }
        kernels
    }

    /// Parses the tokens of `data` from `from` (not inside a token) into
    /// `heaps`, whose offsets count from `base` for byte 0 of `data`,
    /// until it is full ([`ShortHeaps::most`] heaps or more), [`RUN_BYTES`] are read, or a
    /// block stops it (see the module documentation).
    pub fn fill(
        self,
        syntax: Syntax,
        data: &[u8],
        from: usize,
        base: u64,
        heaps: &mut ShortHeaps,
    ) -> Stopped {
        match self {
            ShortKernel::Portable => portable::fill(syntax, data, from, base, heaps),
            // SAFETY: the AVX2 build is picked (by `best`, or by a test
            // from `every_build`) only where the CPU has AVX2.
            #[cfg(target_arch = "x86_64")]
            ShortKernel::Avx2 => unsafe { avx2::fill(syntax, data, from, base, heaps) },
            // SAFETY: the AVX-512 build is picked only where the CPU has
            // every feature `avx512_vbmi2` stands for.
            #[cfg(target_arch = "x86_64")]
            ShortKernel::Avx512 => unsafe { avx512::fill(syntax, data, from, base, heaps) },
        }
    }
}

/// What the loops of the portable and AVX2 builds ([`fill_tokens`],
/// [`bits::fill_bits`], [`fill_lines`]) ask of a build.
trait Blocks {
    /// The digits of `block` (bit `i` for byte `i`), if every other byte
    /// is whitespace (an LF for `unary`).
    fn digits(&self, syntax: Syntax, block: &[u8; BLOCK]) -> Option<u64>;

    /// The `bits` digits of `block` (bit `i` for byte `i`) and its `1`s
    /// reversed (bit `63 - i` for byte `i`), if every other byte is
    /// whitespace.
    fn bits_block(&self, block: &[u8; BLOCK]) -> Option<(u64, u64)>;

    /// The low `len` bits of `value`, for `len` from 1 to 64; for a larger
    /// `len` (a token too long, whose value is not taken), any value.
    #[inline(always)]
    fn low_bits_of(&self, value: u64, len: u32) -> u64 {
        value & low_bits(len as usize)
    }

    /// The value of the last `len` (1 to 16) bytes of `bytes`, hex digits,
    /// the first most significant; the bytes before them are ignored.
    fn hex_value(&self, bytes: &[u8; 16], len: usize) -> u64;

    /// The value of the last `len` (1 to 32) bytes of `bytes`, decimal
    /// digits, the first most significant; the bytes before them are
    /// ignored.
    fn dec_value(&self, bytes: &[u8; 32], len: usize) -> u128;

    /// `hex` tokens of a run, as many as `starts` and `ends` hold (a
    /// multiple of 4): token `k` from `starts[k]` to `ends[k]` of the run
    /// (each end 16 or more bytes into `run.data`). Writes the value of
    /// each one's last 16 digits at most into `values` (little-endian
    /// words) and the offset of its first byte into `offsets`; returns
    /// whether one of them has more than 16 digits.
    #[inline(always)]
    fn hex_fours(
        &self,
        run: &Run,
        starts: &[u32],
        ends: &[u32],
        values: &mut [u8],
        offsets: &mut [u64],
    ) -> bool {
        let limbs = [values, &mut []];
        values_with::<Self, false>(self, Syntax::Hex, run, starts, ends, limbs, offsets).0
    }

    /// `dec` tokens of a run, as many as `starts` and `ends` hold (a
    /// multiple of 4): token `k` from `starts[k]` to `ends[k]` of the run
    /// (each end 32 or more bytes into `run.data`). Writes the value of each one's last 20
    /// digits at most into `limbs` (bits 0-63, then 64-127, little-endian
    /// words) and the offset of its first byte into `offsets`; returns
    /// whether one of them has more than 20 digits, and the OR of the
    /// values' bits 64-127.
    #[inline(always)]
    fn dec_fours(
        &self,
        run: &Run,
        starts: &[u32],
        ends: &[u32],
        limbs: [&mut [u8]; 2],
        offsets: &mut [u64],
    ) -> (bool, u64) {
        values_with::<Self, true>(self, Syntax::Dec, run, starts, ends, limbs, offsets)
    }
}

/// The values of a run's tokens of `syntax` (`hex` or `dec`), one by one
/// with `build`'s kernels, each token ending at least the syntax's window
/// into `run.data` (as for [`Blocks::hex_fours`] and
/// [`Blocks::dec_fours`]): their low limbs into `limbs[0]`, their high
/// limbs into `limbs[1]` if `HIGH`, their first bytes' offsets into
/// `offsets`. Returns whether one has more digits than the syntax takes,
/// and the OR of the high limbs.
#[inline(always)]
fn values_with<B: Blocks + ?Sized, const HIGH: bool>(
    build: &B,
    syntax: Syntax,
    run: &Run,
    starts: &[u32],
    ends: &[u32],
    [low, high]: [&mut [u8]; 2],
    offsets: &mut [u64],
) -> (bool, u64) {
    let max = syntax.max_digits();
    let (mut too_long, mut high_or) = (false, 0);
    let outs = low.chunks_exact_mut(8).zip(offsets.iter_mut()).enumerate();
    for ((&start, &end), (k, (low, offset))) in starts.iter().zip(ends).zip(outs) {
        let (start, end) = (run.from + start as usize, run.from + end as usize);
        too_long |= end - start > max;
        let value = window_value(build, syntax, run.data, end, (end - start).min(max));
        low.copy_from_slice(&(value as u64).to_le_bytes());
        if HIGH {
            high[8 * k..8 * k + 8].copy_from_slice(&((value >> 64) as u64).to_le_bytes());
        }
        high_or |= (value >> 64) as u64;
        *offset = run.base + start as u64;
    }
    (too_long, high_or)
}

/// The bytes the kernels read a token's value from: those that end at
/// its end (`bits` and `unary` are read by loops of their own).
const fn window(syntax: Syntax) -> usize {
    match syntax {
        Syntax::Hex => 16,
        Syntax::WideHex | Syntax::Dec => 32,
        Syntax::Bits | Syntax::Unary => 0,
    }
}

/// The value of the token of `len` digits (at most the syntax's
/// [`Syntax::max_digits`]) that ends at `end` of `data`, at least the
/// syntax's [`window`] into it, read with `build` from the bytes that end
/// there.
#[inline(always)]
fn window_value<B: Blocks + ?Sized>(
    build: &B,
    syntax: Syntax,
    data: &[u8],
    end: usize,
    len: usize,
) -> u128 {
    let bytes = &data[end - window(syntax)..end];
    match syntax {
        Syntax::Hex => u128::from(build.hex_value(bytes.try_into().expect("16 bytes"), len)),
        Syntax::WideHex => {
            let (high, low) = bytes.split_at(16);
            let low_value = build.hex_value(low.try_into().expect("16 bytes"), len.min(16));
            let high_value = match len > 16 {
                true => build.hex_value(high.try_into().expect("16 bytes"), len - 16),
                false => 0,
            };
            u128::from(high_value) << 64 | u128::from(low_value)
        }
        Syntax::Dec => build.dec_value(bytes.try_into().expect("32 bytes"), len),
        Syntax::Bits | Syntax::Unary => unreachable!("read by fill_bits and fill_lines"),
    }
}

/// The value of the token of `len` digits (at most the syntax's
/// [`Syntax::max_digits`]) that ends at `end` of `data`: its
/// [`window_value`], or digit by digit near the start of `data`.
#[inline(always)]
fn token_value<B: Blocks>(build: &B, syntax: Syntax, data: &[u8], end: usize, len: usize) -> u128 {
    if end >= window(syntax) {
        return window_value(build, syntax, data, end, len);
    }
    let digits = data[end - len..end].iter();
    match syntax {
        Syntax::Hex | Syntax::WideHex => {
            digits.fold(0, |value, &byte| value << 4 | u128::from(hex_digit(byte)))
        }
        Syntax::Dec => digits.fold(0, |value, &byte| 10 * value + u128::from(byte - b'0')),
        Syntax::Bits | Syntax::Unary => unreachable!("read by fill_bits and fill_lines"),
    }
}

/// The loop of the portable and AVX2 builds for `syntax`. The heaps'
/// high limbs are stored (by each loop, `HIGH`) where the heaps held
/// already store theirs or the values may have them (`dec`, `WideHex`); otherwise
/// they are all zero and none is written.
#[inline(always)]
fn fill_any<B: Blocks>(
    build: &B,
    syntax: Syntax,
    data: &[u8],
    from: usize,
    base: u64,
    heaps: &mut ShortHeaps,
) -> Stopped {
    heaps.high_stored |= matches!(syntax, Syntax::Dec | Syntax::WideHex);
    match heaps.high_stored {
        true => fill_syntax::<B, true>(build, syntax, data, from, base, heaps),
        false => fill_syntax::<B, false>(build, syntax, data, from, base, heaps),
    }
}

/// [`fill_any`] with `syntax` a constant in each copy of the loop.
#[inline(always)]
fn fill_syntax<B: Blocks, const HIGH: bool>(
    build: &B,
    syntax: Syntax,
    data: &[u8],
    from: usize,
    base: u64,
    heaps: &mut ShortHeaps,
) -> Stopped {
    match syntax {
        Syntax::Bits => bits::fill_bits::<B, HIGH>(build, data, from, base, heaps),
        Syntax::Hex => fill_tokens::<B, HIGH>(build, Syntax::Hex, data, from, base, heaps),
        Syntax::WideHex => fill_tokens::<B, HIGH>(build, Syntax::WideHex, data, from, base, heaps),
        Syntax::Dec => fill_tokens::<B, HIGH>(build, Syntax::Dec, data, from, base, heaps),
        Syntax::Unary => fill_lines::<B, HIGH>(build, data, from, base, heaps),
    }
}

/// The block of `data` at `at`, if it is all in `data`, for the loops of
/// the portable and AVX2 builds, which read the input forward block by
/// block: the bytes [`READ_AHEAD`](crate::arch::prefetch::READ_AHEAD) on
/// are asked for as well.
#[inline(always)]
fn block_at(data: &[u8], at: usize) -> Option<&[u8; BLOCK]> {
    read_ahead(data, at);
    data.get(at..at + BLOCK)?.try_into().ok()
}

/// The `unary` loop of the portable and AVX2 builds: block by block, the
/// lines that end in each one after another, by bit scans over its LFs.
/// A block's first line is written whether or not one ends there (past
/// the heaps counted, where it is never read): a block of short lines
/// ends none, one or more, and only more costs a branch the predictor
/// may miss.
#[inline(always)]
fn fill_lines<B: Blocks, const HIGH: bool>(
    build: &B,
    data: &[u8],
    from: usize,
    base: u64,
    heaps: &mut ShortHeaps,
) -> Stopped {
    // Where the block is, and the first byte of the line being read.
    let (mut at, mut line) = (from, from);
    while !heaps.is_full() && at - from < RUN_BYTES {
        let Some(block) = block_at(data, at) else {
            break;
        };
        let Some(ones) = build.digits(Syntax::Unary, block) else {
            break;
        };
        // Every byte that is not a `1` is an LF; past the last, `at + 64`.
        let mut ends = !ones;
        let end = at + ends.trailing_zeros() as usize;
        heaps.write::<HIGH>(heaps.len, base + line as u64, (end - line) as u128);
        heaps.len += usize::from(ends != 0);
        line = if ends != 0 { end + 1 } else { line };
        ends &= ends.wrapping_sub(1);
        while ends != 0 {
            let end = at + ends.trailing_zeros() as usize;
            ends &= ends - 1;
            heaps.write::<HIGH>(heaps.len, base + line as u64, (end - line) as u128);
            heaps.len += 1;
            line = end + 1;
        }
        at += BLOCK;
    }
    Stopped {
        at: line,
        long: (line < at).then_some((line, at)),
    }
}

/// The `hex` and `dec` loop of the portable and AVX2 builds (high limbs
/// stored if `HIGH`), in two halves: the blocks'
/// tokens found by bit scans ([`find_tokens`]), then their values built
/// from the bytes that end at each token's end ([`take_tokens`]). Against
/// one loop that built each token's value as it found it, whose steps
/// ended where the branch predictor could not know and whose state did
/// not fit the registers, the halves take fewer instructions a token.
#[inline(always)]
fn fill_tokens<B: Blocks, const HIGH: bool>(
    build: &B,
    syntax: Syntax,
    data: &[u8],
    from: usize,
    base: u64,
    heaps: &mut ShortHeaps,
) -> Stopped {
    let mut found = Found::new();
    let through = find_tokens(build, syntax, data, from, heaps.room(), &mut found);
    let run = Run {
        syntax,
        data,
        from,
        base,
    };
    take_tokens::<B, HIGH>(build, &run, &found, through, heaps)
}

/// What a run reads: the syntax, the bytes, where it starts, and the
/// offset of byte 0.
struct Run<'a> {
    syntax: Syntax,
    data: &'a [u8],
    from: usize,
    base: u64,
}

/// The second half of [`fill_tokens`]: the values of the tokens found,
/// into `heaps` (high limbs stored if `HIGH`), up to the first that is
/// longer than the syntax takes; or, if none is, all of them, and
/// `through` (the token that ran through a block) as the one that stopped
/// the run.
#[inline(always)]
fn take_tokens<B: Blocks, const HIGH: bool>(
    build: &B,
    run: &Run,
    found: &Found,
    through: Option<(usize, usize)>,
    heaps: &mut ShortHeaps,
) -> Stopped {
    let (max, held) = (run.syntax.max_digits(), heaps.len);
    let (starts, ends) = (&found.starts()[..found.ended], found.ends());
    let (mut too_long, mut high_or) = (false, 0);
    // `hex` and `dec` four at a time, the last one to three one by one
    // below, unless the first token ends within the syntax's window of
    // the start of the data (then the run takes them all one by one).
    let first_end = ends.first().map(|&end| run.from + end as usize);
    let fast = match (run.syntax, first_end) {
        (Syntax::Hex, Some(end)) if end >= window(Syntax::Hex) => {
            take_hex_fours::<B, HIGH>(build, run, starts, ends, heaps, &mut too_long)
        }
        (Syntax::Dec, Some(end)) if end >= window(Syntax::Dec) => {
            let (n, [low, high]) = (found.ended / 4 * 4, &mut heaps.limbs);
            let limbs = [
                &mut low[8 * held..8 * (held + n)],
                &mut high[8 * held..8 * (held + n)],
            ];
            let offsets = &mut heaps.offsets[held..held + n];
            let (starts, ends) = (&starts[..n], &ends[..n]);
            (too_long, high_or) = build.dec_fours(run, starts, ends, limbs, offsets);
            n
        }
        _ => 0,
    };
    for k in fast..found.ended {
        let (start, end) = (run.from + starts[k] as usize, run.from + ends[k] as usize);
        too_long |= end - start > max;
        let value = token_value(build, run.syntax, run.data, end, (end - start).min(max));
        heaps.write::<HIGH>(held + k, run.base + start as u64, value);
        high_or |= (value >> 64) as u64;
    }
    let (taken, long) = match too_long {
        false => (found.ended, through),
        true => {
            let k = (0..found.ended)
                .find(|&k| (ends[k] - starts[k]) as usize > max)
                .expect("a token too long");
            let long = (run.from + starts[k] as usize, run.from + ends[k] as usize);
            // The OR of the high limbs counted a value read from the
            // long token's last digits.
            high_or = heaps.stored_high_or(held, held + k);
            (k, Some(long))
        }
    };
    heaps.len = held + taken;
    heaps.high_or |= high_or;
    Stopped {
        at: match taken {
            0 => run.from,
            _ => run.from + ends[taken - 1] as usize,
        },
        long,
    }
}

/// The first `hex` tokens of `starts` and `ends` (each ending 16 bytes or
/// more into the data), four at a time by [`Blocks::hex_fours`], into
/// `heaps` past those it holds; says in `too_long` whether one of them has
/// more than 16 digits, and returns how many it took (a multiple of 4).
#[inline(always)]
fn take_hex_fours<B: Blocks, const HIGH: bool>(
    build: &B,
    run: &Run,
    starts: &[u32],
    ends: &[u32],
    heaps: &mut ShortHeaps,
    too_long: &mut bool,
) -> usize {
    let (i, n) = (heaps.len, starts.len() / 4 * 4);
    let values = &mut heaps.limbs[0][8 * i..8 * (i + n)];
    let offsets = &mut heaps.offsets[i..i + n];
    *too_long |= build.hex_fours(run, &starts[..n], &ends[..n], values, offsets);
    if HIGH {
        heaps.limbs[1][8 * i..8 * (i + n)].fill(0);
    }
    n
}
