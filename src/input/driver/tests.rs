//! The driver held against the plain scanner: every source (bytes in
//! memory, positioned reads of a file with tiny buffers, the file's map, a
//! stream that trickles a few bytes a read), on one range or several,
//! must hand a fold the heaps the scanner finds over the whole input, with
//! the same indices, offsets and values, the same lines on a stream, and
//! the same error.

use super::fold::{each_word, narrow_runs, At, Fold, Needs};
use super::pass::Reads;
use super::ranges;
use super::reread::heap_at;
use super::run::run;
use crate::error::Error;
use crate::input::blocks::WordBlock;
use crate::input::format::Format;
use crate::input::formats::any::Scanner;
use crate::input::heap::{Heap, HeapValue};
use crate::input::lines::line_and_column;
use crate::input::long::from_end::SummedHeap;
use crate::input::scanner::HeapScanner;
use crate::input::source::Input;
use crate::input::source::RandomAccess;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};

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
        release_bytes: 8,
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
    driven_counting(input, format, reads).map(|(seen, _)| seen)
}

/// [`driven`], with the bytes the pass says it read.
fn driven_counting(
    input: &mut Input<'_>,
    format: Format,
    reads: &Reads,
) -> Result<(Seen, u64), u64> {
    match run(input, format, reads, Record::default) {
        Ok(folded) => Ok((folded.fold.0, folded.bytes_read)),
        Err(Error::Input { offset, .. }) => Err(offset),
        Err(other) => panic!("{other}"),
    }
}

/// A random instance with long heaps, odd separators and now and then a
/// bad byte.
fn instance(rng: &mut ChaCha8Rng, format: Format) -> Vec<u8> {
    let max_bits = format.raw_width().map_or(400, |w| 8 * w as u32);
    let max_bits = if format == Format::Unary {
        10
    } else {
        max_bits
    };
    let heaps = rng.random_range(0..30);
    instance_of(rng, format, heaps, max_bits)
}

/// A random instance of `heaps` heaps of up to `max_bits` bits, with odd
/// separators and now and then a bad byte.
fn instance_of(rng: &mut ChaCha8Rng, format: Format, heaps: usize, max_bits: u32) -> Vec<u8> {
    let mut out = Vec::new();
    crate::workbench::encode::write_header(format, &mut out).unwrap();
    for _ in 0..heaps {
        let bits = rng.random_range(0..=max_bits);
        let mut limbs: Vec<u64> = (0..bits.div_ceil(64)).map(|_| rng.random()).collect();
        if let Some(top) = limbs.last_mut() {
            *top >>= (64 - bits % 64) % 64;
        }
        let value = HeapValue::Limbs(crate::input::heap::trimmed(limbs));
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
                let from_file = driven_counting(&mut input, format, &tiny(ranges, in_place));
                // Each byte is counted once, however it was read (into a
                // buffer, in place, from a range's end).
                let read = from_file.as_ref().map(|(_, read)| *read);
                assert!(
                    read.is_err() || read == Ok(data.len() as u64),
                    "{read:?} of {}, {map} {in_place}: {context}",
                    data.len()
                );
                let from_file = from_file.map(|(seen, _)| seen);
                assert_eq!(from_file, without_lines, "file {map} {in_place} {context}");
            }
            let mut stream = Input::stream(Box::new(Trickle(&data, 0)), "t");
            let streamed = driven(&mut stream, format, &tiny(1, false));
            assert_eq!(streamed, expected, "stream {context}");
        }
    }
}

/// Records every heap as [`Record`] does, taking the short ones in blocks
/// (each heap of a block handed to [`Fold::heap`] by [`each_word`]), a
/// block with heaps wider than 64 bits by [`narrow_runs`], each run
/// checked to be narrow and counted in [`NARROW_RUNS`].
#[derive(Default)]
struct InBlocks(Record);

/// The runs [`narrow_runs`] handed an [`InBlocks`] as blocks.
static NARROW_RUNS: AtomicUsize = AtomicUsize::new(0);

impl Fold for InBlocks {
    fn heap(&mut self, index: u64, heap: &Heap<'_>, at: &mut At<'_>) -> Result<(), Error> {
        self.0.heap(index, heap, at)
    }

    fn words(&mut self, block: WordBlock<'_>, at: &mut At<'_>) -> Result<(), Error> {
        if block.high_or == 0 {
            return each_word(self, block, at);
        }
        narrow_runs(self, block, at, |fold, run, at| {
            assert!((0..run.len()).all(|i| run.value(i) >> 64 == 0));
            assert_eq!(run.high_or, 0);
            NARROW_RUNS.fetch_add(1, Ordering::Relaxed);
            each_word(fold, run, at)
        })
    }

