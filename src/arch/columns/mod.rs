//! Column counts of raw arrays: for each of the 64 bit positions, how many
//! elements have that bit set, in the same loop that counts the zeros and
//! the ones and XORs and ORs the elements together.
//!
//! The column counts give the nim-sum (their parities), the winning-move
//! count of normal play (the count of the msb's column) and the longest
//! heap, so one pass over a raw array is enough. Counting 64 columns per
//! element one bit at a time would cost far more than reading the element;
//! instead the loop keeps Harley–Seal carry-save adders in three levels:
//! eight vectors of words reduce to one "eights" vector with seven
//! carry-save steps, eight of those to one "sixty-fours" vector the same
//! way, and eight of those to one vector of weight 512. Only that one is
//! added into bit-sliced counters: the carry through those planes is the
//! slow part (about ten rounds, one per bit a carry may ripple, and a
//! mispredicted branch at the end), so it runs once per 512 vectors. That
//! is a handful of word operations per element.
//!
//! There are three builds of the loop:
//!
//! * the portable one, written once on `[u64; 4]` lanes (one element per
//!   lane, narrower elements zero-extended) and left to the compiler to
//!   vectorise. It is compiled for the baseline target and, for CPUs that
//!   [`cpu`](super::cpu) says have it, with AVX2 ([`tally_avx2`]). Its
//!   adders, shared with the AVX-512 loop, are in `carry_save.rs`.
//!   Elements of 8 bytes under AVX2 take the same steps written with
//!   intrinsics (`avx2.rs`), the first level held in registers: the
//!   one pass over short hex heaps spent 14 % of its time here, 7 % now;
//! * an AVX-512 one ([`tally_avx512`], `avx512.rs`), written with
//!   intrinsics, on 512-bit vectors of the raw bytes: a carry-save adder is
//!   two `vpternlogq` instructions, and the vectors are the array's bytes
//!   as they are, so the columns it counts are those of 64-bit words that
//!   hold 8 / width elements each. Folding word bit q into element bit
//!   q mod (8·width) when the columns are read makes narrow elements as
//!   cheap per byte as wide ones. The zeros and ones are counted only in
//!   the steps where a minimum over the step says some element is 0 or 1,
//!   or, for 8-byte elements once a call has seen such an element, in
//!   vectors at every step with no branch.
//!
//! [`tally`] picks the fastest the CPU has; [`tally_in_lanes`] never the
//! AVX-512 one, whose state is about 4 KiB a counter (for the windowed
//! passes' counters, which working memory bounds).
//!
//! Every build must agree with the obvious per-bit loop
//! ([`tally_reference`]); the tests check all of them on random arrays of
//! every width.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
mod carry_save;
#[cfg(test)]
mod tests;

use carry_save::Carries;

/// Four 64-bit lanes, one vector register under AVX2.
type Lanes = [u64; 4];

/// Elements per carry-save step of the portable loop: eight vectors of
/// four lanes.
pub const STEP: usize = 32;

/// The AVX-512 loop's counts: the columns of the array's bytes read as
/// 64-bit words, eight words to a vector.
#[derive(Clone, Debug)]
struct Packed {
    /// The element width the words were read at: word bit q belongs to
    /// element column q mod (8·width).
    width: usize,
    carries: Carries<8>,
    /// Whether the last call found an element that is 0 or 1: the next
    /// then counts them in vectors at every step (see
    /// [`tally_avx512`]).
    small_last: bool,
}

/// Per-column counts of every element fed so far.
#[derive(Clone, Debug)]
pub struct ColumnCounter {
    /// What the portable loop and [`ColumnCounter::add_words`] counted.
    lanes: Carries<4>,
    /// What the AVX-512 loop counted, once it has run (boxed: most
    /// counters never need it).
    packed: Option<Box<Packed>>,
    /// Elements outside whole steps, counted bit by bit.
    loose: [u64; 64],
}

impl Default for ColumnCounter {
    fn default() -> Self {
        ColumnCounter {
            lanes: Carries::default(),
            packed: None,
            loose: [0; 64],
        }
    }
}

/// What one call of [`tally`] saw in its block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockTally {
    /// The OR of the block's elements.
    pub or: u64,
    /// Elements equal to 0.
    pub zeros: u64,
    /// Elements equal to 1.
    pub ones: u64,
}

impl BlockTally {
    /// What this block and a `later` one saw together.
    pub fn merge(self, later: BlockTally) -> BlockTally {
        BlockTally {
            or: self.or | later.or,
            zeros: self.zeros + later.zeros,
            ones: self.ones + later.ones,
        }
    }
}

