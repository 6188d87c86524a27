//! The `dec` scanner's paths held against a byte-by-byte reference and
//! num-bigint: the fast paths, both loops, every block kernel.

use super::*;
use num_bigint::BigUint;

use crate::arch::token_end::tests::Rng;

/// A token of `len` digits, with a random number of leading zeros.
fn random_token(rng: &mut Rng, len: usize) -> Vec<u8> {
    let zeros = if rng.below(2) == 0 {
        0
    } else {
        rng.below(len + 1)
    };
    (0..len)
        .map(|i| {
            if i < zeros {
                b'0'
            } else {
                b'0' + rng.below(10) as u8
            }
        })
        .collect()
}

/// The heap the token at `start` must give, or its error, found one
/// byte at a time, with the value from num-bigint: a word when it has
/// at most 38 significant digits, limbs otherwise.
fn reference(
    data: &[u8],
    start: usize,
    base: u64,
) -> Result<(usize, HeapValue<'static>), ParseError> {
    let mut end = start;
    while let Some(&byte) = data.get(end) {
        if byte.is_ascii_digit() {
            end += 1;
        } else if matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
            break;
        } else {
            return Err(ParseError::unexpected(base + end as u64, byte, EXPECTED));
        }
    }
    let digits = &data[start..end];
    let big = BigUint::parse_bytes(digits, 10).expect("a digit string");
    let significant = digits.iter().skip_while(|&&d| d == b'0').count();
    let value = if significant <= WORD_DIGITS {
        let limbs = big.to_u64_digits();
        let limb = |i: usize| u128::from(limbs.get(i).copied().unwrap_or(0));
        HeapValue::Word(limb(0) | limb(1) << 64)
    } else {
        HeapValue::Limbs(big.to_u64_digits())
    };
    Ok((end, value))
}

/// Checks the fast path and the scanner on the token at `start`
/// against [`reference`]: the fast path must take every valid token of
/// at most 38 digits whose words lie in `data`, refuse every bad one,
/// and agree with the reference on what it takes; the scanner must
/// give the reference's heap or error, byte for byte.
fn check(data: &[u8], start: usize, what: &str) {
    let base = 1000;
    let expected = reference(data, start, base);
    let found = swar_short_token(data, start);
    match &expected {
        Ok((end, value)) => {
            let len = end - start;
            let in_reach = len <= WORD_DIGITS && data.len() >= start + 8 * (len / 8 + 1);
            match found {
                Some((fast_end, word)) => assert_eq!(
                    (fast_end, HeapValue::Word(word)),
                    (*end, value.clone()),
                    "fast path: {what}"
                ),
                None => assert!(!in_reach, "fast path left a short token: {what}"),
            }
        }
        Err(_) => assert_eq!(found, None, "fast path took a bad token: {what}"),
    }
    let mut scanner = DecScanner {
        pos: start,
        ..DecScanner::new(data, base)
    };
    let heap = scanner.next_heap().map(|heap| {
        let heap = heap.expect("a token");
        (heap.offset, heap.value)
    });
    let want = expected
        .clone()
        .map(|(_, value)| (base + start as u64, value));
    assert_eq!(heap, want, "scanner: {what}");
    if let Ok((end, _)) = expected {
        assert!(
            scanner.pos == end || scanner.pos == end + 1,
            "scanner end: {what}"
        );
    }
}

#[test]
fn random_tokens_match_the_reference_at_every_alignment() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for len in 1..=60 {
        for align in 0..32 {
            for _ in 0..4 {
                let mut data: Vec<u8> =
                    (0..align).map(|_| rng.pick(b" \t\n\r0123456789")).collect();
                data.push(b' ');
                let start = data.len();
                data.extend(random_token(&mut rng, len));
                let tail = rng.below(48);
                data.push(rng.pick(b" \t\n\r"));
                data.extend((0..tail).map(|_| rng.pick(b" \n0123456789x")));
                check(
                    &data,
                    start,
                    &format!("{:?}", String::from_utf8_lossy(&data[start..])),
                );
                let token_only = start + len;
                check(
                    &data[..token_only],
                    start,
                    &format!("{len} digits at the end"),
                );
            }
        }
    }
}

