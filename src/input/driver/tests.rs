//! The driver held against the plain scanner: every source (bytes in
//! memory, positioned reads of a file with tiny buffers, the file's map, a
//! stream that trickles a few bytes a read), on one range or several,
//! must hand a fold the heaps the scanner finds over the whole input, with
//! the same indices, offsets and values, the same lines on a stream, and
//! the same error.

use super::*;
use crate::input::lines::line_and_column;
use crate::input::source::Input;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::{Read, Write};

/// What a fold was handed: index, offset, value and (on a stream) line.
type Seen = Vec<(u64, u64, Vec<u64>, Option<u64>)>;

/// Records every heap.
#[derive(Default)]
struct Record(Seen);

impl Fold for Record {
    fn heap(&mut self, index: u64, heap: &Heap<'_>, at: &mut At<'_>) -> Result<(), Error> {
        let line = at.line(heap.offset);
        self.0
            .push((index, heap.offset, heap.value.to_limbs(), line));
        Ok(())
    }

    fn merge(&mut self, later: Record, heaps_before: u64) -> Result<(), Error> {
        let shifted = later
            .0
            .into_iter()
            .map(|(i, o, v, l)| (i + heaps_before, o, v, l));
        self.0.extend(shifted);
        Ok(())
    }
}

/// A reader that hands out 1 to 3 bytes a read.
struct Trickle<'a>(&'a [u8], usize);

impl Read for Trickle<'_> {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        self.1 = self.1 % 3 + 1;
        let n = self.1.min(buffer.len()).min(self.0.len());
        buffer[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

/// Reads with tiny buffers on up to `ranges` ranges.
fn tiny(ranges: usize, heaps_in_place: bool) -> Reads {
    Reads {
        ranges,
        min_range_bytes: 1,
        read_bytes: 5,
        max_buffered_heap_bytes: 64,
        max_packed_bytes: usize::MAX,
        stream_chunk_bytes: 3,
        heaps_in_place,
    }
}

/// The scanner's heaps over the whole input, or its error's offset.
fn scanned(data: &[u8], format: Format) -> Result<Seen, u64> {
    let mut scanner = Scanner::new(format, data, 0);
    let mut seen = Vec::new();
    while let Some(heap) = scanner.next_heap().map_err(|e| e.offset)? {
        let line = format
            .is_text()
            .then(|| line_and_column(data, heap.offset as usize).0);
        seen.push((seen.len() as u64, heap.offset, heap.value.to_limbs(), line));
    }
    Ok(seen)
}

/// What the driver hands a fold from `input`, or its error's offset.
fn driven(input: &mut Input<'_>, format: Format, reads: &Reads) -> Result<Seen, u64> {
    match run(input, format, reads, Record::default) {
        Ok(folded) => Ok(folded.fold.0),
        Err(Error::Input { offset, .. }) => Err(offset),
        Err(other) => panic!("{other}"),
    }
}

/// A random instance with long heaps, odd separators and now and then a
/// bad byte.
fn instance(rng: &mut ChaCha8Rng, format: Format) -> Vec<u8> {
    let mut out = Vec::new();
    crate::workbench::encode::write_header(format, &mut out).unwrap();
    let max_bits = format.raw_width().map_or(400, |w| 8 * w as u32);
    let max_bits = if format == Format::Unary {
        10
    } else {
        max_bits
    };
    for _ in 0..rng.random_range(0..30) {
        let bits = rng.random_range(0..=max_bits);
        let mut limbs: Vec<u64> = (0..bits.div_ceil(64)).map(|_| rng.random()).collect();
        if let Some(top) = limbs.last_mut() {
            *top >>= (64 - bits % 64) % 64;
        }
        let value = HeapValue::Limbs(crate::input::trimmed(limbs));
        crate::workbench::encode::write_heap(format, &value, &mut out).unwrap();
        if format.is_text() && format != Format::Unary && rng.random_bool(0.3) {
            out.extend_from_slice(&b"  \r\n\t"[..rng.random_range(1..5)]);
        }
    }
    if !out.is_empty() && rng.random_bool(0.2) {
        let at = rng.random_range(0..out.len());
        out[at] = b'x';
    }
    out
}

#[test]
fn every_source_hands_over_the_heaps_the_scanner_finds() {
    let mut rng = ChaCha8Rng::seed_from_u64(21);
    for format in Format::ALL {
        for round in 0..40 {
            let data = instance(&mut rng, format);
            let expected = scanned(&data, format);
            let without_lines = expected.clone().map(|seen| {
                seen.into_iter()
                    .map(|(i, o, v, _)| (i, o, v, None))
                    .collect::<Seen>()
            });
            let context = format!("{format:?} {:?}", String::from_utf8_lossy(&data));
            let ranges = 1 + round % 4;
            let memory = driven(
                &mut Input::memory(&data[..], "t"),
                format,
                &tiny(ranges, true),
            );
            assert_eq!(memory, without_lines, "memory {context}");
            let mut file = tempfile::NamedTempFile::new().unwrap();
            file.write_all(&data).unwrap();
            for (map, in_place) in [(false, false), (true, false), (true, true)] {
                let mut input = Input::open(file.path(), "t", map).unwrap();
                let from_file = driven(&mut input, format, &tiny(ranges, in_place));
                assert_eq!(from_file, without_lines, "file {map} {in_place} {context}");
            }
            let mut stream = Input::stream(Box::new(Trickle(&data, 0)), "t");
            let streamed = driven(&mut stream, format, &tiny(1, false));
            assert_eq!(streamed, expected, "stream {context}");
        }
    }
}

#[test]
fn a_heap_read_again_is_the_heap_the_pass_found() {
    let mut rng = ChaCha8Rng::seed_from_u64(22);
    for format in Format::ALL {
        let data = loop {
            let data = instance(&mut rng, format);
            if scanned(&data, format).is_ok_and(|seen| seen.len() > 2) {
                break data;
            }
        };
        let heaps = scanned(&data, format).unwrap();
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(&data).unwrap();
        for map in [false, true] {
            let input = Input::open(file.path(), "t", map).unwrap();
            let memory = Input::memory(&data[..], "t");
            for (_, offset, value, _) in &heaps {
                for source in [&input, &memory] {
                    let read = heap_at(source, format, *offset, &tiny(1, true)).unwrap();
                    assert_eq!(
                        &read.heap.value.to_limbs(),
                        value,
                        "{format:?} {offset} {map}"
                    );
                }
            }
        }
    }
}

#[test]
fn ranges_start_after_a_separator() {
    let data = b"101 1 11111111111111111111111111111\n0 1 10 11 100".repeat(20);
    let source = RandomAccess::Memory(&data);
    for count in 1..8 {
        let whole = 0..data.len() as u64;
        let reads = tiny(count as usize, true);
        let ranges = ranges::split(source, Format::Bits, whole, count, &reads).unwrap();
        assert_eq!(ranges.first().map(|r| r.start), Some(0));
        assert_eq!(ranges.last().map(|r| r.end), Some(data.len() as u64));
        assert!(ranges.windows(2).all(|w| w[0].end == w[1].start));
        assert!(ranges
            .iter()
            .skip(1)
            .all(|r| data[r.start as usize - 1].is_ascii_whitespace()));
    }
}