    fn needs(&self) -> Needs {
        Needs::WORDS
    }

    fn merge(&mut self, later: InBlocks, heaps_before: u64) -> Result<(), Error> {
        self.0.merge(later.0, heaps_before)
    }
}

/// Reads of 1 KiB: long enough for runs of blocks.
fn roomy(ranges: usize, heaps_in_place: bool) -> Reads {
    Reads {
        read_bytes: 1 << 10,
        release_bytes: 1 << 12,
        max_buffered_heap_bytes: 1 << 10,
        stream_chunk_bytes: 1 << 10,
        ..tiny(ranges, heaps_in_place)
    }
}

#[test]
fn every_source_hands_a_fold_that_takes_blocks_the_heaps_the_scanner_finds() {
    let mut rng = ChaCha8Rng::seed_from_u64(24);
    for format in [Format::Bits, Format::Hex, Format::Dec, Format::Unary] {
        for round in 0..24 {
            // Mostly short heaps, a long one now and then (and `hex` of
            // up to 128 bits, which its wide runs take).
            let max_bits = match format {
                Format::Unary => [6, 8, 10, 12][round % 4],
                Format::Hex => [70, 128, 70, 400][round % 4],
                _ => [70, 70, 70, 400][round % 4],
            };
            let data = instance_of(&mut rng, format, 300, max_bits);
            let expected = scanned(&data, format);
            let without_lines = expected.clone().map(|seen| {
                seen.into_iter()
                    .map(|(i, o, v, _)| (i, o, v, None))
                    .collect::<Seen>()
            });
            let context = format!("{format:?} round {round}");
            let driven = |input: &mut Input<'_>, reads: &Reads| match run(
                input,
                format,
                reads,
                InBlocks::default,
            ) {
                Ok(folded) => Ok(folded.fold.0 .0),
                Err(Error::Input { offset, .. }) => Err(offset),
                Err(other) => panic!("{other}"),
            };
            let mut file = tempfile::NamedTempFile::new().unwrap();
            file.write_all(&data).unwrap();
            for reads in [tiny, roomy] {
                let ranges = 1 + round % 4;
                let memory = driven(&mut Input::memory(&data[..], "t"), &reads(ranges, true));
                assert_eq!(memory, without_lines, "memory {context}");
                for (map, in_place) in [(false, false), (true, false), (true, true)] {
                    let mut input = Input::open(file.path(), "t", map).unwrap();
                    let from_file = driven(&mut input, &reads(ranges, in_place));
                    assert_eq!(from_file, without_lines, "file {map} {in_place} {context}");
                }
                let mut stream = Input::stream(Box::new(&data[..]), "t");
                let streamed = driven(&mut stream, &reads(1, false));
                assert_eq!(streamed, expected, "stream {context}");
            }
        }
    }
    assert!(
        NARROW_RUNS.load(Ordering::Relaxed) > 0,
        "no block came in narrow runs"
    );
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

/// What a fold that sums tokens from their end was handed: each heap's
/// index, offset and bit length, and the top limbs of the summed ones.
type Summed = Vec<(u64, u64, u64, Option<[u64; 4]>)>;

/// Sums tokens read from their end into `shared`, the other heaps into
/// its own sum, and records every heap.
struct SumFromEnd<'s> {
    shared: &'s std::sync::Mutex<Vec<u64>>,
    own: Vec<u64>,
    seen: Summed,
}

impl Fold for SumFromEnd<'_> {
    fn heap(&mut self, index: u64, heap: &Heap<'_>, _: &mut At<'_>) -> Result<(), Error> {
        crate::nimsum::xor_keeping_longer(&mut self.own, heap.value.to_limbs());
        let bits = heap.value.bit_length();
        self.seen.push((index, heap.offset, bits, None));
        Ok(())
    }

    fn needs(&self) -> Needs {
        Needs {
            sums_from_end: Some(u64::MAX),
            ..Needs::NOTHING
        }
    }

    fn xor_limbs(&self, first: u64, limbs: &[u64]) {
        crate::nimsum::xor_at(&mut self.shared.lock().unwrap(), first as usize, limbs);
    }

    fn summed_heap(&mut self, index: u64, heap: &SummedHeap) -> Result<(), Error> {
        let limbs = heap.bits.div_ceil(64);
        let top = std::array::from_fn(|t| match (limbs + t as u64).checked_sub(4) {
            Some(j) => heap.top_limb(j),
            None => 0,
        });
        self.seen.push((index, heap.offset, heap.bits, Some(top)));
        Ok(())
    }

    fn merge(&mut self, later: Self, heaps_before: u64) -> Result<(), Error> {
        crate::nimsum::xor_keeping_longer(&mut self.own, later.own);
        let shifted = later
            .seen
            .into_iter()
            .map(|(i, o, b, t)| (i + heaps_before, o, b, t));
        self.seen.extend(shifted);
        Ok(())
    }
}

