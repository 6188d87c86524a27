//! Writing heaps in every input format: one encoder per format, shared by
//! `gen` and `convert`.
//!
//! An encoder reads its heap through [`Magnitude`], limb by limb, so a heap
//! that was scanned from a file (a [`HeapValue`] borrowing the input) is
//! written without first being copied into limbs. The exception is `dec`,
//! whose digits depend on the whole value: heaps of more than 128 bits go
//! through num-bigint.
//!
//! Output conventions: the text formats write one heap per line, ending in
//! LF; `bits` and `hex` write no leading zeros and `0` for zero; `hex` is
//! lowercase without a prefix; `nimb` writes its header once
//! ([`write_header`]) and then records without high zero bytes.

use crate::input::{Format, HeapValue, NIMB_HEADER};
use crate::output::limb_binary_digits;
use num_bigint::BigUint;
use std::fmt;
use std::io::{self, Write};

/// The largest heap written as `unary` (one byte per token, so 1 TiB a line).
pub(crate) const UNARY_MAX: u64 = 1 << 40;

/// A non-negative integer read 64 bits at a time, least significant first.
pub trait Magnitude {
    /// The number of bits in the value (0 for zero).
    fn bit_length(&self) -> u64;
    /// Limb `index` (bits `64·index .. 64·index + 64`); 0 past the end.
    fn limb(&self, index: u64) -> u64;
}

impl Magnitude for HeapValue<'_> {
    fn bit_length(&self) -> u64 {
        HeapValue::bit_length(self)
    }

    fn limb(&self, index: u64) -> u64 {
        HeapValue::limb(self, index)
    }
}

/// Little-endian limbs; high zero limbs are allowed.
impl Magnitude for [u64] {
    fn bit_length(&self) -> u64 {
        crate::nimsum::bit_length(self)
    }

    fn limb(&self, index: u64) -> u64 {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.get(i).copied())
            .unwrap_or(0)
    }
}

/// Little-endian bytes (a Python `int.to_bytes(n, "little")`); high zero
/// bytes are allowed.
///
/// ```
/// use nimstream::workbench::encode::write_heap;
/// use nimstream::Format;
///
/// let mut out = Vec::new();
/// write_heap(Format::Hex, &[0x34u8, 0x12, 0][..], &mut out)?;
/// assert_eq!(out, b"1234\n");
/// # Ok::<(), nimstream::workbench::encode::EncodeError>(())
/// ```
impl Magnitude for [u8] {
    fn bit_length(&self) -> u64 {
        match self.iter().rposition(|&byte| byte != 0) {
            Some(top) => 8 * top as u64 + u64::from(8 - self[top].leading_zeros()),
            None => 0,
        }
    }

    fn limb(&self, index: u64) -> u64 {
        let start = usize::try_from(index.saturating_mul(8)).unwrap_or(usize::MAX);
        let mut bytes = [0u8; 8];
        if let Some(rest) = self.get(start..) {
            let n = rest.len().min(8);
            bytes[..n].copy_from_slice(&rest[..n]);
        }
        u64::from_le_bytes(bytes)
    }
}

/// Why a heap could not be written.
#[derive(Debug)]
pub enum EncodeError {
    /// The writer failed.
    Io(io::Error),
    /// The heap does not fit the target format.
    TooLarge {
        /// The heap's bit length.
        bit_length: u64,
        /// The target format.
        format: Format,
    },
}

impl From<io::Error> for EncodeError {
    fn from(error: io::Error) -> Self {
        EncodeError::Io(error)
    }
}

impl fmt::Display for EncodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncodeError::Io(error) => write!(f, "{error}"),
            EncodeError::TooLarge { bit_length, format } => write!(
                f,
                "a value of {bit_length} bits does not fit {format} (at most {})",
                capacity_phrase(*format)
            ),
        }
    }
}

impl std::error::Error for EncodeError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            EncodeError::Io(error) => Some(error),
            EncodeError::TooLarge { .. } => None,
        }
    }
}

/// What the largest value of a bounded format is, in words.
fn capacity_phrase(format: Format) -> String {
    match format.raw_width() {
        Some(width) => format!("{} bits", 8 * width),
        None => format!("2^40 = {UNARY_MAX}"),
    }
}

