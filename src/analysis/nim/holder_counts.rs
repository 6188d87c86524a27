//! How many heaps hold each bit position: what `winning_moves` needs
//! (under normal play, the number of heaps holding the nim-sum's msb),
//! gathered in the same pass as the nim-sum, before the msb is known.
//!
//! Two ways, by what a second look at the input costs:
//!
//! - [`BitCounts`] (`bit_counts.rs`) counts every position exactly. A
//!   stream can only be read once, so it needs them.
//! - [`TopCounts`] counts only the top [`TOP_LIMBS`] limb positions
//!   reached so far, with the carry-save column counters of
//!   [`crate::arch::columns`] (32 heaps per step). That is a few
//!   word operations per heap, and it is exact wherever it answers: when
//!   the longest heap grows, the new top positions were 0 in every earlier
//!   heap. The msb of a random instance's nim-sum lies in its top limb;
//!   when it lies below the counted positions, the caller reads the file
//!   again.

pub(crate) use super::bit_counts::BitCounts;
use crate::analysis::budget::Counting;
use crate::arch::columns::{self, BlockTally, ColumnCounter, STEP};
use crate::input::{Format, HeapValue, RawBlock};

/// Limb positions [`TopCounts`] keeps, counted down from the longest heap.
pub const TOP_LIMBS: u64 = 2;

/// Exact counts of the heaps holding each bit of the top limb positions
/// reached so far.
#[derive(Clone, Debug, Default)]
pub struct TopCounts {
    /// The lowest counted limb position.
    low: u64,
    /// Counters of limbs `low ..`, at most [`TOP_LIMBS`].
    limbs: Vec<StagedColumns>,
    /// Whether blocks of raw words are counted without the AVX-512 column
    /// loop (see [`Counting::Top`]).
    lean: bool,
}

/// The column counter of one limb position, fed 32 words at a time.
#[derive(Clone, Debug)]
struct StagedColumns {
    counter: ColumnCounter,
    staged: [u64; STEP],
    len: usize,
}

impl Default for StagedColumns {
    fn default() -> Self {
        StagedColumns {
            counter: ColumnCounter::default(),
            staged: [0; STEP],
            len: 0,
        }
    }
}

impl StagedColumns {
    #[inline]
    fn push(&mut self, word: u64) {
        self.staged[self.len] = word;
        self.len += 1;
        if self.len == STEP {
            self.counter.add_words(&self.staged);
            self.len = 0;
        }
    }

    fn columns(&self) -> [u64; 64] {
        let mut rest = ColumnCounter::default();
        self.staged[..self.len]
            .iter()
            .for_each(|&w| rest.add_word(w));
        let (mut columns, staged) = (self.counter.columns(), rest.columns());
        for (c, s) in columns.iter_mut().zip(staged) {
            *c += s;
        }
        columns
    }
}

impl TopCounts {
    /// The limb position above the counted ones.
    fn top(&self) -> u64 {
        self.low + self.limbs.len() as u64
    }

    /// Moves the counted positions up to end at limb `top` (rare: only
    /// when a heap is longer than every one before).
    #[cold]
    #[inline(never)]
    fn raise(&mut self, top: u64) {
        let low = top.saturating_sub(TOP_LIMBS).max(self.low);
        let dropped = ((low - self.low) as usize).min(self.limbs.len());
        self.limbs.drain(..dropped);
        self.low = low;
        while self.top() < top {
            self.limbs.push(StagedColumns::default());
        }
    }

    /// Counts one heap.
    #[inline]
    pub fn add(&mut self, value: &HeapValue<'_>) {
        self.add_limbs(value.bit_length(), |j| value.limb(j));
    }

    /// Counts one heap of `bits` bits whose limb `j` is `limb(j)` (asked
    /// only for the counted positions).
    #[inline]
    pub fn add_limbs(&mut self, bits: u64, limb: impl Fn(u64) -> u64) {
        let limbs = bits.div_ceil(64);
        if limbs > self.top() {
            self.raise(limbs);
        }
        for j in self.low..limbs {
            self.limbs[(j - self.low) as usize].push(limb(j));
        }
    }

    /// Counts one heap of at most 128 bits.
    #[inline(always)]
    pub fn add_word(&mut self, value: u128) {
        let limbs = u64::from(128 - value.leading_zeros()).div_ceil(64);
        if limbs > self.top() {
            self.raise(limbs);
        }
        for j in self.low..limbs {
            self.limbs[(j - self.low) as usize].push((value >> (64 * j)) as u64);
        }
    }

    /// Counts a block of heaps of at most 64 bits, `bits` the longest's
    /// length, with the column loops of raw arrays.
    #[inline]
    pub fn add_raw(&mut self, block: &RawBlock<'_>, bits: u64) {
        let limbs = bits.div_ceil(64);
        if limbs > self.top() {
            self.raise(limbs);
        }
        if self.low == 0 && limbs == 1 {
            self.tally_limb(0, block);
        }
    }

