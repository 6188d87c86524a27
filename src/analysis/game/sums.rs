//! The pass of a game other than Nim (SPEC section 8): each heap's Grundy
//! value, XORed into the Grundy sum, in one pass through the driver on
//! every source and every path.
//!
//! A heap of at most 64 bits takes its value from the table (or the
//! period); a longer one from its residue modulo the period, computed as
//! its digits go by ([`crate::games::residue::Modulus`]): in place, a
//! step at a time, or, for a token read in pieces, group by group as the
//! reads bring them. A heap of any length costs O(1) state. The fold
//! keeps the first heap holding each bit of the values
//! ([`super::holders`]). On a stream, which cannot be read again,
//! the holders keep their limbs (up to the stream's window), or what the
//! report needs of them; on a file the move's heap is read again at the
//! end.
//!
//! Folds of consecutive ranges merge associatively: the sums XOR, the
//! earlier range's holders win.

use super::holders::{Holder, Holders, LongTokens};
use crate::analysis::budget::Plan;
use crate::analysis::facts::Stats;
use crate::analysis::raw_arrays;
use crate::analysis::survey::Survey;
use crate::arch::grundy_words::{self, WordValues};
use crate::error::Error;
use crate::games::residue::{BorrowLimbs, Modulus};
use crate::games::{HeapSize, Sequence};
use crate::input::driver::{each_element, each_word, narrow_runs, At, Fold, Needs, Reads};
use crate::input::source::page_release::PageReleaser;
use crate::input::{Heap, HeapPos, HeapValue, LongTail, RawBlock, WordBlock};

/// The bit length of a word.
fn bit_length(word: u64) -> u64 {
    u64::from(64 - word.leading_zeros())
}

/// The shortest token whose bytes the count of the move's line skips:
/// shorter ones would save it less than noting them costs.
const NOTED_TOKEN_BITS: u64 = 1 << 16;

/// What the folds of every range of the pass share.
pub struct GameShared<'s> {
    sequence: &'s Sequence,
    /// The proven period's modulus, for the residues of long heaps.
    modulus: Option<Modulus>,
    /// The values and the period as a word's value is read off them,
    /// without a division (with a proven period: without one, a heap past
    /// the table has no value).
    words: Option<WordValues<'s>>,
    /// Whether the input is a stream: the holders keep their limbs.
    stream: bool,
    /// The longest heap a holder keeps on a stream, in bits.
    keep_bits: u64,
    /// Whether short hex tokens may come packed (their scratch space is
    /// for the one-pass budgets, not for `log`).
    pack_tokens: bool,
}

/// How a game's pass reads under `plan` — the first pass's reads, but a
/// long token is never packed whole (its residue needs each digit once,
/// as the reads bring it) — and the costs it starts from.
pub(crate) fn game_reads(plan: &Plan) -> (Reads, Stats) {
    let reads = plan.first_unpacked();
    let stats = Stats {
        window_bits: plan.window_bits,
        ..Stats::default()
    };
    (reads, stats)
}

