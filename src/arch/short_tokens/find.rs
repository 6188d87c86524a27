//! The find half of the `hex` and `dec` loop of the portable and AVX2
//! builds ([`super::fill_tokens`]): each block's token starts and ends
//! written out by bit scans, or its ends alone while the tokens are one
//! byte apart, into a [`Found`] that the value half reads. The `bits`
//! loop's first half (`bits.rs`) writes its ends into a [`Found`] too.

use super::{block_at, Blocks, Syntax, BLOCK, RUN_BYTES, SHORT_HEAPS};
use std::mem::MaybeUninit;

/// The most token starts (or ends) one run finds: a block is entered
/// while the run has found fewer than [`SHORT_HEAPS`], and it starts and
/// ends at most 32, which [`Found::add`] writes a group at a time.
const FOUND: usize = SHORT_HEAPS + BLOCK;

/// The starts and ends the bit scans write at once, whatever a block
/// holds, so that the only branch on a block's tokens is whether it holds
/// more than a group: a block of short `hex` or `dec` ends six or seven.
const GROUP: usize = 8;

/// The tokens a run found, in order, as positions from the run's start:
/// each one's first digit, and its end (the non-digit after its last
/// digit). A token still open where the run stopped has a start and no
/// end. The places are not cleared when a run begins: every place below
/// the marks has been written (see [`Found::add`]), and no other is read.
/// Clearing them took 2-3 % of the one pass over short hex (a `memset` of
/// 8.5 KiB a run). The marks come first (`repr(C)`): after the places,
/// their zeros were stored by a `memset` of the last array with them.
#[repr(C)]
pub(super) struct Found {
    /// The number of starts found.
    pub(super) started: usize,
    /// The number of ends found: the tokens found whole.
    pub(super) ended: usize,
    starts: [MaybeUninit<u32>; FOUND],
    ends: [MaybeUninit<u32>; FOUND],
}

impl Found {
    pub(super) fn new() -> Found {
        Found {
            starts: [MaybeUninit::uninit(); FOUND],
            ends: [MaybeUninit::uninit(); FOUND],
            started: 0,
            ended: 0,
        }
    }

    /// The starts found.
    pub(super) fn starts(&self) -> &[u32] {
        // SAFETY: `add` or `start_after_ends` wrote every place below
        // `started`, and a `MaybeUninit<u32>` has the layout of a `u32`.
        unsafe { std::slice::from_raw_parts(self.starts.as_ptr().cast(), self.started) }
    }

    /// The ends found.
    pub(super) fn ends(&self) -> &[u32] {
        // SAFETY: `add` or `add_ends` wrote every place below `ended`
        // (and more), and a `MaybeUninit<u32>` has the layout of a `u32`.
        unsafe { std::slice::from_raw_parts(self.ends.as_ptr().cast(), self.ended) }
    }

    /// Appends the positions of the bits of a block's `starts` and `ends`
    /// plus `at` (the block's position), [`GROUP`] of each at a time, the
    /// two bit scans side by side: every place up to the new marks is
    /// written, and those written past them are overwritten later or never
    /// read.
    #[inline(always)]
    fn add(&mut self, mut starts: u64, mut ends: u64, at: u32) {
        let (mut i, mut j) = (self.started, self.ended);
        self.started += starts.count_ones() as usize;
        self.ended += ends.count_ones() as usize;
        loop {
            // One bounds check a group.
            let slots = self.starts[i..i + GROUP]
                .iter_mut()
                .zip(&mut self.ends[j..j + GROUP]);
            for (start, end) in slots {
                write_scalar(start, at + starts.trailing_zeros());
                write_scalar(end, at + ends.trailing_zeros());
                starts &= starts.wrapping_sub(1);
                ends &= ends.wrapping_sub(1);
            }
            (i, j) = (i + GROUP, j + GROUP);
            if starts | ends == 0 {
                break;
            }
        }
    }

    /// [`Found::add`] for a block's ends alone, `G` at a time (the
    /// starts are filled in later by [`Found::start_after_ends`], or are
    /// not needed).
    #[inline(always)]
    pub(super) fn add_ends<const G: usize>(&mut self, mut ends: u64, at: u32) {
        let mut j = self.ended;
        self.ended += ends.count_ones() as usize;
        loop {
            for end in &mut self.ends[j..j + G] {
                write_scalar(end, at + ends.trailing_zeros());
                ends &= ends.wrapping_sub(1);
            }
            j += G;
            if ends == 0 {
                break;
            }
        }
    }

    /// The starts of the tokens found by their ends alone, each one byte
    /// after the end before it, the first at `first`; one more than the
    /// ends if a token is `open` past the last.
    fn start_after_ends(&mut self, first: u32, open: bool) {
        let n = self.ended + usize::from(open);
        if n > 0 {
            self.starts[0].write(first);
            // SAFETY: `add_ends` wrote every end below `ended`, which is
            // at least `n - 1`.
            let ends: &[u32] =
                unsafe { std::slice::from_raw_parts(self.ends.as_ptr().cast(), n - 1) };
            for (start, &end) in self.starts[1..n].iter_mut().zip(ends) {
                start.write(end + 1);
            }
        }
        self.started = n;
    }
}

