//! What the token formats (`bits`, `hex`, `dec`) share: whitespace, and
//! finding where a token ends.
//!
//! A token ends at its first non-digit. Where the CPU has AVX2 (detected at
//! run time), 32 bytes are classified per step and a movemask gives that
//! byte's exact index. Elsewhere eight bytes are classified at a time with
//! SWAR, long runs of digits are skipped in blocks that the compiler
//! vectorises, and the block that ends the run is searched again.

use super::pages::PageReleaser;
use super::pages::RELEASE_STEP_BYTES;
use crate::error::ParseError;

/// The separator bytes of the token formats: space, tab, LF and CR.
/// Form feed and vertical tab are deliberately not whitespace here.
pub fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// The index of the first non-whitespace byte at or after `pos`.
pub fn skip_space(data: &[u8], pos: usize) -> usize {
    data[pos..]
        .iter()
        .position(|&b| !is_space(b))
        .map_or(data.len(), |skip| pos + skip)
}

/// The digits of one token format, testable one byte or eight at a time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Digits {
    /// `0` and `1`.
    Binary,
    /// `0`-`9`.
    Decimal,
    /// `0`-`9`, `a`-`f` and `A`-`F`.
    Hex,
}

/// `0x01` in every byte of a word.
const LOW_BITS: u64 = 0x0101_0101_0101_0101;
/// `0x80` in every byte of a word.
const HIGH_BITS: u64 = 0x8080_8080_8080_8080;
/// `0x0f` in every byte of a word.
const LOW_NIBBLES: u64 = 0x0f0f_0f0f_0f0f_0f0f;
/// `b'0'` in every byte of a word.
pub const ASCII_ZEROS: u64 = 0x3030_3030_3030_3030;

/// `0x80` in each byte of `low7` (bytes below `0x80`) within `lo..=hi`
/// (`lo >= 1`). Neither sum carries out of a byte: each stays below `0xff`.
#[inline]
fn bytes_in_range(low7: u64, lo: u8, hi: u8) -> u64 {
    let at_least_lo = low7 + LOW_BITS * u64::from(0x80 - lo);
    let above_hi = low7 + LOW_BITS * u64::from(0x7f - hi);
    at_least_lo & !above_hi & HIGH_BITS
}

impl Digits {
    /// True if `byte` is a digit.
    #[inline]
    pub fn is_digit(self, byte: u8) -> bool {
        match self {
            Digits::Binary => byte == b'0' || byte == b'1',
            Digits::Decimal => byte.is_ascii_digit(),
            Digits::Hex => byte.is_ascii_hexdigit(),
        }
    }

    /// Non-zero bits in each byte of `word` that is not a digit, and only
    /// there (SWAR: the eight bytes are classified together, without
    /// branches), so the first non-digit is at `trailing_zeros() / 8`.
    #[inline]
    pub fn non_digits(self, word: u64) -> u64 {
        match self {
            // A bit other than the lowest differs from `'0'`.
            Digits::Binary => (word ^ ASCII_ZEROS) & !LOW_BITS,
            // A high nibble other than 3, or a low nibble of 10 or more
            // (which the `+ 6` carries into bit 4): neither sum leaves its byte.
            Digits::Decimal => {
                (((word & LOW_NIBBLES) + LOW_BITS * 6) | (word ^ ASCII_ZEROS)) & !LOW_NIBBLES
            }
            Digits::Hex => {
                let low7 = word & !HIGH_BITS;
                let digits = bytes_in_range(low7, b'0', b'9')
                    | bytes_in_range(low7 | (LOW_BITS * 0x20), b'a', b'f');
                (!digits | word) & HIGH_BITS
            }
        }
    }
}

/// Scans the digits of a token starting at `start`; returns the end of the
/// token, or an error at the first byte that is neither a digit nor
/// whitespace. `expected` describes a valid byte for the message.
///
/// The token ends at the first non-digit ([`first_non_digit`]), which must
/// be whitespace or the end of `data`. A long token is scanned in steps of
/// [`RELEASE_STEP_BYTES`], and `pages` releases each step once it is
/// checked.
pub fn scan_digits(
    data: &[u8],
    start: usize,
    base: u64,
    digits: Digits,
    expected: &str,
    pages: PageReleaser<'_>,
) -> Result<usize, ParseError> {
    let end = match step_end(data, start, digits) {
        Ok(end) => end,
        Err(step) => long_token_end(data, start, step, digits, pages),
    };
    match data.get(end) {
        Some(&byte) if !is_space(byte) => {
            Err(ParseError::unexpected(base + end as u64, byte, expected))
        }
        _ => Ok(end),
    }
}

