//! The move of a game other than Nim, once a pass has chosen its heap:
//! the first option (SPEC section 8's order) of the first heap whose
//! value holds the Grundy sum's msb that leaves a sum of 0, written out
//! however long the heap ([`Mover`]): its value and the parts it leaves,
//! as the report writes them and to `--move-out`, the heap read again
//! where it lies when the numbers need its digits. Misère play's move
//! (`analysis/misere`) is written out by the same code.

use super::holders::Holder;
use super::sums::GamePass;
use crate::analysis::facts::{GameMoveFacts, Number, Stats};
use crate::analysis::options::Options;
use crate::error::Error;
use crate::games::residue::{BorrowLimbs, SmallSubtraction};
use crate::games::{first_option, FoundLeave, HeapSize, PartSize, Sequence};
use crate::input::driver::{self, Reads};
use crate::input::source::page_release::PageReleaser;
use crate::input::source::Input;
use crate::input::{Format, HeapValue};
use crate::output::BitsFile;
use std::ops::Range;

/// The winning move on `holder`, the first heap whose value holds the
/// msb of `sum` (not 0), on `line`: what the merge of the sharded runs
/// (`sharded/range_passes.rs`) found, the heap read again where it lies when the
/// move needs its digits. Its reads are added to `cost`.
pub(crate) fn move_on_holder(
    input: &Input<'_>,
    format: Format,
    options: &Options,
    cost: &mut Stats,
    holder: &Holder,
    (sum, line): (u16, Option<u64>),
    sequence: &Sequence,
) -> Result<GameMoveFacts, Error> {
    Mover::new(input, format, options, cost).move_on(holder, sum, sequence, line)
}

/// A move found on `holder` (a heap some pass kept) that leaves `parts`:
/// the holder's line (looked up, for a text format, not reading
/// `no_lf`, when the pass did not count it), its value and the parts as
/// the report writes them, the parts also written to `--move-out` (the
/// heap read again where it lies when the numbers need its digits). Its
/// reads are added to `cost`. Misère play's move
/// ([`crate::analysis::misere`]) is written out so.
pub(crate) fn written_move(
    input: &Input<'_>,
    format: Format,
    options: &Options,
    cost: &mut Stats,
    holder: &Holder,
    parts: &[PartSize],
    no_lf: &[Range<u64>],
) -> Result<(Option<u64>, Number, Vec<Number>), Error> {
    let mut mover = Mover::new(input, format, options, cost);
    let line = match holder.line {
        Some(line) => Some(line),
        None => mover.line_of(holder.pos.offset, no_lf)?,
    };
    let (from, leave) = mover.write_out(holder, parts)?;
    Ok((line, from, leave))
}

/// Finds the move on the heap the pass chose, and writes it out.
pub(crate) struct Mover<'a, 'i> {
    input: &'a Input<'i>,
    format: Format,
    options: &'a Options,
    reads: Reads,
    cost: &'a mut Stats,
}

impl<'a, 'i> Mover<'a, 'i> {
    /// A mover reading `input` again as a whole analysis's later passes
    /// read, its reads added to `cost`.
    pub(crate) fn new(
        input: &'a Input<'i>,
        format: Format,
        options: &'a Options,
        cost: &'a mut Stats,
    ) -> Mover<'a, 'i> {
        Mover {
            input,
            format,
            options,
            reads: options.plan(input, format).later,
            cost,
        }
    }

    /// The first option (SPEC section 8's order) of the first heap whose
    /// value holds the Grundy sum's msb, that leaves a sum of 0.
    /// `no_lf`: byte ranges known to hold no line feed, in file order.
    pub(crate) fn winning_move(
        &mut self,
        pass: &GamePass,
        sequence: &Sequence,
        no_lf: &[Range<u64>],
    ) -> Result<Option<GameMoveFacts>, Error> {
        let sum = pass.grundy_sum;
        if sum == 0 {
            return Ok(None);
        }
        let holder = pass
            .holders
            .of_bit(15 - sum.leading_zeros())
            .expect("every set bit of the sum has a holder");
        let line = match holder.line {
            Some(line) => Some(line),
            None => self.line_of(holder.pos.offset, no_lf)?,
        };
        self.move_on(holder, sum, sequence, line).map(Some)
    }