    /// Counts `block` as limb position `j` (counted) of its heaps in that
    /// position's columns; returns its XOR and tally.
    #[inline]
    fn tally_limb(&mut self, j: u64, block: &RawBlock<'_>) -> (u64, BlockTally) {
        let counter = &mut self.limbs[(j - self.low) as usize].counter;
        match self.lean {
            true => columns::tally_in_lanes(block.bytes, block.width, counter),
            false => columns::tally(block.bytes, block.width, counter),
        }
    }

    /// Counts a block of heaps of at most 128 bits, some of more than 64,
    /// given as its two limbs (`limbs[j]`: limb `j` of every heap), with
    /// the column loops of raw arrays: the counted positions are raised to
    /// limb 1 first, as its widest heap raises them, and each limb among
    /// them is counted in its columns. Returns each limb's XOR and tally;
    /// `None` for a limb below the counted positions.
    pub fn tally_pair(&mut self, limbs: [&RawBlock<'_>; 2]) -> [Option<(u64, BlockTally)>; 2] {
        if self.top() < 2 {
            self.raise(2);
        }
        let mut tallies = [None, None];
        for (j, tally) in (0..).zip(&mut tallies) {
            if j >= self.low {
                *tally = Some(self.tally_limb(j, limbs[j as usize]));
            }
        }
        tallies
    }

    /// Counts a block of heaps of at most 64 bits with the column loops of
    /// raw arrays, when the counted positions include limb 0 (they are
    /// raised to it first when none are counted yet: every heap so far was
    /// 0); returns the block's XOR and tally. `None` when limb 0 is below
    /// the counted positions: the block holds none of their bits.
    #[inline]
    pub fn tally_raw(&mut self, block: &RawBlock<'_>) -> Option<(u64, BlockTally)> {
        if self.top() == 0 {
            self.raise(1);
        }
        if self.low != 0 {
            return None;
        }
        Some(self.tally_limb(0, block))
    }

    /// How many heaps have bit `position` set; `None` below the counted
    /// positions.
    pub fn count(&self, position: u64) -> Option<u64> {
        let limb = position / 64;
        if limb < self.low {
            return None;
        }
        Some(
            self.limbs
                .get((limb - self.low) as usize)
                .map_or(0, |c| c.columns()[(position % 64) as usize]),
        )
    }

    /// Adds the counts of the heaps that follow: positions counted by both
    /// stay counted.
    pub fn merge(&mut self, later: &TopCounts) {
        let top = self.top().max(later.top());
        self.raise(top);
        if later.low > self.low {
            let dropped = ((later.low - self.low) as usize).min(self.limbs.len());
            self.limbs.drain(..dropped);
            self.low = later.low;
        }
        for (j, theirs) in (later.low..).zip(&later.limbs) {
            if j >= self.low {
                let columns = theirs.columns();
                self.limbs[(j - self.low) as usize]
                    .counter
                    .add_columns(&columns);
            }
        }
    }
}

/// The counts a pass keeps, as [`Counting`] asks.
#[derive(Debug)]
pub enum HolderCounts {
    /// Every position (a stream; boxed, so that the counts of an input
    /// read again take no more room for them).
    Every(Box<BitCounts>),
    /// The top positions (an input that can be read again).
    Top(TopCounts),
    /// Every column of a raw array, counted in blocks (the one pass over
    /// an input read again; raw elements have 64 bits at most).
    Columns(Box<ColumnCounter>),
    /// None (a later pass counts the holders of the msb).
    Off,
}

impl HolderCounts {
    /// Empty counts of the kind `counting` asks for, for `format`.
    pub fn new(counting: Counting, format: Format) -> HolderCounts {
        match counting {
            Counting::Every { lean } => HolderCounts::Every(Box::new(BitCounts::new(lean))),
            Counting::Top { .. } if format.raw_width().is_some() => {
                HolderCounts::Columns(Box::default())
            }
            Counting::Top { lean } => HolderCounts::Top(TopCounts {
                lean,
                ..TopCounts::default()
            }),
            Counting::Off => HolderCounts::Off,
        }
    }

    /// Counts one heap.
    #[inline(always)]
    pub fn add(&mut self, value: &HeapValue<'_>) {
        match (self, value) {
            (HolderCounts::Every(counts), _) => counts.add(value),
            (HolderCounts::Top(counts), HeapValue::Word(word)) => counts.add_word(*word),
            (HolderCounts::Top(counts), _) => counts.add(value),
            (HolderCounts::Columns(counter), _) => counter.add_word(value.limb(0)),
            (HolderCounts::Off, _) => {}
        }
    }

    /// Counts one heap of `bits` bits whose limb `j` is `limb(j)`.
    pub fn add_limbs(&mut self, bits: u64, limb: impl Fn(u64) -> u64) {
        match self {
            HolderCounts::Every(counts) => counts.add_limbs(bits, limb),
            HolderCounts::Top(counts) => counts.add_limbs(bits, limb),
            HolderCounts::Columns(counter) => counter.add_word(limb(0)),
            HolderCounts::Off => {}
        }
    }

