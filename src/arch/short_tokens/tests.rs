//! Every build of the block loop held against a reading one byte at a
//! time: the same heaps (offsets and both limbs), and the same stop.

use super::*;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The syntaxes of token formats, with their digits.
const TOKENS: [(Syntax, &[u8]); 4] = [
    (Syntax::Bits, b"01"),
    (Syntax::Hex, b"0123456789abcdefABCDEF"),
    (Syntax::WideHex, b"0123456789abcdefABCDEF"),
    (Syntax::Dec, b"0123456789"),
];

impl Syntax {
    /// Whether `byte` is one of the syntax's digits.
    fn is_digit(self, byte: u8) -> bool {
        match self {
            Syntax::Bits => byte == b'0' || byte == b'1',
            Syntax::Hex | Syntax::WideHex => byte.is_ascii_hexdigit(),
            Syntax::Dec => byte.is_ascii_digit(),
            Syntax::Unary => byte == b'1',
        }
    }
}

/// The separators of the token formats: space, tab, LF and CR.
fn is_space(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\n' | b'\r')
}

/// What a run gives: each heap's offset and value, and where it stopped.
type Run = (Vec<(u64, u128)>, u64, Stopped);

/// The value of `digits` in `syntax`, digit by digit.
fn value_of(syntax: Syntax, digits: &[u8]) -> u128 {
    match syntax {
        Syntax::Bits => digits
            .iter()
            .fold(0, |value, &d| value << 1 | u128::from(d - b'0')),
        Syntax::Hex | Syntax::WideHex => digits
            .iter()
            .fold(0, |value, &d| value << 4 | u128::from(hex_digit(d))),
        Syntax::Dec => digits
            .iter()
            .fold(0, |value, &d| 10 * value + u128::from(d - b'0')),
        Syntax::Unary => digits.len() as u128,
    }
}

/// What a run of [`ShortKernel::fill`] must give, found one byte at a
/// time: blocks of 64 bytes from `from` are entered while the buffer is
/// not full, fewer than [`RUN_BYTES`] are read, and the block lies in
/// `data` and holds only digits and whitespace; each token is taken in the
/// block that holds its end, or stops the run there if it is too long, or
/// in the block after its first if that holds only its digits.
fn reference(syntax: Syntax, data: &[u8], from: usize, base: u64, held: usize) -> Run {
    let valid = |block: usize| {
        let at = from + BLOCK * block;
        data.get(at..at + BLOCK)
            .is_some_and(|b| b.iter().all(|&c| syntax.is_digit(c) || is_space(c)))
    };
    let (mut heaps, mut high_or) = (Vec::new(), 0);
    let mut stopped = Stopped {
        at: from,
        long: None,
    };
    // The next block to enter.
    let mut entered = 0;
    let mut pos = from;
    loop {
        while data.get(pos).is_some_and(|&c| is_space(c)) {
            pos += 1;
        }
        let start = pos;
        while data.get(pos).is_some_and(|&c| syntax.is_digit(c)) {
            pos += 1;
        }
        let end = pos;
        let first = (start - from) / BLOCK;
        let through = (end - from) / BLOCK > first + 1;
        let seen_in = if through {
            first + 1
        } else {
            (end - from) / BLOCK
        };
        while entered <= seen_in {
            let full = held + heaps.len() >= SHORT_HEAPS;
            if full || BLOCK * entered >= RUN_BYTES || !valid(entered) {
                return (heaps, high_or, stopped);
            }
            entered += 1;
        }
        if start == end {
            // Only whitespace up to the end of a valid block: impossible,
            // blocks end inside `data` and a token follows or the loop
            // above stopped.
            unreachable!("a valid block is followed by a token or an invalid block");
        }
        if through || end - start > syntax.max_digits() {
            let checked = if through {
                from + BLOCK * (first + 2)
            } else {
                end
            };
            stopped.long = Some((start, checked));
            return (heaps, high_or, stopped);
        }
        let value = value_of(syntax, &data[start..end]);
        high_or |= (value >> 64) as u64;
        heaps.push((base + start as u64, value));
        stopped.at = end;
    }
}

