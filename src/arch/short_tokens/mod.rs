//! Short tokens of the text formats parsed 64 bytes at a time: a run of
//! blocks turned into heaps of at most 64 bits (67 for `dec`: 20 digits),
//! each with the offset of its first byte, in a loop that does nothing
//! else.
//!
//! Each block is classified once into a mask of its digits, every other
//! byte checked to be whitespace. A token starts at a digit after a
//! non-digit and ends at the non-digit after its last digit: the starts
//! and ends of a block are two masks, and the tokens that end in a block
//! are read there, the token that runs into the next block carried over as
//! its start (its digits lie in the block before, which the next block
//! keeps at hand). A token's value is built from registers:
//!
//! - `bits`: the digits are a segment of the mask of the block's `1`s,
//!   most significant first: a shift of the mask reversed (the two
//!   blocks' masks as one 128-bit word, for a token that starts in the
//!   block before);
//! - `hex`: four bits a digit, from the 16 bytes that end at the token's
//!   end (the bytes before its first digit cleared);
//! - `dec`: the digits that end at the token's end combined by
//!   multiply-adds, in pairs, fours, eights and sixteens.
//!
//! `unary` is read the same way with lines for tokens: a block holds only
//! `1`s and LFs, and a line's value is the distance from its start to its
//! LF, whatever its length.
//!
//! Builds: AVX-512 with VBMI and VBMI2 (`avx512.rs`): a whole block's
//! tokens at once, their starts and ends compressed into vectors and every
//! value gathered by byte permutes, eight tokens a step; AVX2 (`avx2.rs`)
//! and portable (here, SWAR on 64-bit words): the block's tokens one after
//! another by bit scans, each value from the bytes that end at its end.
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
#[cfg(test)]
mod tests;

use super::token_end::{Digits, ASCII_ZEROS};

/// Bytes classified per block.
pub const BLOCK: usize = 64;

/// A run stops once it holds this many heaps: the block of heaps a fold
/// takes at once. 1,024 heaps' low limbs and offsets are 16 KiB, inside
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
    /// `dec`: `0`-`9`.
    Dec,
    /// `unary`: lines of `1`s, each ended by an LF.
    Unary,
}

