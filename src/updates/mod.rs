//! Live updates (SPEC section 10): a position read once from FILE, then
//! kept up to date as heaps are set to new values, with the winner, the
//! nim-sum and (with `--moves`) the winning move after each update.
//!
//! [`Position`] reads FILE in one pass over the driver (one fold,
//! `index.rs`, on every thread) and keeps what the updates change: the
//! heap counts, the whole nim-sum, the heaps the updates have set (FILE is
//! never written), and an index of FILE's heap offsets through which an
//! update reads a heap's old value. [`serve`](fn@serve) applies a stream
//! of update lines (`i x`: set heap i to x) and writes one line per
//! update, as text or JSON ([`render`]).
//!
//! **Cost per update.** The winner and the nim-sum take O(w) word
//! operations, w the limbs of the heap's old and new values: the old value
//! is the one an earlier update set, or is read from FILE from the
//! sample before it (at most 15 heaps scanned; a raw array's element
//! directly), never by a pass over FILE. With `--moves`, while every
//! heap of FILE fits in 64 bits, the holders of each bit are counted and a
//! tree of block ORs finds the move's heap: O(log n) plus one block of 32
//! heaps read (see `holders.rs`). When FILE has a longer heap, each move
//! is found by a search that reads FILE once, in order, counting the
//! holders of the msb (`moves.rs`); so is the line of the move's heap the
//! first time a heap that far into the file is asked for (`file_heaps.rs`).
//!
//! **Memory.** The index takes at most one byte per heap of FILE: half a
//! byte for the offsets of the text formats and `nimb` (none for raw
//! arrays), a thirty-second for the line checkpoints, and with `--moves`
//! two sevenths for the tree ([`Position::index_bytes`]). Besides, the
//! nim-sum is held whole (the longest heap's bits, over eight, in bytes)
//! and every updated heap is kept (`updated.rs`): a 16-byte slot of a
//! table at most half full, so 32 to 64 bytes a heap, and the limbs of a
//! value longer than 64 bits.
//!
//! **Limits.** FILE must be a regular file (or bytes in memory), which is
//! mapped: standard input carries the updates. FILE must not change
//! during the session; a heap that no longer parses where the initial
//! pass found it is an error, and the session checks FILE's size and
//! modification time at the end.

mod file_heaps;
mod held;
mod holders;
mod index;
mod moves;
pub mod render;
mod serve;
mod status;
#[cfg(test)]
mod tests;
mod token_starts;
mod update_lines;
mod update_reader;
mod updated;

pub use serve::{serve, BadLines, Style};
pub use status::{Status, UpdateMove};

use crate::analysis::budget::update_reads;
use crate::analysis::rules::{self, Counts};
use crate::analysis::Rule;
use crate::error::Error;
use crate::input::driver::{self, Reads};
use crate::input::source::Input;
use crate::input::{format_of, Format};
use file_heaps::FileHeaps;
use held::{HeapRef, NimSum};
use holders::OrTree;
use index::IndexFold;
use moves::HolderLookup;
use status::{value_of, Summary};
use std::collections::BTreeSet;
use std::path::Path;
use updated::Updated;

/// How to follow updates: the options of `nimstream updates`.
#[derive(Clone, Debug)]
pub struct UpdateOptions {
    /// FILE's format; `None` detects it from the extension or magic.
    pub format: Option<Format>,
    /// Normal or misère play.
    pub rule: Rule,
    /// Find the winning move and count the heaps that admit one after
    /// every update.
    pub moves: bool,
    /// Values up to this many bits are written out in full.
    pub inline_bits: u64,
    /// Threads for the initial pass.
    pub threads: usize,
}

impl Default for UpdateOptions {
    fn default() -> Self {
        UpdateOptions {
            format: None,
            rule: Rule::Normal,
            moves: false,
            inline_bits: 4096,
            threads: 1,
        }
    }
}

/// A position that takes updates: FILE's heaps, some of them set anew.
///
/// ```
/// use nimstream::updates::{Position, UpdateOptions};
/// use nimstream::{Format, Player};
///
/// let options = UpdateOptions { moves: true, ..UpdateOptions::default() };
/// let mut position = Position::from_bytes(b"3 4 5\n", Format::Dec, "example", &options)?;
/// let start = position.status()?;
/// assert_eq!((start.winner, start.nim_sum.dec.as_deref()), (Player::First, Some("2")));
/// assert_eq!(start.winning_move.map(|m| m.heap), Some(0));
/// position.set(0, &[1])?; // heaps 1, 4, 5: nim-sum 0
/// let after = position.status()?;
/// assert_eq!((after.update, after.heap, after.winner), (1, Some(0), Player::Second));
/// assert_eq!(after.winning_moves, Some(0));
/// # Ok::<(), nimstream::Error>(())
/// ```
pub struct Position<'a> {
    file: FileHeaps<'a>,
    rule: Rule,
    inline_bits: u64,
    heaps: u64,
    counts: Counts,
    nim_sum: NimSum,
    updated: Updated,
    /// With `moves` only.
    holders: Option<HolderLookup>,
    updates: u64,
    last_heap: Option<u64>,
}

