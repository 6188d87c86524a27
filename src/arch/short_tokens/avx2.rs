//! The loops of the portable build compiled for AVX2: a block classified
//! in two 32-byte vectors (whitespace found with one byte shuffle; for
//! `bits`, the `1`s reversed by another), and the `hex` and `dec`
//! tokens' values converted in vectors, four tokens a step, two a vector
//! (hex: digit pairs with one byte multiply-add; dec: multiply-adds of
//! pairs, fours, eights and sixteens).
//! The whole loop is compiled for AVX2, so that the kernels inline into
//! it.

use super::{fill_any, from_halves, low_bits, Blocks, Run, ShortHeaps, Stopped, Syntax, BLOCK};
use crate::arch::token_end::avx2::{binary_lanes, decimal_lanes, hex_lanes};
use std::arch::x86_64::*;

/// [`super::ShortKernel::fill`] with AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[target_feature(enable = "avx2,bmi1,bmi2,lzcnt,popcnt")]
pub(super) unsafe fn fill(
    syntax: Syntax,
    data: &[u8],
    from: usize,
    base: u64,
    heaps: &mut ShortHeaps,
) -> Stopped {
    fill_any(&Avx2, syntax, data, from, base, heaps)
}

/// The AVX2 build of the kernels: made only in [`fill`], whose caller
/// guarantees AVX2.
struct Avx2;

impl Blocks for Avx2 {
    #[inline(always)]
    fn digits(&self, syntax: Syntax, block: &[u8; BLOCK]) -> Option<u64> {
        // SAFETY: an `Avx2` exists only inside `fill`, on a CPU with AVX2.
        unsafe { digits(syntax, block) }
    }

    #[inline(always)]
    fn bits_block(&self, block: &[u8; BLOCK]) -> Option<(u64, u64)> {
        // SAFETY: as in `digits`.
        unsafe { bits_block(block) }
    }

    #[inline(always)]
    fn low_bits_of(&self, value: u64, len: u32) -> u64 {
        // SAFETY: as in `digits` (BMI2 comes with every AVX2 CPU the
        // build is picked for, and `fill` enables it).
        unsafe { _bzhi_u64(value, len) }
    }

    #[inline(always)]
    fn hex_value(&self, bytes: &[u8; 16], len: usize) -> u64 {
        // SAFETY: as in `digits`.
        unsafe { hex_value(bytes, len) }
    }

    #[inline(always)]
    fn hex_fours(
        &self,
        run: &Run,
        starts: &[u32],
        ends: &[u32],
        values: &mut [u8],
        offsets: &mut [u64],
    ) -> bool {
        // SAFETY: as in `digits`.
        unsafe { hex_fours(run, starts, ends, values, offsets) }
    }

    #[inline(always)]
    fn dec_value(&self, bytes: &[u8; 32], len: usize) -> u128 {
        // SAFETY: as in `digits`.
        unsafe { dec_value(bytes, len) }
    }

    #[inline(always)]
    fn dec_fours(
        &self,
        run: &Run,
        starts: &[u32],
        ends: &[u32],
        limbs: [&mut [u8]; 2],
        offsets: &mut [u64],
    ) -> (bool, u64) {
        // SAFETY: as in `digits`.
        unsafe { dec_fours(run, starts, ends, limbs, offsets) }
    }
}

