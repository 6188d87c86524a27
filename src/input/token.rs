//! What the token formats (`bits`, `hex`, `dec`) share: whitespace, and
//! finding where a token ends.

use super::pages::PageReleaser;
use super::source::RELEASE_STEP_BYTES;
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
/// Eight bytes are classified at a time until one is not a digit; that
/// byte, and the last few bytes of `data`, are looked at one by one. A long
/// token is scanned in steps of [`RELEASE_STEP_BYTES`], and `pages`
/// releases each step once it is checked.
pub fn scan_digits(
    data: &[u8],
    start: usize,
    base: u64,
    digits: Digits,
    expected: &str,
    pages: PageReleaser<'_>,
) -> Result<usize, ParseError> {
    let mut pos = start;
    loop {
        let step_end = data.len().min(pos.saturating_add(RELEASE_STEP_BYTES));
        let (reached, stopped) = digit_words(&data[..step_end], pos, digits);
        if stopped || step_end == data.len() {
            pos = reached;
            break;
        }
        pages.release(&data[pos..reached]);
        pos = reached;
    }
    while let Some(&byte) = data.get(pos) {
        if digits.is_digit(byte) {
            pos += 1;
        } else if is_space(byte) {
            break;
        } else {
            return Err(ParseError::unexpected(base + pos as u64, byte, expected));
        }
    }
    Ok(pos)
}

/// Bytes checked a word at a time before [`digit_words`] switches to
/// blocks: most tokens end within them.
const SHORT: usize = 32;

/// Bytes per block in the vectorised stage of [`digit_words`].
const BLOCK: usize = 64;

/// Skips whole words of digits from `pos`: returns where the first
/// non-digit is (and true), or the start of the last partial word of
/// `data` (and false). After the first [`SHORT`] bytes, blocks of
/// [`BLOCK`] bytes are checked with a branch-free byte test that the
/// compiler turns into vector compares; the block holding a non-digit is
/// then searched eight bytes at a time.
#[inline]
fn digit_words(data: &[u8], pos: usize, digits: Digits) -> (usize, bool) {
    let short_end = data.len().min(pos + SHORT);
    let (reached, stopped) = swar_words(&data[..short_end], pos, digits);
    if stopped || short_end == data.len() {
        return (reached, stopped);
    }
    swar_words(data, skip_digit_blocks(data, reached, digits), digits)
}

/// The start of the first block of [`BLOCK`] bytes from `pos` that holds a
/// non-digit or runs past the end of `data`. Uses AVX2 when the CPU has it
/// (32 bytes per compare instead of 16).
#[inline]
fn skip_digit_blocks(data: &[u8], pos: usize, digits: Digits) -> usize {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above; the function
        // only differs from the portable one in the instructions it may use.
        return unsafe { skip_digit_blocks_avx2(data, pos, digits) };
    }
    skip_digit_blocks_portable(data, pos, digits)
}

/// [`skip_digit_blocks`] compiled with AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn skip_digit_blocks_avx2(data: &[u8], pos: usize, digits: Digits) -> usize {
    skip_blocks(data, pos, digits)
}

/// [`skip_digit_blocks`] compiled for the baseline target only.
fn skip_digit_blocks_portable(data: &[u8], pos: usize, digits: Digits) -> usize {
    skip_blocks(data, pos, digits)
}

#[inline(always)]
fn skip_blocks(data: &[u8], mut pos: usize, digits: Digits) -> usize {
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
    fn word_scans_match_byte_scans_on_ragged_tokens() {
        let fillers: [(Digits, &[u8]); 3] = [
            (Digits::Binary, b"0110"),
            (Digits::Decimal, b"9071"),
            (Digits::Hex, b"aF09"),
        ];
        for (digits, filler) in fillers {
            for len in 0..200 {
                for stop in [b' ', b'\n', b'x', b'2', b'g', 0x80 | b'1', 0xff] {
                    let mut data: Vec<u8> = filler.iter().copied().cycle().take(len).collect();
                    data.push(stop);
                    data.extend_from_slice(b"1111111111");
                    for start in [0, 1, 7.min(len)] {
                        let found =
                            scan_digits(&data, start, 0, digits, "a digit", PageReleaser::NONE);
                        assert_eq!(
                            found.map_err(|e| e.offset),
                            naive_scan(&data, start, digits),
                            "{digits:?} {len} {stop:#04x} {start}"
                        );
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
        let classes: [(Digits, &[u8]); 3] = [
            (Digits::Binary, b"01"),
            (Digits::Decimal, b"0123456789"),
            (Digits::Hex, b"0123456789abcdefABCDEF"),
        ];
        for (digits, alphabet) in classes {
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

    #[test]
    fn block_skips_agree_with_and_without_avx2() {
        for digits in [Digits::Binary, Digits::Decimal, Digits::Hex] {
            for bad_at in 0..300 {
                let mut data = vec![b'1'; 300];
                data[bad_at] = b'g';
                let portable = skip_digit_blocks_portable(&data, 0, digits);
                assert!(portable <= bad_at && bad_at < portable + BLOCK || portable + BLOCK > 300);
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    // SAFETY: AVX2 was detected just above.
                    let avx2 = unsafe { skip_digit_blocks_avx2(&data, 0, digits) };
                    assert_eq!(avx2, portable, "{digits:?} {bad_at}");
                }
                assert_eq!(skip_digit_blocks(&data, 0, digits), portable);
            }
        }
    }

    #[test]
    fn complete_prefix_stops_after_the_last_separator() {
        assert_eq!(complete_prefix(b"101 11"), 4);
        assert_eq!(complete_prefix(b"101"), 0);
        assert_eq!(complete_prefix(b"1\r\n"), 3);
    }
}