/// Stores `value` into `slot` by itself. The compiler would otherwise
/// merge a group's stores into one of a vector, built element by element
/// (`vpinsrd`): the find half over short `hex` took 1.17 times as long
/// that way on Zen 3 (a test loop, 256 MiB).
#[inline(always)]
fn write_scalar(slot: &mut MaybeUninit<u32>, value: u32) {
    // SAFETY: `slot` is a valid, aligned, exclusive reference; a volatile
    // write through it is an ordinary store the compiler keeps as it is.
    unsafe { std::ptr::write_volatile(slot.as_mut_ptr(), value) }
}

/// The first half of [`fill_tokens`](super::fill_tokens): the starts and ends of the tokens
/// of the blocks from `from` into `found`, until it has found `room`
/// tokens or more, [`RUN_BYTES`] are read, or a block is not all in `data`
/// or holds a byte that is neither a digit nor whitespace. A token that
/// runs into a block and through all of it is longer than the blocks take:
/// the search stops there and returns its first digit and the block's
/// end.
///
/// Tokens one non-digit apart (one per line, LF-ended, as `gen` writes
/// them) are searched for their ends alone ([`find_single_spaced`]), and
/// the rest of the run, from the first block where two non-digits meet,
/// for both ([`find_any_spacing`]).
#[inline(always)]
pub(super) fn find_tokens<B: Blocks>(
    build: &B,
    syntax: Syntax,
    data: &[u8],
    from: usize,
    room: usize,
    found: &mut Found,
) -> Option<(usize, usize)> {
    match find_single_spaced(build, syntax, data, from, room, found) {
        Search::Ended(through) => through,
        Search::Spaced { at, carry } => {
            find_any_spacing(build, syntax, data, from, (at, carry), room, found)
        }
    }
}

/// Where [`find_single_spaced`] left the search.
enum Search {
    /// The search is over (as [`find_tokens`] returns it).
    Ended(Option<(usize, usize)>),
    /// The block at `at` has two non-digits side by side: the search goes
    /// on there, `carry` saying whether the byte before it is a digit.
    Spaced { at: usize, carry: u64 },
}

/// [`find_tokens`] while every token after the run's first follows the
/// previous one's end by one byte: then each start is the end before it
/// plus one, and the blocks' ends are all the bit scans write; the starts
/// are filled in from them where the search stops
/// ([`Found::start_after_ends`]). Against scanning for both in every
/// block, the one pass over short `hex` took 0.83 of the user time (one
/// thread), short `dec` 0.92. A block where two non-digits meet after the
/// run's first digit stops it there, for [`find_any_spacing`].
#[inline(always)]
fn find_single_spaced<B: Blocks>(
    build: &B,
    syntax: Syntax,
    data: &[u8],
    from: usize,
    room: usize,
    found: &mut Found,
) -> Search {
    let first = block_at(data, from).and_then(|block| build.digits(syntax, block));
    let Some(first) = first.filter(|&digits| digits != 0) else {
        return Search::Spaced { at: from, carry: 0 };
    };
    let first_start = first.trailing_zeros();
    // Where the block is; whether the byte before it is a digit, and
    // whether it is a non-digit; the positions of the block checked for
    // two non-digits side by side (from the run's first digit on).
    let (mut at, mut carry, mut gap_carry) = (from, 0u64, 0u64);
    let mut checked = u64::MAX << first_start;
    // Where the search stopped if not at the end of the blocks it takes:
    // at a block with two non-digits side by side, or at the end of one
    // that a token ran through.
    let (mut spaced, mut through) = (None, None);
    while found.ended < room && at - from < RUN_BYTES {
        let Some(block) = block_at(data, at) else {
            break;
        };
        let Some(digits) = build.digits(syntax, block) else {
            break;
        };
        let gaps = !digits;
        if gaps & (gaps << 1 | gap_carry) & checked != 0 {
            spaced = Some(Search::Spaced { at, carry });
            break;
        }
        if digits == u64::MAX && carry == 1 {
            through = Some(at + BLOCK);
            break;
        }
        found.add_ends::<GROUP>(gaps & (digits << 1 | carry), (at - from) as u32);
        carry = digits >> (BLOCK - 1);
        gap_carry = gaps >> (BLOCK - 1);
        checked = u64::MAX;
        at += BLOCK;
    }
    found.start_after_ends(first_start, carry == 1);
    spaced.unwrap_or_else(|| {
        let open = |end| (from + found.starts()[found.ended] as usize, end);
        Search::Ended(through.map(open))
    })
}

/// [`find_tokens`] from the block at `at` (`carry`: whether the byte
/// before it is a digit), whatever the spacing, each block's starts and
/// ends found by bit scans.
#[inline(always)]
fn find_any_spacing<B: Blocks>(
    build: &B,
    syntax: Syntax,
    data: &[u8],
    from: usize,
    (mut at, mut carry): (usize, u64),
    room: usize,
    found: &mut Found,
) -> Option<(usize, usize)> {
    while found.ended < room && at - from < RUN_BYTES {
        let Some(block) = block_at(data, at) else {
            break;
        };
        let Some(digits) = build.digits(syntax, block) else {
            break;
        };
        if digits == u64::MAX && carry == 1 {
            return Some((from + found.starts()[found.ended] as usize, at + BLOCK));
        }
        let after_digit = digits << 1 | carry;
        let place = (at - from) as u32;
        found.add(digits & !after_digit, !digits & after_digit, place);
        carry = digits >> (BLOCK - 1);
        at += BLOCK;
    }
    None
}