/// What a `unary` run must give, found one byte at a time: blocks are
/// entered as for tokens, and each LF in one ends a line.
fn reference_lines(data: &[u8], from: usize, base: u64, held: usize) -> Run {
    let (mut heaps, mut at, mut line) = (Vec::new(), from, from);
    while held + heaps.len() < SHORT_HEAPS && at - from < RUN_BYTES {
        let Some(block) = data.get(at..at + BLOCK) else {
            break;
        };
        if !block.iter().all(|&c| c == b'1' || c == b'\n') {
            break;
        }
        for (i, &byte) in block.iter().enumerate() {
            if byte == b'\n' {
                heaps.push((base + line as u64, (at + i - line) as u128));
                line = at + i + 1;
            }
        }
        at += BLOCK;
    }
    let long = (line < at).then_some((line, at));
    (heaps, 0, Stopped { at: line, long })
}

/// What `kernel` gives, after `held` heaps already in a buffer full at
/// `most`.
fn run(
    kernel: ShortKernel,
    syntax: Syntax,
    data: &[u8],
    from: usize,
    base: u64,
    (held, most): (usize, usize),
) -> Run {
    let mut heaps = ShortHeaps::default();
    heaps.set_most(most);
    for i in 0..held {
        heaps.push(i as u64, 0);
    }
    let stopped = kernel.fill(syntax, data, from, base, &mut heaps);
    let limb = |j: usize, i: usize| {
        u128::from(u64::from_le_bytes(
            heaps.limb(j)[8 * i..8 * i + 8].try_into().expect("8 bytes"),
        ))
    };
    let found = (held..heaps.len())
        .map(|i| (heaps.offsets()[i], limb(1, i) << 64 | limb(0, i)))
        .collect();
    (found, heaps.high_or(), stopped)
}

/// Checks every build against the reference on `data` from `from`.
fn check(syntax: Syntax, data: &[u8], from: usize, held: usize, what: &str) {
    check_most(syntax, data, from, (held, SHORT_HEAPS), what);
}

/// [`check`] with a buffer full at `most` heaps, which stops a run as a
/// buffer of [`SHORT_HEAPS`] does that holds `SHORT_HEAPS - most` more.
fn check_most(syntax: Syntax, data: &[u8], from: usize, (held, most): (usize, usize), what: &str) {
    let base = 1 << 40;
    let as_held = held + SHORT_HEAPS - most;
    let expected = match syntax {
        Syntax::Unary => reference_lines(data, from, base, as_held),
        _ => reference(syntax, data, from, base, as_held),
    };
    for kernel in ShortKernel::every_build() {
        let found = run(kernel, syntax, data, from, base, (held, most));
        assert_eq!(found, expected, "{kernel:?} {syntax:?}: {what}");
    }
}

/// A random text of tokens of up to `longest` digits (some with leading
/// zeros) between runs of whitespace.
fn random_text(rng: &mut ChaCha8Rng, digits: &[u8], tokens: usize, longest: usize) -> Vec<u8> {
    spaced_text(rng, digits, tokens, longest, 1)
}

/// [`random_text`] with one whitespace byte between tokens, but for a run
/// of whitespace one time in `wide` on average.
fn spaced_text(
    rng: &mut ChaCha8Rng,
    digits: &[u8],
    tokens: usize,
    longest: usize,
    wide: u32,
) -> Vec<u8> {
    let mut data = Vec::new();
    for _ in 0..tokens {
        let run = match (rng.random_range(0..wide), rng.random_range(0..8)) {
            (1.., _) => 1,
            (0, 0) => rng.random_range(1..150),
            (0, _) => rng.random_range(1..3),
        };
        data.extend((0..run).map(|_| b" \t\n\r"[rng.random_range(0..4)]));
        let len = rng.random_range(1..=longest);
        let zeros = match rng.random_range(0..4) {
            0 => rng.random_range(0..=len),
            _ => 0,
        };
        data.extend((0..len).map(|i| match i < zeros {
            true => b'0',
            false => digits[rng.random_range(0..digits.len())],
        }));
    }
    data
}

#[test]
fn random_texts_give_the_reference_heaps_and_stop_in_every_build() {
    let mut rng = ChaCha8Rng::seed_from_u64(30);
    for (syntax, digits) in TOKENS {
        let most = syntax.max_digits();
        for round in 0..300 {
            let longest = [most, most + 1, most + 3, 2 * most + 70][round % 4];
            let mut data = random_text(&mut rng, digits, 60, longest);
            if round % 3 == 0 {
                let at = rng.random_range(0..data.len());
                data[at] = b"xg-\x00\x0b\x0c\x80\xff"[rng.random_range(0..8)];
            }
            for from in [0, 1, rng.random_range(0..data.len())] {
                // The run starts where a scanner would: not inside a token.
                let from = (from..data.len())
                    .find(|&i| i == 0 || !syntax.is_digit(data[i - 1]))
                    .unwrap_or(data.len());
                for held in [0, SHORT_HEAPS - 5] {
                    check(
                        syntax,
                        &data,
                        from,
                        held,
                        &format!("round {round} from {from}"),
                    );
                }
            }
        }
    }
}

