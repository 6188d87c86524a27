//! The pass of misère play: each heap's kind ([`super::kinds`]), read from
//! the table for a heap of at most 64 bits and from its residue modulo
//! the period for a longer one, exactly as the Grundy pass reads values
//! ([`GameShared`]); the count of the heaps of each kind, and the first
//! heap of each, kept as the move's heap may be.
//!
//! Folds of consecutive ranges merge associatively: the counts add (the
//! product of the classes is commutative and associative, so the whole
//! sum's product is the product of the counts' powers), the earlier
//! range's first heaps win.

use crate::analysis::game::holders::{Holder, LongTokens};
use crate::analysis::game::sums::{GameShared, LongResidue, PastValues};
use crate::analysis::raw_arrays;
use crate::analysis::survey::Survey;
use crate::arch::columns::BlockTally;
use crate::arch::grundy_words::{self, WordValues};
use crate::error::Error;
use crate::games::HeapSize;
use crate::input::driver::{each_element, each_word, narrow_runs, At, Fold, Needs};
use crate::input::{Heap, HeapPos, LongTail, RawBlock, WordBlock};

/// The shortest token whose bytes the count of the move's line skips.
const NOTED_TOKEN_BITS: u64 = 1 << 16;

/// The fold of one range.
pub(crate) struct MisereSum<'s> {
    /// Sizes and kinds, read as the Grundy pass reads values.
    shared: &'s GameShared<'s>,
    pub(crate) survey: Survey,
    /// The heaps of each kind.
    pub(crate) counts: Vec<u64>,
    /// The first heap of each kind.
    pub(crate) firsts: Vec<Option<Holder>>,
    /// The first heap past the heaps computed, where the pass stopped.
    pub(crate) past_values: Option<PastValues>,
    pub(crate) long_tokens: LongTokens,
    /// The token being read in pieces, its groups folded as they come.
    reading: LongResidue,
    /// [`LANES`] histograms of the kinds of a piece of a block's heaps.
    lanes: Vec<u64>,
    /// The kinds of a piece of a block's heaps, [`PIECE`] at most.
    kinds: Vec<u16>,
}

/// The histograms a block's kinds are counted into in turn.
const LANES: usize = 4;

/// The most heaps of a block whose kinds are read at once.
const PIECE: usize = 4096;

impl<'s> MisereSum<'s> {
    /// An empty fold for a range of a game with `kinds` kinds of heaps.
    pub(crate) fn new(shared: &'s GameShared<'s>, kinds: usize) -> MisereSum<'s> {
        MisereSum {
            shared,
            survey: Survey::default(),
            counts: vec![0; kinds],
            firsts: vec![None; kinds],
            past_values: None,
            long_tokens: LongTokens::default(),
            reading: LongResidue::default(),
            lanes: vec![0; LANES * kinds],
            kinds: vec![0; PIECE],
        }
    }

    /// Counts a heap of `kind`, and keeps it when it is the first.
    #[inline(always)]
    fn count(&mut self, kind: u16, first: impl FnOnce() -> Holder) {
        let count = &mut self.counts[kind as usize];
        if *count == 0 {
            self.firsts[kind as usize] = Some(first());
        }
        *count += 1;
    }

    /// Counts the little-endian elements of `width` bytes of `bytes`, heaps
    /// of at most 64 bits whose kinds `table` gives with no division, the
    /// `i`-th at `position(i)`; their tally, for the survey.
    ///
    /// The kinds of [`PIECE`] heaps at a time are read as the normal-play
    /// pass reads values ([`grundy_words::values`], vectorised), then
    /// counted into [`LANES`] histograms in turn (so that consecutive
    /// heaps of one kind do not wait on each other's count), added up at
    /// the end of the piece; a kind seen for the first time then has its
    /// first heap found in the piece.
    fn count_elements(
        &mut self,
        bytes: &[u8],
        width: usize,
        table: &WordValues<'_>,
        position: impl Fn(usize) -> HeapPos,
    ) -> BlockTally {
        let mut tally = BlockTally::default();
        for (p, piece) in bytes.chunks(PIECE * width).enumerate() {
            let heaps = piece.len() / width;
            let found = grundy_words::values(piece, width, table, &mut self.kinds[..heaps]);
            tally = tally.merge(found);
            self.count_piece(heaps, |i| {
                let at = i * width;
                let mut word = [0u8; 8];
                word[..width].copy_from_slice(&piece[at..at + width]);
                (position(p * PIECE + i), u64::from_le_bytes(word))
            });
        }
        tally
    }

    /// Counts the kinds of the first `heaps` of `self.kinds`; `heap(i)`
    /// gives the `i`-th heap's position and size, for the first heap of a
    /// kind.
    fn count_piece(&mut self, heaps: usize, heap: impl Fn(usize) -> (HeapPos, u64)) {
        let kinds = self.counts.len();
        self.lanes.fill(0);
        let read = &self.kinds[..heaps];
        let mut quads = read.chunks_exact(LANES);
        for quad in &mut quads {
            for (lane, &kind) in quad.iter().enumerate() {
                self.lanes[lane * kinds + kind as usize] += 1;
            }
        }
        for &kind in quads.remainder() {
            self.lanes[kind as usize] += 1;
        }
        for kind in 0..kinds {
            let added: u64 = (0..LANES).map(|lane| self.lanes[lane * kinds + kind]).sum();
            if added > 0 && self.counts[kind] == 0 {
                let i = read
                    .iter()
                    .position(|&k| k as usize == kind)
                    .expect("a heap of the kind counted");
                let (pos, h) = heap(i);
                self.firsts[kind] = Some(Holder {
                    pos,
                    line: None,
                    size: HeapSize::Exact(h),
                    grundy: kind as u16,
                    bits: u64::from(64 - h.leading_zeros()),
                    limbs: None,
                    borrow: None,
                });
            }
            self.counts[kind] += added;
        }
    }
}