/// The first non-digit in the [`RELEASE_STEP_BYTES`] from `pos`, or the end
/// of `data` if that comes first; or, if the step holds only digits and
/// `data` goes on, the end of the step as an error.
#[inline]
fn step_end(data: &[u8], pos: usize, digits: Digits) -> Result<usize, usize> {
    let step = data.len().min(pos.saturating_add(RELEASE_STEP_BYTES));
    let end = first_non_digit(&data[..step], pos, digits);
    if end == step && step < data.len() {
        Err(step)
    } else {
        Ok(end)
    }
}

/// [`step_end`] for a token whose digits run from `start` past `step`: the
/// end of the token, releasing each step with `pages` once it is checked.
/// Out of line so that short tokens do not pay for the loop.
#[cold]
#[inline(never)]
fn long_token_end(
    data: &[u8],
    mut start: usize,
    mut step: usize,
    digits: Digits,
    pages: PageReleaser<'_>,
) -> usize {
    loop {
        pages.release(&data[start..step]);
        start = step;
        match step_end(data, start, digits) {
            Ok(end) => return end,
            Err(next) => step = next,
        }
    }
}

/// The index of the first byte at or after `pos` that is not a digit, or
/// `data.len()` if there is none. Uses AVX2 when the CPU has it.
#[inline]
fn first_non_digit(data: &[u8], pos: usize, digits: Digits) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { avx2::first_non_digit(data, pos, digits) };
    }
    first_non_digit_portable(data, pos, digits)
}

/// Bytes checked a word at a time before [`first_non_digit_portable`]
/// switches to blocks: a `dec` token usually ends within them.
const SHORT: usize = 32;

/// Bytes per block in the vectorised stage of [`first_non_digit_portable`].
const BLOCK: usize = 64;

/// [`first_non_digit`] for any CPU. Eight bytes are classified at a time
/// (SWAR) for the first [`SHORT`] bytes; then blocks of [`BLOCK`] bytes are
/// checked with a branch-free byte test that the compiler turns into
/// vector compares, and the block holding a non-digit is searched again
/// eight bytes at a time. The last few bytes of `data` are looked at one
/// by one.
fn first_non_digit_portable(data: &[u8], pos: usize, digits: Digits) -> usize {
    let short_end = data.len().min(pos + SHORT);
    let (mut reached, mut stopped) = swar_words(&data[..short_end], pos, digits);
    if !stopped && short_end < data.len() {
        (reached, stopped) = swar_words(data, skip_digit_blocks(data, reached, digits), digits);
    }
    if stopped {
        return reached;
    }
    data[reached..]
        .iter()
        .position(|&b| !digits.is_digit(b))
        .map_or(data.len(), |skip| reached + skip)
}

/// The start of the first block of [`BLOCK`] bytes from `pos` that holds a
/// non-digit or runs past the end of `data`.
fn skip_digit_blocks(data: &[u8], mut pos: usize, digits: Digits) -> usize {
    while let Some(block) = data.get(pos..pos + BLOCK) {
        let all_digits = match digits {
            Digits::Binary => block.iter().fold(true, |ok, &b| ok & (b | 1 == b'1')),
            Digits::Decimal => block
                .iter()
                .fold(true, |ok, &b| ok & (b.wrapping_sub(b'0') < 10)),
            Digits::Hex => block.iter().fold(true, |ok, &b| {
                ok & ((b.wrapping_sub(b'0') < 10) | ((b | 0x20).wrapping_sub(b'a') < 6))
            }),
        };
        if !all_digits {
            break;
        }
        pos += BLOCK;
    }
    pos
}