    /// The first option of `holder` (the first heap whose value holds the
    /// msb of `sum`, on `line`) that leaves a sum of 0.
    fn move_on(
        &mut self,
        holder: &Holder,
        sum: u16,
        sequence: &Sequence,
        line: Option<u64>,
    ) -> Result<GameMoveFacts, Error> {
        let target = holder.grundy ^ sum;
        let found = first_option(sequence, holder.size, target).ok_or_else(|| {
            Error::Check(format!(
                "no option of heap {} has the value {target}, against the Sprague–Grundy theorem",
                holder.pos.index
            ))
        })?;
        let (from, leave) = self.write_out(holder, &parts(&found.leave))?;
        Ok(GameMoveFacts {
            heap: holder.pos.index,
            offset: holder.pos.offset,
            line,
            from,
            from_grundy: holder.grundy,
            take: found.take,
            leave,
            to_grundy: target,
        })
    }

    /// The heap's value and the parts left, as the report writes them,
    /// the parts also written to `--move-out`.
    fn write_out(
        &mut self,
        holder: &Holder,
        parts: &[PartSize],
    ) -> Result<(Number, Vec<Number>), Error> {
        let inline = self.options.inline_bits;
        let mut file = self
            .options
            .move_out
            .as_deref()
            .map(BitsFile::create)
            .transpose()?;
        let numbers = match holder.size {
            HeapSize::Exact(h) => {
                let parts = parts
                    .iter()
                    .map(|&part| exact(h, part))
                    .collect::<Vec<u64>>();
                if let Some(file) = &mut file {
                    parts.iter().try_for_each(|&part| file.line(&[part]))?;
                }
                let leave = parts.iter().map(|&part| word(part, inline)).collect();
                (word(h, inline), leave)
            }
            // A part h − s then has at least bits − 1 bits: past the
            // inline bits too, so its length is all the report needs.
            HeapSize::Huge { .. } if file.is_none() && holder.bits > inline.max(64) + 2 => {
                match (&holder.limbs, &holder.borrow) {
                    (None, Some(borrow)) => lengths_only(borrow, holder.bits, parts, inline),
                    _ => self.numbers_of_heap(holder, parts, None)?,
                }
            }
            HeapSize::Huge { .. } => self.numbers_of_heap(holder, parts, file.as_mut())?,
        };
        if let Some(file) = file {
            file.commit()?;
        }
        Ok(numbers)
    }

    /// The heap's value and the parts left, from the heap's digits, the
    /// parts also written to `file`.
    fn numbers_of_heap(
        &mut self,
        holder: &Holder,
        parts: &[PartSize],
        mut file: Option<&mut BitsFile>,
    ) -> Result<(Number, Vec<Number>), Error> {
        let inline = self.options.inline_bits;
        let (x, pages) = self.heap_value(holder)?;
        let leave = parts
            .iter()
            .map(|&part| huge_part(&x, pages, part, file.as_deref_mut(), inline))
            .collect::<Result<Vec<Number>, Error>>()?;
        Ok((Number::of_heap(&x, inline), leave))
    }