impl ColumnCounter {
    /// `columns[b]`: how many elements have bit b set.
    pub fn columns(&self) -> [u64; 64] {
        let mut columns = self.loose;
        self.lanes.add_to(&mut columns, 64);
        if let Some(packed) = &self.packed {
            packed.carries.add_to(&mut columns, 8 * packed.width);
        }
        columns
    }

    /// Adds 32 words at once.
    pub fn add_words(&mut self, words: &[u64; STEP]) {
        let v: [Lanes; 8] = std::array::from_fn(|k| std::array::from_fn(|l| words[4 * k + l]));
        self.lanes.step(&v);
    }

    /// Adds one word.
    pub fn add_word(&mut self, value: u64) {
        self.add_loose(value);
    }

    /// Adds counts made elsewhere: `columns[b]` more elements hold bit b.
    pub fn add_columns(&mut self, columns: &[u64; 64]) {
        for (loose, &c) in self.loose.iter_mut().zip(columns) {
            *loose += c;
        }
    }

    fn add_loose(&mut self, value: u64) {
        let mut rest = value;
        while rest != 0 {
            self.loose[rest.trailing_zeros() as usize] += 1;
            rest &= rest - 1;
        }
    }

    /// The AVX-512 loop's counts for elements of `width` bytes: counts
    /// read at another width move to the loose ones first.
    #[cfg(target_arch = "x86_64")]
    fn packed(&mut self, width: usize) -> &mut Packed {
        let fresh = || Packed {
            width,
            carries: Carries::default(),
            small_last: false,
        };
        let packed = self.packed.get_or_insert_with(|| Box::new(fresh()));
        if packed.width != width {
            packed.carries.add_to(&mut self.loose, 8 * packed.width);
            **packed = fresh();
        }
        packed
    }
}

/// Counts the elements of `data`, little-endian elements of `width` bytes
/// (1, 2, 4 or 8; `data` holds whole elements), into `counter`; returns the
/// block's XOR, and its OR and zero and one counts. Uses AVX-512 or AVX2 when
/// [`cpu`](super::cpu) allows it.
pub fn tally(data: &[u8], width: usize, counter: &mut ColumnCounter) -> (u64, BlockTally) {
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = super::cpu();
        if cpu.avx512 {
            // SAFETY: `cpu()` reports AVX-512 (F and BW with POPCNT) only
            // where the CPU has it.
            return unsafe { tally_avx512(data, width, counter) };
        }
        if cpu.avx2 {
            // SAFETY: `cpu()` reports AVX2 only where the CPU has it; the
            // function only differs from the portable one in the
            // instructions it may use.
            return unsafe { tally_avx2(data, width, counter) };
        }
    }
    tally_portable(data, width, counter)
}

/// [`tally`] without the AVX-512 loop, whose state takes about 4 KiB more
/// per counter: for the counters of the windowed passes, where that state
/// would be most of the working memory. Uses AVX2 when
/// [`cpu`](super::cpu) allows it.
pub fn tally_in_lanes(data: &[u8], width: usize, counter: &mut ColumnCounter) -> (u64, BlockTally) {
    #[cfg(target_arch = "x86_64")]
    if super::cpu().avx2 {
        // SAFETY: `cpu()` reports AVX2 only where the CPU has it.
        return unsafe { tally_avx2(data, width, counter) };
    }
    tally_portable(data, width, counter)
}

/// [`tally`] compiled for the baseline target only.
pub fn tally_portable(data: &[u8], width: usize, counter: &mut ColumnCounter) -> (u64, BlockTally) {
    tally_any_width(data, width, counter)
}

/// [`tally`] compiled with AVX2; 8-byte elements by the intrinsics loop
/// of `avx2.rs`.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub unsafe fn tally_avx2(
    data: &[u8],
    width: usize,
    counter: &mut ColumnCounter,
) -> (u64, BlockTally) {
    if width != 8 {
        return tally_any_width(data, width, counter);
    }
    let whole = data.len() - data.len() % (8 * STEP);
    let (steps, tail) = data.split_at(whole);
    let (xor, block) = avx2::tally_words(steps, &mut counter.lanes);
    let (tail_xor, rest) = tally_reference(tail, 8, counter);
    (xor ^ tail_xor, block.merge(rest))
}