impl Fold for MisereSum<'_> {
    /// Blocks of words; a long token's kind needs only its residue, so
    /// its groups are drained as they are read.
    fn needs(&self) -> Needs {
        Needs {
            drains_long_tokens: self.shared.modulus().is_some(),
            ..Needs::WORDS
        }
    }

    #[inline(always)]
    fn heap(&mut self, index: u64, heap: &Heap<'_>, at: &mut At<'_>) -> Result<(), Error> {
        let bits = heap.value.bit_length();
        self.survey.record_length(index, heap.offset, bits);
        let pos = HeapPos {
            index,
            offset: heap.offset,
        };
        let shared = self.shared;
        let found = shared
            .size(&heap.value, bits, at.pages)
            .and_then(|size| Some((size, shared.grundy(size)?)));
        let Some((size, kind)) = found else {
            self.past_values = Some(PastValues {
                pos,
                line_col: at.line_and_column(heap.offset),
            });
            return Ok(());
        };
        self.count(kind, || shared.holder(pos, size, kind, heap, at));
        if bits >= NOTED_TOKEN_BITS {
            let digits = heap.value.limb_bytes(0..bits.div_ceil(64)).len() as u64;
            if digits > 0 {
                self.long_tokens.note(heap.offset, digits);
            }
        }
        Ok(())
    }

    /// A block of a raw array: each element's kind from the table with no
    /// division ([`WordValues`]), counted in one loop.
    fn raw_elements(&mut self, block: RawBlock<'_>) -> Result<(), Error> {
        let Some(table) = self.shared.words() else {
            return each_element(self, block);
        };
        let tally = self.count_elements(block.bytes, block.width, table, |i| block.position(i));
        // The block's positions count from its range's start.
        self.survey
            .merge(&raw_arrays::survey(&block, &tally, &self.survey));
        Ok(())
    }

    /// A block of heaps of at most 64 bits as a raw array's block; wider
    /// heaps one by one, and the runs of narrow ones between them as
    /// blocks ([`narrow_runs`]).
    fn words(&mut self, block: WordBlock<'_>, at: &mut At<'_>) -> Result<(), Error> {
        if block.high_or != 0 {
            return narrow_runs(self, block, at, |fold, run, at| fold.words(run, at));
        }
        let low = block.limb(0);
        let (Some(low), Some(table)) = (low, self.shared.words()) else {
            return each_word(self, block, at);
        };
        // On a stream of a text format the pass counts lines: a heap that
        // is the first of its kind goes heap by heap, with its line.
        let counts_lines = at
            .line(block.offsets.first().copied().unwrap_or(0))
            .is_some();
        let new_kind = || {
            low.bytes.chunks_exact(8).any(|w| {
                self.counts
                    [table.value(u64::from_le_bytes(w.try_into().expect("8 bytes"))) as usize]
                    == 0
            })
        };
        if counts_lines && new_kind() {
            return each_word(self, block, at);
        }
        let tally = self.count_elements(low.bytes, 8, table, |i| block.position(i));
        let piece = raw_arrays::survey_of(low.len(), &tally, &self.survey, |w| block.first(w));
        self.survey.merge(&piece);
        Ok(())
    }

    fn long_groups(&mut self, groups: &[u64]) {
        self.reading.take(groups, self.shared.modulus());
    }

    fn long_tail(&mut self, index: u64, tail: LongTail) -> Result<(), Error> {
        let modulus = self
            .shared
            .modulus()
            .expect("tokens drained under a period");
        let (bits, size) = std::mem::take(&mut self.reading).end(&tail, modulus);
        self.survey.record_length(index, tail.offset, bits);
        let pos = HeapPos {
            index,
            offset: tail.offset,
        };
        let Some(kind) = self.shared.grundy(size) else {
            self.past_values = Some(PastValues {
                pos,
                line_col: None,
            });
            return Ok(());
        };
        self.count(kind, || Holder {
            pos,
            line: None,
            size,
            grundy: kind,
            bits,
            limbs: None,
            borrow: None,
        });
        if bits > 64 {
            self.long_tokens
                .note(tail.offset, tail.digits.end - tail.offset);
        }
        Ok(())
    }

    fn done(&self) -> bool {
        self.past_values.is_some()
    }

    fn merge(&mut self, later: MisereSum<'_>, heaps_before: u64) -> Result<(), Error> {
        if self.past_values.is_some() {
            return Ok(());
        }
        let shift = |pos: HeapPos| HeapPos {
            index: pos.index + heaps_before,
            offset: pos.offset,
        };
        self.survey.merge_after(&later.survey, heaps_before);
        for (count, more) in self.counts.iter_mut().zip(&later.counts) {
            *count += more;
        }
        for (first, theirs) in self.firsts.iter_mut().zip(later.firsts) {
            if first.is_none() {
                *first = theirs.map(|holder| Holder {
                    pos: shift(holder.pos),
                    ..holder
                });
            }
        }
        self.long_tokens.append(later.long_tokens);
        self.past_values = later.past_values.map(|past| PastValues {
            pos: shift(past.pos),
            ..past
        });
        Ok(())
    }
}