    /// Counts a block of heaps of at most 64 bits in columns where its
    /// bits are counted that way ([`TopCounts::tally_raw`], or every
    /// position in columns), and returns the block's XOR and tally; `None`
    /// where it is not counted so ([`HolderCounts::add_raw`] then counts
    /// it).
    #[inline]
    pub fn tally_raw(&mut self, block: &RawBlock<'_>) -> Option<(u64, BlockTally)> {
        match self {
            HolderCounts::Top(counts) => counts.tally_raw(block),
            HolderCounts::Columns(counter) => {
                Some(columns::tally(block.bytes, block.width, counter))
            }
            HolderCounts::Every(counts) => counts.tally_raw(block),
            HolderCounts::Off => None,
        }
    }

    /// Counts a block of heaps of at most 64 bits, `bits` the longest's
    /// length.
    pub fn add_raw(&mut self, block: &RawBlock<'_>, bits: u64) {
        match self {
            HolderCounts::Every(counts) => {
                block.elements().for_each(|w| counts.add_limbs(bits, |_| w))
            }
            HolderCounts::Top(counts) => counts.add_raw(block, bits),
            HolderCounts::Columns(counter) => {
                columns::tally(block.bytes, block.width, counter);
            }
            HolderCounts::Off => {}
        }
    }

    /// How many heaps hold bit `position`, when known.
    pub fn count(&self, position: u64) -> Option<u64> {
        match self {
            HolderCounts::Every(counts) => Some(counts.count(position)),
            HolderCounts::Top(counts) => counts.count(position),
            HolderCounts::Columns(counter) => Some(
                counter
                    .columns()
                    .get(position as usize)
                    .copied()
                    .unwrap_or(0),
            ),
            HolderCounts::Off => None,
        }
    }

    /// Counts a block of heaps of at most 128 bits given as its two limbs,
    /// in columns where they are counted so ([`TopCounts::tally_pair`]),
    /// and returns each limb's XOR and tally (`None` for a limb not
    /// counted, which the caller sums itself). `None` where such a block is
    /// not counted a block at a time (lean counts of every position, or
    /// the columns of a raw array, whose elements fit a limb), and nothing
    /// is counted.
    pub fn tally_pair(
        &mut self,
        limbs: [&RawBlock<'_>; 2],
    ) -> Option<[Option<(u64, BlockTally)>; 2]> {
        match self {
            HolderCounts::Top(counts) => Some(counts.tally_pair(limbs)),
            HolderCounts::Every(counts) => counts.tally_pair(limbs).map(|t| t.map(Some)),
            HolderCounts::Off => Some([None, None]),
            HolderCounts::Columns(_) => None,
        }
    }

    /// Adds the counts of the heaps that follow.
    pub fn merge(&mut self, later: HolderCounts) {
        match (self, later) {
            (HolderCounts::Every(mine), HolderCounts::Every(theirs)) => mine.merge(*theirs),
            (HolderCounts::Top(mine), HolderCounts::Top(theirs)) => mine.merge(&theirs),
            (HolderCounts::Columns(mine), HolderCounts::Columns(theirs)) => {
                mine.add_columns(&theirs.columns());
            }
            (HolderCounts::Off, HolderCounts::Off) => {}
            _ => unreachable!("the ranges of one pass count the same way"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::bit_counts::tests::{heaps, naive, value};
    use super::*;

    #[test]
    fn top_counts_are_exact_where_they_answer_and_cover_the_top() {
        let heaps = heaps(2, 1000);
        let mut counts = TopCounts::default();
        heaps.iter().for_each(|h| counts.add(&value(h)));
        let top = heaps.iter().map(|h| value(h).bit_length()).max().unwrap();
        for position in 0..7 * 64 {
            match counts.count(position) {
                Some(c) => assert_eq!(c, naive(&heaps, position), "{position}"),
                None => assert!(position < top.div_ceil(64) * 64 - 64 * TOP_LIMBS),
            }
        }
        assert!(counts.count(top - 1).is_some());
    }

    #[test]
    fn merged_pieces_count_like_the_whole() {
        let heaps = heaps(3, 900);
        for cut in [0, 1, 100, 450, 899, 900] {
            let (mut first, mut second) = (TopCounts::default(), TopCounts::default());
            heaps[..cut].iter().for_each(|h| first.add(&value(h)));
            heaps[cut..].iter().for_each(|h| second.add(&value(h)));
            first.merge(&second);
            let lean = cut % 2 == 1;
            let (mut a, mut b) = (BitCounts::new(lean), BitCounts::new(!lean));
            heaps[..cut].iter().for_each(|h| a.add(&value(h)));
            heaps[cut..].iter().for_each(|h| b.add(&value(h)));
            a.merge(b);
            for position in 0..6 * 64 {
                assert_eq!(a.count(position), naive(&heaps, position));
                if let Some(c) = first.count(position) {
                    assert_eq!(c, naive(&heaps, position), "cut {cut} position {position}");
                }
            }
            let top = heaps.iter().map(|h| value(h).bit_length()).max().unwrap();
            assert!(first.count(top - 1).is_some(), "cut {cut}");
        }
    }
}
