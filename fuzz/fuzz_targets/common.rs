//! What every scanner target checks: no panic on any bytes, errors inside
//! the input, heaps in increasing order, and each heap's value equal to an
//! independent num-bigint reading of its bytes, through every accessor
//! (`bit_length`, `limb`, `bit`, `to_limbs`, `xor_window` at every offset
//! and width). Each input is scanned three times, heap by heap, through
//! `each_heap` with scratch space (where `hex` packs its short tokens), and
//! as a pass whose fold takes blocks reads it (runs of short tokens 64
//! bytes at a time, the heap after each run by the general path), and the
//! scans must find the same heaps and the same error.

use nimstream::error::ParseError;
use nimstream::input::{
    Heap, HeapScanner, HeapValue, ScanVisitor, Scanner, TokenScratch, WordBuffer,
};
use nimstream::Format;
use num_bigint::BigUint;

/// Heaps whose text is longer than this are checked without num-bigint
/// (its decimal parse is quadratic).
const REFERENCE_BYTES: usize = 4096;

/// Scans `data` as `format` both ways and checks every heap they yield.
pub fn check_scanner(format: Format, data: &[u8]) {
    let mut by_heap = Scanned::default();
    let mut scanner = Scanner::new(format, data, 0);
    let error = loop {
        match scanner.next_heap() {
            Ok(Some(heap)) => by_heap.check(format, data, &heap),
            Ok(None) => break None,
            Err(error) => break Some(error),
        }
    };
    by_heap.finish(data, error);
    let mut packed = Scanned::default();
    let mut scratch = TokenScratch::default();
    let error = Scanner::new(format, data, 0)
        .each_heap(Some(&mut scratch), |heap| {
            packed.check(format, data, heap);
            Ok::<_, ParseError>(())
        })
        .err();
    packed.finish(data, error);
    assert_eq!(
        packed.offsets, by_heap.offsets,
        "the two scans find other heaps"
    );
    assert_eq!(
        packed.error, by_heap.error,
        "the two scans stop differently"
    );
    let mut blocks = Scanned::default();
    let error = Scanner::new(format, data, 0).visit(InBlocks {
        format,
        data,
        scanned: &mut blocks,
    });
    blocks.finish(data, error);
    assert_eq!(blocks.offsets, by_heap.offsets, "the blocks find other heaps");
    assert_eq!(blocks.error, by_heap.error, "the blocks stop differently");
}

/// The loop of a pass whose fold takes blocks: runs of blocks, and the
/// heap each run leaves by the general path.
struct InBlocks<'s> {
    format: Format,
    data: &'s [u8],
    scanned: &'s mut Scanned,
}

impl<'a> ScanVisitor<'a> for InBlocks<'_> {
    type Output = Option<ParseError>;

    fn visit<S: HeapScanner<'a>>(self, mut scanner: S) -> Option<ParseError> {
        let mut words = WordBuffer::default();
        loop {
            if S::FILLS_WORDS {
                scanner.fill_words(&mut words);
                let block = words.block(0);
                for i in 0..block.len() {
                    self.scanned.check(self.format, self.data, &block.heap(i));
                }
                let full = words.is_full();
                words.clear();
                if full {
                    continue;
                }
            }
            match scanner.next_heap() {
                Ok(Some(heap)) => self.scanned.check(self.format, self.data, &heap),
                Ok(None) => return None,
                Err(error) => return Some(error),
            }
        }
    }
}

/// What one scan found: the heaps' offsets, and where and why it stopped.
#[derive(Default)]
struct Scanned {
    offsets: Vec<u64>,
    error: Option<(u64, String)>,
}

impl Scanned {
    /// Checks one heap: inside the input, after the last, and its value.
    fn check(&mut self, format: Format, data: &[u8], heap: &Heap<'_>) {
        assert!(heap.offset < data.len() as u64, "heap past the end");
        let previous = self.offsets.last();
        assert!(previous.is_none_or(|&p| p < heap.offset), "offsets go back");
        self.offsets.push(heap.offset);
        if let Some(expected) = reference(format, data, heap.offset as usize) {
            check_value(&heap.value, &expected);
        }
    }