/// Every heap of `data`, or the error that ends them, read token by
/// token with [`reference`].
fn reference_heaps(data: &[u8], base: u64) -> (Vec<(u64, HeapValue<'static>)>, Option<ParseError>) {
    let mut heaps = Vec::new();
    let mut pos = 0;
    loop {
        while data
            .get(pos)
            .is_some_and(|&b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        {
            pos += 1;
        }
        if pos == data.len() {
            return (heaps, None);
        }
        match reference(data, pos, base) {
            Ok((end, value)) => {
                heaps.push((base + pos as u64, HeapValue::Limbs(value.to_limbs())));
                pos = end;
            }
            Err(error) => return (heaps, Some(error)),
        }
    }
}

/// Checks both loops of the scanner over the whole of `data` against
/// [`reference_heaps`].
fn check_all(data: &[u8], what: &str) {
    let base = 77;
    let expected = reference_heaps(data, base);
    let mut heaps = Vec::new();
    let error = DecScanner::new(data, base)
        .each_heap(None, |heap| {
            heaps.push((heap.offset, HeapValue::Limbs(heap.value.to_limbs())));
            Ok::<(), ParseError>(())
        })
        .err();
    assert_eq!((heaps, error), expected, "each_heap: {what}");
    let mut scanner = DecScanner::new(data, base);
    let mut heaps = Vec::new();
    let error = loop {
        match scanner.next_heap() {
            Ok(Some(heap)) => heaps.push((heap.offset, HeapValue::Limbs(heap.value.to_limbs()))),
            Ok(None) => break None,
            Err(error) => break Some(error),
        }
    };
    assert_eq!((heaps, error), expected, "next_heap: {what}");
    let found = in_blocks(DecScanner::new(data, base));
    assert_eq!(found, expected, "blocks: {what}");
}

/// The heaps of `scanner` as the driver reads them from a scanner that
/// fills blocks: blocks, and one heap after each that is not full.
fn in_blocks(mut scanner: DecScanner<'_>) -> (Vec<(u64, HeapValue<'static>)>, Option<ParseError>) {
    let (mut heaps, mut words) = (Vec::new(), WordBuffer::default());
    loop {
        scanner.fill_words(&mut words);
        let block = words.block(0);
        for i in 0..block.len() {
            let value = HeapValue::Limbs(block.heap(i).value.to_limbs());
            heaps.push((block.offsets[i], value));
        }
        let full = words.is_full();
        words.clear();
        if full {
            continue;
        }
        match scanner.next_heap() {
            Ok(Some(heap)) => heaps.push((heap.offset, HeapValue::Limbs(heap.value.to_limbs()))),
            Ok(None) => return (heaps, None),
            Err(error) => return (heaps, Some(error)),
        }
    }
}

/// A text of random tokens of 1 to 45 digits (40 at most when
/// `short`) between runs of random whitespace.
fn random_text(rng: &mut Rng, tokens: usize, short: bool) -> Vec<u8> {
    let mut data = Vec::new();
    for _ in 0..tokens {
        let longest_run = if rng.below(4) == 0 { 70 } else { 2 };
        let run = 1 + rng.below(longest_run);
        data.extend((0..run).map(|_| rng.pick(b" \t\n\r")));
        let longest = if short { 40 } else { 45 };
        let len = 1 + rng.below(longest);
        data.extend(random_token(rng, len));
    }
    data
}

#[test]
fn long_random_texts_give_the_reference_heaps_in_both_loops() {
    let mut rng = Rng(0x6a09_e667_f3bc_c908);
    for round in 0..200 {
        let data = random_text(&mut rng, 300, round % 2 == 0);
        for cut in [0, 1, 31, 63, 64, 65] {
            check_all(
                &data[cut.min(data.len())..],
                &format!("round {round} from {cut}"),
            );
        }
    }
}

#[test]
fn a_bad_byte_anywhere_in_a_text_gives_the_reference_error() {
    let mut rng = Rng(0xbb67_ae85_84ca_a73b);
    let bad = b"/:;?@a.+-\x00\x0b\x0c\x7f\x80\xb0\xb9\xff";
    let data = random_text(&mut rng, 40, true);
    for at in 0..data.len() {
        let mut text = data.clone();
        text[at] = rng.pick(bad);
        check_all(&text, &format!("bad byte at {at}"));
    }
}

#[test]
fn bad_bytes_at_every_position_give_the_reference_error() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let bad = b"/:;?@a.+-\x00\x0b\x0c\x7f\x80\xb0\xb9\xff";
    for len in 1..=60 {
        for at in 0..=len {
            for align in 0..32 {
                let mut data = vec![b'\n'; align];
                let start = data.len();
                data.extend(random_token(&mut rng, len));
                data.push(b'\n');
                data.extend(random_token(&mut rng, 40));
                data[start + at] = rng.pick(bad);
                check(&data, start, &format!("{len} digits, bad byte at {at}"));
            }
        }
    }
}