/// [`Blocks::dec_fours`] with AVX2, each end 20 bytes or more into the
/// data.
///
/// Each token's last 16 digits are the 16 bytes that end at its end, two
/// tokens a vector (tokens 0 and 2, 1 and 3), the lanes before its first
/// digit cleared; they are combined by multiply-adds into pairs and fours
/// in each vector, the two vectors' fours packed into one, and eights and
/// sixteens taken there, which leaves the four values in order. The
/// digits before those (up to 4 of a 20-digit token) are the first word
/// of the 16 bytes that end 4 bytes before its end, combined the same
/// way, and times 10^16 = 5^16 · 2^16 they carry into the high limb.
/// Against one token at a time (32 bytes, two halves of 16 in one
/// vector), this takes about half the vector instructions a token.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn dec_fours(
    run: &Run,
    starts: &[u32],
    ends: &[u32],
    [low, high]: [&mut [u8]; 2],
    offsets: &mut [u64],
) -> (bool, u64) {
    let zeros = _mm256_set1_epi8(b'0' as i8);
    let lanes = _mm256_setr_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, //
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    );
    // Each token's length in every byte of its 128-bit lane: tokens 0
    // and 2, then 1 and 3.
    let spread = [
        _mm256_setr_epi8(
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
            8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8,
        ),
        _mm256_setr_epi8(
            4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, //
            12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12, 12,
        ),
    ];
    // Pairs, fours, eights, sixteens of the digits (first most
    // significant) in each lane.
    let pair = _mm256_set1_epi16(10 + (1 << 8));
    let four = _mm256_set1_epi32(100 + (1 << 16));
    let last_sixteen = |first: __m128i, second: __m128i, lens: __m256i, spread: __m256i| {
        // Lane `i` of 16 is a digit of the token if `i + len > 15`.
        let lens = _mm256_shuffle_epi8(lens, spread);
        let kept = _mm256_cmpgt_epi8(_mm256_add_epi8(lanes, lens), _mm256_set1_epi8(15));
        let bytes = _mm256_set_m128i(second, first);
        let digits = _mm256_and_si256(_mm256_xor_si256(bytes, zeros), kept);
        _mm256_madd_epi16(_mm256_maddubs_epi16(digits, pair), four)
    };
    let max = _mm_set1_epi32(Syntax::Dec.max_digits() as i32);
    let first = _mm256_set1_epi64x((run.base + run.from as u64) as i64);
    let window = 4 + 16;
    check_ends(run, ends, window);
    let (mut too_long, mut high_or) = (_mm_setzero_si128(), _mm256_setzero_si256());
    let fours = starts.chunks_exact(4).zip(ends.chunks_exact(4));
    let limbs = low.chunks_exact_mut(32).zip(high.chunks_exact_mut(32));
    for ((starts, ends), ((low, high), offsets)) in
        fours.zip(limbs.zip(offsets.chunks_exact_mut(4)))
    {
        // SAFETY: `starts` and `ends` hold 16 bytes each; unaligned loads.
        let (starts, ends_v) = unsafe {
            (
                _mm_loadu_si128(starts.as_ptr().cast()),
                _mm_loadu_si128(ends.as_ptr().cast()),
            )
        };
        let load = |back: usize| {
            // SAFETY: every end is checked to be `window` bytes or more
            // into the data (`back` at most 4, and `window` is 20).
            [0, 1, 2, 3].map(|j| unsafe { load_before(run, ends[j], back) })
        };
        let lens = _mm_sub_epi32(ends_v, starts);
        too_long = _mm_or_si128(too_long, _mm_cmpgt_epi32(lens, max));
        let lens = _mm_min_epu32(lens, max);
        let both = _mm256_broadcastsi128_si256(lens);
        let [a, b, c, d] = load(0);
        let fours = _mm256_packus_epi32(
            last_sixteen(a, c, both, spread[0]),
            last_sixteen(b, d, both, spread[1]),
        );
        let eights = _mm256_madd_epi16(fours, _mm256_set1_epi32(10_000 + (1 << 16)));
        let sixteens = _mm256_add_epi64(
            _mm256_mul_epu32(eights, _mm256_set1_epi32(100_000_000)),
            _mm256_srli_epi64(eights, 32),
        );
        // The digits before the last 16, at most 4: the first word of the
        // 16 bytes that end 4 bytes before the end, its bytes before the
        // token's first digit cleared (all of them for a token of 16
        // digits or fewer).
        let [a, b, c, d] = load(4);
        let words = _mm_unpacklo_epi64(_mm_unpacklo_epi32(a, b), _mm_unpacklo_epi32(c, d));
        let unused = _mm_sub_epi32(
            _mm_set1_epi32(8 * 20),
            _mm_slli_epi32(_mm_max_epu32(lens, _mm_set1_epi32(16)), 3),
        );
        let kept = _mm_sllv_epi32(_mm_set1_epi32(-1), unused);
        let digits = _mm_and_si128(_mm_xor_si128(words, _mm256_castsi256_si128(zeros)), kept);
        let pairs = _mm_maddubs_epi16(digits, _mm256_castsi256_si128(pair));
        let heads = _mm256_cvtepu32_epi64(_mm_madd_epi16(pairs, _mm256_castsi256_si128(four)));
        // head · 5^16 (5^16 = 35 · 2^32 + 2264035265) is under 2^52;
        // times 2^16 its low 48 bits fall in the low limb, the rest in the
        // high one.
        let fives = _mm256_add_epi64(
            _mm256_mul_epu32(heads, _mm256_set1_epi64x(2_264_035_265)),
            _mm256_slli_epi64(_mm256_mul_epu32(heads, _mm256_set1_epi64x(35)), 32),
        );
        let low_limbs = _mm256_add_epi64(_mm256_slli_epi64(fives, 16), sixteens);
        // The sum carried if it is below the sixteens (unsigned).
        let sign = _mm256_set1_epi64x(i64::MIN);
        let carried = _mm256_cmpgt_epi64(
            _mm256_xor_si256(sixteens, sign),
            _mm256_xor_si256(low_limbs, sign),
        );
        let high_limbs = _mm256_sub_epi64(_mm256_srli_epi64(fives, 48), carried);
        high_or = _mm256_or_si256(high_or, high_limbs);
        let firsts = _mm256_add_epi64(_mm256_cvtepu32_epi64(starts), first);
        // SAFETY: `low`, `high` and `offsets` hold 32 bytes each;
        // unaligned stores.
        unsafe {
            _mm256_storeu_si256(low.as_mut_ptr().cast(), low_limbs);
            _mm256_storeu_si256(high.as_mut_ptr().cast(), high_limbs);
            _mm256_storeu_si256(offsets.as_mut_ptr().cast(), firsts);
        }
    }
    let or = _mm_or_si128(
        _mm256_castsi256_si128(high_or),
        _mm256_extracti128_si256(high_or, 1),
    );
    let or = (_mm_cvtsi128_si64(or) | _mm_extract_epi64(or, 1)) as u64;
    (_mm_movemask_epi8(too_long) != 0, or)
}

