//! The initial pass of an update session: one fold over the driver that
//! gathers what the updates then keep up to date, and the index of heap
//! offsets through which an update reads a heap's old value from FILE.
//!
//! The fold keeps the survey (the heap counts the rules need, with the
//! same loops as the analysis's one pass: [`crate::analysis::raw_arrays`]
//! over blocks of short heaps), the whole nim-sum as limbs (the updates change it anywhere, so
//! it is held whole: as many bytes as the longest heap has, divided by
//! eight), and the offset of every [`SAMPLE_EVERY`]-th heap of the text
//! formats and `nimb`. With `--moves`, while every heap fits in 64 bits,
//! it also counts the holders of each bit 0 to 63 (the column counter of
//! [`crate::arch::columns`], 32 heaps a step) and ORs the heaps of each
//! block of [`BLOCK_HEAPS`] (the leaves of [`super::holders::OrTree`]).
//!
//! **The index.** A raw array needs none: heap i is at i · width. The
//! other formats keep one offset (8 bytes) per 16 heaps, half a byte a
//! heap, and reach heap i by scanning forward from the sample before it,
//! at most 15 heaps, with the format's own scanner. Every range of the
//! pass (one per thread) samples and blocks its heaps counting from its
//! own first heap, since a range does not know how many heaps precede it;
//! merging the ranges in file order appends a [`Segment`] per range, so a
//! lookup first finds the heap's segment (a binary search over a handful)
//! and the merge stays associative, never reading a heap twice.

use super::holders::{WordHolderCounts, BLOCK_HEAPS};
use crate::analysis::raw_arrays;
use crate::analysis::survey::Survey;
use crate::arch::columns::{ColumnCounter, STEP};
use crate::error::Error;
use crate::input::driver::{narrow_runs, At, Fold, Needs};
use crate::input::{Format, Heap, HeapValue, RawBlock, WordBlock};
use std::ops::Range;

/// A heap of the text formats and `nimb` in this many has its offset kept.
pub(super) const SAMPLE_EVERY: u64 = 16;

/// The heaps of one range of the initial pass: where their index entries
/// start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Segment {
    /// The range's first heap.
    first_heap: u64,
    /// Its first sample in [`HeapIndex`]'s samples.
    first_sample: usize,
    /// Its first block among the tree's leaves.
    first_block: usize,
}

/// Where to start reading to reach a heap of FILE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Start {
    /// A raw array's element at this offset.
    Raw(u64),
    /// The heap is `skip` heaps after sample `sample`, at `offset`.
    Sample {
        /// The sample's number.
        sample: usize,
        /// The sampled heap's offset.
        offset: u64,
        /// Heaps between the sample and the heap wanted.
        skip: u64,
    },
}

/// The offsets of FILE's heaps: computed for raw arrays, sampled for the
/// other formats.
#[derive(Clone, Debug)]
pub(super) struct HeapIndex {
    heaps: u64,
    /// The element width of a raw array.
    raw_width: Option<u64>,
    segments: Vec<Segment>,
    samples: Vec<u64>,
}

impl HeapIndex {
    /// The number of heaps.
    pub(super) fn heaps(&self) -> u64 {
        self.heaps
    }

    /// The segment that holds `heap`.
    fn segment_of(&self, heap: u64) -> (usize, &Segment) {
        let at = self.segments.partition_point(|s| s.first_heap <= heap) - 1;
        (at, &self.segments[at])
    }

    /// The heap after segment `at`'s last.
    fn segment_end(&self, at: usize) -> u64 {
        self.segments
            .get(at + 1)
            .map_or(self.heaps, |s| s.first_heap)
    }

    /// Where to start reading to reach `heap` (< the heap count).
    pub(super) fn start_of(&self, heap: u64) -> Start {
        if let Some(width) = self.raw_width {
            return Start::Raw(heap * width);
        }
        let (_, segment) = self.segment_of(heap);
        let local = heap - segment.first_heap;
        let sample = segment.first_sample + (local / SAMPLE_EVERY) as usize;
        Start::Sample {
            sample,
            offset: self.samples[sample],
            skip: local % SAMPLE_EVERY,
        }
    }

    /// The index entry that leads to `heap`, if it has one (a raw
    /// array's heaps have none).
    pub(super) fn entry_of(&self, heap: u64) -> Option<&u64> {
        if self.raw_width.is_some() {
            return None;
        }
        let (_, segment) = self.segment_of(heap);
        let sample = segment.first_sample + ((heap - segment.first_heap) / SAMPLE_EVERY) as usize;
        self.samples.get(sample)
    }

