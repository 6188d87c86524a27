//! The facts of a whole file from what the merged spans of the sharded
//! runs found ([`super::range_passes`]; the protocol is in
//! [`crate::sharded`]): the rules and the move, built by the same code as
//! a whole analysis (`analysis/rules.rs`, `analysis/nim/moves.rs`,
//! `analysis/game/moves.rs`, `analysis/misere`), so that the report is the
//! one `analyze` prints.
//!
//! The merge knows every count, the nim-sum (or the Grundy sum), and
//! where the move's heap is and on which line; it reads that one heap of
//! the input, when the move needs its digits (a move that leaves x ⊕ g, or
//! misère's single heap ≥ 2), and nothing else.

use crate::analysis::budget::Shape;
use crate::analysis::facts::{Facts, MoveFacts, Number, Stats};
use crate::analysis::game::holders::Holder;
use crate::analysis::game::moves::move_on_holder;
use crate::analysis::game::run::{game_facts, past_values_message, sequence_of};
use crate::analysis::misere::kinds::kinds_of;
use crate::analysis::misere::{self, max_heap, Found};
use crate::analysis::nim::moves::{small_move, XorMove};
use crate::analysis::options::Options;
use crate::analysis::rules::Rule;
use crate::analysis::rules::{self, MoveFinder};
use crate::analysis::survey::Survey;
use crate::error::Error;
use crate::input::driver;
use crate::input::source::page_release::PageReleaser;
use crate::input::source::Input;
use crate::input::{Format, HeapPos, HeapValue};
use crate::nimsum::highest_bit;

/// A heap and its 1-based line (text formats only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Landmark {
    /// Where it is in the file.
    pub pos: HeapPos,
    /// Its line.
    pub line: Option<u64>,
}

/// What the merged spans of a Nim analysis found over the whole file.
#[derive(Clone, Debug)]
pub struct WholeNim {
    /// Counts and landmarks of every heap.
    pub survey: Survey,
    /// The nim-sum, little-endian limbs without high zero limbs.
    pub nim_sum: Vec<u64>,
    /// The line of the first heap equal to 1.
    pub first_one_line: Option<u64>,
    /// The line of the first heap ≥ 2.
    pub first_big_line: Option<u64>,
    /// How many heaps hold the nim-sum's msb, and the first of them
    /// (needed when the move leaves x ⊕ g).
    pub msb_holders: Option<(u64, Landmark)>,
}

impl WholeNim {
    /// The nim-sum's msb, when it is not 0.
    pub fn msb(&self) -> Option<u64> {
        highest_bit(0, &self.nim_sum)
    }

    /// Whether the move is played on the first holder of the msb, whose
    /// count and place a whole analysis needs.
    pub fn needs_msb_holders(&self, options: &Options) -> bool {
        rules::moves_on_msb_holder(options.rule, self.survey.counts(), self.msb().is_some())
    }
}

/// The facts of a Nim analysis from what the merged spans found (see
/// [`WholeNim`]); `input` is the file, read only for the move's heap.
pub fn conclude_nim(
    input: &Input<'_>,
    format: Format,
    options: &Options,
    whole: &WholeNim,
) -> Result<Facts, Error> {
    let counts = whole.survey.counts();
    let msb = whole.msb();
    let winner = rules::winner(options.rule, counts, msb.is_some());
    let mut finder = Finder {
        input,
        format,
        options,
        whole,
        stats: Stats::default(),
    };
    let (winning_moves, winning_move) = rules::choose_move(options.rule, counts, msb, &mut finder)?;
    let inline = options.inline_bits;
    let bits = msb.map_or(0, |top| top + 1);
    Ok(Facts {
        survey: whole.survey.clone(),
        nim_sum: Some(Number::new(bits, &whole.nim_sum, inline)),
        msb,
        winner,
        winning_moves: Some(winning_moves),
        winning_move,
        game: None,
        misere: None,
        stats: finder.stats,
    })
}

/// How the merge finds the move's heap: where the merged partials name
/// it, read again when the move needs its digits.
struct Finder<'w, 'i> {
    input: &'w Input<'i>,
    format: Format,
    options: &'w Options,
    whole: &'w WholeNim,
    /// The bytes read again.
    stats: Stats,
}

impl MoveFinder for Finder<'_, '_> {
    type Move = MoveFacts;

    fn on_msb_holder(&mut self, _msb: u64) -> Result<(u64, MoveFacts), Error> {
        let (count, heap) = self.whole.msb_holders.ok_or_else(|| {
            Error::Usage("the msb's holders are not known: run the second phase".into())
        })?;
        let (input, format, options) = (self.input, self.format, self.options);
        let found = xor_move(input, format, options, self.whole, heap, &mut self.stats)?;
        Ok((count, found))
    }

    fn on_first_big(&mut self, target: u64) -> Result<MoveFacts, Error> {
        let pos = self.whole.survey.first_big.expect("one heap is big");
        let heap = Landmark {
            pos,
            line: self.whole.first_big_line,
        };
        let (input, format, options) = (self.input, self.format, self.options);
        read_and_move(input, format, options, heap, target, &mut self.stats)
    }

