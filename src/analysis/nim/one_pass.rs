//! The one-pass fold: everything the rules need from one read of the
//! input. Each heap goes into the survey, the nim-sum, the counts of the
//! heaps holding each bit ([`super::holder_counts`]) and, when the move is
//! wanted, the candidates for it: the first holder of every bit
//! ([`super::candidates`]), among which the move's heap is, whatever the
//! msb turns out to be.
//!
//! A stream and an input read at any offset under the default budget are
//! analysed by this pass alone, on all threads for the latter (the ranges'
//! folds merge in file order). It is also the first of the windowed
//! passes, keeping no candidates, with the nim-sum bounded by the window.
//! Either way, a heap wider than the window ends the nim-sum and the
//! candidates (the windowed passes compute them) but not the survey and
//! the counts; on a stream, which cannot be read again, it is an error.
//!
//! The ranges share one sum for the long `bits` and `hex` tokens, so that
//! only one vector of their length exists. The driver XORs a token read
//! from its end into it read by read ([`Fold::xor_limbs`]: the threads take
//! turns on one lock for each read's limbs, a few microseconds), so no
//! token is held; a token read in pieces is XORed in once it ends, or, the
//! first that is longer than the sum, becomes it rather than being copied.

use super::candidates::{Candidates, HeapInFile};
use super::holder_counts::HolderCounts;
use crate::analysis::budget::{Counting, Plan};
use crate::analysis::raw_arrays;
use crate::analysis::survey::Survey;
use crate::arch::columns::BlockTally;
use crate::error::Error;
use crate::input::driver::{each_element, narrow_runs, At, Fold, Needs};
use crate::input::{
    trimmed, Format, Heap, HeapPos, HeapValue, LongHeap, RawBlock, SummedHeap, WordBlock,
};
use crate::nimsum::{xor_at, xor_keeping_longer, ByShift};
use std::ops::Range;
use std::sync::Mutex;

/// What the folds of every range of the pass share.
pub struct Shared<'n> {
    /// The most bits of nim-sum the pass holds.
    window_bits: u64,
    format: Format,
    /// The input's name in messages.
    name: &'n str,
    /// Whether the input is a stream (a heap wider than the window is an
    /// error there).
    stream: bool,
    counting: Counting,
    keep_candidates: bool,
    pack_tokens: bool,
    /// The sum of the tokens read in pieces.
    long_sum: Mutex<Vec<u64>>,
}

impl<'n> Shared<'n> {
    /// The settings of the first pass of an analysis under `plan`; `move_wanted`:
    /// whether the candidates for the move are kept.
    pub fn new(
        plan: &Plan,
        format: Format,
        name: &'n str,
        stream: bool,
        move_wanted: bool,
    ) -> Self {
        Shared {
            window_bits: plan.window_bits,
            format,
            name,
            stream,
            counting: plan.counting,
            keep_candidates: plan.one_pass && move_wanted,
            pack_tokens: plan.one_pass && !stream,
            long_sum: Mutex::new(Vec::new()),
        }
    }

    /// XORs a token read in pieces into the shared sum, straight from its
    /// packed digits; returns a buffer to reuse. A token longer than the
    /// sum is turned into limbs and becomes the sum, so that no memory is
    /// allocated (and no page touched) for it.
    fn xor_long(&self, long: LongHeap) -> Vec<u64> {
        let mut sum = self.long_sum.lock().expect("a range thread does not panic");
        if long.limbs() <= sum.len() {
            long.xor_into(&mut sum);
            return long.into_buffer();
        }
        xor_keeping_longer(&mut sum, long.into_limbs())
    }

    /// XORs limbs `first ..` of a token read from its end into the shared
    /// sum. The lock is held for one read's limbs, so the ranges' threads
    /// take turns read by read.
    fn xor_limbs(&self, first: u64, limbs: &[u64]) {
        let mut sum = self.long_sum.lock().expect("a range thread does not panic");
        xor_at(&mut sum, first as usize, limbs);
    }
}

/// The nim-sum of the heaps so far.
#[derive(Debug)]
struct Sum {
    limbs: Vec<u64>,
    /// The packed tokens' part, shifted when it is read (boxed, and only
    /// once a token is packed: a fold is returned by its thread, and most
    /// never pack one).
    by_shift: Option<Box<ByShift>>,
}

impl Sum {
    fn new() -> Sum {
        // Two limbs from the start: the XOR of a word needs no check.
        Sum {
            limbs: vec![0; 2],
            by_shift: None,
        }
    }

