//! What the token formats (`bits`, `hex`, `dec`) share: whitespace, and
//! finding where a token ends.

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

/// Scans the digits of a token starting at `start`; returns the end of the
/// token, or an error at the first byte that is neither a digit nor
/// whitespace. `expected` describes a valid byte for the message.
pub fn scan_digits(
    data: &[u8],
    start: usize,
    base: u64,
    is_digit: impl Fn(u8) -> bool,
    expected: &str,
) -> Result<usize, ParseError> {
    let mut pos = start;
    while let Some(&byte) = data.get(pos) {
        if is_digit(byte) {
            pos += 1;
        } else if is_space(byte) {
            break;
        } else {
            return Err(ParseError::unexpected(base + pos as u64, byte, expected));
        }
    }
    Ok(pos)
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

    #[test]
    fn only_four_bytes_are_whitespace() {
        for byte in 0..=255u8 {
            assert_eq!(is_space(byte), b" \t\n\r".contains(&byte), "{byte}");
        }
    }

    #[test]
    fn leading_zeros_are_stripped_down_to_nothing() {
        assert_eq!(strip_leading_zeros(b"00101"), b"101");
        assert_eq!(strip_leading_zeros(b"000"), b"");
    }

    #[test]
    fn complete_prefix_stops_after_the_last_separator() {
        assert_eq!(complete_prefix(b"101 11"), 4);
        assert_eq!(complete_prefix(b"101"), 0);
        assert_eq!(complete_prefix(b"1\r\n"), 3);
    }
}
