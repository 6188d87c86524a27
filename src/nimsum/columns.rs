//! Column counts of raw arrays: for each of the 64 bit positions, how many
//! elements have that bit set, in the same loop that counts the zeros and
//! the ones and ORs the elements together.
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
//!   vectorise. It is compiled for the baseline target and, behind runtime
//!   feature detection, with AVX2;
//! * an AVX-512 one ([`tally_avx512`]), written with intrinsics, on 512-bit
//!   vectors of the raw bytes: a carry-save adder is two `vpternlogq`
//!   instructions, and the vectors are the array's bytes as they are, so
//!   the columns it counts are those of 64-bit words that hold 8 / width
//!   elements each. Folding word bit q into element bit q mod (8·width)
//!   when the columns are read makes narrow elements as cheap per byte as
//!   wide ones. The zeros and ones are counted only in the steps where a
//!   minimum over the step says some element is 0 or 1.
//!
//! Every build must agree with the obvious per-bit loop
//! ([`tally_reference`]); the tests check all of them on random arrays of
//! every width.

/// Four 64-bit lanes, one vector register under AVX2.
type Lanes = [u64; 4];

/// Elements per carry-save step of the portable loop: eight vectors of
/// four lanes.
pub const STEP: usize = 32;

/// Bit-sliced planes of the top counters: plane p has weight 512·2^p, so
/// 40 planes count up to 2^49 vectors per lane, far past any file.
const PLANES: usize = 40;

/// Harley–Seal state over `N` lanes: the counts of every vector fed so
/// far, per lane and bit.
#[derive(Clone, Debug)]
struct Carries<const N: usize> {
    /// Level l's running words, of weights 8^l, 2·8^l and 4·8^l.
    running: [[[u64; N]; 3]; 3],
    /// Level l's carries out (of weight 8^(l+1)) not yet folded into level
    /// l + 1; the top level's go to the planes at once.
    pending: [[[u64; N]; 8]; 2],
    pending_len: [usize; 2],
    planes: [[u64; N]; PLANES],
}

impl<const N: usize> Default for Carries<N> {
    fn default() -> Self {
        Carries {
            running: [[[0; N]; 3]; 3],
            pending: [[[0; N]; 8]; 2],
            pending_len: [0; 2],
            planes: [[0; N]; PLANES],
        }
    }
}

impl<const N: usize> Carries<N> {
    /// Adds the counts held here into `columns`, word bit q into column
    /// q mod `period` (a power of two, at most 64).
    fn add_to(&self, columns: &mut [u64; 64], period: usize) {
        let mut add = |lanes: &[u64; N], weight: u64| {
            for &word in lanes {
                let mut rest = word;
                while rest != 0 {
                    columns[rest.trailing_zeros() as usize & (period - 1)] += weight;
                    rest &= rest - 1;
                }
            }
        };
        for (level, running) in self.running.iter().enumerate() {
            let unit = 1 << (3 * level);
            for (k, word) in running.iter().enumerate() {
                add(word, unit << k);
            }
        }
        for (level, pending) in self.pending.iter().enumerate() {
            let weight = 8 << (3 * level);
            for word in &pending[..self.pending_len[level]] {
                add(word, weight);
            }
        }
        for (p, plane) in self.planes.iter().enumerate() {
            add(plane, 512 << p);
        }
    }

    /// Adds 8N words (eight vectors of N lanes) by carry-save steps.
    #[inline(always)]
    fn step(&mut self, v: &[[u64; N]; 8]) {
        let eights = fold8(&mut self.running[0], v);
        self.pending[0][self.pending_len[0]] = eights;
        self.pending_len[0] += 1;
        if self.pending_len[0] == 8 {
            self.pending_len[0] = 0;
            let sixty_fours = fold8(&mut self.running[1], &self.pending[0]);
            self.add_sixty_fours(sixty_fours);
        }
    }

