//! The digit classes and every search for a token's end, held against a
//! byte-by-byte look. The scanners' own tests (`input::token`) use the
//! generator and the classes defined here.

use super::*;

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

/// A xorshift generator: the same pseudo-random tokens on every run
/// (the token and decimal scanners' tests use it too).
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

/// A way of finding the first non-digit, with its name for messages.
type Search = (&'static str, fn(&[u8], usize, Digits) -> usize);

/// Every search this CPU can run, whatever the cap: the dispatching one,
/// the portable one and, where the CPU has AVX2, the AVX2 one.
fn searches() -> Vec<Search> {
    let mut searches: Vec<Search> = vec![
        ("dispatch", first_non_digit),
        ("portable", first_non_digit_portable),
    ];
    #[cfg(target_arch = "x86_64")]
    if crate::arch::Cpu::detected().avx2 {
        searches.push(("avx2", |data, pos, digits| {
            // SAFETY: the search is only listed when the CPU has AVX2.
            unsafe { avx2::first_non_digit(data, pos, digits) }
        }));
    }
    #[cfg(target_arch = "x86_64")]
    if crate::arch::Cpu::detected().avx512 {
        searches.push(("avx512", |data, pos, digits| {
            // SAFETY: the search is only listed when the CPU has AVX-512
            // F and BW.
            unsafe { avx512::first_non_digit(data, pos, digits) }
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
pub(crate) const CLASSES: [(Digits, &[u8]); 3] = [
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