impl Position<'static> {
    /// Reads the file at `path` (a regular file: `-` is refused, since
    /// the updates come on standard input).
    pub fn open(path: &Path, options: &UpdateOptions) -> Result<Position<'static>, Error> {
        let name = path.display().to_string();
        if name == "-" {
            return Err(Error::Usage(
                "updates reads FILE at any offset and the updates from standard input: \
                 FILE cannot be standard input (-); give the path of a regular file"
                    .into(),
            ));
        }
        let format = format_of(path, &name, options.format, "--format")?;
        let input = Input::open(path, &name, true)?;
        if input.random_access().is_none() {
            return Err(Error::Usage(format!(
                "{name}: updates reads FILE at any offset, so it must be a regular file, \
                 not a pipe or a device"
            )));
        }
        Position::read(input, format, options, &update_reads(options.threads))
    }
}

impl Position<'static> {
    /// Reads an instance held in memory that the position keeps (the
    /// Python package's `Position` of a list of heaps); `name` stands for
    /// its path.
    ///
    /// ```
    /// use nimstream::updates::{Position, UpdateOptions};
    /// use nimstream::{Format, Player};
    ///
    /// let data = b"3 4 5".to_vec();
    /// let mut position = Position::from_vec(data, Format::Dec, "heaps", &UpdateOptions::default())?;
    /// assert_eq!(position.status()?.winner, Player::First);
    /// # Ok::<(), nimstream::Error>(())
    /// ```
    pub fn from_vec(
        data: Vec<u8>,
        format: Format,
        name: &str,
        options: &UpdateOptions,
    ) -> Result<Position<'static>, Error> {
        Position::in_memory(data, format, name, options)
    }
}

