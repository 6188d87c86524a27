//! The initial pass cut every way: a file read with reads of a few bytes
//! on 1 to 4 threads (so that small inputs get many ranges, tokens read
//! in pieces and long heaps read from the map) must give the same index,
//! sums and counts as the instance says, whatever the cut.

use super::held::HeapRef;
use super::index::SAMPLE_EVERY;
use super::moves::HolderLookup;
use super::{Position, UpdateOptions};
use crate::input::driver::Reads;
use crate::input::source::Input;
use crate::input::Format;
use crate::workbench::encode::{write_header, write_heap};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::Write;

/// Reads of a few bytes, cut into as many ranges as `threads`.
fn tiny_reads(threads: usize) -> Reads {
    Reads {
        ranges: threads,
        min_range_bytes: 1,
        read_bytes: 5,
        release_bytes: 8,
        max_buffered_heap_bytes: 1 << 10,
        max_packed_bytes: 0,
        stream_chunk_bytes: 5,
        heaps_in_place: false,
    }
}

/// Random heaps `format` can hold: long ones only where `long` and the
/// format allows.
fn random_heaps(rng: &mut ChaCha8Rng, format: Format, count: usize, long: bool) -> Vec<Vec<u64>> {
    let max_bits = match format {
        Format::Unary => 6,
        Format::U8 => 8,
        Format::U16le => 16,
        Format::U32le => 32,
        Format::U64le => 64,
        _ if long => 300,
        _ => 64,
    };
    (0..count)
        .map(|_| {
            let bits: u64 = match rng.random_range(0..10) {
                0 => 0,
                1 => 1,
                _ => rng.random_range(0..=max_bits),
            };
            let mut limbs: Vec<u64> = (0..bits.div_ceil(64)).map(|_| rng.random()).collect();
            if !bits.is_multiple_of(64) {
                if let Some(top) = limbs.last_mut() {
                    *top &= (1 << (bits % 64)) - 1;
                }
            }
            limbs
        })
        .collect()
}

fn encode(format: Format, heaps: &[Vec<u64>]) -> Vec<u8> {
    let mut out = Vec::new();
    write_header(format, &mut out).unwrap();
    for heap in heaps {
        write_heap(format, heap.as_slice(), &mut out).unwrap();
    }
    out
}

fn trimmed(limbs: &[u64]) -> Vec<u64> {
    crate::input::trimmed(limbs.to_vec())
}

#[test]
fn every_cut_of_the_initial_pass_reads_the_same_heaps() {
    let mut rng = ChaCha8Rng::seed_from_u64(10);
    for format in Format::ALL {
        for long in [false, true] {
            let count = rng.random_range(0..400);
            let heaps = random_heaps(&mut rng, format, count, long);
            let bytes = encode(format, &heaps);
            let mut file = tempfile::NamedTempFile::new().unwrap();
            file.write_all(&bytes).unwrap();
            let mut sum = vec![0u64; 8];
            for heap in &heaps {
                for (s, limb) in sum.iter_mut().zip(heap) {
                    *s ^= limb;
                }
            }
            for threads in 1..=4 {
                let input = Input::open(file.path(), "t", true).unwrap();
                let options = UpdateOptions {
                    moves: true,
                    ..UpdateOptions::default()
                };
                let position =
                    Position::read(input, format, &options, &tiny_reads(threads)).unwrap();
                let case = format!("{format}, {count} heaps, {threads} threads");
                check_position(&position, &heaps, &sum, &case);
            }
        }
    }
}