/// `bits` or `hex` text of long tokens (every length modulo a limb's
/// digits, leading zeros, `0x` now and then) among short ones, and now and
/// then a bad byte.
fn long_tokens(rng: &mut ChaCha8Rng, format: Format) -> Vec<u8> {
    let alphabet: &[u8] = match format {
        Format::Hex => b"0123456789abcdefABCDEF",
        _ => b"01",
    };
    let mut out = Vec::new();
    for _ in 0..rng.random_range(1..10) {
        if format == Format::Hex && rng.random_bool(0.3) {
            out.extend_from_slice(if rng.random_bool(0.5) { b"0x" } else { b"0X" });
        }
        let zeros = [0, 0, 1, 5, 64, 130][rng.random_range(0..6)];
        out.extend(std::iter::repeat_n(b'0', zeros));
        let len = match rng.random_range(0..3) {
            0 => rng.random_range(1..70),
            _ => rng.random_range(60..700),
        };
        out.extend((0..len).map(|_| alphabet[rng.random_range(0..alphabet.len())]));
        out.extend_from_slice(&b" \n\r\t  "[..rng.random_range(1..6)]);
    }
    if rng.random_bool(0.1) {
        let at = rng.random_range(0..out.len());
        out[at] = [b'x', b'2', b'g', 0x0c][rng.random_range(0..4)];
    }
    out
}

/// The XOR of every heap the scanner finds, as little-endian limbs.
fn xor_of_heaps(seen: &Seen) -> num_bigint::BigUint {
    seen.iter()
        .fold(num_bigint::BigUint::default(), |sum, (_, _, limbs, _)| {
            sum ^ num_bigint::BigUint::from_slice(
                &limbs
                    .iter()
                    .flat_map(|&l| [l as u32, (l >> 32) as u32])
                    .collect::<Vec<_>>(),
            )
        })
}

#[test]
fn tokens_read_from_their_end_sum_to_the_xor_of_the_heaps() {
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    let mut summed_any = 0;
    for format in [Format::Bits, Format::Hex] {
        for round in 0..150 {
            let data = long_tokens(&mut rng, format);
            let expected = scanned(&data, format);
            let mut file = tempfile::NamedTempFile::new().unwrap();
            file.write_all(&data).unwrap();
            let ranges = 1 + round % 4;
            let map = round % 3 == 0;
            let mut input = Input::open(file.path(), "t", map).unwrap();
            let shared = std::sync::Mutex::new(Vec::new());
            let make = || SumFromEnd {
                shared: &shared,
                own: Vec::new(),
                seen: Vec::new(),
            };
            let context = format!("{format:?} {ranges} {:?}", String::from_utf8_lossy(&data));
            let folded = run(&mut input, format, &tiny(ranges, false), make);
            let (expected, folded) = match (expected, folded) {
                (Ok(expected), Ok(folded)) => (expected, folded.fold),
                (Err(offset), Err(Error::Input { offset: got, .. })) => {
                    assert_eq!(got, offset, "{context}");
                    continue;
                }
                (expected, folded) => panic!("{expected:?} {:?}: {context}", folded.err()),
            };
            let places: Vec<_> = expected
                .iter()
                .map(|(i, o, v, _)| (*i, *o, v.len()))
                .collect();
            let found: Vec<_> = folded
                .seen
                .iter()
                .map(|(i, o, b, _)| (*i, *o, b.div_ceil(64) as usize))
                .collect();
            assert_eq!(found, places, "{context}");
            for ((_, _, value, _), (_, _, bits, top)) in expected.iter().zip(&folded.seen) {
                let Some(top) = top else { continue };
                summed_any += 1;
                let mut padded = vec![0; 4];
                padded.extend_from_slice(value);
                assert_eq!(top[..], padded[padded.len() - 4..], "{bits} {context}");
            }
            let mut sum = std::mem::take(&mut *shared.lock().unwrap());
            crate::nimsum::xor_keeping_longer(&mut sum, folded.own);
            let got = num_bigint::BigUint::from_slice(
                &sum.iter()
                    .flat_map(|&l| [l as u32, (l >> 32) as u32])
                    .collect::<Vec<_>>(),
            );
            assert_eq!(got, xor_of_heaps(&expected), "{context}");
        }
    }
    assert!(summed_any > 200, "{summed_any} tokens read from their end");
}