    /// The offset of sample `sample`.
    pub(super) fn sample_offset(&self, sample: usize) -> u64 {
        self.samples[sample]
    }

    /// The block (leaf of the OR tree) that holds `heap`.
    pub(super) fn block_of(&self, heap: u64) -> usize {
        let (_, segment) = self.segment_of(heap);
        segment.first_block + ((heap - segment.first_heap) / BLOCK_HEAPS) as usize
    }

    /// The heaps of block `block`.
    pub(super) fn block_heaps(&self, block: usize) -> Range<u64> {
        let at = self.segments.partition_point(|s| s.first_block <= block) - 1;
        let segment = &self.segments[at];
        let start = segment.first_heap + (block - segment.first_block) as u64 * BLOCK_HEAPS;
        start..(start + BLOCK_HEAPS).min(self.segment_end(at))
    }

    /// The number of samples.
    pub(super) fn samples(&self) -> u64 {
        self.samples.len() as u64
    }

    /// The memory the index takes, in bytes.
    pub(super) fn bytes(&self) -> u64 {
        (8 * self.samples.len() + std::mem::size_of::<Segment>() * self.segments.len()) as u64
    }
}

/// What the initial pass found.
#[derive(Debug)]
pub(super) struct Built {
    /// The heaps' counts.
    pub survey: Survey,
    /// The nim-sum's limbs (high zero limbs allowed).
    pub nim_sum: Vec<u64>,
    /// The offsets of the heaps.
    pub index: HeapIndex,
    /// With `--moves`, when every heap fits in 64 bits: the holders of
    /// each bit, and the OR of each block.
    pub blocks: Option<(WordHolderCounts, Vec<u64>)>,
}

/// The column counts and block ORs of the heaps so far.
#[derive(Debug)]
struct Blocks {
    counter: ColumnCounter,
    /// The current block's low words.
    words: [u64; STEP],
    filled: usize,
    leaves: Vec<u64>,
}

impl Blocks {
    fn new() -> Box<Blocks> {
        Box::new(Blocks {
            counter: ColumnCounter::default(),
            words: [0; STEP],
            filled: 0,
            leaves: Vec::new(),
        })
    }

    #[inline]
    fn push(&mut self, word: u64) {
        self.words[self.filled] = word;
        self.filled += 1;
        if self.filled == STEP {
            self.counter.add_words(&self.words);
            self.leaves.push(self.words.iter().fold(0, |a, b| a | b));
            self.filled = 0;
        }
    }

    /// Closes a block cut short by the end of the range.
    fn close(&mut self) {
        if self.filled == 0 {
            return;
        }
        let words = &self.words[..self.filled];
        for &word in words {
            self.counter.add_word(word);
        }
        self.leaves.push(words.iter().fold(0, |a, b| a | b));
        self.filled = 0;
    }
}

/// The fold of the initial pass (see the module documentation).
#[derive(Debug)]
pub(super) struct IndexFold {
    survey: Survey,
    sum: Vec<u64>,
    raw_width: Option<u64>,
    samples: Vec<u64>,
    segments: Vec<Segment>,
    /// Kept while wanted and every heap fits in 64 bits.
    blocks: Option<Box<Blocks>>,
}

impl IndexFold {
    /// The fold of one range of FILE in `format`; `moves`: keep the
    /// holder counts and block ORs.
    pub(super) fn new(format: Format, moves: bool) -> IndexFold {
        const _: () =
            assert!(BLOCK_HEAPS == STEP as u64 && BLOCK_HEAPS.is_multiple_of(SAMPLE_EVERY));
        IndexFold {
            survey: Survey::default(),
            // Two limbs from the start: the XOR of a word needs no check.
            sum: vec![0; 2],
            raw_width: format.raw_width().map(|w| w as u64),
            samples: Vec::new(),
            segments: vec![Segment {
                first_heap: 0,
                first_sample: 0,
                first_block: 0,
            }],
            blocks: moves.then(Blocks::new),
        }
    }

    /// Counts the `index`-th heap, at `offset`, of `bits` bits whose low
    /// 64 bits `low` gives.
    #[inline(always)]
    fn count(&mut self, index: u64, offset: u64, bits: u64, low: impl FnOnce() -> u64) {
        self.survey.record_length(index, offset, bits);
        if bits > 64 {
            self.blocks = None;
        } else if let Some(blocks) = &mut self.blocks {
            blocks.push(low());
        }
    }

