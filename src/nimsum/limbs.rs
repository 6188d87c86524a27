//! The limb kernels: any 64-bit limb of a heap, straight from its digits.
//!
//! Digit strings are most significant first, so limb `i` of a string is the
//! block of digits that ends `i` blocks before its end; only the top limb
//! can be short. Whole limbs are converted with wide operations: portable
//! SWAR on 64-bit words (eight binary digits per multiplication, eight hex
//! digits per handful of shifts), or AVX2 where the CPU has it (detected at
//! run time). The digits were validated by the scanner, so the kernels
//! assume `0`/`1` for binary and `0-9a-fA-F` for hex. Little-endian bytes
//! are loaded as words.

/// Value of an ASCII hex digit (the input was validated; other bytes give 0).
pub fn hex_digit_value(digit: u8) -> u8 {
    HEX_VALUES[usize::from(digit)]
}

const HEX_VALUES: [u8; 256] = hex_values(0);

/// Each byte's hex value, and `other` for a byte that is not a hex digit.
pub(crate) const fn hex_values(other: u8) -> [u8; 256] {
    let mut table = [other; 256];
    let mut i = 0;
    while i < 10 {
        table[b'0' as usize + i] = i as u8;
        i += 1;
    }
    let mut i = 0;
    while i < 6 {
        table[b'a' as usize + i] = 10 + i as u8;
        table[b'A' as usize + i] = 10 + i as u8;
        i += 1;
    }
    table
}

/// Packs eight ASCII `0`/`1` digits (first digit most significant) into a byte.
///
/// Each digit's low bit is its value; the multiplication moves the low bit
/// of byte k to bit 63 − k of the product without carries (all partial
/// products land on distinct bit positions).
#[inline]
pub fn pack8(chunk: [u8; 8]) -> u8 {
    let low_bits = u64::from_le_bytes(chunk) & 0x0101_0101_0101_0101;
    (low_bits.wrapping_mul(0x8040_2010_0804_0201) >> 56) as u8
}

/// Up to 64 ASCII binary digits, most significant first, as a number.
#[inline]
pub fn parse_binary(digits: &[u8]) -> u64 {
    debug_assert!(digits.len() <= 64);
    let mut chunks = digits.chunks_exact(8);
    let mut value = 0u64;
    for chunk in &mut chunks {
        let chunk: [u8; 8] = chunk.try_into().expect("chunks of eight");
        value = (value << 8) | u64::from(pack8(chunk));
    }
    for &digit in chunks.remainder() {
        value = (value << 1) | u64::from(digit & 1);
    }
    value
}

/// Exactly 64 ASCII binary digits, most significant first, as a number
/// (eight [`pack8`] multiplications).
#[inline]
fn binary_word(chunk: &[u8; 64]) -> u64 {
    chunk.chunks_exact(8).fold(0, |value, eight| {
        let eight: [u8; 8] = eight.try_into().expect("chunks of eight");
        (value << 8) | u64::from(pack8(eight))
    })
}

/// Up to 16 ASCII hex digits, most significant first, as a number.
#[inline]
pub fn parse_hex(digits: &[u8]) -> u64 {
    debug_assert!(digits.len() <= 16);
    digits
        .iter()
        .fold(0u64, |acc, &d| (acc << 4) | u64::from(hex_digit_value(d)))
}

/// Eight ASCII hex digits of either case, most significant first, as a
/// number, all eight bytes at once.
///
/// Loaded big-endian, the first digit is the top byte. A digit's value is
/// its low nibble, plus 9 for a letter (bit 6 set: `A-F` and `a-f` have low
/// nibbles 1..6); no byte lane carries into the next. Pairs, quads and
/// halves of nibbles are then merged.
#[inline]
fn hex8(chunk: [u8; 8]) -> u32 {
    const LOW_BIT: u64 = 0x0101_0101_0101_0101;
    let word = u64::from_be_bytes(chunk);
    let letters = (word >> 6) & LOW_BIT;
    let nibbles = (word & (0x0f * LOW_BIT)) + 9 * letters;
    let pairs = (nibbles | nibbles >> 4) & 0x00ff_00ff_00ff_00ff;
    let quads = (pairs | pairs >> 8) & 0x0000_ffff_0000_ffff;
    (quads | quads >> 16) as u32
}