    /// Takes one "sixty-fours" word per lane; every eighth folds the
    /// pending ones into the top level and its carry into the planes.
    fn add_sixty_fours(&mut self, sixty_fours: [u64; N]) {
        self.pending[1][self.pending_len[1]] = sixty_fours;
        self.pending_len[1] += 1;
        if self.pending_len[1] == 8 {
            self.pending_len[1] = 0;
            let top = fold8(&mut self.running[2], &self.pending[1]);
            add_to_planes(&mut self.planes, top);
        }
    }
}

/// Adds one word per lane, of the weight of plane 0, into the bit-sliced
/// planes.
fn add_to_planes<const N: usize>(planes: &mut [[u64; N]; PLANES], mut carry: [u64; N]) {
    for plane in planes.iter_mut() {
        let sum = xor(*plane, carry);
        carry = and(*plane, carry);
        *plane = sum;
        if carry == [0; N] {
            return;
        }
    }
    unreachable!("a counter plane overflowed past 2^49 vectors per lane");
}

/// The AVX-512 loop's counts: the columns of the array's bytes read as
/// 64-bit words, eight words to a vector.
#[derive(Clone, Debug)]
struct Packed {
    /// The element width the words were read at: word bit q belongs to
    /// element column q mod (8·width).
    width: usize,
    carries: Carries<8>,
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
    fn packed(&mut self, width: usize) -> &mut Carries<8> {
        let packed = self.packed.get_or_insert_with(|| {
            Box::new(Packed {
                width,
                carries: Carries::default(),
            })
        });
        if packed.width != width {
            packed.carries.add_to(&mut self.loose, 8 * packed.width);
            **packed = Packed {
                width,
                carries: Carries::default(),
            };
        }
        &mut packed.carries
    }
}

/// Counts the elements of `data`, little-endian elements of `width` bytes
/// (1, 2, 4 or 8; `data` holds whole elements), into `counter`; returns the
/// block's OR and its zero and one counts. Uses AVX-512 or AVX2 when the
/// CPU has it.
pub fn tally(data: &[u8], width: usize, counter: &mut ColumnCounter) -> BlockTally {
    #[cfg(target_arch = "x86_64")]
    {
        if has_avx512() {
            // SAFETY: the CPU supports AVX-512 F and BW and POPCNT, checked
            // just above.
            return unsafe { tally_avx512(data, width, counter) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above; the function
            // only differs from the portable one in the instructions it may
            // use.
            return unsafe { tally_avx2(data, width, counter) };
        }
    }
    tally_portable(data, width, counter)
}

/// Whether the CPU has what [`tally_avx512`] needs: the AVX-512 subsets F
/// and BW, and POPCNT (which every CPU with them has).
#[cfg(target_arch = "x86_64")]
pub fn has_avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
        && std::arch::is_x86_feature_detected!("avx512bw")
        && std::arch::is_x86_feature_detected!("popcnt")
}

/// [`tally`] compiled for the baseline target only.
pub fn tally_portable(data: &[u8], width: usize, counter: &mut ColumnCounter) -> BlockTally {
    tally_any_width(data, width, counter)
}

/// [`tally`] compiled with AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub unsafe fn tally_avx2(data: &[u8], width: usize, counter: &mut ColumnCounter) -> BlockTally {
    tally_any_width(data, width, counter)
}

/// [`tally_width`] for the element width, inlined into each build.
#[inline(always)]
fn tally_any_width(data: &[u8], width: usize, counter: &mut ColumnCounter) -> BlockTally {
    match width {
        1 => tally_width::<1>(data, counter),
        2 => tally_width::<2>(data, counter),
        4 => tally_width::<4>(data, counter),
        _ => tally_width::<8>(data, counter),
    }
}

/// [`tally`] with AVX-512 intrinsics, on the raw bytes (see the module
/// documentation).
///
/// # Safety
/// The CPU must support AVX-512 F and BW and POPCNT ([`has_avx512`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,popcnt")]
pub unsafe fn tally_avx512(data: &[u8], width: usize, counter: &mut ColumnCounter) -> BlockTally {
    let carries = counter.packed(width);
    match width {
        1 => avx512::tally::<1>(data, carries),
        2 => avx512::tally::<2>(data, carries),
        4 => avx512::tally::<4>(data, carries),
        _ => avx512::tally::<8>(data, carries),
    }
}

