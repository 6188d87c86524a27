//! `nimb`: the header `NIMB 01 00 00 00`, then records until the end of the
//! file, each an unsigned LEB128 byte count followed by that many bytes of
//! little-endian magnitude (high zero bytes allowed).

use crate::error::ParseError;
use crate::input::format::NIMB_HEADER;
use crate::input::heap::{Heap, HeapValue};
use crate::input::scanner::HeapScanner;

/// The longest LEB128 encoding of a `u64`.
const MAX_PREFIX_BYTES: usize = 10;

/// Yields the records of a `nimb` slice.
pub struct NimbScanner<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    header_checked: bool,
}

impl<'a> NimbScanner<'a> {
    /// A scanner over `data` whose first byte is at offset `base`; at offset
    /// 0 the slice starts with the header.
    pub fn new(data: &'a [u8], base: u64) -> Self {
        NimbScanner {
            data,
            pos: 0,
            base,
            header_checked: base != 0,
        }
    }

    fn check_header(&mut self) -> Result<(), ParseError> {
        check_header(self.data)?;
        self.pos = NIMB_HEADER.len();
        self.header_checked = true;
        Ok(())
    }
}

/// Checks the eight header bytes at the start of `data`.
fn check_header(data: &[u8]) -> Result<(), ParseError> {
    let wrong = NIMB_HEADER
        .iter()
        .zip(data)
        .position(|(want, got)| want != got);
    match wrong {
        Some(at) => Err(ParseError::new(
            at as u64,
            format!(
                "bad nimb header: expected byte 0x{:02x}, found 0x{:02x} \
                 (a nimb file starts with NIMB 01 00 00 00)",
                NIMB_HEADER[at], data[at]
            ),
        )),
        None if data.len() < NIMB_HEADER.len() => Err(ParseError::new(
            data.len() as u64,
            format!(
                "the nimb header is cut short after {} of 8 bytes; \
                 expected NIMB 01 00 00 00",
                data.len()
            ),
        )),
        None => Ok(()),
    }
}

/// A record's length prefix: its byte count and the prefix's own length,
/// or why it is invalid. `Ok(None)`: the data ends inside the prefix.
fn read_prefix(data: &[u8]) -> Result<Option<(u64, usize)>, &'static str> {
    let mut value = 0u64;
    for (i, &byte) in data.iter().enumerate().take(MAX_PREFIX_BYTES) {
        let payload = u64::from(byte & 0x7f);
        if i == MAX_PREFIX_BYTES - 1 && (byte & 0x80 != 0) {
            return Err("the length prefix is longer than 10 bytes");
        }
        if i == MAX_PREFIX_BYTES - 1 && payload > 1 {
            return Err("the length prefix is above 2^64 - 1");
        }
        value |= payload << (7 * i);
        if byte & 0x80 == 0 {
            return Ok(Some((value, i + 1)));
        }
    }
    Ok(None)
}

/// The end of the record starting at `start` (its prefix included), or why
/// it is invalid, with the error at the record's first byte.
fn record_end(data: &[u8], start: usize, base: u64) -> Result<(usize, usize), ParseError> {
    let at_start = |message: String| ParseError::new(base + start as u64, message);
    let (count, prefix_len) = match read_prefix(&data[start..]) {
        Ok(Some(prefix)) => prefix,
        Ok(None) => {
            return Err(at_start(
                "the record's length prefix is cut short by the end of the file".into(),
            ))
        }
        Err(why) => return Err(at_start(format!("invalid record: {why}"))),
    };
    let body = start + prefix_len;
    let available = (data.len() - body) as u64;
    if count > available {
        return Err(at_start(format!(
            "the record is cut short: its prefix announces {count} bytes, \
             but only {available} remain"
        )));
    }
    Ok((body, body + count as usize))
}

/// The longest prefix of `buffer` made of whole records (and the header,
/// when `at_start`).
pub fn complete_prefix(buffer: &[u8], at_start: bool) -> usize {
    let mut pos = if at_start {
        if buffer.len() < NIMB_HEADER.len() {
            return 0;
        }
        NIMB_HEADER.len()
    } else {
        0
    };
    while pos < buffer.len() {
        match record_end(buffer, pos, 0) {
            Ok((_, end)) => pos = end,
            Err(_) => break,
        }
    }
    pos
}