impl<'a> Position<'a> {
    /// Reads an instance held in memory; `name` stands for its path.
    pub fn from_bytes(
        data: &'a [u8],
        format: Format,
        name: &str,
        options: &UpdateOptions,
    ) -> Result<Position<'a>, Error> {
        Position::in_memory(data, format, name, options)
    }

    /// The initial pass over bytes in memory, borrowed or owned.
    fn in_memory(
        data: impl Into<std::borrow::Cow<'a, [u8]>>,
        format: Format,
        name: &str,
        options: &UpdateOptions,
    ) -> Result<Position<'a>, Error> {
        let reads = update_reads(options.threads);
        Position::read(Input::memory(data, name), format, options, &reads)
    }

    /// The initial pass over `input`, read as `reads` say.
    fn read(
        input: Input<'a>,
        format: Format,
        options: &UpdateOptions,
        reads: &Reads,
    ) -> Result<Position<'a>, Error> {
        let folded = driver::run_random(&input, format, reads, || {
            IndexFold::new(format, options.moves)
        })?;
        let built = folded.fold.finish();
        let holders = options.moves.then(|| match built.blocks {
            Some((counts, leaves)) => HolderLookup::Words {
                counts: Box::new(counts),
                tree: OrTree::new(leaves),
                long_updated: BTreeSet::new(),
            },
            None => HolderLookup::Search,
        });
        Ok(Position {
            file: FileHeaps::new(input, format, built.index)?,
            rule: options.rule,
            inline_bits: options.inline_bits,
            heaps: built.survey.heaps,
            counts: built.survey.counts(),
            nim_sum: NimSum::new(built.nim_sum),
            updated: Updated::default(),
            holders,
            updates: 0,
            last_heap: None,
        })
    }

    /// FILE's name in messages.
    pub fn name(&self) -> &str {
        self.file.name()
    }

    /// The number of heaps.
    pub fn heaps(&self) -> u64 {
        self.heaps
    }

    /// How many updates were applied.
    pub fn updates(&self) -> u64 {
        self.updates
    }

    /// The bytes the index of FILE takes: its offsets, its line
    /// checkpoints and, with `moves`, the tree of block ORs (at most one
    /// byte per heap, plus a few bytes per thread of the initial pass).
    pub fn index_bytes(&self) -> u64 {
        let tree = match &self.holders {
            Some(HolderLookup::Words { tree, .. }) => tree.bytes(),
            _ => 0,
        };
        self.file.index_bytes() + tree
    }

    /// Sets heap `heap` to the value whose little-endian limbs are
    /// `limbs` (high zero limbs allowed). An index out of range is a
    /// usage error; a heap of FILE that no longer reads is an error.
    pub fn set(&mut self, heap: u64, limbs: &[u64]) -> Result<(), Error> {
        if heap >= self.heaps {
            let message = out_of_range_text(&heap.to_string(), self.heaps, self.name());
            return Err(Error::Usage(message));
        }
        let old = match self.updated.get(heap) {
            Some(value) => value,
            None => HeapRef::File(self.file.heap(heap)?),
        };
        let new = HeapRef::Limbs(limbs);
        self.nim_sum.replace(&old, &new);
        let ((old_ones, old_big), (new_ones, new_big)) =
            (class(old.bit_length()), class(new.bit_length()));
        self.counts.ones = self.counts.ones + new_ones - old_ones;
        self.counts.big = self.counts.big + new_big - old_big;
        if let Some(holders) = &mut self.holders {
            holders.replace(heap, self.file.index(), &old, &new);
        }
        if let HeapRef::File(value) = &old {
            self.file.release(value);
        }
        self.updated.set(heap, limbs);
        self.updates += 1;
        self.last_heap = Some(heap);
        Ok(())
    }

    /// The position now: the winner, the nim-sum and, with `moves`, the
    /// winning move.
    pub fn status(&mut self) -> Result<Status, Error> {
        let winner = rules::winner(self.rule, self.counts, self.nim_sum.is_nonzero());
        let (winning_moves, winning_move) = match &mut self.holders {
            None => (None, None),
            Some(holders) => {
                let found = holders.find(
                    &self.file,
                    &self.updated,
                    self.counts,
                    &self.nim_sum,
                    self.rule,
                )?;
                let (count, chosen) = found;
                let winning_move = chosen.map(|chosen| {
                    let line = chosen.offset.and_then(|at| self.file.line(chosen.heap, at));
                    UpdateMove::new(chosen, self.nim_sum.limbs(), line, self.inline_bits)
                });
                (Some(count), winning_move)
            }
        };
        Ok(Status {
            update: self.updates,
            heap: self.last_heap,
            winner,
            nim_sum: value_of(self.nim_sum.limbs(), self.inline_bits),
            winning_moves,
            winning_move,
        })
    }

    /// Starts fetching the index entry through which heap `heap` is read
    /// (a hint: nothing changes).
    fn prefetch_index(&self, heap: u64) {
        if heap < self.heaps {
            self.file.prefetch_index(heap);
            self.updated.prefetch(heap);
            if let Some(holders) = &self.holders {
                holders.prefetch(heap, self.file.index());
            }
        }
    }

    /// Starts fetching FILE's bytes where heap `heap` is read from, once
    /// its index entry is at hand (a hint: nothing changes).
    fn prefetch_heap(&self, heap: u64) {
        if heap < self.heaps {
            self.file.prefetch_heap(heap);
        }
    }

    /// The position now without the move, borrowing the nim-sum; `None`
    /// with `moves`, whose lines need the move.
    fn summary(&self) -> Option<Summary<'_>> {
        self.holders.is_none().then(|| Summary {
            update: self.updates,
            heap: self.last_heap,
            winner: rules::winner(self.rule, self.counts, self.nim_sum.is_nonzero()),
            nim_sum: self.nim_sum.limbs(),
            inline_bits: self.inline_bits,
        })
    }

    /// Fails when FILE changed since it was opened.
    pub fn check_unchanged(&self) -> Result<(), Error> {
        self.file.check_unchanged()
    }
}

/// The message for heap `heap` (its digits) past the last of `heaps`
/// heaps of FILE, named `name`.
fn out_of_range_text(heap: &str, heaps: u64, name: &str) -> String {
    match heaps {
        0 => format!("heap {heap} is out of range: {name} has no heaps"),
        1 => format!("heap {heap} is out of range: {name} has 1 heap (index 0)"),
        _ => format!(
            "heap {heap} is out of range: {name} has {heaps} heaps (0 to {})",
            heaps - 1
        ),
    }
}

/// How a heap of `bits` bits counts: (ones, heaps ≥ 2).
fn class(bits: u64) -> (u64, u64) {
    (u64::from(bits == 1), u64::from(bits >= 2))
}
