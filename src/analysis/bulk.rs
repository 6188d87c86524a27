//! Raw arrays (`u8`, `u16le`, `u32le`, `u64le`) in bulk: one loop over
//! the elements instead of one [`Heap`](crate::input::Heap) per element.
//!
//! Every element fits in one limb, so the survey's nim-sum is a single
//! word, the longest heap's bit length is that of the OR of all elements,
//! and the counting loop has no branches (the compiler vectorises it). The
//! first 1 and the first heap ≥ 2 are looked up afterwards, only when the
//! counts say they exist. Results equal the generic scanner path exactly,
//! errors included (tested below).

use super::survey::{HeapPos, Survey};
use crate::arch::columns::{element, load};
use crate::error::ParseError;
use crate::input::source::RELEASE_STEP_BYTES;
use crate::input::{trailing_bytes_error, PageReleaser};

/// Where a piece of a raw array lies: the index of its first element and
/// the absolute offset of its first byte.
#[derive(Clone, Copy, Debug, Default)]
pub struct Piece {
    /// Index of the piece's first element in the whole array.
    pub first_index: u64,
    /// Absolute offset of the piece's first byte.
    pub base: u64,
}

/// The survey of a raw array piece and the XOR of its elements, or the
/// error of SPEC section 2 when trailing bytes follow the last element.
pub fn survey(
    data: &[u8],
    width: usize,
    at: Piece,
    pages: PageReleaser<'_>,
) -> Result<(Survey, u64), ParseError> {
    let whole = data.len() - data.len() % width;
    if whole < data.len() {
        return Err(trailing_bytes_error(
            at.base + whole as u64,
            data.len() - whole,
            width,
        ));
    }
    let mut counts = Counts::default();
    for step in data.chunks(step_bytes(width)) {
        counts.add(&counts_of(step, width));
        pages.release(step);
    }
    let heaps = (data.len() / width) as u64;
    let position = |index: usize| HeapPos {
        index: at.first_index + index as u64,
        offset: at.base + (index * width) as u64,
    };
    let survey = Survey {
        heaps,
        nonzero: heaps - counts.zeros,
        ones: counts.ones,
        big: heaps - counts.zeros - counts.ones,
        max_bit_length: u64::from(64 - counts.or.leading_zeros()),
        first_one: (counts.ones > 0)
            .then(|| first_position(data, width, pages, |v| v == 1))
            .flatten()
            .map(position),
        first_big: (heaps > counts.zeros + counts.ones)
            .then(|| first_position(data, width, pages, |v| v >= 2))
            .flatten()
            .map(position),
    };
    Ok((survey, counts.xor))
}

/// Pieces smaller than this are not worth a thread of their own.
const MIN_PIECE_BYTES: usize = 4 << 20;

/// The array split into at most `threads` pieces of whole elements, each
/// with its position; fewer pieces when the array is small.
pub fn pieces(data: &[u8], width: usize, threads: usize) -> Vec<(&[u8], Piece)> {
    let elements = data.len() / width;
    let count = threads.clamp(1, (data.len() / MIN_PIECE_BYTES).max(1));
    let per_piece = elements.div_ceil(count).max(1);
    data[..elements * width]
        .chunks(per_piece * width)
        .enumerate()
        .map(|(n, piece)| {
            let first_index = (n * per_piece) as u64;
            let at = Piece {
                first_index,
                base: first_index * width as u64,
            };
            (piece, at)
        })
        .collect()
}

/// [`survey`] on `threads` threads: the pieces' surveys merge in file order
/// and their XORs combine. Returns the number of threads used too.
pub fn survey_parallel(
    data: &[u8],
    width: usize,
    threads: usize,
    pages: PageReleaser<'_>,
) -> Result<(Survey, u64, usize), ParseError> {
    let whole = data.len() - data.len() % width;
    if whole < data.len() {
        return Err(trailing_bytes_error(
            whole as u64,
            data.len() - whole,
            width,
        ));
    }
    let pieces = pieces(data, width, threads);
    let results: Vec<Result<(Survey, u64), ParseError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = pieces
            .iter()
            .map(|&(piece, at)| scope.spawn(move || survey(piece, width, at, pages)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a survey thread does not panic"))
            .collect()
    });
    let mut total = Survey::default();
    let mut xor = 0;
    for result in results {
        let (piece_survey, piece_xor) = result?;
        total.merge(&piece_survey);
        xor ^= piece_xor;
    }
    Ok((total, xor, pieces.len().max(1)))
}