/// Eight bytes at a time from `pos`: where the first non-digit is (and
/// true), or the start of the last partial word of `data` (and false).
#[inline]
fn swar_words(data: &[u8], mut pos: usize, digits: Digits) -> (usize, bool) {
    while let Some(chunk) = data.get(pos..pos + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let stops = digits.non_digits(word);
        if stops != 0 {
            return (pos + (stops.trailing_zeros() / 8) as usize, true);
        }
        pos += 8;
    }
    (pos, false)
}

/// The exact AVX2 search: 32 bytes classified per step, and a movemask of
/// the non-digits whose lowest set bit is the index of the first one, so
/// the bytes that end a token are never searched twice. The first step
/// already gives the exact end of a short token, so unlike the portable
/// search it has no short word-at-a-time stage.
///
/// Written with `std::arch` intrinsics by hand: the compiler does not
/// vectorise a loop that exits early (hence the whole blocks of the
/// portable search), and no crate classifies bytes against a set of
/// ranges (`memchr` finds up to three given bytes).
#[cfg(target_arch = "x86_64")]
pub(super) mod avx2 {
    use super::{first_non_digit_portable, Digits};
    use std::arch::x86_64::*;

    /// Bytes per vector.
    const LANES: usize = 32;

    /// [`super::first_non_digit`] with AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn first_non_digit(data: &[u8], pos: usize, digits: Digits) -> usize {
        // One loop per class, each with its own test inlined.
        match digits {
            Digits::Binary => first_flagged(data, pos, digits, |bytes| {
                // SAFETY: this function's caller guarantees AVX2.
                unsafe { binary_lanes(bytes) }
            }),
            Digits::Decimal => first_flagged(data, pos, digits, |bytes| {
                // SAFETY: this function's caller guarantees AVX2.
                unsafe { decimal_lanes(bytes) }
            }),
            Digits::Hex => first_flagged(data, pos, digits, |bytes| {
                // SAFETY: this function's caller guarantees AVX2.
                unsafe { hex_lanes(bytes) }
            }),
        }
    }

    /// All ones in each lane of `bytes` that holds `0` or `1`: the byte
    /// with its lowest bit set is `'1'`.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn binary_lanes(bytes: __m256i) -> __m256i {
        _mm256_cmpeq_epi8(_mm256_or_si256(bytes, splat(1)), splat(b'1'))
    }

    /// All ones in each lane of `bytes` that holds `0`-`9`: the byte minus
    /// `'0'` is at most 9, unsigned.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn decimal_lanes(bytes: __m256i) -> __m256i {
        at_most(_mm256_sub_epi8(bytes, splat(b'0')), 9)
    }

    /// All ones in each lane of `bytes` that holds `0`-`9`, `a`-`f` or
    /// `A`-`F`, from two 16-entry tables indexed by the byte's nibbles: bit
    /// 0 marks high nibble 3 and low nibbles 0-9 (the decimal digits), bit
    /// 1 high nibbles 4 and 6 and low nibbles 1-6 (the letters); a byte is
    /// a digit when its two entries share a bit. High nibbles from 8 up
    /// (bytes from `0x80`) have no bits.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(in crate::input) unsafe fn hex_lanes(bytes: __m256i) -> __m256i {
        let by_high = _mm256_setr_epi8(
            0, 0, 0, 1, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
            0, 0, 0, 1, 2, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        );
        let by_low = _mm256_setr_epi8(
            1, 3, 3, 3, 3, 3, 3, 1, 1, 1, 0, 0, 0, 0, 0, 0, //
            1, 3, 3, 3, 3, 3, 3, 1, 1, 1, 0, 0, 0, 0, 0, 0,
        );
        let high = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), splat(0x0f));
        let low = _mm256_and_si256(bytes, splat(0x0f));
        let shared = _mm256_and_si256(
            _mm256_shuffle_epi8(by_high, high),
            _mm256_shuffle_epi8(by_low, low),
        );
        let none = _mm256_cmpeq_epi8(shared, _mm256_setzero_si256());
        _mm256_xor_si256(none, splat(0xff))
    }

    /// `byte` in every lane.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn splat(byte: u8) -> __m256i {
        _mm256_set1_epi8(byte as i8)
    }

    /// All ones in each lane of `bytes` that is at most `limit`, unsigned.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn at_most(bytes: __m256i, limit: u8) -> __m256i {
        _mm256_cmpeq_epi8(_mm256_min_epu8(bytes, splat(limit)), bytes)
    }

    /// The index of the first byte at or after `pos` whose lane `is_digit`
    /// leaves zero, or `data.len()`. Whole vectors are loaded from `pos`;
    /// the rest is covered by the last 32 bytes of `data`, with the lanes
    /// before `pos` shifted out. A `data` shorter than a vector goes to the
    /// portable search.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn first_flagged(
        data: &[u8],
        mut pos: usize,
        digits: Digits,
        is_digit: impl Fn(__m256i) -> __m256i,
    ) -> usize {
        let Some(last) = data.len().checked_sub(LANES) else {
            return first_non_digit_portable(data, pos, digits);
        };
        let non_digits_at = |at: usize| {
            debug_assert!(at <= last);
            // SAFETY: `at + LANES <= data.len()`, so the load reads bytes of
            // `data` only; unaligned loads have no alignment requirement.
            let bytes = unsafe { _mm256_loadu_si256(data.as_ptr().add(at).cast()) };
            !(_mm256_movemask_epi8(is_digit(bytes)) as u32)
        };
        while pos <= last {
            let flags = non_digits_at(pos);
            if flags != 0 {
                return pos + flags.trailing_zeros() as usize;
            }
            pos += LANES;
        }
        let flags = non_digits_at(last).checked_shr((pos - last) as u32);
        match flags {
            Some(flags) if flags != 0 => pos + flags.trailing_zeros() as usize,
            _ => data.len(),
        }
    }
}

