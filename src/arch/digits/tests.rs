//! The limb kernels held against a digit-by-digit reference.

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

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
            for window_len in [0, 1, 2, 3, 4, 5, 8, 9, 13, 20] {
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
            #[cfg(target_arch = "x86_64")]
            if crate::arch::Cpu::detected().avx2 {
                let mut groups = vec![7];
                // SAFETY: the CPU supports AVX2, checked just above.
                let packed = unsafe { avx2::pack_binary_groups(&bytes, &mut groups) };
                kernels.push(("avx2", groups, packed));
            }
            for (name, groups, packed) in kernels {
                assert_eq!(packed, 64 * whole, "{name} {len} {bad:?}");
                assert_eq!(groups[0], 7, "{name}: appended, not overwritten");
                assert_eq!(groups[1..], expected[..], "{name} {len} {bad:?}");
            }
        }
    }
}

#[test]
fn every_cpu_build_matches_the_reference() {
    for (name, binary, hex) in every_build() {
        check_kernel(name, BINARY, 1, binary);
        check_kernel(name, HEX, 4, hex);
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

#[test]
fn le_bytes_xor_into_a_window_limb_by_limb() {
    let mut rng = ChaCha8Rng::seed_from_u64(35);
    for len in 0..40 {
        let bytes: Vec<u8> = (0..len).map(|_| rng.random()).collect();
        for first in [0, 1, 2, 5, u64::MAX] {
            for slots in 0..7 {
                let before: Vec<u64> = (0..slots).map(|_| rng.random()).collect();
                let mut window = before.clone();
                xor_le_bytes(&bytes, first, &mut window);
                let expected: Vec<u64> = (before.iter().zip(0..))
                    .map(|(w, i)| w ^ le_bytes_limb(&bytes, first.saturating_add(i)))
                    .collect();
                assert_eq!(
                    window, expected,
                    "{len} bytes from limb {first}, {slots} slots"
                );
            }
        }
    }
}

/// A limb kernel: `xor_binary`, `xor_hex` or one of their builds.
type Kernel = fn(&[u8], u64, &mut [u64]);

/// Every build of the two limb kernels this CPU runs, by name.
fn every_build() -> Vec<(&'static str, Kernel, Kernel)> {
    let mut builds: Vec<(&'static str, Kernel, Kernel)> =
        vec![("portable", xor_binary_portable, xor_hex_portable)];
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = crate::arch::Cpu::detected();
        if cpu.avx2 {
            builds.push((
                "avx2",
                // SAFETY: the CPU supports AVX2, checked above.
                |d, f, w| unsafe { avx2::xor_binary(d, f, w) },
                // SAFETY: as above.
                |d, f, w| unsafe { avx2::xor_hex(d, f, w) },
            ));
        }
        if cpu.avx512_vbmi {
            builds.push((
                "avx512",
                // SAFETY: the CPU supports AVX-512 F, BW and VBMI.
                |d, f, w| unsafe { avx512::xor_binary(d, f, w) },
                // SAFETY: as above.
                |d, f, w| unsafe { avx512::xor_hex(d, f, w) },
            ));
        }
    }
    builds
}

#[test]
fn every_build_gives_num_bigints_limbs_of_long_strings() {
    let mut random = Random(0x2545_f491_4f6c_dd1d);
    for round in 0..60 {
        let len = 1 + (random.next() % 5000) as usize;
        for (name, binary, hex) in every_build() {
            for (alphabet, radix, bits_per_digit, kernel) in
                [(BINARY, 2, 1, binary), (HEX, 16, 4, hex)]
            {
                let digits = random.digits(len, alphabet);
                let limbs = (len * bits_per_digit).div_ceil(64);
                let mut window = vec![0u64; limbs];
                kernel(&digits, 0, &mut window);
                let mut expected = num_bigint::BigUint::parse_bytes(&digits, radix)
                    .expect("valid digits")
                    .to_u64_digits();
                expected.resize(limbs, 0);
                assert_eq!(
                    window, expected,
                    "{name} radix {radix}: round {round}, {len} digits"
                );
            }
        }
    }
}

/// A build of `xor_binary_checked`.
type CheckedKernel = fn(&[u8], &mut [u64]) -> bool;

#[test]
fn checked_binary_limbs_are_the_references_and_any_other_byte_is_refused() {
    let mut checked: Vec<(&str, CheckedKernel)> = vec![("by parts", xor_binary_checked_by_parts)];
    #[cfg(target_arch = "x86_64")]
    if crate::arch::Cpu::detected().avx512_vbmi {
        // SAFETY: the CPU supports AVX-512 F, BW and VBMI, checked above.
        checked.push(("avx512", |d, w| unsafe { avx512::xor_binary_checked(d, w) }));
    }
    let mut random = Random(0x5851_f42d_4c95_7f2d);
    for len in 0..400 {
        let mut digits = random.digits(len, BINARY);
        let limbs = len.div_ceil(64);
        for (name, kernel) in &checked {
            let mut window = vec![0u64; limbs];
            assert!(kernel(&digits, &mut window), "{name}: {len} digits");
            assert_eq!(
                window,
                reference_limbs(&digits, 1, 0, limbs),
                "{name}: {len}"
            );
        }
        if len > 0 {
            let at = (random.next() % len as u64) as usize;
            digits[at] = [b' ', b'2', b'x', 0xb1, 0x30 ^ 0x80][(random.next() % 5) as usize];
            for (name, kernel) in &checked {
                let mut window = vec![0u64; limbs];
                assert!(!kernel(&digits, &mut window), "{name}: byte {at} of {len}");
            }
        }
    }
}