impl<'s> GameShared<'s> {
    /// The settings of a pass under `sequence` and `plan`.
    pub fn new(sequence: &'s Sequence, plan: &Plan, stream: bool) -> GameShared<'s> {
        let period = sequence.period();
        GameShared {
            sequence,
            modulus: period.and_then(|period| Modulus::new(period.period)),
            // The values up to the end of the first period: the period is
            // proven, so every later one is the period's, and a table of
            // at most 128 values is looked up from registers.
            words: period.and_then(|period| {
                let (p, q) = (period.preperiod, period.period);
                let first = sequence.values().get(..usize::try_from(p + q).ok()?)?;
                WordValues::new(first, p, q)
            }),
            stream,
            keep_bits: plan.window_bits,
            pack_tokens: plan.one_pass && !stream,
        }
    }

    /// A heap's size as the value sequence takes it: exact up to 64 bits,
    /// else its residue modulo the period (`None` with no proven period:
    /// such a heap lies past every computed value).
    /// `pages` releases the pages of a long heap in a map as it is read.
    #[inline(always)]
    pub fn size(
        &self,
        value: &HeapValue<'_>,
        bits: u64,
        pages: PageReleaser<'_>,
    ) -> Option<HeapSize> {
        match bits <= 64 {
            true => Some(HeapSize::Exact(value.limb(0))),
            false => Some(HeapSize::Huge {
                residue: self.modulus.as_ref()?.of_heap_releasing(value, pages),
            }),
        }
    }

    /// What a pass keeps of a heap the move may be played on: where it is,
    /// its line when the pass counts lines, its size and value, and on a
    /// stream its limbs (up to the window) or what the report needs of
    /// them.
    pub fn holder(
        &self,
        pos: HeapPos,
        size: HeapSize,
        grundy: u16,
        heap: &Heap<'_>,
        at: &mut At<'_>,
    ) -> Holder {
        let bits = heap.value.bit_length();
        let keep = self.stream && bits > 64 && bits <= self.keep_bits;
        Holder {
            pos,
            line: at.line(heap.offset),
            size,
            grundy,
            bits,
            limbs: keep.then(|| heap.value.to_limbs()),
            borrow: (self.stream && !keep && bits > 64).then(|| BorrowLimbs::of_heap(&heap.value)),
        }
    }

    /// The values and the period as a word's value is read off them
    /// without a division (`None` with no proven period).
    pub fn words(&self) -> Option<&WordValues<'s>> {
        self.words.as_ref()
    }

    /// The proven period's modulus, for the residues of long heaps.
    pub fn modulus(&self) -> Option<&Modulus> {
        self.modulus.as_ref()
    }

    /// The Grundy value of a heap of `size` (`None`: past the computed
    /// values of a game with no proven period).
    #[inline(always)]
    pub fn grundy(&self, size: HeapSize) -> Option<u16> {
        match (size, &self.words) {
            (HeapSize::Exact(h), Some(words)) => Some(words.value(h)),
            (HeapSize::Exact(h), None) => self.sequence.value(h),
            (HeapSize::Huge { residue }, _) => self.sequence.value_at_residue(residue),
        }
    }
}

/// The fold of one range.
pub struct GameSum<'s> {
    shared: &'s GameShared<'s>,
    survey: Survey,
    grundy_sum: u16,
    holders: Holders,
    /// The first heap past the computed values, where the pass stopped.
    past_values: Option<PastValues>,
    long_tokens: LongTokens,
    /// The token being read in pieces, its groups folded as they come.
    reading: LongResidue,
}

/// What a fold keeps of a long token whose groups it takes as they are
/// read: the residue so far, the bit length so far, and the last whole
/// group (the value itself, when it turns out to be short).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LongResidue {
    residue: u64,
    bits: u64,
    last_group: u64,
}

impl LongResidue {
    /// Takes the token's next whole groups (see [`Fold::long_groups`]).
    pub(crate) fn take(&mut self, groups: &[u64], modulus: Option<&Modulus>) {
        self.residue = modulus.map_or(0, |modulus| modulus.fold_groups(self.residue, groups));
        for &group in groups {
            self.bits = match self.bits {
                0 => bit_length(group),
                bits => bits + 64,
            };
        }
        if let Some(&last) = groups.last() {
            self.last_group = last;
        }
    }

    /// The token's bit length and size, once its `tail` has come (the
    /// fold drains long tokens only under a period: `modulus`).
    pub(crate) fn end(self, tail: &LongTail, modulus: &Modulus) -> (u64, HeapSize) {
        let bits = match self.bits {
            0 => bit_length(tail.last),
            bits => bits + u64::from(tail.last_bits),
        };
        let size = match bits <= 64 {
            // The value is the last whole group and the tail's digits.
            true => HeapSize::Exact(match tail.last_bits {
                0 => self.last_group,
                shift => self.last_group << shift | tail.last,
            }),
            false => HeapSize::Huge {
                residue: modulus.fold_bits(self.residue, tail.last, tail.last_bits),
            },
        };
        (bits, size)
    }
}