/// Digits with their leading `0`s removed.
pub fn strip_leading_zeros(digits: &[u8]) -> &[u8] {
    let first = digits
        .iter()
        .position(|&d| d != b'0')
        .unwrap_or(digits.len());
    &digits[first..]
}

/// The longest prefix of `buffer` ending in whitespace: every token in it is
/// complete.
pub fn complete_prefix(buffer: &[u8]) -> usize {
    buffer
        .iter()
        .rposition(|&b| is_space(b))
        .map_or(0, |last| last + 1)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn only_four_bytes_are_whitespace() {
        for byte in 0..=255u8 {
            assert_eq!(is_space(byte), b" \t\n\r".contains(&byte), "{byte}");
        }
    }

    #[test]
    fn eight_byte_classes_agree_with_the_byte_test_in_every_lane() {
        for digits in [Digits::Binary, Digits::Decimal, Digits::Hex] {
            for byte in 0..=255u8 {
                for lane in 0..8 {
                    for filler in [b'0', b'1'] {
                        let mut word = [filler; 8];
                        word[lane] = byte;
                        let stops = digits.non_digits(u64::from_le_bytes(word));
                        let in_lane = 0xff << (8 * lane);
                        assert_eq!(stops & !in_lane, 0, "{digits:?} {byte:#04x} lane {lane}");
                        assert_eq!(
                            stops & in_lane != 0,
                            !digits.is_digit(byte),
                            "{digits:?} {byte:#04x} lane {lane}"
                        );
                    }
                }
            }
        }
    }

    /// The byte-at-a-time scan that `scan_digits` must agree with.
    fn naive_scan(data: &[u8], start: usize, digits: Digits) -> Result<usize, u64> {
        let mut pos = start;
        while let Some(&byte) = data.get(pos) {
            if digits.is_digit(byte) {
                pos += 1;
            } else if is_space(byte) {
                break;
            } else {
                return Err(pos as u64);
            }
        }
        Ok(pos)
    }

    #[test]
    fn scans_of_ragged_tokens_stop_at_every_byte_value_like_the_byte_scan() {
        let fillers: [(Digits, &[u8]); 3] = [
            (Digits::Binary, b"0110"),
            (Digits::Decimal, b"9071"),
            (Digits::Hex, b"aF09"),
        ];
        for (digits, filler) in fillers {
            for len in 0..100 {
                for stop in 0..=255u8 {
                    let mut data: Vec<u8> = filler.iter().copied().cycle().take(len).collect();
                    data.push(stop);
                    data.extend_from_slice(b"1111111111");
                    for start in [0, 1, 7.min(len)] {
                        let found =
                            scan_digits(&data, start, 3, digits, "a digit", PageReleaser::NONE);
                        let expected = naive_scan(&data, start, digits).map_err(|at| {
                            ParseError::unexpected(3 + at, data[at as usize], "a digit")
                        });
                        assert_eq!(found, expected, "{digits:?} {len} {stop:#04x} {start}");
                    }
                    assert_eq!(
                        scan_digits(&data[..len], 0, 0, digits, "a digit", PageReleaser::NONE).ok(),
                        Some(len)
                    );
                }
            }
        }
    }

    /// A xorshift generator: the same pseudo-random tokens on every run
    /// (the decimal scanner's tests use it too).
    pub(crate) struct Rng(pub(crate) u64);

    impl Rng {
        pub(crate) fn below(&mut self, bound: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % bound as u64) as usize
        }

        pub(crate) fn pick(&mut self, bytes: &[u8]) -> u8 {
            bytes[self.below(bytes.len())]
        }
    }

    /// Bytes that are not whitespace, and of which only some are digits
    /// (the neighbours of each digit range, NUL, form feed, high bytes).
    const OTHERS: &[u8] = b"/:@`Gg2x\x00\x0b\x0c\x7f\x80\xb0\xb1\xc1\xe6\xff";

    #[test]
    fn random_tokens_with_a_bad_byte_anywhere_match_the_byte_scan() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for (digits, alphabet) in CLASSES {
            for len in (1..=60).chain([63, 64, 65, 100, 127, 128, 129, 200, 300]) {
                for align in 0..32 {
                    let mut data: Vec<u8> = (0..align).map(|_| rng.pick(b" \n")).collect();
                    let zeros = rng.below(len + 1);
                    data.extend(
                        (0..len).map(|i| if i < zeros { b'0' } else { rng.pick(alphabet) }),
                    );
                    data.push(rng.pick(b" \t\r\n"));
                    data.extend((0..40).map(|_| rng.pick(alphabet)));
                    let check = |data: &[u8], what: &str| {
                        let found =
                            scan_digits(data, align, 7, digits, "a digit", PageReleaser::NONE);
                        let expected = naive_scan(data, align, digits).map_err(|at| {
                            ParseError::unexpected(7 + at, data[at as usize], "a digit")
                        });
                        assert_eq!(found, expected, "{digits:?} {len} at {align}: {what}");
                    };
                    check(&data, "valid");
                    check(&data[..align + len], "at the end");
                    for at in align..=align + len {
                        let mut bad = data.clone();
                        bad[at] = rng.pick(OTHERS);
                        check(&bad, &format!("byte {:#04x} at {at}", bad[at]));
                    }
                }
            }
        }
    }

    #[test]
    fn leading_zeros_are_stripped_down_to_nothing() {
        assert_eq!(strip_leading_zeros(b"00101"), b"101");
        assert_eq!(strip_leading_zeros(b"000"), b"");
    }

    /// A way of finding the first non-digit, with its name for messages.
    type Search = (&'static str, fn(&[u8], usize, Digits) -> usize);

    /// Every search this CPU can run: the dispatching one, the portable one
    /// and, where the CPU has AVX2, the AVX2 one.
    fn searches() -> Vec<Search> {
        let mut searches: Vec<Search> = vec![
            ("dispatch", first_non_digit),
            ("portable", first_non_digit_portable),
        ];
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            searches.push(("avx2", |data, pos, digits| {
                // SAFETY: the search is only listed when the CPU has AVX2.
                unsafe { avx2::first_non_digit(data, pos, digits) }
            }));
        }
        searches
    }

    /// Asserts that every search finds the first non-digit of `data` from
    /// `pos` where a byte-by-byte look does (so they also agree with one
    /// another).
    fn assert_searches_agree(data: &[u8], pos: usize, digits: Digits, what: &str) {
        let expected = data[pos..]
            .iter()
            .position(|&b| !digits.is_digit(b))
            .map_or(data.len(), |skip| pos + skip);
        for (name, search) in searches() {
            assert_eq!(
                search(data, pos, digits),
                expected,
                "{name}, {digits:?}, {} bytes from {pos}: {what}",
                data.len()
            );
        }
    }

    /// Each digit class with its digits.
    const CLASSES: [(Digits, &[u8]); 3] = [
        (Digits::Binary, b"01"),
        (Digits::Decimal, b"0123456789"),
        (Digits::Hex, b"0123456789abcdefABCDEF"),
    ];

    /// A random byte that is not one of `digits`: whitespace, another
    /// ASCII byte, or a byte from `0x80` up.
    fn non_digit(rng: &mut Rng, digits: Digits) -> u8 {
        loop {
            let byte = rng.below(256) as u8;
            if !digits.is_digit(byte) {
                return byte;
            }
        }
    }

    #[test]
    fn searches_find_a_non_digit_at_every_position_of_random_tokens() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for (digits, alphabet) in CLASSES {
            for len in (0..200).chain([255, 256, 257, 1000, 4133]) {
                let pos = rng.below(3);
                let mut data: Vec<u8> = (0..pos).map(|_| non_digit(&mut rng, digits)).collect();
                data.extend((0..len).map(|_| rng.pick(alphabet)));
                let end = data.len();
                // Digits past `end`, which a search of `data[..end]` must not see.
                data.extend((0..40).map(|_| rng.pick(alphabet)));
                data.push(non_digit(&mut rng, digits));
                assert_searches_agree(&data[..end], pos, digits, "digits to the end");
                assert_searches_agree(&data, pos, digits, "digits and more");
                for at in pos..end {
                    let digit = data[at];
                    data[at] = non_digit(&mut rng, digits);
                    let what = format!("{:#04x} at {at}", data[at]);
                    assert_searches_agree(&data[..end], pos, digits, &what);
                    assert_searches_agree(&data, pos, digits, &what);
                    data[at] = digit;
                }
            }
        }
    }

    #[test]
    fn every_byte_value_stops_the_searches_only_if_it_is_not_a_digit() {
        // 100 bytes: three whole vectors, then 4 bytes that only the last
        // (overlapping) vector covers; the cuts make every shorter length.
        for (digits, alphabet) in CLASSES {
            let mut data: Vec<u8> = alphabet.iter().copied().cycle().take(100).collect();
            for byte in 0..=255u8 {
                for at in 0..data.len() {
                    let digit = data[at];
                    data[at] = byte;
                    let what = format!("{byte:#04x} at {at}");
                    for pos in [0, 1, at.saturating_sub(31), at] {
                        assert_searches_agree(&data, pos, digits, &what);
                        assert_searches_agree(&data[..=at], pos, digits, &what);
                    }
                    data[at] = digit;
                }
            }
        }
    }

    #[test]
    fn searches_from_any_start_ignore_the_bytes_before_it() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for (digits, alphabet) in CLASSES {
            for len in 0..=100 {
                // Non-digits from one byte in two to one in 64.
                for sparsity in [2, 4, 16, 64] {
                    let data: Vec<u8> = (0..len)
                        .map(|_| match rng.below(sparsity) {
                            0 => non_digit(&mut rng, digits),
                            _ => rng.pick(alphabet),
                        })
                        .collect();
                    for pos in 0..=len {
                        assert_searches_agree(&data, pos, digits, "mixed bytes");
                    }
                }
            }
        }
    }

    #[test]
    fn tokens_longer_than_a_release_step_end_where_they_stop() {
        let len = 2 * RELEASE_STEP_BYTES + 40;
        let mut data = vec![b'7'; len];
        let scan =
            |data: &[u8]| scan_digits(data, 0, 0, Digits::Decimal, "a digit", PageReleaser::NONE);
        assert_eq!(scan(&data), Ok(len));
        let step = RELEASE_STEP_BYTES;
        for at in [
            0,
            step - 32,
            step - 1,
            step,
            step + 1,
            2 * step + 3,
            len - 1,
        ] {
            data[at] = b'\n';
            assert_eq!(scan(&data), Ok(at), "whitespace at {at}");
            data[at] = b'x';
            assert_eq!(
                scan(&data).unwrap_err().offset,
                at as u64,
                "bad byte at {at}"
            );
            data[at] = b'7';
        }
    }

    #[test]
    fn complete_prefix_stops_after_the_last_separator() {
        assert_eq!(complete_prefix(b"101 11"), 4);
        assert_eq!(complete_prefix(b"101"), 0);
        assert_eq!(complete_prefix(b"1\r\n"), 3);
    }
}
