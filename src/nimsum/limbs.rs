//! The limb kernels: any 64-bit limb of a heap, straight from its digits.
//!
//! These are the portable reference kernels. ASCII binary is packed eight
//! digits at a time with one multiplication (SWAR); hex digits go through a
//! lookup table; little-endian bytes are loaded as words.

/// Value of an ASCII hex digit (the input was validated; other bytes give 0).
pub fn hex_digit_value(digit: u8) -> u8 {
    HEX_VALUES[usize::from(digit)]
}

const HEX_VALUES: [u8; 256] = {
    let mut table = [0u8; 256];
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
};

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

/// Up to 16 ASCII hex digits, most significant first, as a number.
#[inline]
pub fn parse_hex(digits: &[u8]) -> u64 {
    debug_assert!(digits.len() <= 16);
    digits
        .iter()
        .fold(0u64, |acc, &d| (acc << 4) | u64::from(hex_digit_value(d)))
}

/// The digits of limb `index` in a most-significant-first digit string with
/// `per_limb` digits per limb.
#[inline]
fn limb_digits(digits: &[u8], index: u64, per_limb: usize) -> &[u8] {
    let from_end = index.saturating_mul(per_limb as u64);
    if from_end >= digits.len() as u64 {
        return &[];
    }
    let hi = digits.len() - from_end as usize;
    &digits[hi.saturating_sub(per_limb)..hi]
}

/// Limb `index` of a binary digit string.
pub fn binary_limb(digits: &[u8], index: u64) -> u64 {
    parse_binary(limb_digits(digits, index, 64))
}

/// Limb `index` of a hex digit string.
pub fn hex_limb(digits: &[u8], index: u64) -> u64 {
    parse_hex(limb_digits(digits, index, 16))
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
    for (slot, index) in window.iter_mut().zip(first..) {
        *slot ^= binary_limb(digits, index);
    }
}

/// XORs limbs `first ..` of a little-endian magnitude into `window`.
pub fn xor_le_bytes(bytes: &[u8], first: u64, window: &mut [u64]) {
    for (slot, index) in window.iter_mut().zip(first..) {
        *slot ^= le_bytes_limb(bytes, index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive_binary(digits: &[u8]) -> u64 {
        digits
            .iter()
            .fold(0u64, |acc, &d| (acc << 1) | u64::from(d == b'1'))
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
    fn binary_limbs_cover_ragged_lengths() {
        let digits: Vec<u8> = (0..200)
            .map(|i| if (i * 7 + i / 3) % 5 < 2 { b'1' } else { b'0' })
            .collect();
        for len in [0, 1, 7, 8, 9, 63, 64, 65, 127, 128, 129, 200] {
            let s = &digits[..len];
            for index in 0..5u64 {
                let hi = len.saturating_sub(64 * index as usize);
                let lo = hi.saturating_sub(64);
                assert_eq!(
                    binary_limb(s, index),
                    naive_binary(&s[lo..hi]),
                    "{len} {index}"
                );
            }
        }
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