/// The largest bit length `format` can hold for every value of that length
/// (`None`: unbounded). `unary` holds values up to [`UNARY_MAX`], so 40 bits.
pub(crate) fn max_bit_length(format: Format) -> Option<u64> {
    match format {
        Format::Unary => Some(u64::from(UNARY_MAX.trailing_zeros())),
        other => other.raw_width().map(|width| 8 * width as u64),
    }
}

/// Checks that `format` can hold `value` (every format but `unary` and the
/// raw arrays holds any value).
pub(crate) fn check_fits<V: Magnitude + ?Sized>(
    format: Format,
    value: &V,
) -> Result<(), EncodeError> {
    let bit_length = value.bit_length();
    let fits = match format {
        Format::Unary => bit_length <= 64 && value.limb(0) <= UNARY_MAX,
        other => max_bit_length(other).is_none_or(|limit| bit_length <= limit),
    };
    if fits {
        Ok(())
    } else {
        Err(EncodeError::TooLarge { bit_length, format })
    }
}

/// Writes what precedes the first heap: the header of `nimb`, else nothing.
pub fn write_header(format: Format, out: &mut impl Write) -> io::Result<()> {
    match format {
        Format::Nimb => out.write_all(&NIMB_HEADER),
        _ => Ok(()),
    }
}

/// Writes one heap in `format`: after [`write_header`], heaps written one
/// after another make an instance.
///
/// ```
/// use nimstream::workbench::encode::{write_header, write_heap};
/// use nimstream::Format;
///
/// let mut out = Vec::new();
/// write_header(Format::Nimb, &mut out)?;
/// for heap in [3u64, 4, 5] {
///     write_heap(Format::Nimb, &[heap][..], &mut out)?;
/// }
/// assert_eq!(out, b"NIMB\x01\0\0\0\x01\x03\x01\x04\x01\x05");
/// # Ok::<(), nimstream::workbench::encode::EncodeError>(())
/// ```
pub fn write_heap<V, W>(format: Format, value: &V, out: &mut W) -> Result<(), EncodeError>
where
    V: Magnitude + ?Sized,
    W: Write,
{
    match format {
        Format::Bits => write_bits(value, out)?,
        Format::Hex => write_hex(value, out)?,
        Format::Dec => write_dec(value, out)?,
        Format::Unary => write_unary(value, out)?,
        Format::Nimb => write_nimb_record(value, out)?,
        raw => write_raw(value, raw, out)?,
    }
    Ok(())
}

/// Writes `bits` text: binary digits, most significant first, then LF.
/// This is also the form of `--nim-sum-out` files.
pub(crate) fn write_bits<V, W>(value: &V, out: &mut W) -> io::Result<()>
where
    V: Magnitude + ?Sized,
    W: Write,
{
    let bit_length = value.bit_length();
    if bit_length == 0 {
        return out.write_all(b"0\n");
    }
    let top = (bit_length - 1) / 64;
    let top_digits = limb_binary_digits(value.limb(top));
    out.write_all(&top_digits[(64 * (top + 1) - bit_length) as usize..])?;
    for index in (0..top).rev() {
        out.write_all(&limb_binary_digits(value.limb(index)))?;
    }
    out.write_all(b"\n")
}

/// Writes `hex` text: lowercase digits without prefix, then LF.
fn write_hex<V, W>(value: &V, out: &mut W) -> io::Result<()>
where
    V: Magnitude + ?Sized,
    W: Write,
{
    let limbs = value.bit_length().div_ceil(64);
    if limbs == 0 {
        return out.write_all(b"0\n");
    }
    write!(out, "{:x}", value.limb(limbs - 1))?;
    for index in (0..limbs - 1).rev() {
        write!(out, "{:016x}", value.limb(index))?;
    }
    out.write_all(b"\n")
}

/// Writes `dec` text: decimal digits, then LF.
fn write_dec<V, W>(value: &V, out: &mut W) -> io::Result<()>
where
    V: Magnitude + ?Sized,
    W: Write,
{
    let limbs = value.bit_length().div_ceil(64);
    if limbs <= 2 {
        let word = u128::from(value.limb(0)) | u128::from(value.limb(1)) << 64;
        return writeln!(out, "{word}");
    }
    writeln!(out, "{}", to_biguint(value, limbs))
}