/// The two halves of `block`.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn halves(block: &[u8; BLOCK]) -> [__m256i; 2] {
    let ptr = block.as_ptr();
    // SAFETY: `block` holds 64 bytes, two unaligned loads of 32.
    unsafe {
        [
            _mm256_loadu_si256(ptr.cast()),
            _mm256_loadu_si256(ptr.add(32).cast()),
        ]
    }
}

/// The mask of the lanes of two halves that are all ones, bit `i` for
/// byte `i`.
#[inline]
#[target_feature(enable = "avx2")]
fn mask(low: __m256i, high: __m256i) -> u64 {
    let lanes = |half: __m256i| u64::from(_mm256_movemask_epi8(half) as u32);
    lanes(low) | lanes(high) << 32
}

/// [`Blocks::digits`] with AVX2: each half's digit lanes and whitespace
/// lanes, a movemask each.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn digits(syntax: Syntax, block: &[u8; BLOCK]) -> Option<u64> {
    // SAFETY: this function's caller guarantees AVX2.
    let [low, high] = unsafe { halves(block) };
    let classes = |bytes: __m256i| {
        // SAFETY: as above.
        unsafe {
            let is = |byte: u8| _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(byte as i8));
            match syntax {
                Syntax::Bits => (binary_lanes(bytes), space_lanes(bytes)),
                Syntax::Hex | Syntax::WideHex => (hex_lanes(bytes), space_lanes(bytes)),
                Syntax::Dec => (decimal_lanes(bytes), space_lanes(bytes)),
                Syntax::Unary => (is(b'1'), is(b'\n')),
            }
        }
    };
    let ((digit_low, space_low), (digit_high, space_high)) = (classes(low), classes(high));
    checked_digits([digit_low, digit_high], [space_low, space_high])
}

