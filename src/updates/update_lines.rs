//! The lines of the update stream: `i x` (set heap i, 0-based, to x).
//!
//! A line holds a heap index in decimal and a value, in decimal, `0x`
//! hex or `0b` binary, of any length, separated by spaces or tabs; a CR
//! before the LF is dropped. Blank lines and lines whose first non-blank
//! byte is `#` are skipped. Anything else is an error at the first byte
//! that cannot be read, saying what was expected. A decimal value of up to
//! 19 digits is converted in a loop; a longer one by the `dec` format's
//! own conversion, hex and binary digits by the kernels every format
//! uses.

use crate::arch::token_end::{first_non_digit, Digits};
use crate::error::ParseError;
use crate::input::{Format, HeapScanner, HeapValue, Scanner};

/// A new heap value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum NewValue {
    /// At most 64 bits.
    Word(u64),
    /// Little-endian limbs.
    Limbs(Vec<u64>),
}

impl NewValue {
    /// The value's limbs.
    pub(super) fn limbs(&self) -> &[u64] {
        match self {
            NewValue::Word(word) => std::slice::from_ref(word),
            NewValue::Limbs(limbs) => limbs,
        }
    }
}

/// One update.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Update {
    /// The heap's index.
    pub heap: u64,
    /// Its new value.
    pub value: NewValue,
}

/// A line that is not an update: the first bad byte (0-based in the
/// line), and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct LineError {
    pub at: usize,
    pub message: String,
}

impl LineError {
    fn unexpected(line: &[u8], at: usize, expected: &str) -> LineError {
        let message = match line.get(at) {
            Some(&byte) => ParseError::unexpected(0, byte, expected).message,
            None => format!("expected {expected}, found the end of the line"),
        };
        LineError { at, message }
    }
}

fn is_blank(byte: u8) -> bool {
    byte == b' ' || byte == b'\t'
}

/// The first position at or after `from` that is not `wanted`.
fn skip(line: &[u8], from: usize, wanted: impl Fn(u8) -> bool) -> usize {
    from + line[from..].iter().take_while(|&&b| wanted(b)).count()
}

/// Parses one line of the stream, for an instance of `heaps` heaps named
/// `file` (`None` for a blank line or a comment).
pub(super) fn parse(line: &[u8], heaps: u64, file: &str) -> Result<Option<Update>, LineError> {
    let start = skip(line, 0, is_blank);
    if start == line.len() || line[start] == b'#' {
        return Ok(None);
    }
    let index_end = skip(line, start, |b| b.is_ascii_digit());
    if index_end == start {
        return Err(LineError::unexpected(
            line,
            start,
            "a heap index (decimal digits)",
        ));
    }
    if index_end == line.len() {
        return Err(LineError::unexpected(
            line,
            index_end,
            "a space, then the heap's new value",
        ));
    }
    if !is_blank(line[index_end]) {
        return Err(LineError::unexpected(
            line,
            index_end,
            "a decimal digit or a space",
        ));
    }
    let heap = small_decimal(&line[start..index_end]).filter(|&heap| heap < heaps);
    let Some(heap) = heap else {
        let index = String::from_utf8_lossy(&line[start..index_end]).into_owned();
        let message = super::out_of_range_text(&index, heaps, file);
        return Err(LineError { at: start, message });
    };
    let value_start = skip(line, index_end, is_blank);
    let value_end = memchr::memchr2(b' ', b'\t', &line[value_start..])
        .map_or(line.len(), |blank| value_start + blank);
    let value = parse_value(line, value_start..value_end)?;
    let end = skip(line, value_end, is_blank);
    if end < line.len() {
        return Err(LineError::unexpected(
            line,
            end,
            "the end of the line after the value",
        ));
    }
    Ok(Some(Update { heap, value }))
}

/// A decimal of at most 19 digits (no overflow), else `None`.
fn small_decimal(digits: &[u8]) -> Option<u64> {
    let digits = &digits[skip(digits, 0, |b| b == b'0')..];
    (digits.len() <= 19).then(|| {
        digits
            .iter()
            .fold(0u64, |value, digit| value * 10 + u64::from(digit - b'0'))
    })
}