#[test]
fn tokens_one_byte_apart_give_the_reference_heaps_and_stop_in_every_build() {
    let mut rng = ChaCha8Rng::seed_from_u64(33);
    for (syntax, digits) in TOKENS {
        let most = syntax.max_digits();
        for round in 0..300 {
            let longest = [most, most + 1, 2 * most + 70][round % 3];
            let wide = [1_000, 300, 100][round % 3];
            let mut data = spaced_text(&mut rng, digits, 200, longest, wide);
            if round % 5 == 0 {
                let at = rng.random_range(0..data.len());
                data[at] = b"xg-\x00\x80 "[rng.random_range(0..6)];
            }
            // From the text's first token, its first whitespace, and
            // anywhere not inside a token.
            let somewhere = (rng.random_range(1..data.len())..data.len())
                .find(|&i| !syntax.is_digit(data[i - 1]))
                .unwrap_or(data.len());
            for from in [0, 1, somewhere] {
                for held in [0, SHORT_HEAPS - 50] {
                    let what = format!("round {round} from {from}");
                    check(syntax, &data, from, held, &what);
                }
            }
        }
    }
}

#[test]
fn a_buffer_full_at_fewer_heaps_stops_every_build_there() {
    let mut rng = ChaCha8Rng::seed_from_u64(34);
    let lines: &[u8] = b"1\n";
    for (syntax, digits) in TOKENS.into_iter().chain([(Syntax::Unary, lines)]) {
        for round in 0..40 {
            let wide = [1_000, 20][round % 2];
            let data = match syntax {
                Syntax::Unary => (0..3000).map(|_| lines[rng.random_range(0..2)]).collect(),
                _ => spaced_text(&mut rng, digits, 400, syntax.max_digits(), wide),
            };
            for most in [1, 7, 64, 65, 200] {
                for held in [0, 3] {
                    let what = format!("round {round}, full at {most}, {held} held");
                    check_most(syntax, &data, 0, (held, most), &what);
                }
            }
        }
    }
}

#[test]
fn a_wider_gap_at_every_place_between_tokens_one_byte_apart() {
    for (syntax, digits) in TOKENS {
        for len in [1, 2, 7, syntax.max_digits()] {
            let text: Vec<u8> = (0..6 * BLOCK)
                .map(|i| match i % (len + 1) {
                    0 => b'\n',
                    _ => digits[i % digits.len()],
                })
                .collect();
            for place in 0..3 * BLOCK {
                let mut spaced = text.clone();
                spaced.insert(place, b'\t');
                let mut split = text.clone();
                split[place] = b' ';
                for (data, what) in [(spaced, "a tab"), (split, "a space")] {
                    for from in [0, 1] {
                        let what = format!("{what} at {place}, {len} digits, from {from}");
                        check(syntax, &data, from, 0, &what);
                    }
                }
            }
        }
    }
}

#[test]
fn tokens_of_every_length_at_every_place_in_a_block() {
    for (syntax, digits) in TOKENS {
        for len in 1..=syntax.max_digits() + 2 {
            for place in 0..BLOCK + 2 {
                let mut data = vec![b' '; place];
                data.extend((0..len).map(|i| digits[(7 * i + len) % digits.len()]));
                data.extend_from_slice(&[b'\n'; 3 * BLOCK]);
                check(syntax, &data, 0, 0, &format!("{len} digits at {place}"));
                check(
                    syntax,
                    &data,
                    1.min(place),
                    0,
                    &format!("{len} digits at {place}"),
                );
            }
        }
    }
}

#[test]
fn a_bad_byte_anywhere_stops_the_run_before_its_block() {
    let mut rng = ChaCha8Rng::seed_from_u64(31);
    for (syntax, digits) in TOKENS {
        let data = random_text(&mut rng, digits, 40, syntax.max_digits());
        for at in 0..data.len() {
            let mut bad = data.clone();
            bad[at] = b"/:@G`gxX\x00\x0b\x0c\x7f\x80\xb0\xff"[at % 15];
            check(syntax, &bad, 0, 0, &format!("bad byte at {at}"));
        }
    }
}

