//! Every build of the `dec` block kernels held against a byte-by-byte
//! look and a digit-by-digit fold.

use super::*;

/// A xorshift generator, so that the cases are the same on every run.
struct Random(u64);

impl Random {
    fn below(&mut self, bound: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % bound as u64) as usize
    }
}

/// The digit mask of `block`, one byte at a time, or `None` if a byte is
/// neither a digit nor whitespace.
fn reference_mask(block: &[u8; BLOCK]) -> Option<u64> {
    let mut mask = 0;
    for (i, &byte) in block.iter().enumerate() {
        if byte.is_ascii_digit() {
            mask |= 1 << i;
        } else if !matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
            return None;
        }
    }
    Some(mask)
}

#[test]
fn every_byte_value_in_every_lane_is_classified_like_the_byte_test() {
    for kernel in DecKernel::every_build() {
        for byte in 0..=255u8 {
            for lane in 0..BLOCK {
                for filler in [b'7', b' ', b'\n'] {
                    let mut block = [filler; BLOCK];
                    block[lane] = byte;
                    assert_eq!(
                        kernel.digit_mask(&block),
                        reference_mask(&block),
                        "{kernel:?} {byte:#04x} in lane {lane}"
                    );
                }
            }
        }
    }
}

#[test]
fn random_blocks_of_digits_and_whitespace_give_the_reference_mask() {
    let mut rng = Random(0x9e37_79b9_7f4a_7c15);
    let alphabet = b"0123456789 \t\n\r";
    for kernel in DecKernel::every_build() {
        for _ in 0..20_000 {
            let mut block = [0u8; BLOCK];
            block.fill_with(|| alphabet[rng.below(alphabet.len())]);
            assert_eq!(
                kernel.digit_mask(&block),
                reference_mask(&block),
                "{kernel:?}"
            );
        }
    }
}

#[test]
fn short_values_of_every_length_ignore_the_bytes_before_them() {
    let mut rng = Random(0x2545_f491_4f6c_dd1d);
    for kernel in DecKernel::every_build() {
        for len in 0..=SHORT_DIGITS {
            for _ in 0..500 {
                let mut bytes = [0u8; SHORT_DIGITS];
                bytes.fill_with(|| rng.below(256) as u8);
                let zeros = rng.below(len + 1);
                for (i, byte) in bytes[SHORT_DIGITS - len..].iter_mut().enumerate() {
                    *byte = if i < zeros {
                        b'0'
                    } else {
                        b'0' + rng.below(10) as u8
                    };
                }
                let expected = bytes[SHORT_DIGITS - len..]
                    .iter()
                    .fold(0u128, |acc, &d| acc * 10 + u128::from(d - b'0'));
                assert_eq!(
                    kernel.short_value(&bytes, len),
                    expected,
                    "{kernel:?} {len}"
                );
            }
        }
        let nines = [b'9'; SHORT_DIGITS];
        assert_eq!(kernel.short_value(&nines, SHORT_DIGITS), 10u128.pow(32) - 1);
    }
}