/// [`holders`] on `threads` threads: counts add up, the first holder is the
/// earliest piece's.
pub fn holders_parallel(
    data: &[u8],
    width: usize,
    bit: u64,
    threads: usize,
    pages: PageReleaser<'_>,
) -> (u64, Option<HeapPos>) {
    let pieces = pieces(data, width, threads);
    std::thread::scope(|scope| {
        let handles: Vec<_> = pieces
            .iter()
            .map(|&(piece, at)| scope.spawn(move || holders(piece, width, bit, at, pages)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a counting thread does not panic"))
            .fold((0, None), |(count, first), (c, f)| (count + c, first.or(f)))
    })
}

/// How many elements of the piece have bit `bit` set, and where the first
/// of them is.
pub fn holders(
    data: &[u8],
    width: usize,
    bit: u64,
    at: Piece,
    pages: PageReleaser<'_>,
) -> (u64, Option<HeapPos>) {
    if bit >= 64 {
        return (0, None);
    }
    let mask = 1u64 << bit;
    let mut count = 0;
    for step in data.chunks(step_bytes(width)) {
        count += elements(step, width)
            .map(|v| u64::from(v & mask != 0))
            .sum::<u64>();
        pages.release(step);
    }
    let first = (count > 0)
        .then(|| first_position(data, width, pages, |v| v & mask != 0))
        .flatten()
        .map(|index| HeapPos {
            index: at.first_index + index as u64,
            offset: at.base + (index * width) as u64,
        });
    (count, first)
}

/// The index of the first element satisfying `wanted`, releasing the pages
/// of each step read (the search may run far into a large file).
fn first_position(
    data: &[u8],
    width: usize,
    pages: PageReleaser<'_>,
    wanted: impl Fn(u64) -> bool,
) -> Option<usize> {
    let per_step = step_bytes(width) / width;
    for (n, step) in data.chunks(step_bytes(width)).enumerate() {
        let found = elements(step, width).position(&wanted);
        pages.release(step);
        if let Some(i) = found {
            return Some(n * per_step + i);
        }
    }
    None
}

/// Bytes per release step, a whole number of elements.
fn step_bytes(width: usize) -> usize {
    RELEASE_STEP_BYTES - RELEASE_STEP_BYTES % width
}

/// What the counting loop gathers.
#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    xor: u64,
    or: u64,
    zeros: u64,
    ones: u64,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.xor ^= other.xor;
        self.or |= other.or;
        self.zeros += other.zeros;
        self.ones += other.ones;
    }
}

/// The counting loop, monomorphised per width so that it vectorises.
fn counts_of(data: &[u8], width: usize) -> Counts {
    match width {
        1 => counts_fixed::<1>(data),
        2 => counts_fixed::<2>(data),
        4 => counts_fixed::<4>(data),
        _ => counts_fixed::<8>(data),
    }
}

fn counts_fixed<const W: usize>(data: &[u8]) -> Counts {
    let mut counts = Counts::default();
    for chunk in data.chunks_exact(W) {
        let v = load::<W>(chunk);
        counts.xor ^= v;
        counts.or |= v;
        counts.zeros += u64::from(v == 0);
        counts.ones += u64::from(v == 1);
    }
    counts
}