/// The mask of a block's digit lanes (each half's), if every lane is a
/// digit or whitespace.
#[inline]
#[target_feature(enable = "avx2")]
fn checked_digits(
    [digit_low, digit_high]: [__m256i; 2],
    [space_low, space_high]: [__m256i; 2],
) -> Option<u64> {
    let valid = _mm256_and_si256(
        _mm256_or_si256(digit_low, space_low),
        _mm256_or_si256(digit_high, space_high),
    );
    (_mm256_movemask_epi8(valid) == -1).then(|| mask(digit_low, digit_high))
}

/// [`Blocks::bits_block`] with AVX2: each half's digit, whitespace and
/// `1` lanes; the `1` lanes reversed in each 16-byte lane by a byte
/// shuffle, so that the mask of a half, its 16-bit halves swapped, is its
/// bytes last first.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn bits_block(block: &[u8; BLOCK]) -> Option<(u64, u64)> {
    // SAFETY: this function's caller guarantees AVX2.
    let [low, high] = unsafe { halves(block) };
    let reversed_lanes = _mm256_setr_epi8(
        15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, //
        15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
    );
    let classes = |bytes: __m256i| {
        // SAFETY: as above.
        let digits = unsafe { binary_lanes(bytes) };
        let ones = _mm256_cmpeq_epi8(bytes, _mm256_set1_epi8(b'1' as i8));
        let reversed = _mm256_shuffle_epi8(ones, reversed_lanes);
        let reversed = (_mm256_movemask_epi8(reversed) as u32).rotate_left(16);
        (digits, space_lanes(bytes), u64::from(reversed))
    };
    let ((digit_low, space_low, ones_low), (digit_high, space_high, ones_high)) =
        (classes(low), classes(high));
    let digits = checked_digits([digit_low, digit_high], [space_low, space_high])?;
    Some((digits, ones_low << 32 | ones_high))
}

/// [`Blocks::hex_value`] with AVX2's 16-byte instructions: each digit's
/// value (its low nibble, plus 9 for a letter), pairs merged by one
/// multiply-add (`16 · first + second`), packed to eight bytes, and
/// their order reversed (the first pair is the most significant).
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn hex_value(bytes: &[u8; 16], len: usize) -> u64 {
    // SAFETY: `bytes` holds 16 bytes; an unaligned load.
    let bytes = unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) };
    let letters = _mm_cmpgt_epi8(bytes, _mm_set1_epi8(0x40));
    let nine = _mm_and_si128(letters, _mm_set1_epi8(9));
    let values = _mm_and_si128(_mm_add_epi8(bytes, nine), _mm_set1_epi8(0x0f));
    let pairs = _mm_maddubs_epi16(values, _mm_set1_epi16(0x0110));
    let packed = _mm_packus_epi16(pairs, pairs);
    let value = (_mm_cvtsi128_si64(packed) as u64).swap_bytes();
    value & low_bits(4 * len)
}