/// The first heap past the computed values of a game with no proven
/// period: where it is, and its line and column when the pass counted
/// lines (a stream, which cannot look them up later).
#[derive(Clone, Copy, Debug)]
pub struct PastValues {
    /// The heap.
    pub pos: HeapPos,
    /// Its line and column, on a stream of a text format.
    pub line_col: Option<(u64, u64)>,
}

/// What the pass found.
#[derive(Debug)]
pub struct GamePass {
    /// Counts and landmarks.
    pub survey: Survey,
    /// The XOR of the heaps' Grundy values.
    pub grundy_sum: u16,
    /// The first holder of each bit.
    pub holders: Holders,
    /// The first heap past the computed values.
    pub past_values: Option<PastValues>,
    /// The longest tokens, which hold no line feed.
    pub long_tokens: LongTokens,
}

impl<'s> GameSum<'s> {
    /// An empty fold for a range.
    pub fn new(shared: &'s GameShared<'s>) -> GameSum<'s> {
        GameSum {
            shared,
            survey: Survey::default(),
            grundy_sum: 0,
            holders: Holders::default(),
            past_values: None,
            long_tokens: LongTokens::default(),
            reading: LongResidue::default(),
        }
    }

    /// What the pass found, once every range is merged into this fold.
    pub fn finish(self) -> GamePass {
        GamePass {
            survey: self.survey,
            grundy_sum: self.grundy_sum,
            holders: self.holders,
            past_values: self.past_values,
            long_tokens: self.long_tokens,
        }
    }

    /// Makes the heap the holder of the bits of `grundy` not held yet.
    #[cold]
    #[inline(never)]
    fn hold(
        &mut self,
        pos: HeapPos,
        size: HeapSize,
        grundy: u16,
        heap: &Heap<'_>,
        at: &mut At<'_>,
    ) {
        let holder = self.shared.holder(pos, size, grundy, heap, at);
        self.holders.add(holder, grundy);
    }

    /// Notes the digits of a long token: they hold no line feed. (A token
    /// read in pieces comes as limbs: its digits are not noted.)
    #[cold]
    fn note_digits(&mut self, heap: &Heap<'_>) {
        let limbs = heap.value.bit_length().div_ceil(64);
        let digits = heap.value.limb_bytes(0..limbs).len() as u64;
        if digits > 0 {
            self.long_tokens.note(heap.offset, digits);
        }
    }

    /// Takes the value of the `index`-th heap, of `bits` bits.
    #[inline(always)]
    fn take_value(&mut self, index: u64, bits: u64, heap: &Heap<'_>, at: &mut At<'_>) {
        let pos = HeapPos {
            index,
            offset: heap.offset,
        };
        let value = self
            .shared
            .size(&heap.value, bits, at.pages)
            .and_then(|size| {
                let grundy = self.shared.grundy(size)?;
                Some((size, grundy))
            });
        let Some((size, grundy)) = value else {
            self.past_values = Some(PastValues {
                pos,
                line_col: at.line_and_column(heap.offset),
            });
            return;
        };
        self.grundy_sum ^= grundy;
        if !self.holders.hold_all_of(grundy) {
            self.hold(pos, size, grundy, heap, at);
        }
    }

    /// The modulus of the proven period (a fold drains long tokens only
    /// when there is one).
    fn modulus(&self) -> &Modulus {
        self.shared
            .modulus
            .as_ref()
            .expect("tokens drained under a period")
    }
}