#[test]
fn the_longest_words_and_the_shortest_limbs() {
    for text in [
        "0",
        "18446744073709551615",
        "18446744073709551616",
        "9999999999999999999999999999999",
        "99999999999999999999999999999999999999",
        "0000099999999999999999999999999999999999999",
        "100000000000000000000000000000000000000",
        "340282366920938463463374607431768211455",
        "340282366920938463463374607431768211456",
        "123456789012345678901234567890123456789012345",
    ] {
        let mut data = text.as_bytes().to_vec();
        data.extend_from_slice(&[b'\n'; 40]);
        check(&data, 0, text);
    }
}

#[test]
fn short_and_long_tokens_have_the_same_limbs_as_num_bigint() {
    for text in [
        "0",
        "18446744073709551616",
        "340282366920938463463374607431768211455",
        "340282366920938463463374607431768211456",
        "123456789012345678901234567890123456789012345",
    ] {
        let value = decimal_value(strip_leading_zeros(text.as_bytes()));
        let expected = BigUint::parse_bytes(text.as_bytes(), 10).unwrap();
        assert_eq!(value.to_limbs(), expected.to_u64_digits(), "{text}");
    }
}

#[test]
fn chunked_parsing_matches_a_digit_by_digit_fold() {
    let pattern = b"98765432109182736450";
    for len in 0..=WORD_DIGITS {
        for shift in 0..pattern.len() {
            let digits: Vec<u8> = pattern
                .iter()
                .cycle()
                .skip(shift)
                .take(len)
                .copied()
                .collect();
            let expected = digits
                .iter()
                .fold(0u128, |acc, &d| acc * 10 + u128::from(d - b'0'));
            assert_eq!(decimal_word(&digits), expected, "{len} {shift}");
        }
    }
    assert_eq!(decimal_word(&[b'9'; WORD_DIGITS]), 10u128.pow(38) - 1);
    assert_eq!(decimal_word(b"18446744073709551615"), u128::from(u64::MAX));
}

#[test]
fn prefixes_of_a_word_are_read_whatever_follows_them() {
    for len in 0..8 {
        for after in [b' ', b'\n', b'\t', 0x00, b'/', 0xff] {
            let mut bytes = *b"98765432";
            bytes[len..].fill(after);
            let expected = bytes[..len]
                .iter()
                .fold(0, |acc, &d| acc * 10 + u64::from(d - b'0'));
            assert_eq!(
                parse_prefix(u64::from_le_bytes(bytes), len),
                expected,
                "{len} {after:#04x}"
            );
        }
    }
}

#[test]
fn bad_bytes_and_offsets() {
    let mut scanner = DecScanner::new(b" 12 3a", 100);
    assert_eq!(scanner.next_heap().unwrap().unwrap().offset, 101);
    assert_eq!(scanner.next_heap().unwrap_err().offset, 105);
}