/// [`Blocks::hex_fours`] with AVX2: the 16 bytes that end at each end,
/// two tokens a vector (tokens 0 and 2, 1 and 3), turned into digits and
/// merged into pairs as in [`hex_value`], each lane's eight pairs gathered
/// last first by one byte shuffle; the two vectors' low words interleaved
/// into the four values in order, and each value's bits past its digits
/// cleared by a variable shift. The lengths, their check and the offsets
/// are vectors of the four too. The loop over the fours is in here, not
/// in its caller: the compiler would not inline a step of four into the
/// loop, and a call a step took 1.09 times as long as the loop (the one
/// pass over short hex, one thread).
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn hex_fours(
    run: &Run,
    starts: &[u32],
    ends: &[u32],
    values: &mut [u8],
    offsets: &mut [u64],
) -> bool {
    let last_pair_first = _mm256_setr_epi8(
        14, 12, 10, 8, 6, 4, 2, 0, -1, -1, -1, -1, -1, -1, -1, -1, //
        14, 12, 10, 8, 6, 4, 2, 0, -1, -1, -1, -1, -1, -1, -1, -1,
    );
    let pairs_last_first = |first: __m128i, second: __m128i| {
        let bytes = _mm256_set_m128i(second, first);
        let letters = _mm256_cmpgt_epi8(bytes, _mm256_set1_epi8(0x40));
        let nine = _mm256_and_si256(letters, _mm256_set1_epi8(9));
        let values = _mm256_and_si256(_mm256_add_epi8(bytes, nine), _mm256_set1_epi8(0x0f));
        let pairs = _mm256_maddubs_epi16(values, _mm256_set1_epi16(0x0110));
        _mm256_shuffle_epi8(pairs, last_pair_first)
    };
    let max = _mm_set1_epi32(Syntax::Hex.max_digits() as i32);
    let first = _mm256_set1_epi64x((run.base + run.from as u64) as i64);
    check_ends(run, ends, 16);
    let mut too_long = _mm_setzero_si128();
    let fours = starts.chunks_exact(4).zip(ends.chunks_exact(4));
    let outs = values.chunks_exact_mut(32).zip(offsets.chunks_exact_mut(4));
    for ((starts, ends), (values, offsets)) in fours.zip(outs) {
        // SAFETY: `starts` and `ends` hold 16 bytes each; unaligned loads.
        let (starts, ends_v) = unsafe {
            (
                _mm_loadu_si128(starts.as_ptr().cast()),
                _mm_loadu_si128(ends.as_ptr().cast()),
            )
        };
        // SAFETY: every end is checked to be 16 bytes or more into the
        // data.
        let [a, b, c, d] = [0, 1, 2, 3].map(|j| unsafe { load_before(run, ends[j], 0) });
        let digits = _mm256_unpacklo_epi64(pairs_last_first(a, c), pairs_last_first(b, d));
        let lens = _mm_sub_epi32(ends_v, starts);
        too_long = _mm_or_si128(too_long, _mm_cmpgt_epi32(lens, max));
        // The bits of each value's digits: the low 4 · len (len is 1 to
        // 16 after the minimum; the count's last bits taken alone, so that
        // the compiler need not handle a shift by 64, 0 digits).
        let lens = _mm256_cvtepu32_epi64(_mm_min_epu32(lens, max));
        let unused = _mm256_sub_epi64(_mm256_set1_epi64x(64), _mm256_slli_epi64(lens, 2));
        let unused = _mm256_and_si256(unused, _mm256_set1_epi64x(63));
        let kept = _mm256_srlv_epi64(_mm256_set1_epi64x(-1), unused);
        let firsts = _mm256_add_epi64(_mm256_cvtepu32_epi64(starts), first);
        // SAFETY: `values` and `offsets` hold 32 bytes each; unaligned
        // stores.
        unsafe {
            _mm256_storeu_si256(values.as_mut_ptr().cast(), _mm256_and_si256(digits, kept));
            _mm256_storeu_si256(offsets.as_mut_ptr().cast(), firsts);
        }
    }
    _mm_movemask_epi8(too_long) != 0
}