    /// What the pass found, once every range is merged.
    pub(super) fn finish(mut self) -> Built {
        let blocks = self.blocks.take().map(|mut blocks| {
            blocks.close();
            (WordHolderCounts(blocks.counter.columns()), blocks.leaves)
        });
        self.samples.shrink_to_fit();
        Built {
            nim_sum: self.sum,
            index: HeapIndex {
                heaps: self.survey.heaps,
                raw_width: self.raw_width,
                segments: self.segments,
                samples: self.samples,
            },
            blocks,
            survey: self.survey,
        }
    }

    /// Pushes the low words of a block of heaps into the blocks, when they
    /// are kept.
    fn push_words(&mut self, words: impl Iterator<Item = u64>) {
        if let Some(blocks) = &mut self.blocks {
            words.for_each(|word| blocks.push(word));
        }
    }
}

impl Fold for IndexFold {
    fn needs(&self) -> Needs {
        Needs::WORDS
    }

    #[inline]
    fn heap(&mut self, index: u64, heap: &Heap<'_>, at: &mut At<'_>) -> Result<(), Error> {
        if self.raw_width.is_none() && index.is_multiple_of(SAMPLE_EVERY) {
            self.samples.push(heap.offset);
        }
        let value = &heap.value;
        self.count(index, heap.offset, value.bit_length(), || value.limb(0));
        if let (HeapValue::Word(word), [low, high, ..]) = (value, self.sum.as_mut_slice()) {
            *low ^= *word as u64;
            *high ^= (*word >> 64) as u64;
            return Ok(());
        }
        let limbs = value.bit_length().div_ceil(64) as usize;
        if self.sum.len() < limbs {
            self.sum.resize(limbs, 0);
        }
        at.pages.xor_window(value, 0, &mut self.sum[..limbs]);
        Ok(())
    }

    /// Takes a block of raw elements with the loops of the one pass: its
    /// XOR and its survey.
    fn raw_elements(&mut self, block: RawBlock<'_>) -> Result<(), Error> {
        let (xor, tally) = raw_arrays::sums(&block);
        let piece = raw_arrays::survey(&block, &tally, &self.survey);
        self.survey.merge(&piece);
        self.sum[0] ^= xor;
        self.push_words(block.elements());
        Ok(())
    }

    /// Takes a block of heaps of at most 64 bits with the loops of raw
    /// arrays: its XOR, its survey, and every sixteenth offset; wider
    /// heaps one by one, and the runs of narrow ones between them as
    /// blocks ([`narrow_runs`]).
    fn words(&mut self, block: WordBlock<'_>, at: &mut At<'_>) -> Result<(), Error> {
        if block.high_or != 0 {
            return narrow_runs(self, block, at, |fold, run, at| fold.words(run, at));
        }
        let low = block.limb(0).expect("a block has a low limb");
        let first_sampled = block.index.next_multiple_of(SAMPLE_EVERY) - block.index;
        let sampled = block.offsets.iter().skip(first_sampled as usize);
        self.samples
            .extend(sampled.step_by(SAMPLE_EVERY as usize).copied());
        let (xor, tally) = raw_arrays::sums(&low);
        let first = |wanted| block.first(wanted);
        let piece = raw_arrays::survey_of(low.len(), &tally, &self.survey, first);
        self.survey.merge(&piece);
        self.sum[0] ^= xor;
        self.push_words(low.elements());
        Ok(())
    }

    fn merge(&mut self, mut later: IndexFold, heaps_before: u64) -> Result<(), Error> {
        debug_assert_eq!(heaps_before, self.survey.heaps);
        let heaps = self.survey.heaps;
        if later.survey.heaps > 0 {
            let leaves = self.blocks.as_mut().map_or(0, |blocks| {
                blocks.close();
                blocks.leaves.len()
            });
            let shifted = later.segments.iter().map(|s| Segment {
                first_heap: s.first_heap + heaps,
                first_sample: s.first_sample + self.samples.len(),
                first_block: s.first_block + leaves,
            });
            if heaps == 0 {
                self.segments.clear();
            }
            self.segments.extend(shifted);
        }
        self.blocks = match (self.blocks.take(), later.blocks.take()) {
            (Some(mut mine), Some(mut theirs)) => {
                theirs.close();
                mine.counter.add_columns(&theirs.counter.columns());
                mine.leaves.append(&mut theirs.leaves);
                Some(mine)
            }
            _ => None,
        };
        self.survey.merge_after(&later.survey, heaps);
        self.samples.append(&mut later.samples);
        crate::nimsum::xor_keeping_longer(&mut self.sum, later.sum);
        Ok(())
    }
}