impl<'a> HeapScanner<'a> for NimbScanner<'a> {
    fn consumed(&self) -> usize {
        self.pos
    }

    // Inlined into each pass's loop, so that the heap is built in
    // registers where the fold takes it (returned through memory, it is
    // written field by field and read back whole, which stalls the loop).
    #[inline(always)]
    fn next_heap(&mut self) -> Result<Option<Heap<'a>>, ParseError> {
        if !self.header_checked {
            self.check_header()?;
        }
        let start = self.pos;
        if start == self.data.len() {
            return Ok(None);
        }
        let (body, end) = record_end(self.data, start, self.base)?;
        self.pos = end;
        let significant = self.data[body..end]
            .iter()
            .rposition(|&b| b != 0)
            .map_or(0, |top| top + 1);
        Ok(Some(Heap {
            offset: self.base + start as u64,
            value: HeapValue::LeBytes(&self.data[body..body + significant]),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nimb(records: &[u8]) -> Vec<u8> {
        let mut data = NIMB_HEADER.to_vec();
        data.extend_from_slice(records);
        data
    }

    fn scan(data: &[u8]) -> Result<Vec<(u64, Vec<u8>)>, ParseError> {
        let mut scanner = NimbScanner::new(data, 0);
        let mut out = Vec::new();
        while let Some(heap) = scanner.next_heap()? {
            let HeapValue::LeBytes(bytes) = heap.value else {
                unreachable!("nimb yields little-endian bytes")
            };
            out.push((heap.offset, bytes.to_vec()));
        }
        Ok(out)
    }

    #[test]
    fn records_trim_high_zero_bytes() {
        let found = scan(&nimb(&[2, 5, 0, 0, 1, 0x80])).unwrap();
        assert_eq!(
            found,
            vec![(8, vec![5]), (11, vec![]), (12, vec![0x80])]
                .into_iter()
                .collect::<Vec<_>>()
        );
    }

    #[test]
    fn header_errors_point_at_the_first_wrong_byte() {
        assert_eq!(scan(b"NIMX\x01\0\0\0").unwrap_err().offset, 3);
        assert_eq!(scan(b"NIMB\x02\0\0\0").unwrap_err().offset, 4);
        assert_eq!(scan(b"NIM").unwrap_err().offset, 3);
        assert_eq!(scan(b"").unwrap_err().offset, 0);
    }

    #[test]
    fn cut_or_oversized_prefixes_fail_at_the_record() {
        assert_eq!(scan(&nimb(&[3, 1, 2])).unwrap_err().offset, 8);
        assert_eq!(scan(&nimb(&[0, 0x80])).unwrap_err().offset, 9);
        let eleven = [0x80; 10].iter().chain(&[0]).copied().collect::<Vec<_>>();
        assert_eq!(scan(&nimb(&eleven)).unwrap_err().offset, 8);
        let too_big = [0xff; 9].iter().chain(&[0x02]).copied().collect::<Vec<_>>();
        assert_eq!(scan(&nimb(&too_big)).unwrap_err().offset, 8);
    }

    #[test]
    fn a_ten_byte_prefix_of_u64_max_is_a_length_not_an_error_of_form() {
        let max = [0xff; 9].iter().chain(&[0x01]).copied().collect::<Vec<_>>();
        assert_eq!(read_prefix(&max), Ok(Some((u64::MAX, 10))));
        let error = scan(&nimb(&max)).unwrap_err();
        assert!(error.message.contains("cut short"), "{}", error.message);
    }

    #[test]
    fn complete_prefix_keeps_whole_records() {
        let data = nimb(&[1, 7, 2, 1]);
        assert_eq!(complete_prefix(&data, true), 10);
        assert_eq!(complete_prefix(&[1, 7, 2, 1], false), 2);
        assert_eq!(complete_prefix(b"NIM", true), 0);
    }
}