#[test]
fn the_initial_pass_takes_blocks_of_heaps_of_up_to_128_bits() {
    // Reads of the budget's size, so that the scanners read in blocks:
    // `hex` of 17-32 digits in blocks of two limbs, whose runs of heaps
    // of one limb the index takes as blocks, the others one by one.
    let mut rng = ChaCha8Rng::seed_from_u64(12);
    for round in 0..12 {
        let count = rng.random_range(0..3000);
        let heaps: Vec<Vec<u64>> = (0..count)
            .map(|i| {
                let low = rng.random::<u64>() >> rng.random_range(0..64);
                // Every 40th wide (runs of 39 narrow), and in some rounds
                // a quarter of the others.
                match i % 40 == 0 || rng.random_range(0..4) == 0 && round % 2 != 0 {
                    true => vec![low, rng.random::<u64>() >> rng.random_range(0..63) | 1],
                    false => vec![low],
                }
            })
            .collect();
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(&encode(Format::Hex, &heaps)).unwrap();
        let mut sum = vec![0u64; 2];
        for heap in &heaps {
            for (s, limb) in sum.iter_mut().zip(heap) {
                *s ^= limb;
            }
        }
        let threads = 1 + round / 2 % 2;
        let input = Input::open(file.path(), "t", true).unwrap();
        let options = UpdateOptions {
            moves: true,
            ..UpdateOptions::default()
        };
        let reads = crate::analysis::budget::update_reads(threads);
        let position = Position::read(input, Format::Hex, &options, &reads).unwrap();
        let case = format!("round {round}, {count} heaps, {threads} threads");
        check_position(&position, &heaps, &sum, &case);
    }
}

/// Checks what the initial pass found against the heaps.
fn check_position(position: &Position<'_>, heaps: &[Vec<u64>], sum: &[u64], case: &str) {
    assert_eq!(position.heaps(), heaps.len() as u64, "{case}");
    assert_eq!(position.nim_sum.limbs(), trimmed(sum), "{case}");
    let ones = heaps.iter().filter(|h| trimmed(h) == [1]).count() as u64;
    let big = heaps
        .iter()
        .filter(|h| crate::nimsum::bit_length(h) >= 2)
        .count() as u64;
    assert_eq!(
        (position.counts.ones, position.counts.big),
        (ones, big),
        "{case}"
    );
    for (i, heap) in heaps.iter().enumerate() {
        let value = position.file.heap(i as u64).unwrap();
        assert_eq!(
            HeapRef::File(value).to_limbs(),
            trimmed(heap),
            "{case}: heap {i}"
        );
    }
    let fits = heaps.iter().all(|h| crate::nimsum::bit_length(h) <= 64);
    match &position.holders {
        Some(HolderLookup::Words { counts, .. }) => {
            assert!(fits, "{case}");
            for bit in 0..64 {
                let holders = heaps
                    .iter()
                    .filter(|h| h.first().is_some_and(|w| w >> bit & 1 == 1));
                assert_eq!(counts.0[bit], holders.count() as u64, "{case}: bit {bit}");
            }
            check_blocks(position, heaps.len() as u64, case);
        }
        Some(HolderLookup::Search) => assert!(!fits, "{case}"),
        None => panic!("{case}: moves were asked for"),
    }
}

/// The blocks cover the heaps in order, each starting on a sample, and
/// every heap lies in its block.
fn check_blocks(position: &Position<'_>, heaps: u64, case: &str) {
    let index = position.file.index();
    let mut next = 0;
    let mut block = 0;
    while next < heaps {
        let range = index.block_heaps(block);
        assert_eq!(range.start, next, "{case}: block {block}");
        assert!(
            !range.is_empty() && range.end <= heaps,
            "{case}: block {block}"
        );
        for heap in range.clone() {
            assert_eq!(index.block_of(heap), block, "{case}: heap {heap}");
        }
        if let super::index::Start::Sample { skip, .. } = index.start_of(range.start) {
            assert_eq!(skip, 0, "{case}: block {block} starts on a sample");
        }
        next = range.end;
        block += 1;
    }
}

#[test]
fn heaps_far_from_their_sample_are_reached() {
    // Heaps 15 after a sample, across a cut: a file of many short lines.
    let heaps: Vec<Vec<u64>> = (0..10 * SAMPLE_EVERY).map(|i| vec![i]).collect();
    let bytes = encode(Format::Dec, &heaps);
    let options = UpdateOptions::default();
    let position = Position::from_bytes(&bytes, Format::Dec, "t", &options).unwrap();
    for i in (0..heaps.len()).rev() {
        let value = position.file.heap(i as u64).unwrap();
        assert_eq!(HeapRef::File(value).low(), i as u64);
    }
}