#[test]
fn a_run_stops_after_its_bytes_and_when_the_buffer_is_full() {
    for (syntax, digits) in TOKENS {
        // Tokens of one digit: 32 a block, a full buffer within 9 blocks.
        let mut data: Vec<u8> = (0..40 * BLOCK)
            .map(|i| [digits[i / 2 % digits.len()], b' '][i % 2])
            .collect();
        check(syntax, &data, 0, 0, "one-digit tokens");
        // Whitespace past a run's bytes.
        data = vec![b' '; RUN_BYTES + 3 * BLOCK];
        data.extend_from_slice(b"1 ");
        check(syntax, &data, 0, 0, "whitespace");
        check(syntax, &data, 5, 0, "whitespace from 5");
    }
}

/// Random `unary` text: lines of up to `longest` `1`s, runs of empty
/// lines, and now and then a CR before an LF or a bad byte.
fn random_lines(rng: &mut ChaCha8Rng, lines: usize, longest: usize) -> Vec<u8> {
    let mut data = Vec::new();
    for _ in 0..lines {
        let len = match rng.random_range(0..4) {
            0 => 0,
            1 => rng.random_range(0..4),
            _ => rng.random_range(0..=longest),
        };
        data.extend(std::iter::repeat_n(b'1', len));
        if rng.random_range(0..50) == 0 {
            data.push(b"\r0x\x00 "[rng.random_range(0..5)]);
        }
        data.push(b'\n');
    }
    data
}

#[test]
fn random_lines_give_the_reference_heaps_and_stop_in_every_build() {
    let mut rng = ChaCha8Rng::seed_from_u64(32);
    for round in 0..300 {
        let longest = [3, 70, 300, 3000][round % 4];
        let data = random_lines(&mut rng, 80, longest);
        for from in [0, rng.random_range(0..data.len())] {
            // The run starts where a scanner would: at a line's start.
            let from = (from..data.len())
                .find(|&i| i == 0 || data[i - 1] == b'\n')
                .unwrap_or(data.len());
            for held in [0, SHORT_HEAPS - 5] {
                let what = format!("round {round} from {from}");
                check(Syntax::Unary, &data, from, held, &what);
            }
        }
    }
}

#[test]
fn a_line_longer_than_a_run_stops_it_inside() {
    let mut data = vec![b'1'; RUN_BYTES + 3 * BLOCK];
    data.push(b'\n');
    data.extend_from_slice(&[b'\n'; 2 * BLOCK]);
    check(Syntax::Unary, &data, 0, 0, "a long line");
    check(Syntax::Unary, &data, 7, 0, "a long line from 7");
    let lines: Vec<u8> = (0..3 * BLOCK).map(|i| [b'1', b'\n'][i % 2]).collect();
    check(Syntax::Unary, &lines, 0, 0, "lines of one");
}

#[test]
fn every_byte_in_every_lane_is_classified_like_the_byte_test() {
    let syntaxes = TOKENS.into_iter().chain([(Syntax::Unary, &b"1"[..])]);
    for (syntax, digits) in syntaxes {
        let separator = match syntax {
            Syntax::Unary => b'\n',
            _ => b' ',
        };
        for byte in 0..=255u8 {
            for lane in [0, 1, 17, 31, 32, 62, 63] {
                // Two-digit tokens, then `byte` in `lane` of the second block.
                let mut data: Vec<u8> = (0..3 * BLOCK)
                    .map(|i| [digits[i % digits.len()], digits[0], separator][i % 3])
                    .collect();
                data[BLOCK + lane] = byte;
                check(syntax, &data, 0, 0, &format!("{byte:#04x} in lane {lane}"));
            }
        }
    }
}

#[test]
fn the_largest_decimals_carry_into_the_high_limb() {
    let texts = [
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999",
        "10000000000000000000",
        "9999999999999999",
        "10000000000000000",
        "00000000000000000001",
        "90000000000000000009",
    ];
    // Every text at every place of a run's tokens, which the vector
    // builds take four at a time.
    for first in 0..texts.len() {
        let mut data = vec![b' '; 50];
        for text in texts.iter().cycle().skip(first).take(texts.len() + 3) {
            data.extend_from_slice(text.as_bytes());
            data.push(b' ');
        }
        data.extend_from_slice(&[b'\n'; 2 * BLOCK]);
        check(Syntax::Dec, &data, 0, 0, &format!("from text {first}"));
    }
}
