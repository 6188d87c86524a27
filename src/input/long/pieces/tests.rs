//! Long tokens read in pieces held against the scanner and num-bigint.

use super::*;
use num_bigint::BigUint;

/// Reads `text` (one token, then optionally whitespace and more) in
/// pieces of `step` bytes after a first piece of `first` bytes.
fn read(format: Format, text: &[u8], first: usize, step: usize) -> Result<LongHeap, u64> {
    let spare = vec![7; 3];
    let mut token = LongToken::start(format, &text[..first], 100, spare).map_err(|e| e.offset)?;
    let mut at = first;
    while at < text.len() {
        let piece = &text[at..text.len().min(at + step)];
        if token.feed(piece).map_err(|e| e.offset)?.is_some() {
            break;
        }
        at += piece.len();
    }
    Ok(token.finish())
}

/// The value of a long heap, found three ways that must agree: the
/// limbs turned in place, limb by limb, and XORed into zeros.
fn value_of(heap: LongHeap) -> BigUint {
    let one_by_one: Vec<u64> = (0..heap.limbs() as u64).map(|j| heap.limb(j)).collect();
    let mut xored = vec![0; heap.limbs()];
    heap.xor_into(&mut xored);
    assert_eq!(one_by_one, xored);
    let bits = heap.bit_length();
    let limbs = heap.into_limbs();
    assert_eq!(limbs[..], one_by_one[..limbs.len()]);
    assert!(one_by_one[limbs.len()..].iter().all(|&l| l == 0));
    let value = BigUint::from_slice(
        &limbs
            .iter()
            .flat_map(|&l| [l as u32, (l >> 32) as u32])
            .collect::<Vec<_>>(),
    );
    assert_eq!(value.bits(), bits);
    value
}

fn random_digits(seed: u64, len: usize, alphabet: &[u8]) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            alphabet[(state % alphabet.len() as u64) as usize]
        })
        .collect()
}

#[test]
fn pieces_of_any_size_give_the_value_of_the_whole_token() {
    for (format, alphabet, radix) in [
        (Format::Bits, &b"01"[..], 2),
        (Format::Hex, &b"0123456789abcdefABCDEF"[..], 16),
    ] {
        for len in [3, 4, 15, 16, 17, 63, 64, 65, 127, 128, 129, 300, 1000] {
            let digits = random_digits(len as u64, len, alphabet);
            let expected = BigUint::parse_bytes(&digits, radix).unwrap();
            let steps = [
                (3, 1),
                (3, 7),
                (4, 64),
                (len, 5),
                (len.min(70), 33),
                (5, 200),
            ];
            for (first, step) in steps {
                let mut text = digits.clone();
                text.extend_from_slice(b"\n1");
                let heap = read(format, &text, first.min(len), step).unwrap();
                assert_eq!(heap.digits, 100..100 + len as u64);
                assert_eq!(heap.offset, 100);
                assert_eq!(value_of(heap), expected, "{format:?} {len} {first} {step}");
            }
        }
    }
}

#[test]
fn leading_zeros_and_prefixes_do_not_count() {
    let heap = read(Format::Bits, b"000000000101", 4, 3).unwrap();
    assert_eq!(value_of(heap), BigUint::from(5u8));
    let heap = read(Format::Hex, b"0x00ff ", 3, 2).unwrap();
    assert_eq!(value_of(heap), BigUint::from(255u8));
    let heap = read(Format::Hex, b"0x00ff ", 6, 2).unwrap();
    assert_eq!(heap.digits, 102..106);
    assert_eq!(value_of(heap), BigUint::from(255u8));
    let zero = read(Format::Hex, b"0X0000", 4, 1).unwrap();
    assert_eq!(value_of(zero), BigUint::from(0u8));
}

#[test]
fn bad_bytes_are_reported_at_their_offset() {
    assert_eq!(read(Format::Bits, b"0110201", 3, 2).unwrap_err(), 104);
    assert_eq!(read(Format::Bits, b"01x", 3, 2).unwrap_err(), 102);
    assert_eq!(read(Format::Hex, b"0xg1", 4, 2).unwrap_err(), 102);
    assert_eq!(read(Format::Hex, b"00x1", 4, 2).unwrap_err(), 102);
    assert_eq!(read(Format::Hex, b"abcd0x", 4, 2).unwrap_err(), 105);
    // Past the first group, in pieces checked and packed in one go.
    for bad in [70, 130, 191, 192, 300] {
        let mut long = vec![b'1'; 400];
        long[bad] = b'2';
        assert_eq!(
            read(Format::Bits, &long, 5, 256).unwrap_err(),
            100 + bad as u64
        );
        long[bad] = b'\n';
        let heap = read(Format::Bits, &long, 5, 256).unwrap();
        assert_eq!(heap.digits, 100..100 + bad as u64);
        assert_eq!(value_of(heap), (BigUint::from(1u8) << bad) - 1u8);
    }
}

#[test]
fn the_partial_group_shift_carries_across_limbs() {
    let mut q = vec![0b1, u64::MAX, 1];
    shift_above_first(&mut q, 1);
    assert_eq!(q, vec![u64::MAX, 3, 0]);
}