    /// Checks the error the scan stopped at, if any, and keeps it.
    fn finish(&mut self, data: &[u8], error: Option<ParseError>) {
        if let Some(error) = error {
            assert!(error.offset <= data.len() as u64, "error past the end");
            assert!(!error.message.is_empty());
            self.error = Some((error.offset, error.message));
        }
    }
}

/// The value of the heap starting at `offset`, read independently.
fn reference(format: Format, data: &[u8], offset: usize) -> Option<BigUint> {
    let rest = &data[offset..];
    let token_end = rest
        .iter()
        .position(|b| b" \t\r\n".contains(b))
        .unwrap_or(rest.len());
    let token = &rest[..token_end];
    if token.len() > REFERENCE_BYTES {
        return None;
    }
    let value = match format {
        Format::Bits => BigUint::parse_bytes(token, 2)?,
        Format::Dec => BigUint::parse_bytes(token, 10)?,
        Format::Hex => {
            let digits = match token {
                [b'0', b'x' | b'X', digits @ ..] => digits,
                digits => digits,
            };
            BigUint::parse_bytes(digits, 16)?
        }
        Format::Unary => {
            let line = rest.split(|&b| b == b'\n').next().unwrap_or(&[]);
            BigUint::from(line.iter().filter(|&&b| b == b'1').count())
        }
        Format::Nimb => {
            let (len, prefix) = leb128(rest)?;
            let len = usize::try_from(len)
                .ok()
                .filter(|&n| n <= REFERENCE_BYTES)?;
            BigUint::from_bytes_le(rest.get(prefix..prefix + len)?)
        }
        raw => {
            let width = raw.raw_width().expect("a raw array format");
            BigUint::from_bytes_le(rest.get(..width)?)
        }
    };
    Some(value)
}

/// An unsigned LEB128 number and how many bytes it took.
fn leb128(bytes: &[u8]) -> Option<(u64, usize)> {
    let mut value = 0u64;
    for (i, &byte) in bytes.iter().enumerate().take(10) {
        value |= u64::from(byte & 0x7f).checked_shl(7 * i as u32)?;
        if byte & 0x80 == 0 {
            return Some((value, i + 1));
        }
    }
    None
}

/// Checks every accessor of `value` against `expected`.
fn check_value(value: &HeapValue<'_>, expected: &BigUint) {
    let limbs = expected.to_u64_digits();
    assert_eq!(value.bit_length(), expected.bits(), "bit length");
    assert_eq!(value.is_one(), *expected == BigUint::from(1u8));
    assert_eq!(value.to_limbs(), limbs, "to_limbs");
    let count = limbs.len() as u64;
    let expected_limb = |i: u64| limbs.get(i as usize).copied().unwrap_or(0);
    for i in 0..count + 2 {
        assert_eq!(value.limb(i), expected_limb(i), "limb {i}");
    }
    for position in [
        0,
        1,
        63,
        64,
        65,
        expected.bits().saturating_sub(1),
        expected.bits(),
    ] {
        assert_eq!(
            value.bit(position),
            expected.bit(position),
            "bit {position}"
        );
    }
    for first in 0..count + 2 {
        for width in [1, 2, 3, 5, count as usize + 2] {
            let pattern: Vec<u64> = (0..width as u64)
                .map(|j| 0xa5a5_5a5a_0f0f_f0f0 ^ j.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect();
            let mut window = pattern.clone();
            value.xor_window(first, &mut window);
            for (j, (&got, &was)) in window.iter().zip(&pattern).enumerate() {
                let want = was ^ expected_limb(first + j as u64);
                assert_eq!(got, want, "xor_window({first}, width {width}) slot {j}");
            }
            // XOR is its own inverse: a second pass restores the pattern.
            value.xor_window(first, &mut window);
            assert_eq!(window, pattern, "xor_window twice");
        }
    }
}