    /// XORs `value` in; `at` releases the pages of a long heap in a map.
    #[inline(always)]
    fn xor(&mut self, value: &HeapValue<'_>, at: &At<'_>) {
        if let (HeapValue::Word(word), [low, high, ..]) = (value, self.limbs.as_mut_slice()) {
            *low ^= *word as u64;
            *high ^= (*word >> 64) as u64;
            return;
        }
        if let HeapValue::Packed(packed) = value {
            self.by_shift.get_or_insert_default().xor(packed);
            return;
        }
        let limbs = value.bit_length().div_ceil(64) as usize;
        if self.limbs.len() < limbs {
            self.limbs.resize(limbs, 0);
        }
        at.pages.xor_window(value, 0, &mut self.limbs[..limbs]);
    }

    /// The whole sum, its packed part shifted in.
    fn into_limbs(mut self) -> Vec<u64> {
        if let Some(by_shift) = &mut self.by_shift {
            by_shift.drain_into(&mut self.limbs);
        }
        self.limbs
    }
}

/// The one-pass fold of one range.
pub struct OnePass<'s> {
    shared: &'s Shared<'s>,
    survey: Survey,
    /// `None` once a heap wider than the window came by.
    sum: Option<Sum>,
    counts: HolderCounts,
    candidates: Option<Candidates>,
    /// The line of the first heap equal to 1 (a stream of a text format).
    first_one_line: Option<u64>,
}

/// What the first pass found.
#[derive(Debug)]
pub struct FirstPass {
    /// Counts and landmarks.
    pub survey: Survey,
    /// The whole nim-sum, when every heap fit the window.
    pub nim_sum: Option<Vec<u64>>,
    /// How many heaps hold each bit, as far as counted.
    pub counts: HolderCounts,
    /// The move's candidates, when kept (and every heap fit the window).
    pub candidates: Option<Candidates>,
    /// The line of the first heap equal to 1, when the pass counted lines.
    pub first_one_line: Option<u64>,
}

impl<'s> OnePass<'s> {
    /// An empty fold for a range.
    pub fn new(shared: &'s Shared<'s>) -> OnePass<'s> {
        OnePass {
            shared,
            survey: Survey::default(),
            sum: Some(Sum::new()),
            counts: HolderCounts::new(shared.counting, shared.format),
            candidates: shared.keep_candidates.then(Candidates::default),
            first_one_line: None,
        }
    }

    /// What the pass found, once every range is merged into this fold.
    pub fn finish(self) -> FirstPass {
        let long_sum = std::mem::take(&mut *self.shared.long_sum.lock().expect("no thread panics"));
        let nim_sum = self.sum.map(|sum| {
            let mut limbs = sum.into_limbs();
            if let HolderCounts::Columns(counter) = &self.counts {
                // Raw elements counted in columns: their parities are the sum.
                let columns = counter.columns().into_iter().enumerate();
                limbs[0] ^= columns.fold(0, |g, (b, c)| g | (c & 1) << b);
            }
            xor_keeping_longer(&mut limbs, long_sum);
            trimmed(limbs)
        });
        FirstPass {
            survey: self.survey,
            nim_sum,
            counts: self.counts,
            candidates: self.candidates,
            first_one_line: self.first_one_line,
        }
    }

    /// A heap of `bits` bits wider than the window: an error on a stream;
    /// otherwise the end of the nim-sum and the candidates.
    #[cold]
    #[inline(never)]
    fn too_wide(&mut self, index: u64, offset: u64, bits: u64) -> Result<(), Error> {
        if self.shared.stream {
            return Err(Error::Input {
                path: self.shared.name.to_string(),
                offset,
                line_col: None,
                message: format!(
                    "heap {index} has {bits} bits, more than the {}-bit window of --memory; \
                     standard input is read in one pass, so save it to a file and pass its path",
                    self.shared.window_bits
                ),
            });
        }
        self.sum = None;
        self.candidates = None;
        Ok(())
    }

    /// A token of `bits` bits read in pieces or from its end, whose limb
    /// `j` is `limb(j)` among the top ones: into the survey and the
    /// counters like any other, and left in the file as a candidate.
    fn long_token(
        &mut self,
        pos: HeapPos,
        digits: Range<u64>,
        bits: u64,
        limb: impl Fn(u64) -> u64,
    ) -> Result<(), Error> {
        if bits > self.shared.window_bits && self.sum.is_some() {
            self.too_wide(pos.index, pos.offset, bits)?;
        }
        self.survey.record_length(pos.index, pos.offset, bits);
        self.counts.add_limbs(bits, &limb);
        if let Some(candidates) = self.candidates.as_mut().filter(|_| bits > 0) {
            candidates.leave_in_file(HeapInFile::new(pos, digits, bits, limb));
        }
        Ok(())
    }

    /// Counts a block of heaps into the holder counts and returns its
    /// XOR, its tally (the heaps that are 0 and 1, and the OR of their low
    /// limbs) and its OR: with the loops of one limb when every heap fits
    /// it, of both limbs otherwise ([`HolderCounts::tally_pair`]). `None`,
    /// with nothing counted, for a block of wider heaps that the pass
    /// takes one by one: where the nim-sum is kept in a window of fewer
    /// than 128 bits (a heap may be too wide for it), or where the counts
    /// take heaps one by one (lean counts, under a small budget).
    fn count_words(&mut self, block: &WordBlock<'_>) -> Option<(u128, BlockTally, u128)> {
        let low = block.limb(0).expect("a block has a low limb");
        if block.high_or == 0 {
            // A window holds a limb at least (`Plan::window_bits`): every
            // heap of the block fits it.
            debug_assert!(self.shared.window_bits >= 64);
            let (xor, tally) = match self.counts.tally_raw(&low) {
                Some(tallied) => tallied,
                None => {
                    let (xor, tally) = raw_arrays::sums(&low);
                    self.counts
                        .add_raw(&low, u64::from(64 - tally.or.leading_zeros()));
                    (xor, tally)
                }
            };
            return Some((u128::from(xor), tally, u128::from(tally.or)));
        }
        if self.sum.is_some() && self.shared.window_bits < 128 {
            return None;
        }
        let high = block.limb(1).expect("a block has a high limb");
        let [low_sums, high_sums] = self.counts.tally_pair([&low, &high])?;
        let (low_xor, low_tally) = low_sums.unwrap_or_else(|| raw_arrays::sums(&low));
        let (high_xor, high_tally) = high_sums.unwrap_or_else(|| raw_arrays::sums(&high));
        let tally = raw_arrays::two_limb_tally(&low, &high, low_tally.or);
        let join = |low: u64, high: u64| u128::from(high) << 64 | u128::from(low);
        Some((
            join(low_xor, high_xor),
            tally,
            join(low_tally.or, high_tally.or),
        ))
    }

    fn spill_error(&self, error: std::io::Error) -> Error {
        Error::io(self.shared.name, error)
    }
}