/// Checks that the token ends of `run` (positions from `run.from`) lie
/// `window` bytes or more into `run.data` and inside it, so that the
/// bytes before them can be loaded with [`load_before`]: once for all the
/// ends a kernel takes, by their least and greatest (a loop the compiler
/// vectorises, a few instructions for eight ends), before its loop. A
/// check of each end in the loop took about five instructions an end, 20
/// of the 62 for four `hex` tokens: with the check once (and the compiler
/// spared a shift by 64), the one pass over short `hex` took 0.96 of the
/// time, short `dec` 0.97 (one thread, user time). A check of each four in
/// one vector in the loop took 1.17 times as long (the loads waited for
/// the ends taken out of it).
///
/// # Panics
/// If one does not: a bug in the search for tokens, which finds them in
/// order inside the data.
#[inline(always)]
fn check_ends(run: &Run, ends: &[u32], window: usize) {
    let (least, greatest) = ends.iter().fold((u32::MAX, 0), |(least, greatest), &end| {
        (least.min(end), greatest.max(end))
    });
    let (lowest, highest) = (window.saturating_sub(run.from), run.data.len() - run.from);
    assert!(
        ends.is_empty() || (lowest <= least as usize && greatest as usize <= highest),
        "a token's end outside the data or too near its start"
    );
}

/// The 16 bytes that end `back` bytes before the token end `end` of `run`
/// (a position from `run.from`).
///
/// # Safety
/// [`check_ends`] must have passed `end` with a window of `back + 16` or
/// more.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load_before(run: &Run, end: u32, back: usize) -> __m128i {
    let first = run.from + end as usize - back - 16;
    // SAFETY: the caller's check puts the 16 bytes from `first` inside
    // `run.data`; an unaligned load.
    unsafe { _mm_loadu_si128(run.data.as_ptr().add(first).cast()) }
}

/// All ones in each lane of `bytes` that holds a space, tab, LF or CR: the
/// byte equals the entry of a table indexed by its low nibble (`' '` at 0,
/// each of the others at its own value, 0 elsewhere, which no byte with
/// that nibble equals; bytes from `0x80` look up 0).
#[inline]
#[target_feature(enable = "avx2")]
fn space_lanes(bytes: __m256i) -> __m256i {
    let table = _mm256_setr_epi8(
        0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0x09, 0x0a, 0, 0, 0x0d, 0, 0, //
        0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0x09, 0x0a, 0, 0, 0x0d, 0, 0,
    );
    _mm256_cmpeq_epi8(_mm256_shuffle_epi8(table, bytes), bytes)
}

/// [`Blocks::dec_value`] with AVX2: the digits' values with the lanes
/// before them cleared, then pairs (`pmaddubsw` by 10 and 1), quads
/// (`pmaddwd` by 100 and 1), eights (packed to 16 bits, `pmaddwd` by 10^4
/// and 1), one half of 16 digits in each 128-bit lane.
///
/// # Safety
/// The CPU must support AVX2.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn dec_value(bytes: &[u8; 32], len: usize) -> u128 {
    // SAFETY: `bytes` holds 32 bytes; an unaligned load.
    let bytes = unsafe { _mm256_loadu_si256(bytes.as_ptr().cast()) };
    // Lane `i` is kept if `i >= 32 - len`, that is `i > 31 - len`.
    let lanes = _mm256_setr_epi8(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, //
        16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31,
    );
    let kept = _mm256_cmpgt_epi8(lanes, _mm256_set1_epi8(31 - len as i8));
    let digits = _mm256_and_si256(_mm256_xor_si256(bytes, _mm256_set1_epi8(b'0' as i8)), kept);
    let pairs = _mm256_maddubs_epi16(digits, _mm256_set1_epi16(10 + (1 << 8)));
    let quads = _mm256_madd_epi16(pairs, _mm256_set1_epi32(100 + (1 << 16)));
    let quads = _mm256_packus_epi32(quads, quads);
    let eights = _mm256_madd_epi16(quads, _mm256_set1_epi32(10_000 + (1 << 16)));
    let sixteens = _mm256_add_epi64(
        _mm256_mul_epu32(eights, _mm256_set1_epi32(100_000_000)),
        _mm256_srli_epi64(eights, 32),
    );
    let high = _mm_cvtsi128_si64(_mm256_castsi256_si128(sixteens)) as u64;
    let low = _mm_cvtsi128_si64(_mm256_extracti128_si256(sixteens, 1)) as u64;
    from_halves(high, low)
}