/// Parses the value at `range` of `line`.
fn parse_value(line: &[u8], range: std::ops::Range<usize>) -> Result<NewValue, LineError> {
    let token = &line[range.clone()];
    let (digits_at, radix) = match token {
        [b'0', b'x' | b'X', ..] => (range.start + 2, 16),
        [b'0', b'b' | b'B', ..] => (range.start + 2, 2),
        _ => (range.start, 10),
    };
    let class = match radix {
        16 => Digits::Hex,
        2 => Digits::Binary,
        _ => Digits::Decimal,
    };
    let bad = first_non_digit(&line[..range.end], digits_at, class);
    if bad == digits_at || bad < range.end {
        let expected = match radix {
            16 => "a hex digit",
            2 => "a binary digit (0 or 1)",
            _ if bad == range.start => "the heap's new value (decimal, or 0x or 0b and digits)",
            _ => "a decimal digit",
        };
        return Err(LineError::unexpected(line, bad, expected));
    }
    let digits = &line[digits_at..range.end];
    let significant = &digits[skip(digits, 0, |b| b == b'0')..];
    let limbs = match radix {
        16 => HeapValue::Hex(significant).to_limbs(),
        2 => HeapValue::Binary(significant).to_limbs(),
        _ => match small_decimal(significant) {
            Some(word) => return Ok(NewValue::Word(word)),
            None => long_decimal(significant),
        },
    };
    Ok(match limbs.as_slice() {
        [] => NewValue::Word(0),
        [word] => NewValue::Word(*word),
        _ => NewValue::Limbs(limbs),
    })
}

/// The limbs of validated decimal digits, converted as the `dec` format
/// converts its long tokens.
fn long_decimal(digits: &[u8]) -> Vec<u64> {
    match Scanner::new(Format::Dec, digits, 0).next_heap() {
        Ok(Some(heap)) => heap.value.to_limbs(),
        _ => unreachable!("decimal digits make one dec token"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn update(line: &str) -> Result<Option<Update>, LineError> {
        parse(line.as_bytes(), 100, "f")
    }

    fn set(heap: u64, value: NewValue) -> Result<Option<Update>, LineError> {
        Ok(Some(Update { heap, value }))
    }

    #[test]
    fn values_read_in_every_radix_and_any_length() {
        assert_eq!(update("3 5"), set(3, NewValue::Word(5)));
        assert_eq!(update("\t07  0x1F \t"), set(7, NewValue::Word(31)));
        assert_eq!(update("0 0b101"), set(0, NewValue::Word(5)));
        assert_eq!(update("0 0X0"), set(0, NewValue::Word(0)));
        assert_eq!(
            update("99 18446744073709551615"),
            set(99, NewValue::Word(u64::MAX))
        );
        let two_to_64 = set(1, NewValue::Limbs(vec![0, 1]));
        assert_eq!(update("1 18446744073709551616"), two_to_64);
        assert_eq!(update("1 0x10000000000000000"), two_to_64);
        assert_eq!(update(&format!("1 0b1{}", "0".repeat(64))), two_to_64);
        assert_eq!(
            update(&format!("1 {}18446744073709551616", "0".repeat(30))),
            two_to_64
        );
    }

    #[test]
    fn blank_lines_and_comments_are_skipped() {
        for line in ["", "  \t", "# a comment", "   #1 2"] {
            assert_eq!(update(line), Ok(None), "{line:?}");
        }
    }

    #[test]
    fn bad_lines_name_their_first_bad_byte() {
        let at = |line: &str| update(line).unwrap_err().at;
        assert_eq!(at("x 5"), 0);
        assert_eq!(at("3"), 1);
        assert_eq!(at("3x 5"), 1);
        assert_eq!(at("3 "), 2);
        assert_eq!(at("3 0x"), 4);
        assert_eq!(at("3 0xfg"), 5);
        assert_eq!(at("3 0b12"), 5);
        assert_eq!(at("3 12a"), 4);
        assert_eq!(at("3 5 6"), 4);
        assert_eq!(at("3 -5"), 2);
        let error = update("3 0xfg").unwrap_err();
        assert_eq!(error.message, "expected a hex digit, found 'g' (0x67)");
        let error = update(" 100 5").unwrap_err();
        assert_eq!(
            (error.at, error.message.as_str()),
            (1, "heap 100 is out of range: f has 100 heaps (0 to 99)")
        );
        let huge = update("99999999999999999999999 5").unwrap_err();
        assert!(huge
            .message
            .starts_with("heap 99999999999999999999999 is out of range"));
    }

    proptest::proptest! {
        #[test]
        fn any_bytes_parse_or_name_a_byte_of_their_line(line in proptest::collection::vec(
            proptest::sample::select(b"0123456789abxX# \t\r-".to_vec()), 0..40,
        )) {
            match parse(&line, 1000, "f") {
                Ok(Some(update)) => proptest::prop_assert!(update.heap < 1000),
                Ok(None) => {}
                Err(error) => proptest::prop_assert!(error.at <= line.len()),
            }
        }
    }
}