impl Fold for OnePass<'_> {
    /// Blocks of words; tokens are read from their end while the nim-sum
    /// is kept, as long as the window; short tokens may come packed.
    fn needs(&self) -> Needs {
        Needs {
            sums_from_end: self.sum.as_ref().map(|_| self.shared.window_bits),
            packs_tokens: self.shared.pack_tokens,
            ..Needs::WORDS
        }
    }

    #[inline(always)]
    fn heap(&mut self, index: u64, heap: &Heap<'_>, at: &mut At<'_>) -> Result<(), Error> {
        let bits = heap.value.bit_length();
        // Once the nim-sum is left to the windows, wide heaps are common
        // (most heaps, under `log`): the check stops there.
        if bits > self.shared.window_bits && self.sum.is_some() {
            self.too_wide(index, heap.offset, bits)?;
        }
        let first_one = self.survey.first_one.is_none();
        self.survey.record_length(index, heap.offset, bits);
        if let Some(sum) = &mut self.sum {
            sum.xor(&heap.value, at);
        }
        self.counts.add(&heap.value);
        if let Some(candidates) = &mut self.candidates {
            if candidates.holds_new_bit(&heap.value) {
                let pos = HeapPos {
                    index,
                    offset: heap.offset,
                };
                let line = at.line(heap.offset);
                let kept = candidates.offer(pos, line, &heap.value);
                kept.map_err(|e| Error::io(self.shared.name, e))?;
            }
            if first_one && bits == 1 {
                self.first_one_line = at.line(heap.offset);
            }
        }
        Ok(())
    }

    /// Takes a token read in pieces, and XORs it into the shared sum.
    fn long_heap(&mut self, index: u64, long: LongHeap, _: &mut At<'_>) -> Result<Vec<u64>, Error> {
        let pos = HeapPos {
            index,
            offset: long.offset,
        };
        self.long_token(pos, long.digits.clone(), long.bit_length(), |j| {
            long.limb(j)
        })?;
        Ok(match self.sum {
            Some(_) => self.shared.xor_long(long),
            None => long.into_buffer(),
        })
    }

    fn xor_limbs(&self, first: u64, limbs: &[u64]) {
        self.shared.xor_limbs(first, limbs);
    }

    /// Takes a token read from its end: its value is in the shared sum.
    fn summed_heap(&mut self, index: u64, heap: &SummedHeap) -> Result<(), Error> {
        let pos = HeapPos {
            index,
            offset: heap.offset,
        };
        self.long_token(pos, heap.digits.clone(), heap.bits, |j| heap.top_limb(j))
    }

    /// Takes a block of raw elements with one loop, counting the holders
    /// of every bit in columns when the pass counts them; a stream counts
    /// every position, one element at a time.
    fn raw_elements(&mut self, block: RawBlock<'_>) -> Result<(), Error> {
        let tally = match &mut self.counts {
            // The sum is the columns' parities (see `finish`).
            HolderCounts::Columns(counter) => raw_arrays::tally(&block, counter).1,
            HolderCounts::Off => {
                let (xor, tally) = raw_arrays::sums(&block);
                if let Some(sum) = &mut self.sum {
                    sum.limbs[0] ^= xor;
                }
                tally
            }
            HolderCounts::Every(counts) => match counts.tally_raw(&block) {
                Some((xor, tally)) => {
                    if let Some(sum) = &mut self.sum {
                        sum.limbs[0] ^= xor;
                    }
                    tally
                }
                None => return each_element(self, block),
            },
            HolderCounts::Top(_) => return each_element(self, block),
        };
        let piece = raw_arrays::survey(&block, &tally, &self.survey);
        self.survey.merge(&piece);
        if let Some(candidates) = &mut self.candidates {
            if candidates.holds_new_bit(&HeapValue::Word(u128::from(tally.or))) {
                for (i, value) in block.elements().enumerate() {
                    let kept =
                        candidates.offer(block.position(i), None, &HeapValue::Word(value.into()));
                    kept.map_err(|e| Error::io(self.shared.name, e))?;
                }
            }
        }
        Ok(())
    }

    /// Takes a block of heaps as a block of a raw array is taken: the
    /// sums, the survey and the counts with loops over the block (one
    /// loop for the counts and the tally of a limb where the counts are
    /// kept in columns; see [`OnePass::count_words`]), the candidates only
    /// when the block's OR holds a new bit. Where a block of wider heaps is
    /// not counted so, they go one by one, and the runs of narrow ones
    /// between them as blocks ([`narrow_runs`]).
    fn words(&mut self, block: WordBlock<'_>, at: &mut At<'_>) -> Result<(), Error> {
        let Some((xor, tally, or)) = self.count_words(&block) else {
            return narrow_runs(self, block, at, |pass, run, at| pass.words(run, at));
        };
        let first_one = self.survey.first_one.is_none();
        let first = |wanted| block.first(wanted);
        let mut piece = raw_arrays::survey_of(block.len() as u64, &tally, &self.survey, first);
        // The tally's OR is the low limbs'; the longest heap is the OR's.
        piece.max_bit_length = u64::from(128 - or.leading_zeros());
        self.survey.merge(&piece);
        if let Some(sum) = &mut self.sum {
            sum.xor(&HeapValue::Word(xor), at);
        }
        let Some(candidates) = &mut self.candidates else {
            return Ok(());
        };
        let one_at = piece.first_one.filter(|_| first_one);
        let new_bit = candidates.holds_new_bit(&HeapValue::Word(or));
        if !new_bit && one_at.is_none() {
            return Ok(());
        }
        // In file order: a stream's lines are counted forward.
        for i in 0..block.len() {
            let (pos, value) = (block.position(i), HeapValue::Word(block.value(i)));
            if new_bit && candidates.holds_new_bit(&value) {
                let line = at.line(pos.offset);
                let kept = candidates.offer(pos, line, &value);
                kept.map_err(|e| Error::io(self.shared.name, e))?;
            }
            if one_at == Some(pos) {
                self.first_one_line = at.line(pos.offset);
            }
        }
        Ok(())
    }

    fn merge(&mut self, later: Self, heaps_before: u64) -> Result<(), Error> {
        if self.survey.first_one.is_none() {
            self.first_one_line = later.first_one_line;
        }
        self.survey.merge_after(&later.survey, heaps_before);
        self.sum = match (self.sum.take(), later.sum) {
            (Some(mut mine), Some(theirs)) => {
                xor_keeping_longer(&mut mine.limbs, theirs.into_limbs());
                Some(mine)
            }
            _ => None,
        };
        self.counts.merge(later.counts);
        self.candidates = match (self.candidates.take(), later.candidates) {
            (Some(mut mine), Some(theirs)) => {
                mine.merge(theirs, heaps_before)
                    .map_err(|e| self.spill_error(e))?;
                Some(mine)
            }
            _ => None,
        };
        Ok(())
    }
}