/// The elements of `data`, as numbers.
fn elements(data: &[u8], width: usize) -> impl Iterator<Item = u64> + '_ {
    data.chunks_exact(width).map(element)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{Format, HeapScanner, Scanner};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The generic path: one heap at a time through the scanner.
    fn scanned(data: &[u8], format: Format, base: u64) -> Result<(Survey, u64), ParseError> {
        let mut scanner = Scanner::new(format, data, base);
        let (mut survey, mut xor, mut index) = (Survey::default(), 0u64, 0);
        while let Some(heap) = scanner.next_heap()? {
            survey.record(index, &heap);
            xor ^= heap.value.limb(0);
            index += 1;
        }
        Ok((survey, xor))
    }

    fn scanned_holders(data: &[u8], format: Format, bit: u64) -> (u64, Option<HeapPos>) {
        let mut scanner = Scanner::new(format, data, 0);
        let (mut count, mut first, mut index) = (0, None, 0);
        while let Some(heap) = scanner.next_heap().expect("whole elements") {
            if heap.value.bit(bit) {
                count += 1;
                first.get_or_insert(HeapPos {
                    index,
                    offset: heap.offset,
                });
            }
            index += 1;
        }
        (count, first)
    }

    #[test]
    fn bulk_results_equal_the_scanner_on_random_ragged_arrays() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        for format in [Format::U8, Format::U16le, Format::U32le, Format::U64le] {
            let width = format.raw_width().expect("a raw format");
            for len in (0..70).chain([1000, 4099]) {
                let small = rng.random_bool(0.5);
                let data: Vec<u8> = (0..len)
                    .map(|i| match (small, i % width) {
                        (true, 0) => rng.random_range(0..3),
                        (true, _) => 0,
                        _ => rng.random(),
                    })
                    .collect();
                let at = Piece {
                    first_index: 0,
                    base: 0,
                };
                let bulk = survey(&data, width, at, PageReleaser::NONE);
                let generic = scanned(&data, format, 0);
                assert_eq!(bulk, generic, "{format:?} {len}");
                if bulk.is_err() {
                    continue;
                }
                for bit in [0, 1, 7, 15, 31, 63, 64] {
                    assert_eq!(
                        holders(&data, width, bit, at, PageReleaser::NONE),
                        scanned_holders(&data, format, bit),
                        "{format:?} {len} {bit}"
                    );
                }
            }
        }
    }

    #[test]
    fn pieces_report_absolute_positions() {
        let data = [0u8, 0, 2, 0, 1, 0];
        let at = Piece {
            first_index: 10,
            base: 100,
        };
        let (survey, xor) = survey(&data, 2, at, PageReleaser::NONE).unwrap();
        assert_eq!(xor, 3);
        assert_eq!(
            survey.first_big,
            Some(HeapPos {
                index: 11,
                offset: 102
            })
        );
        assert_eq!(survey.first_one.map(|p| p.index), Some(12));
        assert_eq!(
            super::survey(&data[..5], 2, at, PageReleaser::NONE)
                .unwrap_err()
                .offset,
            104
        );
    }

    #[test]
    fn threads_split_at_elements_and_merge_to_the_single_thread_answer() {
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        for (format, width) in [(Format::U8, 1), (Format::U16le, 2), (Format::U64le, 8)] {
            let len = 3 * MIN_PIECE_BYTES + 5 * width;
            let mut data: Vec<u8> = (0..len)
                .map(|_| {
                    if rng.random_range(0..50) == 0 {
                        rng.random()
                    } else {
                        0
                    }
                })
                .collect();
            data[len - width] = 1;
            let single = survey(&data, width, Piece::default(), PageReleaser::NONE).unwrap();
            let (merged, xor, used) = survey_parallel(&data, width, 3, PageReleaser::NONE).unwrap();
            assert_eq!(used, 3, "{format}");
            assert_eq!((merged, xor), single, "{format}");
            for bit in [0, 7] {
                assert_eq!(
                    holders_parallel(&data, width, bit, 4, PageReleaser::NONE),
                    scanned_holders(&data, format, bit),
                    "{format} bit {bit}"
                );
            }
            let mut ragged = data.clone();
            ragged.push(0);
            if width > 1 {
                let error = survey_parallel(&ragged, width, 3, PageReleaser::NONE).unwrap_err();
                assert_eq!(error.offset, len as u64, "{format}");
            }
        }
    }
}