/// Exactly 16 ASCII hex digits, most significant first, as a number.
#[inline]
pub(crate) fn hex_word(chunk: &[u8; 16]) -> u64 {
    let (high, low) = chunk.split_at(8);
    let high = hex8(high.try_into().expect("eight digits"));
    let low = hex8(low.try_into().expect("eight digits"));
    (u64::from(high) << 32) | u64::from(low)
}

/// The short top limb of a digit string with `DIGITS` digits per limb: its
/// first `top` digits (`0 < top < DIGITS`).
///
/// A string of at least one whole limb is read as its first `DIGITS` digits
/// with the digits of the next limb shifted out, so only a string shorter
/// than one limb goes through `short`.
#[inline(always)]
fn top_limb<const DIGITS: usize>(
    digits: &[u8],
    top: usize,
    word: impl Fn(&[u8; DIGITS]) -> u64,
    short: impl Fn(&[u8]) -> u64,
) -> u64 {
    match digits.first_chunk::<DIGITS>() {
        Some(leading) => word(leading) >> ((DIGITS - top) * (64 / DIGITS)),
        None => short(&digits[..top]),
    }
}

/// Limb `index` of a most-significant-first digit string, `DIGITS` digits
/// per limb: `word` converts a whole limb's digits, `short` a string shorter
/// than one limb.
#[inline(always)]
fn digit_limb<const DIGITS: usize>(
    digits: &[u8],
    index: u64,
    word: impl Fn(&[u8; DIGITS]) -> u64,
    short: impl Fn(&[u8]) -> u64,
) -> u64 {
    let skipped = index.saturating_mul(DIGITS as u64);
    if skipped >= digits.len() as u64 {
        return 0;
    }
    let end = digits.len() - skipped as usize;
    match digits[..end].last_chunk::<DIGITS>() {
        Some(chunk) => word(chunk),
        None => top_limb(digits, end, word, short),
    }
}

/// XORs limbs `first ..` of a most-significant-first digit string, `DIGITS`
/// digits per limb, into `window`: `word` converts a whole limb's digits,
/// `short` a string shorter than one limb.
#[inline(always)]
fn xor_digit_limbs<const DIGITS: usize>(
    digits: &[u8],
    first: u64,
    window: &mut [u64],
    word: impl Fn(&[u8; DIGITS]) -> u64,
    short: impl Fn(&[u8]) -> u64,
) {
    let skipped = first.saturating_mul(DIGITS as u64);
    if skipped >= digits.len() as u64 {
        return;
    }
    let end = digits.len() - skipped as usize;
    let whole = (end / DIGITS).min(window.len());
    let (body, rest) = window.split_at_mut(whole);
    for (slot, chunk) in body.iter_mut().zip(digits[..end].rchunks_exact(DIGITS)) {
        *slot ^= word(chunk.try_into().expect("chunks of one limb"));
    }
    let top = end % DIGITS;
    if top > 0 {
        if let Some(slot) = rest.first_mut() {
            *slot ^= top_limb(digits, top, word, short);
        }
    }
}

/// [`xor_binary`] with the portable SWAR kernel.
fn xor_binary_portable(digits: &[u8], first: u64, window: &mut [u64]) {
    xor_digit_limbs::<64>(digits, first, window, binary_word, parse_binary);
}

/// [`xor_hex`] with the portable SWAR kernel.
fn xor_hex_portable(digits: &[u8], first: u64, window: &mut [u64]) {
    xor_digit_limbs::<16>(digits, first, window, hex_word, parse_hex);
}

/// Limb `index` of a binary digit string.
pub fn binary_limb(digits: &[u8], index: u64) -> u64 {
    digit_limb::<64>(digits, index, binary_word, parse_binary)
}

/// Limb `index` of a hex digit string.
pub fn hex_limb(digits: &[u8], index: u64) -> u64 {
    digit_limb::<16>(digits, index, hex_word, parse_hex)
}

/// Limb `index` of a little-endian magnitude.
pub fn le_bytes_limb(bytes: &[u8], index: u64) -> u64 {
    let start = index.saturating_mul(8);
    if start >= bytes.len() as u64 {
        return 0;
    }
    let start = start as usize;
    let end = (start + 8).min(bytes.len());
    let mut word = [0u8; 8];
    word[..end - start].copy_from_slice(&bytes[start..end]);
    u64::from_le_bytes(word)
}