/// The low `limbs` limbs of `value` as a num-bigint number.
fn to_biguint<V: Magnitude + ?Sized>(value: &V, limbs: u64) -> BigUint {
    let digits = (0..limbs)
        .flat_map(|index| {
            let limb = value.limb(index);
            [limb as u32, (limb >> 32) as u32]
        })
        .collect();
    BigUint::new(digits)
}

/// Writes a `unary` line: as many `1` bytes as the value, then LF.
/// Values above [`UNARY_MAX`] are refused.
fn write_unary<V, W>(value: &V, out: &mut W) -> Result<(), EncodeError>
where
    V: Magnitude + ?Sized,
    W: Write,
{
    const ONES: [u8; 4096] = [b'1'; 4096];
    check_fits(Format::Unary, value)?;
    let mut left = value.limb(0);
    while left > 0 {
        let chunk = left.min(ONES.len() as u64);
        out.write_all(&ONES[..chunk as usize])?;
        left -= chunk;
    }
    out.write_all(b"\n")?;
    Ok(())
}

/// Writes one element of a raw little-endian array of `format`'s width.
fn write_raw<V, W>(value: &V, format: Format, out: &mut W) -> Result<(), EncodeError>
where
    V: Magnitude + ?Sized,
    W: Write,
{
    let width = format
        .raw_width()
        .expect("write_raw is called with a raw array format");
    check_fits(format, value)?;
    out.write_all(&value.limb(0).to_le_bytes()[..width])?;
    Ok(())
}

/// Writes a `nimb` record: the LEB128 byte count, then the little-endian
/// magnitude without high zero bytes (zero is the empty record `00`).
fn write_nimb_record<V, W>(value: &V, out: &mut W) -> io::Result<()>
where
    V: Magnitude + ?Sized,
    W: Write,
{
    let byte_count = value.bit_length().div_ceil(8);
    write_leb128(byte_count, out)?;
    let full_limbs = byte_count / 8;
    for index in 0..full_limbs {
        out.write_all(&value.limb(index).to_le_bytes())?;
    }
    let tail = (byte_count % 8) as usize;
    out.write_all(&value.limb(full_limbs).to_le_bytes()[..tail])
}

/// The bytes of the `nimb` record of a heap of `bit_length` bits: its
/// LEB128 byte count, then the bytes.
pub fn nimb_record_bytes(bit_length: u64) -> u64 {
    let bytes = bit_length.div_ceil(8);
    let count_bytes = (64 - u64::from(bytes.leading_zeros())).div_ceil(7).max(1);
    count_bytes + bytes
}