/// The obvious loop, bit by bit: the reference the fast ones are tested
/// against.
pub fn tally_reference(data: &[u8], width: usize, counter: &mut ColumnCounter) -> BlockTally {
    let mut block = BlockTally::default();
    for chunk in data.chunks_exact(width) {
        let value = element(chunk);
        block.or |= value;
        block.zeros += u64::from(value == 0);
        block.ones += u64::from(value == 1);
        counter.add_loose(value);
    }
    block
}

#[inline(always)]
fn tally_width<const W: usize>(data: &[u8], counter: &mut ColumnCounter) -> BlockTally {
    let steps = data.chunks_exact(STEP * W);
    let tail = steps.remainder();
    let (mut or, mut zeros, mut ones) = ([0u64; 4], [0u64; 4], [0u64; 4]);
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
    let mut block = BlockTally {
        or: or.iter().fold(0, |a, b| a | b),
        zeros: zeros.iter().sum(),
        ones: ones.iter().sum(),
    };
    let rest = tally_reference(tail, W, counter);
    block.or |= rest.or;
    block.zeros += rest.zeros;
    block.ones += rest.ones;
    block
}

/// Eight words of equal weight w folded into a level's running words of
/// weights w, 2w and 4w by seven carry-save steps: returns the carry out,
/// of weight 8w.
#[inline(always)]
fn fold8<const N: usize>(running: &mut [[u64; N]; 3], v: &[[u64; N]; 8]) -> [u64; N] {
    fold8_with(running, v, csa)
}

/// [`fold8`] on any words, with `csa` their carry-save adder.
#[inline(always)]
fn fold8_with<T: Copy>(running: &mut [T; 3], v: &[T; 8], csa: impl Fn(T, T, T) -> (T, T)) -> T {
    let [ones, twos, fours] = *running;
    let (twos_a, ones) = csa(ones, v[0], v[1]);
    let (twos_b, ones) = csa(ones, v[2], v[3]);
    let (fours_a, twos) = csa(twos, twos_a, twos_b);
    let (twos_a, ones) = csa(ones, v[4], v[5]);
    let (twos_b, ones) = csa(ones, v[6], v[7]);
    let (fours_b, twos) = csa(twos, twos_a, twos_b);
    let (eights, fours) = csa(fours, fours_a, fours_b);
    *running = [ones, twos, fours];
    eights
}

/// A carry-save adder on every bit of N lanes: returns (carry, sum).
#[inline(always)]
fn csa<const N: usize>(a: [u64; N], b: [u64; N], c: [u64; N]) -> ([u64; N], [u64; N]) {
    let u = xor(a, b);
    let carry = std::array::from_fn(|i| (a[i] & b[i]) | (u[i] & c[i]));
    (carry, xor(u, c))
}

#[inline(always)]
fn xor<const N: usize>(a: [u64; N], b: [u64; N]) -> [u64; N] {
    std::array::from_fn(|i| a[i] ^ b[i])
}

#[inline(always)]
fn and<const N: usize>(a: [u64; N], b: [u64; N]) -> [u64; N] {
    std::array::from_fn(|i| a[i] & b[i])
}

/// The little-endian element of `W` bytes at the start of `bytes`.
#[inline(always)]
pub fn load<const W: usize>(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..W].copy_from_slice(&bytes[..W]);
    u64::from_le_bytes(word)
}

/// A little-endian element of up to 8 bytes.
pub fn element(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word[..bytes.len()].copy_from_slice(bytes);
    u64::from_le_bytes(word)
}