/// XORs limbs `first ..` of a binary digit string into `window`.
pub fn xor_binary(digits: &[u8], first: u64, window: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { avx2::xor_binary(digits, first, window) };
    }
    xor_binary_portable(digits, first, window);
}

/// Appends to `groups` the value of each whole group of 64 bytes at the
/// start of `bytes` that are all binary digits, in order (the first digit
/// most significant), checking and converting each group in one go; stops
/// at the first group that holds another byte, or at the last partial one.
/// Returns how many bytes it packed.
pub fn pack_binary_groups(bytes: &[u8], groups: &mut Vec<u64>) -> usize {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { avx2::pack_binary_groups(bytes, groups) };
    }
    pack_binary_groups_portable(bytes, groups)
}

/// [`pack_binary_groups`] with SWAR: eight bytes checked per word.
fn pack_binary_groups_portable(bytes: &[u8], groups: &mut Vec<u64>) -> usize {
    let mut packed = 0;
    for chunk in bytes.chunks_exact(64) {
        let chunk: &[u8; 64] = chunk.try_into().expect("chunks of 64");
        let all_digits = chunk.chunks_exact(8).all(|eight| {
            let word = u64::from_le_bytes(eight.try_into().expect("chunks of eight"));
            (word ^ 0x3030_3030_3030_3030) & !0x0101_0101_0101_0101 == 0
        });
        if !all_digits {
            break;
        }
        groups.push(binary_word(chunk));
        packed += 64;
    }
    packed
}

/// XORs limbs `first ..` of a hex digit string into `window`.
pub fn xor_hex(digits: &[u8], first: u64, window: &mut [u64]) {
    #[cfg(target_arch = "x86_64")]
    if is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU supports AVX2, checked just above.
        return unsafe { avx2::xor_hex(digits, first, window) };
    }
    xor_hex_portable(digits, first, window);
}

/// XORs limbs `first ..` of a little-endian magnitude into `window`.
pub fn xor_le_bytes(bytes: &[u8], first: u64, window: &mut [u64]) {
    for (slot, index) in window.iter_mut().zip(first..) {
        *slot ^= le_bytes_limb(bytes, index);
    }
}