/// [`tally_width`] for the element width, inlined into each build.
#[inline(always)]
fn tally_any_width(data: &[u8], width: usize, counter: &mut ColumnCounter) -> (u64, BlockTally) {
    match width {
        1 => tally_width::<1>(data, counter),
        2 => tally_width::<2>(data, counter),
        4 => tally_width::<4>(data, counter),
        _ => tally_width::<8>(data, counter),
    }
}

/// [`tally`] with AVX-512 intrinsics, on the raw bytes (see the module
/// documentation). Elements of 8 bytes that are 0 or 1 are counted in
/// one of two ways, picked by whether the counter's last call found any:
/// where it did not, a step counts them only if its minimum says it holds
/// one (raw `u64le` arrays: almost never); where it did, every step
/// counts them in vectors, with no branch (heaps of 1 to 64 bits: one in
/// 64 is 1, so about two steps of 64 elements in three hold one, which
/// the branch mispredicted).
///
/// # Safety
/// The CPU must support AVX-512 F and BW and POPCNT
/// ([`Cpu::avx512`](super::Cpu::avx512)).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
pub unsafe fn tally_avx512(
    data: &[u8],
    width: usize,
    counter: &mut ColumnCounter,
) -> (u64, BlockTally) {
    let packed = counter.packed(width);
    let carries = &mut packed.carries;
    let (xor, block) = match (width, packed.small_last) {
        (1, _) => avx512::tally::<1, false>(data, carries),
        (2, _) => avx512::tally::<2, false>(data, carries),
        (4, _) => avx512::tally::<4, false>(data, carries),
        (_, false) => avx512::tally::<8, false>(data, carries),
        (_, true) => avx512::tally::<8, true>(data, carries),
    };
    packed.small_last = block.zeros + block.ones > 0;
    (xor, block)
}

/// The obvious loop, bit by bit: the reference the fast ones are tested
/// against.
pub fn tally_reference(
    data: &[u8],
    width: usize,
    counter: &mut ColumnCounter,
) -> (u64, BlockTally) {
    let (mut xor, mut block) = (0, BlockTally::default());
    for chunk in data.chunks_exact(width) {
        let value = element(chunk);
        xor ^= value;
        block.or |= value;
        block.zeros += u64::from(value == 0);
        block.ones += u64::from(value == 1);
        counter.add_loose(value);
    }
    (xor, block)
}

#[inline(always)]
fn tally_width<const W: usize>(data: &[u8], counter: &mut ColumnCounter) -> (u64, BlockTally) {
    let steps = data.chunks_exact(STEP * W);
    let tail = steps.remainder();
    // The carry-save sum's lowest bits are the XOR of every element fed.
    let parity_before = counter.lanes.parity();
    let mut or = [0u64; 4];
    let (mut zeros, mut ones) = ([0u64; 4], [0u64; 4]);
    for step in steps {
        let v: [Lanes; 8] = std::array::from_fn(|k| {
            std::array::from_fn(|lane| load::<W>(&step[(4 * k + lane) * W..]))
        });
        for vector in &v {
            for lane in 0..4 {
                or[lane] |= vector[lane];
                zeros[lane] += u64::from(vector[lane] == 0);
                ones[lane] += u64::from(vector[lane] == 1);
            }
        }
        counter.lanes.step(&v);
    }
    let block = BlockTally {
        or: or.iter().fold(0, |a, b| a | b),
        zeros: zeros.iter().sum(),
        ones: ones.iter().sum(),
    };
    let (rest_xor, rest) = tally_reference(tail, W, counter);
    let parity = counter.lanes.parity();
    let xor = (0..4).fold(rest_xor, |xor, lane| {
        xor ^ parity_before[lane] ^ parity[lane]
    });
    (xor, block.merge(rest))
}

/// The little-endian element of `W` bytes at the start of `bytes`.
#[inline(always)]
pub fn load<const W: usize>(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..W].copy_from_slice(&bytes[..W]);
    u64::from_le_bytes(word)
}

/// A little-endian element of up to 8 bytes. The raw widths are loaded
/// with a copy of a length known at compile time: a copy of any other
/// length is a call to `memmove`, which took a quarter of a windowed pass
/// over `u64le`.
#[inline(always)]
pub fn element(bytes: &[u8]) -> u64 {
    match bytes.len() {
        1 => load::<1>(bytes),
        2 => load::<2>(bytes),
        4 => load::<4>(bytes),
        8 => load::<8>(bytes),
        len => {
            let mut word = [0u8; 8];
            word[..len].copy_from_slice(bytes);
            u64::from_le_bytes(word)
        }
    }
}