impl Syntax {
    /// The most digits of a token the blocks take (leading zeros
    /// included): its value fits in a 64-bit limb. A longer one stops the
    /// run. A `unary` line may be as long as a run.
    pub const fn max_digits(self) -> usize {
        match self {
            Syntax::Bits => 64,
            Syntax::Hex => 16,
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
}

impl Default for ShortHeaps {
    fn default() -> Self {
        ShortHeaps {
            limbs: [[0; 8 * ROOM]; 2],
            offsets: [0; ROOM],
            len: 0,
            high_stored: false,
            high_or: 0,
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

    /// Whether it holds [`SHORT_HEAPS`] heaps or more: a run stops there.
    pub fn is_full(&self) -> bool {
        self.len >= SHORT_HEAPS
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
    /// AVX-512 with VBMI and VBMI2: each block's tokens read together.
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
    /// until it holds [`SHORT_HEAPS`] or more, [`RUN_BYTES`] are read, or a
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
            ShortKernel::Portable => fill_any(&Portable, syntax, data, from, base, heaps),
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

/// A block's marks: bit `i` for byte `i`.
#[derive(Clone, Copy, Debug, Default)]
struct Marks {
    /// The digits.
    digits: u64,
    /// The `1`s (`bits` only; 0 otherwise).
    ones: u64,
}

/// What the one-token-at-a-time loop ([`fill_tokens`]) asks of a build.
trait Blocks {
    /// The marks of `block`, if every byte that is not a digit is
    /// whitespace (an LF for `unary`).
    fn marks(&self, syntax: Syntax, block: &[u8; BLOCK]) -> Option<Marks>;

    /// The value of the last `len` (1 to 16) bytes of `bytes`, hex digits,
    /// the first most significant; the bytes before them are ignored.
    fn hex_value(&self, bytes: &[u8; 16], len: usize) -> u64;

    /// The value of the last `len` (1 to 32) bytes of `bytes`, decimal
    /// digits, the first most significant; the bytes before them are
    /// ignored.
    fn dec_value(&self, bytes: &[u8; 32], len: usize) -> u128;
}

/// The portable build.
struct Portable;

impl Blocks for Portable {
    #[inline(always)]
    fn marks(&self, syntax: Syntax, block: &[u8; BLOCK]) -> Option<Marks> {
        marks_portable(syntax, block)
    }

    #[inline(always)]
    fn hex_value(&self, bytes: &[u8; 16], len: usize) -> u64 {
        hex_value_portable(bytes, len)
    }

    #[inline(always)]
    fn dec_value(&self, bytes: &[u8; 32], len: usize) -> u128 {
        dec_value_portable(bytes, len)
    }
}

/// `0x01` in every byte of a word.
const LOW_BITS: u64 = 0x0101_0101_0101_0101;

/// `0x80` in every byte of a word.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;

/// `0x80` in each byte of `word` that is not 0: a byte with a bit set in
/// its low seven carries into bit 7 when they are added to `0x7f`, or has
/// bit 7 set itself. No sum leaves its byte.
#[inline(always)]
fn nonzero_bytes(word: u64) -> u64 {
    (((word & !HIGH_BITS) + !HIGH_BITS) | word) & HIGH_BITS
}

/// `0x80` in each byte of `word` equal to `byte`.
#[inline(always)]
fn bytes_equal(word: u64, byte: u8) -> u64 {
    !nonzero_bytes(word ^ (LOW_BITS * u64::from(byte))) & HIGH_BITS
}

/// Bit 7 of each byte of `flags` gathered into a byte, byte `i` to bit `i`
/// (the multiplication moves bit `8i` to bit `56 + i`, without carries).
#[inline(always)]
fn gather_high_bits(flags: u64) -> u64 {
    ((flags & HIGH_BITS) >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// [`Blocks::marks`] for any CPU: eight bytes at a time with SWAR, each
/// byte's class a flag in its bit 7 (the digits from
/// [`Digits::non_digits`]), the flags gathered into the masks.
fn marks_portable(syntax: Syntax, block: &[u8; BLOCK]) -> Option<Marks> {
    let (mut marks, mut valid) = (Marks::default(), HIGH_BITS);
    for (i, chunk) in block.chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let spaces = || {
            bytes_equal(word, b' ')
                | bytes_equal(word, b'\t')
                | bytes_equal(word, b'\n')
                | bytes_equal(word, b'\r')
        };
        let token_digits = |digits: Digits| !nonzero_bytes(digits.non_digits(word)) & HIGH_BITS;
        let (digits, separators) = match syntax {
            Syntax::Bits => (token_digits(Digits::Binary), spaces()),
            Syntax::Hex => (token_digits(Digits::Hex), spaces()),
            Syntax::Dec => (token_digits(Digits::Decimal), spaces()),
            Syntax::Unary => (bytes_equal(word, b'1'), bytes_equal(word, b'\n')),
        };
        valid &= digits | separators;
        marks.digits |= gather_high_bits(digits) << (8 * i);
        if syntax == Syntax::Bits {
            marks.ones |= gather_high_bits(bytes_equal(word, b'1')) << (8 * i);
        }
    }
    (valid == HIGH_BITS).then_some(marks)
}

/// The value of a hex digit byte (either case): its low nibble, plus 9
/// for a letter (bit 6 set).
#[inline(always)]
fn hex_digit(byte: u8) -> u64 {
    u64::from(byte & 0x0f) + 9 * u64::from(byte >> 6 & 1)
}

/// [`Blocks::hex_value`] for any CPU: the 16 bytes as two words, each
/// byte turned into its digit's value and the eight values of a word
/// gathered into 32 bits with three shift-and-mask steps (SWAR).
fn hex_value_portable(bytes: &[u8; 16], len: usize) -> u64 {
    let half = |k: usize| {
        let word = u64::from_le_bytes(bytes[8 * k..8 * k + 8].try_into().expect("eight bytes"));
        // Each byte's value: its low nibble, plus 9 where bit 6 is set.
        let values = (word & 0x0f0f_0f0f_0f0f_0f0f) + 9 * (word >> 6 & 0x0101_0101_0101_0101);
        // The first byte is the most significant digit: byte i goes to
        // bits 4 (7 - i).
        let values = values.swap_bytes();
        let pairs = (values | values >> 4) & 0x00ff_00ff_00ff_00ff;
        let quads = (pairs | pairs >> 8) & 0x0000_ffff_0000_ffff;
        (quads | quads >> 16) & 0xffff_ffff
    };
    let value = half(0) << 32 | half(1);
    value & low_bits(4 * len)
}

/// The number held in a word of eight digit values (`0`-`9`, one per byte,
/// the first byte most significant), with SWAR: one multiplication makes
/// the four two-digit pairs (in bytes 0, 2, 4 and 6), then two more weigh
/// them (by 10^6 and 100, and by 10^4 and 1) and sum them in bits 32-63.
/// The products overflow only in bits that are discarded.
#[inline(always)]
pub fn combine8(digits: u64) -> u64 {
    const PAIRS_0_2: u64 = 0x0000_00ff_0000_00ff;
    const WEIGHTS_0_2: u64 = 100 + (1_000_000 << 32);
    const WEIGHTS_1_3: u64 = 1 + (10_000 << 32);
    let pairs = digits * 10 + (digits >> 8);
    let even = (pairs & PAIRS_0_2).wrapping_mul(WEIGHTS_0_2);
    let odd = ((pairs >> 16) & PAIRS_0_2).wrapping_mul(WEIGHTS_1_3);
    even.wrapping_add(odd) >> 32
}

/// [`Blocks::dec_value`] for any CPU: four words of eight digits, the
/// bytes before the digits cleared, each converted with [`combine8`].
fn dec_value_portable(bytes: &[u8; 32], len: usize) -> u128 {
    let ignored = 32 - len;
    let mut eights = [0u64; 4];
    for (k, chunk) in bytes.chunks_exact(8).enumerate() {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        // `'0'`-`'9'` XOR `'0'` is 0-9; the ignored bytes are cleared.
        let skip = ignored.saturating_sub(8 * k).min(8) as u32;
        let kept = u64::MAX.checked_shl(8 * skip).unwrap_or(0);
        eights[k] = combine8((word ^ ASCII_ZEROS) & kept);
    }
    from_halves(
        eights[0] * 100_000_000 + eights[1],
        eights[2] * 100_000_000 + eights[3],
    )
}

/// The number whose first 16 digits are `high` and last 16 are `low`.
#[inline(always)]
fn from_halves(high: u64, low: u64) -> u128 {
    u128::from(high) * 10_000_000_000_000_000 + u128::from(low)
}

/// The low `n` bits set (`n` up to 64).
#[inline(always)]
fn low_bits(n: usize) -> u64 {
    u64::MAX.checked_shr(64 - n as u32).unwrap_or(0)
}

/// The value of the token of `len` digits (at most the syntax's
/// [`Syntax::max_digits`]) that ends at `end` of `data`, read with
/// `build`; for `bits`, from `reversed`, the window's `1`s reversed (bit
/// `127 - p` for window position `p`), the token's end at window position
/// `window_end`.
#[inline(always)]
fn token_value<B: Blocks>(
    build: &B,
    syntax: Syntax,
    data: &[u8],
    (end, window_end): (usize, usize),
    len: usize,
    reversed: u128,
) -> u128 {
    match syntax {
        // The digits are bits `128 - window_end ..` of the reversed
        // window, the last digit lowest.
        Syntax::Bits => u128::from((reversed >> (2 * BLOCK - window_end)) as u64 & low_bits(len)),
        Syntax::Unary => unreachable!("unary lines are read by fill_lines"),
        Syntax::Hex => {
            let value = match end.checked_sub(16) {
                Some(from) => build.hex_value(data[from..end].try_into().expect("16 bytes"), len),
                None => data[end - len..end]
                    .iter()
                    .fold(0, |value, &byte| value << 4 | hex_digit(byte)),
            };
            u128::from(value)
        }
        Syntax::Dec => match end.checked_sub(32) {
            Some(from) => build.dec_value(data[from..end].try_into().expect("32 bytes"), len),
            None => data[end - len..end]
                .iter()
                .fold(0, |value, &byte| 10 * value + u128::from(byte - b'0')),
        },
    }
}

/// [`fill_tokens`] with `syntax` a constant in each copy of the loop.
#[inline(always)]
fn fill_any<B: Blocks>(
    build: &B,
    syntax: Syntax,
    data: &[u8],
    from: usize,
    base: u64,
    heaps: &mut ShortHeaps,
) -> Stopped {
    match syntax {
        Syntax::Bits => fill_tokens(build, Syntax::Bits, data, from, base, heaps),
        Syntax::Hex => fill_tokens(build, Syntax::Hex, data, from, base, heaps),
        Syntax::Dec => fill_tokens(build, Syntax::Dec, data, from, base, heaps),
        Syntax::Unary => fill_lines(build, data, from, base, heaps),
    }
}

/// The `unary` loop of the portable and AVX2 builds: block by block, the
/// lines that end in each one after another, by bit scans over its LFs.
#[inline(always)]
fn fill_lines<B: Blocks>(
    build: &B,
    data: &[u8],
    from: usize,
    base: u64,
    heaps: &mut ShortHeaps,
) -> Stopped {
    // Where the block is, and the first byte of the line being read.
    let (mut at, mut line) = (from, from);
    while !heaps.is_full() && at - from < RUN_BYTES {
        let Some(block) = data.get(at..at + BLOCK) else {
            break;
        };
        let Some(marks) = build.marks(Syntax::Unary, block.try_into().expect("a block")) else {
            break;
        };
        // Every byte that is not a `1` is an LF.
        let mut ends = !marks.digits;
        while ends != 0 {
            let end = at + ends.trailing_zeros() as usize;
            ends &= ends - 1;
            heaps.push(base + line as u64, (end - line) as u128);
            line = end + 1;
        }
        at += BLOCK;
    }
    Stopped {
        at: line,
        long: (line < at).then_some((line, at)),
    }
}

/// The loop of the portable and AVX2 builds: block by block, the tokens
/// that end in each one after another, by bit scans over its masks.
///
/// Positions within a block's "window" count from the start of the block
/// before it: the block's own bytes are 64 to 127, and a token that ends
/// in it starts at 0 or later (it has at most 64 digits).
#[inline(always)]
fn fill_tokens<B: Blocks>(
    build: &B,
    syntax: Syntax,
    data: &[u8],
    from: usize,
    base: u64,
    heaps: &mut ShortHeaps,
) -> Stopped {
    let max = syntax.max_digits();
    let mut stopped = Stopped {
        at: from,
        long: None,
    };
    // Where the block is, the start (window position) of the token that
    // runs into it from the block before, and that block's `1`s reversed.
    let (mut at, mut running, mut ones_before) = (from, None::<usize>, 0u64);
    while !heaps.is_full() && at - from < RUN_BYTES {
        let Some(block) = data.get(at..at + BLOCK) else {
            break;
        };
        let Some(marks) = build.marks(syntax, block.try_into().expect("a block")) else {
            break;
        };
        let (digits, ones) = (marks.digits, marks.ones.reverse_bits());
        let reversed = u128::from(ones_before) << BLOCK | u128::from(ones);
        // The byte at window position `pos` (at least 64 in the first
        // block, where no token runs in).
        let place = |pos: usize| at + pos - BLOCK;
        let carry = u64::from(running.is_some());
        let after_digit = digits << 1 | carry;
        let mut ends = !digits & after_digit;
        let mut starts =
            u128::from(digits & !after_digit) << BLOCK | running.map_or(0, |start| 1u128 << start);
        while ends != 0 {
            let end = BLOCK + ends.trailing_zeros() as usize;
            let start = starts.trailing_zeros() as usize;
            ends &= ends - 1;
            starts &= starts - 1;
            if end - start > max {
                stopped.long = Some((place(start), place(end)));
                return stopped;
            }
            let ends_at = (place(end), end);
            let value = token_value(build, syntax, data, ends_at, end - start, reversed);
            heaps.push(base + place(start) as u64, value);
            stopped.at = place(end);
        }
        // What is left of the starts is the token that runs on, if any.
        running = match digits >> (BLOCK - 1) {
            0 => None,
            _ => match starts.trailing_zeros() as usize {
                start if start >= BLOCK => Some(start - BLOCK),
                start => {
                    // It ran through the whole block: longer than a block.
                    stopped.long = Some((place(start), at + BLOCK));
                    return stopped;
                }
            },
        };
        ones_before = ones;
        at += BLOCK;
    }
    stopped
}