/// Writes `number` as unsigned LEB128: 7 bits a byte, low first, the high
/// bit set on every byte but the last. Public for writers of `nimb`
/// records whose magnitude bytes come from elsewhere (the Python package
/// repacks an int's digits straight into its record).
pub fn write_leb128(mut number: u64, out: &mut impl Write) -> io::Result<()> {
    let mut bytes = [0u8; 10];
    let mut len = 0;
    loop {
        let low = (number & 0x7f) as u8;
        number >>= 7;
        if number == 0 {
            bytes[len] = low;
            len += 1;
            return out.write_all(&bytes[..len]);
        }
        bytes[len] = low | 0x80;
        len += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{HeapScanner, Scanner};

    /// Encodes `limbs` as one heap of `format`, header included.
    fn encode(format: Format, limbs: &[u64]) -> Vec<u8> {
        let mut out = Vec::new();
        write_header(format, &mut out).unwrap();
        write_heap(format, limbs, &mut out).unwrap();
        out
    }

    /// Scans `data` back into limbs, one vector per heap.
    fn decode(format: Format, data: &[u8]) -> Vec<Vec<u64>> {
        let mut scanner = Scanner::new(format, data, 0);
        let mut heaps = Vec::new();
        while let Some(heap) = scanner.next_heap().unwrap() {
            heaps.push(heap.value.to_limbs());
        }
        heaps
    }

    fn trimmed(limbs: &[u64]) -> Vec<u64> {
        crate::input::trimmed(limbs.to_vec())
    }

    #[test]
    fn small_values_look_as_the_spec_says() {
        assert_eq!(encode(Format::Bits, &[5]), b"101\n");
        assert_eq!(encode(Format::Bits, &[0, 0]), b"0\n");
        assert_eq!(encode(Format::Hex, &[0xab]), b"ab\n");
        assert_eq!(encode(Format::Hex, &[]), b"0\n");
        assert_eq!(encode(Format::Dec, &[345]), b"345\n");
        assert_eq!(encode(Format::Unary, &[3]), b"111\n");
        assert_eq!(encode(Format::Unary, &[0]), b"\n");
        assert_eq!(encode(Format::U16le, &[0x0102]), [2, 1]);
        assert_eq!(
            encode(Format::Nimb, &[0x0102]),
            b"NIMB\x01\0\0\0\x02\x02\x01"
        );
        assert_eq!(encode(Format::Nimb, &[0]), b"NIMB\x01\0\0\0\x00");
    }

    #[test]
    fn limbs_crossing_word_boundaries_are_written_in_full() {
        assert_eq!(
            encode(Format::Hex, &[1, 1]),
            b"10000000000000001\n".to_vec()
        );
        let bits = encode(Format::Bits, &[u64::MAX, 1]);
        assert_eq!(bits.len(), 66);
        assert!(bits[..65].iter().all(|&b| b == b'1'));
        let value = [u64::MAX, u64::MAX, 7];
        let expected = ((BigUint::from(7u8) << 128u32) + u128::MAX).to_string() + "\n";
        assert_eq!(encode(Format::Dec, &value), expected.as_bytes());
        let u128_max = u128::MAX.to_string() + "\n";
        assert_eq!(
            encode(Format::Dec, &[u64::MAX, u64::MAX]),
            u128_max.as_bytes()
        );
    }

    #[test]
    fn nimb_record_bytes_counts_what_write_heap_writes() {
        for bits in (0..300).chain([895, 896, 897, 131_064, 131_072, 131_080]) {
            let mut limbs = vec![0u64; (bits as usize).div_ceil(64).max(1)];
            if bits > 0 {
                limbs[(bits as usize - 1) / 64] |= 1 << ((bits - 1) % 64);
            }
            let mut out = Vec::new();
            write_heap(Format::Nimb, &limbs[..], &mut out).unwrap();
            assert_eq!(nimb_record_bytes(bits), out.len() as u64, "{bits} bits");
        }
    }

    #[test]
    fn leb128_lengths_use_continuation_bits() {
        let mut out = Vec::new();
        write_leb128(300, &mut out).unwrap();
        assert_eq!(out, [0xac, 0x02]);
        out.clear();
        write_leb128(u64::MAX, &mut out).unwrap();
        assert_eq!(out.len(), 10);
    }

    #[test]
    fn every_format_reads_back_what_it_wrote() {
        let values: [&[u64]; 6] = [&[0], &[1], &[255], &[u64::MAX], &[3, 1], &[0, 0, 1 << 63]];
        for format in Format::ALL {
            for value in values {
                let limit = max_bit_length(format).unwrap_or(u64::MAX);
                if value.bit_length() > limit {
                    continue;
                }
                let data = encode(format, value);
                assert_eq!(decode(format, &data), vec![trimmed(value)], "{format}");
            }
        }
    }

    #[test]
    fn values_too_wide_for_the_format_are_refused() {
        let error = write_heap(Format::U8, &[256u64][..], &mut Vec::new()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "a value of 9 bits does not fit u8 (at most 8 bits)"
        );
        let huge = [UNARY_MAX + 1];
        assert!(matches!(
            write_heap(Format::Unary, &huge[..], &mut Vec::new()),
            Err(EncodeError::TooLarge { .. })
        ));
        assert!(write_heap(Format::U64le, &[u64::MAX, 0][..], &mut Vec::new()).is_ok());
    }

    #[test]
    fn scanned_heaps_are_encoded_without_copying() {
        let data = b"0x1F 0 ffffffffffffffffff\n";
        let mut scanner = Scanner::new(Format::Hex, data, 0);
        let mut out = Vec::new();
        while let Some(heap) = scanner.next_heap().unwrap() {
            write_heap(Format::Dec, &heap.value, &mut out).unwrap();
        }
        let big = BigUint::parse_bytes(b"ffffffffffffffffff", 16).unwrap();
        assert_eq!(out, format!("31\n0\n{big}\n").into_bytes());
    }
}
