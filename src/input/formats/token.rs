//! What the token formats (`bits`, `hex`, `dec`) share: whitespace, and
//! scanning a token to its end.
//!
//! A token ends at its first non-digit, which must be whitespace or the
//! end of the input. Finding it is a kernel
//! ([`token_end`](crate::arch::token_end): AVX2 or SWAR); here it is
//! checked and long tokens are scanned in steps whose pages can be
//! released.

use crate::arch::token_end::{first_non_digit, Digits};
use crate::error::ParseError;
use crate::input::source::page_release::{PageReleaser, RELEASE_STEP_BYTES};

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
mod tests {
    use super::*;
    use crate::arch::token_end::tests::{Rng, CLASSES};

    #[test]
    fn only_four_bytes_are_whitespace() {
        for byte in 0..=255u8 {
            assert_eq!(is_space(byte), b" \t\n\r".contains(&byte), "{byte}");
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