    fn on_first_one(&mut self) -> Result<MoveFacts, Error> {
        let pos = self.whole.survey.first_one.expect("some heap is 1");
        let one = HeapValue::Word(1);
        let mut found = small_move(pos, &one, PageReleaser::NONE, 0, self.options)?;
        found.line = self.whole.first_one_line;
        Ok(found)
    }
}

/// The move's `heap` read again (the driver reads at most this one heap
/// itself), its bytes counted in `stats`.
fn reread<'a>(
    input: &'a Input<'_>,
    format: Format,
    options: &Options,
    heap: &Landmark,
    stats: &mut Stats,
) -> Result<driver::Reread<'a>, Error> {
    let read = driver::heap_at(
        input,
        format,
        heap.pos.offset,
        &reads(input, format, options),
    )?;
    stats.bytes_scanned += read.bytes_read;
    Ok(read)
}

/// The move x → x ⊕ g on `heap`, read again.
fn xor_move(
    input: &Input<'_>,
    format: Format,
    options: &Options,
    whole: &WholeNim,
    heap: Landmark,
    stats: &mut Stats,
) -> Result<MoveFacts, Error> {
    let read = reread(input, format, options, &heap, stats)?;
    let capture = options.inline_bits.min(whole.survey.max_bit_length);
    let g = &whole.nim_sum;
    let above = g.len() as u64;
    let mut moving = XorMove::start(
        heap.pos,
        read.heap.value,
        read.pages,
        capture,
        options,
        above,
    )?;
    moving.absorb(0, g)?;
    let mut found = moving.finish(options.inline_bits)?;
    found.line = heap.line;
    Ok(found)
}

/// Misère's move on its single heap ≥ 2, read again: it is left with
/// `target`.
fn read_and_move(
    input: &Input<'_>,
    format: Format,
    options: &Options,
    heap: Landmark,
    target: u64,
    stats: &mut Stats,
) -> Result<MoveFacts, Error> {
    let read = reread(input, format, options, &heap, stats)?;
    let mut found = small_move(heap.pos, &read.heap.value, read.pages, target, options)?;
    found.line = heap.line;
    Ok(found)
}

/// How a whole analysis of `input` reads a heap again.
fn reads(input: &Input<'_>, format: Format, options: &Options) -> driver::Reads {
    options.memory.plan(&Shape::of(input, format, 1)).later
}

/// What the merged spans of a game other than Nim found over the whole
/// file.
#[derive(Clone, Debug)]
pub struct WholeGame {
    /// Counts and landmarks of every heap.
    pub survey: Survey,
    /// The XOR of the heaps' Grundy values.
    pub grundy_sum: u16,
    /// The first heap whose value holds the sum's msb (when the sum is not
    /// 0), with its place in the file and its line.
    pub holder: Option<Holder>,
}

/// The facts of an analysis under the game of `options` from what the
/// merged spans found (see [`WholeGame`]).
pub fn conclude_game(
    input: &Input<'_>,
    format: Format,
    options: &Options,
    whole: &WholeGame,
) -> Result<Facts, Error> {
    let sequence = sequence_of(&options.game, options.max_values)?;
    let mut stats = Stats::default();
    let sum = whole.grundy_sum;
    let winning_move = match (&whole.holder, sum) {
        (_, 0) => None,
        (Some(holder), _) => {
            let facts = (sum, holder.line);
            Some(move_on_holder(
                input, format, options, &mut stats, holder, facts, &sequence,
            )?)
        }
        (None, _) => {
            return Err(Error::Usage(
                "the partials name no holder of the Grundy sum's msb".into(),
            ))
        }
    };
    Ok(game_facts(
        whole.survey.clone(),
        &sequence,
        sum,
        winning_move,
        stats,
    ))
}

/// The message of the error for heap `index` (of the whole file), past
/// the values computed for the game of `options`, which has no proven
/// period: the words of a whole analysis.
pub fn past_values_error(index: u64, options: &Options) -> Result<String, Error> {
    if options.rule == Rule::Misere {
        return misere::past_heaps_error(index, options);
    }
    let sequence = sequence_of(&options.game, options.max_values)?;
    Ok(past_values_message(index, &sequence))
}

/// What the merged spans of a misère analysis found over the whole file.
#[derive(Clone, Debug)]
pub struct WholeMisere {
    /// Counts and landmarks of every heap.
    pub survey: Survey,
    /// The heaps of each kind.
    pub counts: Vec<u64>,
    /// The first heap of each kind, with its line.
    pub firsts: Vec<Option<Holder>>,
}

/// The facts of a misère analysis under the game of `options` from what
/// the merged spans found; `input` is the file, read only for the move's
/// heap.
pub fn conclude_misere(
    input: &Input<'_>,
    format: Format,
    options: &Options,
    whole: &WholeMisere,
) -> Result<Facts, Error> {
    let kinds = kinds_of(&options.game, max_heap(options))?;
    if whole.counts.len() != kinds.class.len() || whole.firsts.len() != kinds.class.len() {
        return Err(Error::Usage(format!(
            "the partials count {} kinds of heaps, and the misère quotient of {} has {}",
            whole.counts.len(),
            options.game,
            kinds.class.len()
        )));
    }
    let found = Found {
        survey: whole.survey.clone(),
        counts: &whole.counts,
        firsts: &whole.firsts,
    };
    found.facts(input, format, options, &kinds, &[], &mut Stats::default())
}