    /// The value of a heap of more than 64 bits: kept by the pass (a
    /// stream), or read again where it lies (with what releases its pages
    /// in a map behind a read).
    fn heap_value(&mut self, holder: &Holder) -> Result<(HeapValue<'a>, PageReleaser<'a>), Error> {
        if let Some(limbs) = &holder.limbs {
            return Ok((HeapValue::Limbs(limbs.clone()), PageReleaser::NONE));
        }
        if self.input.random_access().is_none() {
            return Err(Error::Input {
                path: self.input.name().to_string(),
                offset: holder.pos.offset,
                line_col: None,
                message: format!(
                    "the move is on heap {}, of {} bits, more than standard input's window \
                     of --memory holds; save the input to a file and pass its path",
                    holder.pos.index, holder.bits
                ),
            });
        }
        let read = driver::heap_at(self.input, self.format, holder.pos.offset, &self.reads)?;
        self.cost.bytes_scanned += read.bytes_read;
        Ok((read.heap.value, read.pages))
    }

    /// The line of `offset`, for a text format, not reading `no_lf`.
    fn line_of(&mut self, offset: u64, no_lf: &[Range<u64>]) -> Result<Option<u64>, Error> {
        if !self.format.is_text() {
            return Ok(None);
        }
        let found = self.input.lines_to(
            offset,
            no_lf,
            self.reads.read_bytes,
            &mut self.cost.bytes_scanned,
        )?;
        Ok(found.map(|(line, _)| line))
    }
}

/// The parts a move leaves, the smaller first.
pub(crate) fn parts(leave: &FoundLeave) -> Vec<PartSize> {
    match *leave {
        FoundLeave::Nothing => vec![],
        FoundLeave::One { size, .. } => vec![size],
        FoundLeave::Two {
            smaller, larger, ..
        } => vec![PartSize::Exact(smaller), larger],
    }
}

/// The size of a part left on a heap of `h` tokens.
fn exact(h: u64, part: PartSize) -> u64 {
    match part {
        PartSize::Exact(size) => size,
        PartSize::HeapMinus(s) => h - s,
    }
}

/// The heap's value and the parts left by their bit lengths alone, from
/// what a stream kept of a heap of `bits` bits, too long to write out: a
/// small part exactly, the rest (h − s) by its length.
fn lengths_only(
    borrow: &BorrowLimbs,
    bits: u64,
    parts: &[PartSize],
    inline_bits: u64,
) -> (Number, Vec<Number>) {
    let leave = parts
        .iter()
        .map(|&part| match part {
            PartSize::Exact(a) => word(a, inline_bits),
            PartSize::HeapMinus(s) => {
                let rest = SmallSubtraction::new(borrow, s).expect("a part is not negative");
                Number::long(rest.bit_length())
            }
        })
        .collect();
    (Number::long(bits), leave)
}

/// A number of at most 64 bits.
fn word(value: u64, inline_bits: u64) -> Number {
    Number::new(u64::from(64 - value.leading_zeros()), &[value], inline_bits)
}

/// A part left by a move on a heap `x` of more than 64 bits: a small one
/// exactly, the rest as x − s streamed from the top.
fn huge_part(
    x: &HeapValue<'_>,
    pages: PageReleaser<'_>,
    part: PartSize,
    file: Option<&mut BitsFile>,
    inline_bits: u64,
) -> Result<Number, Error> {
    let s = match part {
        PartSize::Exact(a) => {
            if let Some(file) = file {
                file.line(&[a])?;
            }
            return Ok(word(a, inline_bits));
        }
        PartSize::HeapMinus(s) => s,
    };
    let rest = SmallSubtraction::new(&BorrowLimbs::of_heap(x), s)
        .expect("a part a move leaves is not negative");
    let (bits, limbs) = (rest.bit_length(), rest.bit_length().div_ceil(64));
    if let Some(file) = file {
        // From the top, a step at a time, the pages behind released.
        pages.in_steps(x, 0..limbs, |step| {
            step.rev()
                .try_for_each(|i| file.push(rest.limb(i, x.limb(i))))
        })?;
        file.end_line()?;
    }
    Ok(match bits <= inline_bits {
        true => {
            let kept: Vec<u64> = (0..limbs).map(|i| rest.limb(i, x.limb(i))).collect();
            Number::new(bits, &kept, inline_bits)
        }
        false => Number::long(bits),
    })
}