impl Fold for GameSum<'_> {
    /// Blocks of words; a long token's value needs only its residue, so
    /// its groups are folded as they are read when there is a period to
    /// fold them by; short hex tokens come packed where the budget allows
    /// (their residue folds from the packed groups, faster than from the
    /// digits).
    fn needs(&self) -> Needs {
        Needs {
            drains_long_tokens: self.shared.modulus.is_some(),
            packs_tokens: self.shared.pack_tokens,
            ..Needs::WORDS
        }
    }

    #[inline(always)]
    fn heap(&mut self, index: u64, heap: &Heap<'_>, at: &mut At<'_>) -> Result<(), Error> {
        let bits = heap.value.bit_length();
        self.survey.record_length(index, heap.offset, bits);
        self.take_value(index, bits, heap, at);
        if bits >= NOTED_TOKEN_BITS {
            self.note_digits(heap);
        }
        Ok(())
    }

    /// A block of a raw array: its survey from the crate's block loops,
    /// its values in one loop without a branch per element
    /// ([`grundy_words::fold`], vectorised where the CPU allows). Element
    /// by element only where a value holds a bit no heap held yet, or with
    /// no proven period.
    fn raw_elements(&mut self, block: RawBlock<'_>) -> Result<(), Error> {
        let words = self.shared.words.as_ref();
        let values = words.map(|table| grundy_words::fold(block.bytes, block.width, table));
        match values {
            Some(values) if self.holders.hold_all_of(values.or) => {
                self.grundy_sum ^= values.xor;
                // The block's positions count from its range's start.
                let piece = raw_arrays::survey(&block, &values.tally, &self.survey);
                self.survey.merge(&piece);
                Ok(())
            }
            _ => each_element(self, block),
        }
    }

    /// A block of heaps of at most 64 bits as a block of a raw array:
    /// their values in one loop, heap by heap only where
    /// [`GameSum::raw_elements`] goes heap by heap. Wider heaps go one by
    /// one, and the runs of narrow ones between them as blocks
    /// ([`narrow_runs`]).
    fn words(&mut self, block: WordBlock<'_>, at: &mut At<'_>) -> Result<(), Error> {
        if block.high_or != 0 {
            return narrow_runs(self, block, at, |sum, run, at| sum.words(run, at));
        }
        let low = block.limb(0);
        let words = self.shared.words.as_ref();
        let values = low.zip(words).map(|(low, table)| {
            let values = grundy_words::fold(low.bytes, low.width, table);
            (low.len(), values)
        });
        match values {
            Some((heaps, values)) if self.holders.hold_all_of(values.or) => {
                self.grundy_sum ^= values.xor;
                let first = |wanted| block.first(wanted);
                let piece = raw_arrays::survey_of(heaps, &values.tally, &self.survey, first);
                self.survey.merge(&piece);
                Ok(())
            }
            _ => each_word(self, block, at),
        }
    }

    fn long_groups(&mut self, groups: &[u64]) {
        self.reading.take(groups, self.shared.modulus.as_ref());
    }

    fn long_tail(&mut self, index: u64, tail: LongTail) -> Result<(), Error> {
        let (bits, size) = std::mem::take(&mut self.reading).end(&tail, self.modulus());
        self.survey.record_length(index, tail.offset, bits);
        let pos = HeapPos {
            index,
            offset: tail.offset,
        };
        let Some(grundy) = self.shared.grundy(size) else {
            self.past_values = Some(PastValues {
                pos,
                line_col: None,
            });
            return Ok(());
        };
        self.grundy_sum ^= grundy;
        let holder = Holder {
            pos,
            line: None,
            size,
            grundy,
            bits,
            limbs: None,
            borrow: None,
        };
        self.holders.add(holder, grundy);
        if bits > 64 {
            self.long_tokens
                .note(tail.offset, tail.digits.end - tail.offset);
        }
        Ok(())
    }

    fn done(&self) -> bool {
        self.past_values.is_some()
    }

    fn merge(&mut self, later: GameSum<'_>, heaps_before: u64) -> Result<(), Error> {
        let shift = |pos: HeapPos| HeapPos {
            index: pos.index + heaps_before,
            offset: pos.offset,
        };
        if self.past_values.is_some() {
            return Ok(());
        }
        self.survey.merge_after(&later.survey, heaps_before);
        self.grundy_sum ^= later.grundy_sum;
        self.long_tokens.append(later.long_tokens);
        self.past_values = later.past_values.map(|past| PastValues {
            pos: shift(past.pos),
            ..past
        });
        self.holders.append(later.holders, shift);
        Ok(())
    }
}