/// The AVX2 kernels: 32 binary digits per movemask, 16 hex digits per
/// 128-bit register. Only call them after detecting AVX2.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{parse_binary, parse_hex, xor_digit_limbs};
    use std::arch::x86_64::*;

    /// 64 ASCII binary digits, most significant first, as a number.
    ///
    /// Reversing the bytes of each 16-byte lane and shifting every digit's
    /// low bit into its byte's sign bit, a movemask yields 16 digits per
    /// lane in place, with the two lanes of a register swapped.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn binary_word(chunk: &[u8; 64]) -> u64 {
        let reverse = _mm256_setr_epi8(
            15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, //
            15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
        );
        // SAFETY: each load reads 32 of the chunk's 64 bytes; unaligned
        // loads have no alignment requirement.
        let (high, low) = unsafe {
            (
                _mm256_loadu_si256(chunk.as_ptr().cast()),
                _mm256_loadu_si256(chunk.as_ptr().add(32).cast()),
            )
        };
        let bits = |digits: __m256i| {
            let in_sign_bits = _mm256_slli_epi64(_mm256_shuffle_epi8(digits, reverse), 7);
            (_mm256_movemask_epi8(in_sign_bits) as u32).rotate_left(16)
        };
        (u64::from(bits(high)) << 32) | u64::from(bits(low))
    }

    /// 16 ASCII hex digits of either case, most significant first, as a
    /// number.
    ///
    /// Nibble values as in the portable kernel (a letter is above `'9'`);
    /// one multiply-add merges each pair of digits into a byte in a 16-bit
    /// lane, and one shuffle gathers those bytes in little-endian order.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn hex_word(chunk: &[u8; 16]) -> u64 {
        // SAFETY: the load reads the chunk's 16 bytes; unaligned loads have
        // no alignment requirement.
        let ascii = unsafe { _mm_loadu_si128(chunk.as_ptr().cast()) };
        let letters = _mm_cmpgt_epi8(ascii, _mm_set1_epi8(b'9' as i8));
        let nibbles = _mm_add_epi8(
            _mm_and_si128(ascii, _mm_set1_epi8(0x0f)),
            _mm_and_si128(letters, _mm_set1_epi8(9)),
        );
        let pairs = _mm_maddubs_epi16(nibbles, _mm_set1_epi16(0x0110));
        let gather = _mm_setr_epi8(14, 12, 10, 8, 6, 4, 2, 0, -1, -1, -1, -1, -1, -1, -1, -1);
        _mm_cvtsi128_si64(_mm_shuffle_epi8(pairs, gather)) as u64
    }

    /// [`super::pack_binary_groups`] with AVX2: the digits of each half of
    /// a group are checked in the register they are converted from.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn pack_binary_groups(bytes: &[u8], groups: &mut Vec<u64>) -> usize {
        let one = _mm256_set1_epi8(1);
        let ascii_one = _mm256_set1_epi8(b'1' as i8);
        let mut packed = 0;
        for chunk in bytes.chunks_exact(64) {
            // SAFETY: each load reads 32 of the chunk's 64 bytes; unaligned
            // loads have no alignment requirement.
            let (high, low) = unsafe {
                (
                    _mm256_loadu_si256(chunk.as_ptr().cast()),
                    _mm256_loadu_si256(chunk.as_ptr().add(32).cast()),
                )
            };
            let digits = _mm256_and_si256(
                _mm256_cmpeq_epi8(_mm256_or_si256(high, one), ascii_one),
                _mm256_cmpeq_epi8(_mm256_or_si256(low, one), ascii_one),
            );
            if _mm256_movemask_epi8(digits) != -1 {
                break;
            }
            let chunk: &[u8; 64] = chunk.try_into().expect("chunks of 64");
            // SAFETY: this function's caller guarantees AVX2.
            groups.push(unsafe { binary_word(chunk) });
            packed += 64;
        }
        packed
    }

    /// [`super::xor_binary`] with AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn xor_binary(digits: &[u8], first: u64, window: &mut [u64]) {
        xor_digit_limbs::<64>(
            digits,
            first,
            window,
            // SAFETY: this function's caller guarantees AVX2.
            |chunk| unsafe { binary_word(chunk) },
            parse_binary,
        );
    }

    /// [`super::xor_hex`] with AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn xor_hex(digits: &[u8], first: u64, window: &mut [u64]) {
        // Whole pairs of limbs from the end, 32 digits per register; the
        // limbs left (at most one whole one, and the short top) one by one.
        let skipped = first.saturating_mul(16);
        let end = digits.len() - skipped.min(digits.len() as u64) as usize;
        let pairs = (end / 32).min(window.len() / 2);
        let body = &digits[end - 32 * pairs..end];
        for (slots, chunk) in window.chunks_exact_mut(2).zip(body.rchunks_exact(32)) {
            let chunk: &[u8; 32] = chunk.try_into().expect("chunks of 32");
            // SAFETY: this function's caller guarantees AVX2.
            let (high, low) = unsafe { hex_pair(chunk) };
            slots[0] ^= low;
            slots[1] ^= high;
        }
        xor_digit_limbs::<16>(
            digits,
            first.saturating_add(2 * pairs as u64),
            &mut window[2 * pairs..],
            // SAFETY: this function's caller guarantees AVX2.
            |chunk| unsafe { hex_word(chunk) },
            parse_hex,
        );
    }

    /// 32 ASCII hex digits, most significant first, as two numbers: the
    /// first 16 digits and the last 16. [`hex_word`] on both halves of a
    /// 256-bit register at once.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[inline]
    #[target_feature(enable = "avx2")]
    unsafe fn hex_pair(chunk: &[u8; 32]) -> (u64, u64) {
        // SAFETY: the load reads the chunk's 32 bytes; unaligned loads
        // have no alignment requirement.
        let ascii = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast()) };
        let letters = _mm256_cmpgt_epi8(ascii, _mm256_set1_epi8(b'9' as i8));
        let nibbles = _mm256_add_epi8(
            _mm256_and_si256(ascii, _mm256_set1_epi8(0x0f)),
            _mm256_and_si256(letters, _mm256_set1_epi8(9)),
        );
        let pairs = _mm256_maddubs_epi16(nibbles, _mm256_set1_epi16(0x0110));
        let gather = _mm256_setr_epi8(
            14, 12, 10, 8, 6, 4, 2, 0, -1, -1, -1, -1, -1, -1, -1, -1, //
            14, 12, 10, 8, 6, 4, 2, 0, -1, -1, -1, -1, -1, -1, -1, -1,
        );
        let words = _mm256_shuffle_epi8(pairs, gather);
        (
            _mm256_extract_epi64::<0>(words) as u64,
            _mm256_extract_epi64::<2>(words) as u64,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A digit-by-digit reference: limbs `first ..` of the value whose digits
    /// in base `2^bits_per_digit` are `digits`, most significant first.
    fn reference_limbs(digits: &[u8], bits_per_digit: u32, first: u64, len: usize) -> Vec<u64> {
        let radix = 1 << bits_per_digit;
        let bits: Vec<bool> = digits
            .iter()
            .rev()
            .flat_map(|&d| {
                let value = char::from(d).to_digit(radix).expect("a valid digit");
                (0..bits_per_digit).map(move |b| value >> b & 1 == 1)
            })
            .collect();
        (0..len as u64)
            .map(|k| {
                (0..64).fold(0u64, |limb, b| {
                    let position = first
                        .checked_add(k)
                        .and_then(|i| i.checked_mul(64)?.checked_add(b));
                    let bit = position.and_then(|p| bits.get(usize::try_from(p).ok()?));
                    limb | u64::from(bit == Some(&true)) << b
                })
            })
            .collect()
    }

    /// A xorshift generator, so that the cases are the same on every run.
    struct Random(u64);

    impl Random {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn digits(&mut self, len: usize, alphabet: &[u8]) -> Vec<u8> {
            (0..len)
                .map(|_| alphabet[self.next() as usize % alphabet.len()])
                .collect()
        }
    }

    const BINARY: &[u8] = b"01";
    const HEX: &[u8] = b"0123456789abcdefABCDEF";

    /// Checks `kernel` against the reference on random strings of every
    /// length below 300, for windows starting below, at and past the top.
    fn check_kernel(
        name: &str,
        alphabet: &[u8],
        bits_per_digit: u32,
        kernel: impl Fn(&[u8], u64, &mut [u64]),
    ) {
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        for len in 0..300 {
            let digits = random.digits(len, alphabet);
            for first in [0, 1, 2, 3, 5, u64::MAX / 64, u64::MAX] {
                for window_len in [0, 1, 2, 3, 5, 8] {
                    let before: Vec<u64> = (0..window_len).map(|_| random.next()).collect();
                    let mut window = before.clone();
                    kernel(&digits, first, &mut window);
                    let expected: Vec<u64> =
                        reference_limbs(&digits, bits_per_digit, first, window_len)
                            .iter()
                            .zip(&before)
                            .map(|(limb, old)| limb ^ old)
                            .collect();
                    assert_eq!(window, expected, "{name}: len {len} first {first}");
                }
            }
        }
    }

    #[test]
    fn the_reference_reads_digits_most_significant_first() {
        assert_eq!(reference_limbs(b"1011", 1, 0, 2), [0b1011, 0]);
        assert_eq!(reference_limbs(b"fF0", 4, 0, 1), [0xff0]);
        let long = [b"1".as_slice(), &[b'0'; 64]].concat();
        assert_eq!(reference_limbs(&long, 1, 0, 2), [0, 1]);
        assert_eq!(reference_limbs(&long, 1, 1, 1), [1]);
    }

    #[test]
    fn pack8_matches_a_digit_by_digit_loop() {
        for byte in 0..=255u8 {
            let chunk: [u8; 8] =
                std::array::from_fn(|k| if byte >> (7 - k) & 1 == 1 { b'1' } else { b'0' });
            assert_eq!(pack8(chunk), byte);
        }
    }

    #[test]
    fn hex8_maps_every_digit_in_every_position() {
        for (i, &digit) in HEX.iter().enumerate() {
            let value = char::from(digit).to_digit(16).expect("a hex digit");
            for position in 0..8 {
                let mut chunk = [b'0'; 8];
                chunk[position] = digit;
                assert_eq!(hex8(chunk), value << (4 * (7 - position)), "{i} {position}");
            }
        }
    }

    /// Checks the portable and dispatched window kernels and the one-limb
    /// reader of one digit alphabet against the reference.
    fn check_kernels(
        alphabet: &[u8],
        bits_per_digit: u32,
        portable: fn(&[u8], u64, &mut [u64]),
        dispatched: fn(&[u8], u64, &mut [u64]),
        limb: fn(&[u8], u64) -> u64,
    ) {
        check_kernel("portable", alphabet, bits_per_digit, portable);
        check_kernel("dispatched", alphabet, bits_per_digit, dispatched);
        check_kernel("limb", alphabet, bits_per_digit, |digits, first, window| {
            for (slot, k) in window.iter_mut().zip(0..) {
                *slot ^= limb(digits, first.saturating_add(k));
            }
        });
    }

    #[test]
    fn binary_kernels_match_the_reference() {
        check_kernels(BINARY, 1, xor_binary_portable, xor_binary, binary_limb);
    }

    #[test]
    fn hex_kernels_match_the_reference() {
        check_kernels(HEX, 4, xor_hex_portable, xor_hex, hex_limb);
    }

    #[test]
    fn binary_groups_are_packed_up_to_the_first_bad_byte() {
        let mut random = Random(0x5eed);
        for len in [0, 1, 63, 64, 65, 127, 128, 300, 640] {
            for bad in [
                None,
                Some(0),
                Some(1),
                Some(63),
                Some(64),
                Some(200),
                Some(639),
            ] {
                let mut bytes = random.digits(len, BINARY);
                if let Some(at) = bad.filter(|&at| at < len) {
                    bytes[at] = [b' ', b'2', b'/', 0xb1][at % 4];
                }
                let whole = bad.filter(|&at| at < len).unwrap_or(len) / 64;
                let expected: Vec<u64> = bytes[..64 * whole]
                    .chunks_exact(64)
                    .map(|group| reference_limbs(group, 1, 0, 1)[0])
                    .collect();
                let mut kernels: Vec<(&str, Vec<u64>, usize)> = Vec::new();
                let mut groups = vec![7];
                let packed = pack_binary_groups_portable(&bytes, &mut groups);
                kernels.push(("portable", groups, packed));
                let mut groups = vec![7];
                let packed = pack_binary_groups(&bytes, &mut groups);
                kernels.push(("dispatched", groups, packed));
                for (name, groups, packed) in kernels {
                    assert_eq!(packed, 64 * whole, "{name} {len} {bad:?}");
                    assert_eq!(groups[0], 7, "{name}: appended, not overwritten");
                    assert_eq!(groups[1..], expected[..], "{name} {len} {bad:?}");
                }
            }
        }
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_kernels_match_the_reference() {
        if !is_x86_feature_detected!("avx2") {
            eprintln!("no AVX2 on this CPU: skipped");
            return;
        }
        check_kernel("avx2", BINARY, 1, |digits, first, window| {
            // SAFETY: the CPU supports AVX2, checked above.
            unsafe { avx2::xor_binary(digits, first, window) }
        });
        check_kernel("avx2", HEX, 4, |digits, first, window| {
            // SAFETY: the CPU supports AVX2, checked above.
            unsafe { avx2::xor_hex(digits, first, window) }
        });
    }

    #[test]
    fn hex_limbs_take_sixteen_digits_each() {
        let digits = b"1fFfffffffffffffff0";
        assert_eq!(hex_limb(digits, 0), 0xffff_ffff_ffff_fff0);
        assert_eq!(hex_limb(digits, 1), 0x1ff);
        assert_eq!(hex_limb(digits, 2), 0);
    }

    #[test]
    fn le_bytes_limbs_pad_the_top() {
        let bytes = [1, 2, 3, 4, 5, 6, 7, 8, 9];
        assert_eq!(le_bytes_limb(&bytes, 0), 0x0807_0605_0403_0201);
        assert_eq!(le_bytes_limb(&bytes, 1), 9);
        assert_eq!(le_bytes_limb(&bytes, u64::MAX), 0);
    }
}