/// The AVX-512 loop, on 512-bit vectors of the array's bytes.
///
/// Hand-written intrinsics rather than the portable loop recompiled with
/// AVX-512: that loop holds one element per 64-bit lane, so it would still
/// widen narrow elements and compare every element with 0 and 1 at every
/// step, and whether it got 512-bit registers and `vpternlogq` would be
/// up to the compiler's tuning. Here the vectors are 512 bits, each
/// carry-save adder is two `vpternlogq`, the bytes are counted as they
/// lie, and the zero and one counts are skipped for whole steps.
///
/// The AVX-512 intrinsics and target features are stable since Rust 1.89,
/// hence the crate's `rust-version`.
#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::{BlockTally, Carries};
    use std::arch::x86_64::*;

    /// Bytes per vector.
    const VECTOR: usize = 64;
    /// Bytes per carry-save step: eight vectors.
    const STEP_BYTES: usize = 8 * VECTOR;

    /// `vpternlogq` truth tables: bit (a·4 + b·2 + c) of the immediate is
    /// the result for input bits a, b, c.
    const XOR3: i32 = 0x96;
    const MAJORITY: i32 = 0xE8;
    const OR3: i32 = 0xFE;

    /// The first two levels of a [`Carries<8>`] held in registers for one
    /// call, with the call's OR and zero and one counts. The pending
    /// carries stay in the [`Carries`] (each is written once and read
    /// once), and so does the top level, used once per 512 vectors.
    struct Kernel {
        low: [__m512i; 3],
        middle: [__m512i; 3],
        pending_len: [usize; 2],
        or: __m512i,
        zeros: u64,
        units: u64,
    }

    /// Counts the elements of `data` (of `W` bytes) into `carries`, the
    /// columns of the bytes read as 64-bit words.
    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    pub(super) fn tally<const W: usize>(data: &[u8], carries: &mut Carries<8>) -> BlockTally {
        let data = &data[..data.len() - data.len() % W];
        let mut kernel = Kernel::resume(carries);
        let (steps, rest) = data.as_chunks::<STEP_BYTES>();
        // The last bytes as a step of their own, padded with zero
        // elements: they add nothing to the columns or the OR, and the
        // zeros they add are taken off below. One loop over both keeps
        // one call of `step`, which the compiler then inlines.
        let mut last = [0u8; STEP_BYTES];
        last[..rest.len()].copy_from_slice(rest);
        let last = &[last][..usize::from(!rest.is_empty())];
        for step in steps.iter().chain(last) {
            kernel.step::<W>(load_step(step), carries);
        }
        if !rest.is_empty() {
            kernel.zeros -= ((STEP_BYTES - rest.len()) / W) as u64;
        }
        kernel.suspend(carries);
        BlockTally {
            or: fold_or::<W>(_mm512_reduce_or_epi64(kernel.or) as u64),
            zeros: kernel.zeros,
            ones: kernel.units,
        }
    }

    impl Kernel {
        #[inline]
        #[target_feature(enable = "avx512f")]
        fn resume(carries: &Carries<8>) -> Kernel {
            let [low, middle, _] = &carries.running;
            Kernel {
                low: [load(&low[0]), load(&low[1]), load(&low[2])],
                middle: [load(&middle[0]), load(&middle[1]), load(&middle[2])],
                pending_len: carries.pending_len,
                or: _mm512_setzero_si512(),
                zeros: 0,
                units: 0,
            }
        }

        #[inline]
        #[target_feature(enable = "avx512f")]
        fn suspend(&self, carries: &mut Carries<8>) {
            let [low, middle, _] = &mut carries.running;
            for (words, &v) in low.iter_mut().zip(&self.low) {
                store(words, v);
            }
            for (words, &v) in middle.iter_mut().zip(&self.middle) {
                store(words, v);
            }
            carries.pending_len = self.pending_len;
        }

        /// Adds eight vectors: their OR, their zeros and ones, and their
        /// words into the carry-save adders.
        #[inline]
        #[target_feature(enable = "avx512f,avx512bw,popcnt")]
        fn step<const W: usize>(&mut self, v: [__m512i; 8], carries: &mut Carries<8>) {
            let or_a = _mm512_ternarylogic_epi64::<OR3>(v[0], v[1], v[2]);
            let or_b = _mm512_ternarylogic_epi64::<OR3>(v[3], v[4], v[5]);
            let or_c = _mm512_ternarylogic_epi64::<OR3>(v[6], v[7], self.or);
            self.or = _mm512_ternarylogic_epi64::<OR3>(or_a, or_b, or_c);

            // Bytes are 0 or 1 too often for a test to pay; wider elements
            // are counted only when the step's minimum is at most 1, out
            // of line so that the common step stays small.
            if W == 1 {
                let (zeros, units) = count_small::<W>(v);
                self.zeros += zeros;
                self.units += units;
            } else if at_most::<W>(min8::<W>(&v), splat_one::<W>()) {
                // A copy made here, not `v` itself: passing `v` would keep
                // it in memory on the common path too.
                let copy = [v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]];
                let (zeros, units) = count_small_cold::<W>(copy);
                self.zeros += zeros;
                self.units += units;
            }

            let eights = fold8(&mut self.low, &v);
            store(&mut carries.pending[0][self.pending_len[0]], eights);
            self.pending_len[0] += 1;
            if self.pending_len[0] == 8 {
                self.pending_len[0] = 0;
                let pending = load8(&carries.pending[0]);
                let sixty_fours = fold8(&mut self.middle, &pending);
                store(&mut carries.pending[1][self.pending_len[1]], sixty_fours);
                self.pending_len[1] += 1;
                if self.pending_len[1] == 8 {
                    self.pending_len[1] = 0;
                    add_top(carries);
                }
            }
        }
    }

    /// The zero and one elements of eight vectors of `W`-byte elements.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    fn count_small<const W: usize>(v: [__m512i; 8]) -> (u64, u64) {
        let (zero, one) = (_mm512_setzero_si512(), splat_one::<W>());
        let (mut zeros, mut units) = (0, 0);
        for x in v {
            zeros += u64::from(count_equal::<W>(x, zero));
            units += u64::from(count_equal::<W>(x, one));
        }
        (zeros, units)
    }

    /// [`count_small`] kept out of the loop, for widths where it is rare.
    #[cold]
    #[inline(never)]
    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    fn count_small_cold<const W: usize>(v: [__m512i; 8]) -> (u64, u64) {
        count_small::<W>(v)
    }

    /// Folds the eight pending "sixty-fours" vectors into the top level
    /// and its carry out into the planes: once per 512 vectors, so out of
    /// line (and with no registers of the loop to save).
    #[inline(never)]
    #[target_feature(enable = "avx512f")]
    fn add_top(carries: &mut Carries<8>) {
        let top = &mut carries.running[2];
        let mut running = [load(&top[0]), load(&top[1]), load(&top[2])];
        let mut carry = fold8(&mut running, &load8(&carries.pending[1]));
        for (words, &v) in top.iter_mut().zip(&running) {
            store(words, v);
        }
        for plane in carries.planes.iter_mut() {
            let words = load(plane);
            store(plane, _mm512_xor_si512(words, carry));
            carry = _mm512_and_si512(words, carry);
            if _mm512_test_epi64_mask(carry, carry) == 0 {
                return;
            }
        }
        unreachable!("a counter plane overflowed past 2^49 vectors per lane");
    }

    /// [`super::fold8`] on vectors.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn fold8(running: &mut [__m512i; 3], v: &[__m512i; 8]) -> __m512i {
        super::fold8_with(running, v, |a, b, c| csa(a, b, c))
    }

    /// A carry-save adder on every bit: returns (carry, sum).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn csa(a: __m512i, b: __m512i, c: __m512i) -> (__m512i, __m512i) {
        (
            _mm512_ternarylogic_epi64::<MAJORITY>(a, b, c),
            _mm512_ternarylogic_epi64::<XOR3>(a, b, c),
        )
    }

    /// The element-wise minimum of eight vectors of `W`-byte elements.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn min8<const W: usize>(v: &[__m512i; 8]) -> __m512i {
        let min = |a, b| match W {
            1 => _mm512_min_epu8(a, b),
            2 => _mm512_min_epu16(a, b),
            4 => _mm512_min_epu32(a, b),
            _ => _mm512_min_epu64(a, b),
        };
        min(
            min(min(v[0], v[1]), min(v[2], v[3])),
            min(min(v[4], v[5]), min(v[6], v[7])),
        )
    }

    /// Whether some `W`-byte element of `v` is at most the same element of
    /// `bound`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn at_most<const W: usize>(v: __m512i, bound: __m512i) -> bool {
        match W {
            1 => _mm512_cmple_epu8_mask(v, bound) != 0,
            2 => _mm512_cmple_epu16_mask(v, bound) != 0,
            4 => _mm512_cmple_epu32_mask(v, bound) != 0,
            _ => _mm512_cmple_epu64_mask(v, bound) != 0,
        }
    }

    /// How many `W`-byte elements of `v` equal the same element of `x`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw,popcnt")]
    fn count_equal<const W: usize>(v: __m512i, x: __m512i) -> u32 {
        match W {
            1 => _mm512_cmpeq_epi8_mask(v, x).count_ones(),
            2 => _mm512_cmpeq_epi16_mask(v, x).count_ones(),
            4 => _mm512_cmpeq_epi32_mask(v, x).count_ones(),
            _ => _mm512_cmpeq_epi64_mask(v, x).count_ones(),
        }
    }

    /// Every `W`-byte element 1.
    #[inline]
    #[target_feature(enable = "avx512f,avx512bw")]
    fn splat_one<const W: usize>() -> __m512i {
        match W {
            1 => _mm512_set1_epi8(1),
            2 => _mm512_set1_epi16(1),
            4 => _mm512_set1_epi32(1),
            _ => _mm512_set1_epi64(1),
        }
    }

    /// The OR of the `W`-byte elements packed in a word.
    #[inline]
    fn fold_or<const W: usize>(mut word: u64) -> u64 {
        let bits = 8 * W;
        let mut shift = 32;
        while shift >= bits {
            word |= word >> shift;
            shift /= 2;
        }
        if bits == 64 {
            word
        } else {
            word & ((1 << bits) - 1)
        }
    }

    /// The eight vectors of a step.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load_step(step: &[u8; STEP_BYTES]) -> [__m512i; 8] {
        let mut v = [_mm512_setzero_si512(); 8];
        for (k, vector) in v.iter_mut().enumerate() {
            // SAFETY: bytes 64·k .. 64·k + 64 (k < 8) lie inside `step`,
            // and the unaligned load has no alignment requirement.
            *vector = unsafe { _mm512_loadu_si512(step.as_ptr().add(k * VECTOR).cast()) };
        }
        v
    }

    /// Eight vectors from memory.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load8(words: &[[u64; 8]; 8]) -> [__m512i; 8] {
        let mut v = [_mm512_setzero_si512(); 8];
        for (vector, words) in v.iter_mut().zip(words) {
            *vector = load(words);
        }
        v
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load(words: &[u64; 8]) -> __m512i {
        // SAFETY: `words` is 64 readable bytes, and the unaligned load has
        // no alignment requirement.
        unsafe { _mm512_loadu_si512(words.as_ptr().cast()) }
    }

    #[inline]
    #[target_feature(enable = "avx512f")]
    fn store(words: &mut [u64; 8], v: __m512i) {
        // SAFETY: `words` is 64 writable bytes, and the unaligned store has
        // no alignment requirement.
        unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), v) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The largest element of `width` bytes.
    fn largest(width: usize) -> u64 {
        u64::MAX >> (64 - 8 * width)
    }

    /// Elements as raw bytes of `width` bytes each.
    fn bytes(values: impl IntoIterator<Item = u64>, width: usize) -> Vec<u8> {
        values
            .into_iter()
            .flat_map(|v| v.to_le_bytes()[..width].to_vec())
            .collect()
    }

    /// Random elements with many zeros, ones and all-ones, as raw bytes.
    fn sample(rng: &mut ChaCha8Rng, width: usize, count: usize) -> Vec<u8> {
        let values: Vec<u64> = (0..count)
            .map(|_| {
                (match rng.random_range(0..5) {
                    0 => 0,
                    1 => 1,
                    2 => u64::MAX,
                    3 => 1 << rng.random_range(0..64),
                    _ => rng.random(),
                }) & largest(width)
            })
            .collect();
        bytes(values, width)
    }

    type Tally = fn(&[u8], usize, &mut ColumnCounter) -> BlockTally;

    /// Every build of the loop this CPU can run, by name: the AVX2 and
    /// AVX-512 ones only where the CPU has them.
    fn builds() -> Vec<(&'static str, Tally)> {
        let mut builds: Vec<(&'static str, Tally)> =
            vec![("portable", tally_portable), ("dispatched", tally)];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                builds.push(("avx2", |data, width, counter| {
                    // SAFETY: this build is listed only when the CPU has AVX2.
                    unsafe { tally_avx2(data, width, counter) }
                }));
            }
            if has_avx512() {
                builds.push(("avx512", |data, width, counter| {
                    // SAFETY: this build is listed only when the CPU has
                    // what `tally_avx512` needs.
                    unsafe { tally_avx512(data, width, counter) }
                }));
            }
        }
        builds
    }

    /// Checks every build against the bit-by-bit reference and the
    /// portable loop on `data`, in one call.
    fn check(data: &[u8], width: usize, what: &str) {
        let mut reference = ColumnCounter::default();
        let expected = tally_reference(data, width, &mut reference);
        let mut portable = ColumnCounter::default();
        let from_portable = tally_portable(data, width, &mut portable);
        for (name, build) in builds() {
            let mut counter = ColumnCounter::default();
            let got = build(data, width, &mut counter);
            assert_eq!(got, expected, "{name}, width {width}, {what}");
            assert_eq!(got, from_portable, "{name}, width {width}, {what}");
            assert_eq!(
                counter.columns(),
                reference.columns(),
                "{name}, width {width}, {what}"
            );
            assert_eq!(counter.columns(), portable.columns());
        }
    }

    /// Element counts around every block size: the portable step (32
    /// elements), the AVX-512 vector (64 bytes) and step (512 bytes), and
    /// the 8 and 64 steps after which the second level and the planes are
    /// reached (for bytes, 70 001 elements reach the AVX-512 planes twice).
    const COUNTS: [usize; 18] = [
        0, 1, 7, 31, 32, 33, 63, 64, 65, 255, 257, 511, 513, 1000, 4099, 4607, 33_333, 70_001,
    ];

    #[test]
    fn fast_loops_agree_with_the_bit_by_bit_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(64);
        for width in [1, 2, 4, 8] {
            for count in COUNTS {
                let data = sample(&mut rng, width, count);
                check(&data, width, &format!("{count} random elements"));
            }
        }
    }

    #[test]
    fn fast_loops_agree_on_zeros_ones_and_all_ones() {
        let mut rng = ChaCha8Rng::seed_from_u64(65);
        for width in [1, 2, 4, 8] {
            let top = largest(width);
            for count in COUNTS {
                let zeros = bytes(vec![0; count], width);
                check(&zeros, width, &format!("{count} zeros"));
                let all_ones = bytes(vec![top; count], width);
                check(&all_ones, width, &format!("{count} all-ones"));
                let units = bytes(vec![1; count], width);
                check(&units, width, &format!("{count} ones"));
                let mixed = bytes((0..count).map(|_| rng.random_range(0..2)), width);
                check(&mixed, width, &format!("{count} zeros and ones"));
            }
        }
    }

    #[test]
    fn a_single_zero_or_one_among_large_elements_is_counted() {
        for width in [1, 2, 4, 8] {
            let count = 1100;
            for small in [0, 1] {
                for at in [0, 1, 7, 8, 63, 64, 100, 511, 512, 1023, 1099] {
                    let values = (0..count).map(|i| {
                        if i == at {
                            small
                        } else {
                            largest(width) - (i as u64 & 1)
                        }
                    });
                    let data = bytes(values, width);
                    check(&data, width, &format!("{small} at {at}"));
                }
            }
        }
    }

    #[test]
    fn counts_accumulate_across_calls_of_every_size() {
        let mut rng = ChaCha8Rng::seed_from_u64(66);
        for width in [1, 2, 4, 8] {
            let data = sample(&mut rng, width, 80_000);
            let mut pieces = vec![];
            let mut at = 0;
            while at < data.len() {
                let len = width * rng.random_range(0..700);
                let len = if rng.random_range(0..8) == 0 { 0 } else { len };
                pieces.push(&data[at..(at + len).min(data.len())]);
                at += len;
            }
            let mut reference = ColumnCounter::default();
            let expected = tally_reference(&data, width, &mut reference);
            for (name, build) in builds() {
                let mut counter = ColumnCounter::default();
                let mut total = BlockTally::default();
                for piece in &pieces {
                    let block = build(piece, width, &mut counter);
                    total.or |= block.or;
                    total.zeros += block.zeros;
                    total.ones += block.ones;
                }
                assert_eq!(total, expected, "{name}, width {width}");
                assert_eq!(
                    counter.columns(),
                    reference.columns(),
                    "{name}, width {width}"
                );
            }
        }
    }

    #[test]
    fn a_counter_fed_at_several_widths_counts_every_element() {
        let mut rng = ChaCha8Rng::seed_from_u64(67);
        let parts: Vec<(usize, Vec<u8>)> = [8, 1, 1, 4, 2, 8, 2]
            .into_iter()
            .map(|width| {
                let count = rng.random_range(500..3000);
                (width, sample(&mut rng, width, count))
            })
            .collect();
        let mut reference = ColumnCounter::default();
        for (width, data) in &parts {
            tally_reference(data, *width, &mut reference);
        }
        for (name, build) in builds() {
            let mut counter = ColumnCounter::default();
            for (width, data) in &parts {
                build(data, *width, &mut counter);
                // Words and loose ones fed between blocks count as well.
                counter.add_words(&[u64::MAX; STEP]);
                counter.add_word(5);
            }
            let mut expected = reference.clone();
            for _ in &parts {
                expected.add_words(&[u64::MAX; STEP]);
                expected.add_word(5);
            }
            assert_eq!(counter.columns(), expected.columns(), "{name}");
        }
    }

    #[test]
    fn counts_accumulate_across_blocks_and_carry_through_the_planes() {
        let data = [u64::MAX.to_le_bytes(); 4096].concat();
        for (name, build) in builds() {
            let mut counter = ColumnCounter::default();
            for _ in 0..300 {
                build(&data, 8, &mut counter);
            }
            assert_eq!(counter.columns(), [300 * 4096; 64], "{name}");
        }
    }

    #[test]
    fn tally_uses_avx512_where_the_cpu_has_it() {
        let mut counter = ColumnCounter::default();
        tally(&[7; 4096], 8, &mut counter);
        #[cfg(target_arch = "x86_64")]
        assert_eq!(counter.packed.is_some(), has_avx512());
        #[cfg(not(target_arch = "x86_64"))]
        assert!(counter.packed.is_none());
    }

    #[test]
    fn columns_give_the_xor_of_the_elements() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let data = sample(&mut rng, 8, 777);
        let mut counter = ColumnCounter::default();
        tally(&data, 8, &mut counter);
        let from_columns = counter
            .columns()
            .iter()
            .enumerate()
            .fold(0u64, |x, (b, &c)| x | (c & 1) << b);
        let direct = data.chunks_exact(8).fold(0, |x, c| x ^ element(c));
        assert_eq!(from_columns, direct);
    }
}
