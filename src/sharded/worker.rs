//! What a worker does with one range: `analyze FILE --range START..END
//! --partial` ([`analyze_range`], the first phase) and, once the merged
//! first phase named the nim-sum's msb, `--phase2 PLAN`
//! ([`holders_range`]). Each finds the range's span (the driver's
//! `span_of`),
//! runs the analysis's folds over it through the driver, and writes what
//! they found as a [`Partial`], bad input included, as data.

use super::marks::{Lines, Mark};
use super::partial::{
    ErrorAt, FileInfo, GameMark, GrundyPart, HoldersPart, Kind, MiserePart, Partial, SurveyPart,
    WorkStats, PARTIAL_VERSION,
};
use super::range_passes::{self, span_plan, TopHolders};
use super::table;
use super::table::NimPart;
use crate::analysis::budget::MemoryBudget;
use crate::analysis::facts::Stats;
use crate::analysis::game::holders::Holder;
use crate::analysis::survey::Survey;
use crate::analysis::{Options, Rule};
use crate::error::Error;
use crate::games::{Game, HeapSize};
use crate::input::driver::{span_of, SpanError};
use crate::input::source::Input;
use crate::input::{self, Format, HeapPos};
use std::ops::Range;
use std::path::Path;

/// The first-phase partial of the heaps whose first byte lies in `range`
/// of the file at `path`, analysed with `options` (its format, rule,
/// game, `--max-values`, `--memory`, threads).
///
/// ```
/// use nimstream::sharded::{analyze_range, merge, Outcome};
/// use nimstream::{Options, Player};
///
/// // "3 4 5\n" cut inside the token "4": the heap 4 belongs to the first range.
/// let path = "fixtures/three-four-five.dec".as_ref();
/// let options = Options::default();
/// let first = analyze_range(path, 0..3, &options)?;
/// let second = analyze_range(path, 3..6, &options)?;
/// assert_eq!((first.heaps(), second.heaps()), (2, 1));
/// let Outcome::Report(report) = merge(vec![second, first], &options)? else {
///     panic!("one phase is enough here")
/// };
/// assert_eq!(report.winner, Player::First);
/// assert_eq!(report.winning_move.unwrap().heap, 0);
/// # Ok::<(), nimstream::Error>(())
/// ```
pub fn analyze_range(path: &Path, range: Range<u64>, options: &Options) -> Result<Partial, Error> {
    let (input, format) = open(path, &range, options)?;
    let mut partial = empty(&input, format, &range, options, Kind::Survey);
    let span = find_span(&input, format, &range, options)?;
    let misere = options.rule == Rule::Misere;
    let found = match (span, &options.game) {
        (None, Game::Nim) => Ok(Found::Nim(empty_nim())),
        (None, _) if misere => Ok(Found::Misere(empty_misere())),
        (None, _) => Ok(Found::Game(empty_game())),
        (Some(span), Game::Nim) => {
            range_passes::nim_span(&input, format, options, span).map(Found::Nim)
        }
        (Some(span), _) if misere => {
            range_passes::misere_span(&input, format, options, span).map(Found::Misere)
        }
        (Some(span), _) => range_passes::game_span(&input, format, options, span).map(Found::Game),
    };
    let mut marks = Marks::default();
    match found {
        Ok(Found::Nim(nim)) => {
            partial.stats = work_stats(&nim.stats);
            partial.heaps = nim.survey.heaps;
            partial.survey = Some(survey_part(&nim.survey, &mut marks));
            partial.nim = Some(nim_part(&nim.nim_sum, &nim.top, &mut marks));
        }
        Ok(Found::Game(game)) => {
            partial.stats = work_stats(&game.stats);
            partial.heaps = game.survey.heaps;
            partial.survey = Some(survey_part(&game.survey, &mut marks));
            partial.grundy = Some(grundy_part(&game, &mut marks));
            partial.error = game.past_values.map(|pos| past_values(pos, &mut marks));
        }
        Ok(Found::Misere(misere)) => {
            partial.stats = work_stats(&misere.stats);
            partial.heaps = misere.survey.heaps;
            partial.survey = Some(survey_part(&misere.survey, &mut marks));
            partial.misere = Some(MiserePart {
                counts: misere.counts,
                firsts: misere
                    .firsts
                    .iter()
                    .map(|first| first.as_ref().map(|found| game_mark(found, &mut marks)))
                    .collect(),
            });
            partial.error = misere.past_values.map(|pos| past_values(pos, &mut marks));
        }
        Err(SpanError::Parse(error)) => {
            marks.offsets.push(error.offset);
            partial.error = Some(ErrorAt {
                offset: error.offset,
                lines: Lines::default(),
                message: Some(error.message),
                past_values_heap: None,
            });
        }
        Err(SpanError::Failed(error)) => return Err(error),
    }
    marks.fill(&input, format, &range, &mut partial)?;
    input.check_unchanged()?;
    Ok(partial)
}

/// The second-phase partial of `range`: how many of its heaps hold the
/// msb of the nim-sum that `plan` (the merged first phase of the whole
/// file, as `merge` printed it) names, and the first that does.
pub fn holders_range(
    path: &Path,
    range: Range<u64>,
    plan: &Partial,
    options: &Options,
) -> Result<Partial, Error> {
    let msb = super::finish::msb_of_plan(plan)?;
    let (input, format) = open(path, &range, options)?;
    let mut partial = empty(&input, format, &range, options, Kind::Holders);
    let mut marks = Marks::default();
    let mut holders = HoldersPart {
        msb,
        count: 0,
        first: None,
    };
    if let Some(span) = find_span(&input, format, &range, options)? {
        let found = match range_passes::holders_span(&input, format, options, span, msb) {
            Ok(found) => found,
            Err(SpanError::Parse(error)) => return Err(input.parse_error(format, error)),
            Err(SpanError::Failed(error)) => return Err(error),
        };
        partial.stats = work_stats(&found.stats);
        partial.heaps = found.heaps;
        holders.count = found.count;
        if let Some(pos) = found.first {
            holders.first = Some(marks.mark(pos));
        }
    }
    partial.holders = Some(holders);
    marks.fill(&input, format, &range, &mut partial)?;
    input.check_unchanged()?;
    Ok(partial)
}

/// The span of the heaps of `range` (see the driver's `span_of`), read
/// as a pass over it would read.
fn find_span(
    input: &Input<'_>,
    format: Format,
    range: &Range<u64>,
    options: &Options,
) -> Result<Option<Range<u64>>, Error> {
    let reads = span_plan(range, format, options).later;
    span_of(input, format, range.clone(), &reads)
}

/// What a range's pass found.
enum Found {
    Nim(range_passes::NimSpan),
    Game(range_passes::GameSpan),
    Misere(range_passes::MisereSpan),
}

/// Opens the file and checks the range against its size.
fn open(
    path: &Path,
    range: &Range<u64>,
    options: &Options,
) -> Result<(Input<'static>, Format), Error> {
    let name = path.display().to_string();
    let format = input::format_of(path, &name, options.format, "--format")?;
    let input = Input::open(path, &name, !options.no_mmap)?;
    let Some(size) = input.size() else {
        return Err(Error::Usage(format!(
            "--range needs a regular file, and {name} is a stream"
        )));
    };
    if range.start > range.end || range.end > size {
        return Err(Error::Usage(format!(
            "--range {}..{} is not a range of {name}, which has {size} bytes \
             (START..END with START ≤ END ≤ the size)",
            range.start, range.end
        )));
    }
    Ok((input, format))
}

/// A partial of `range` with nothing found yet.
fn empty(
    input: &Input<'_>,
    format: Format,
    range: &Range<u64>,
    options: &Options,
    kind: Kind,
) -> Partial {
    Partial {
        nimstream_partial: PARTIAL_VERSION,
        kind,
        input: FileInfo {
            path: input.name().to_string(),
            format: format.name().to_string(),
            bytes: input.size().expect("a range is of a file"),
        },
        rule: options.rule.name().to_string(),
        game: options.game.to_string(),
        max_values: options.max_values,
        range: [range.start, range.end],
        heaps: 0,
        lines: Lines::default(),
        survey: None,
        nim: None,
        grundy: None,
        misere: None,
        holders: None,
        error: None,
        stats: WorkStats {
            ranges: 1,
            ..WorkStats::default()
        },
    }
}

fn empty_nim() -> range_passes::NimSpan {
    range_passes::NimSpan {
        survey: Survey::default(),
        nim_sum: Vec::new(),
        top: TopHolders::default(),
        stats: Stats::default(),
    }
}

fn empty_game() -> range_passes::GameSpan {
    range_passes::GameSpan {
        survey: Survey::default(),
        grundy_sum: 0,
        holders: vec![None; 16],
        past_values: None,
        stats: Stats::default(),
    }
}

fn empty_misere() -> range_passes::MisereSpan {
    range_passes::MisereSpan {
        survey: Survey::default(),
        counts: Vec::new(),
        firsts: Vec::new(),
        past_values: None,
        stats: Stats::default(),
    }
}

fn work_stats(stats: &Stats) -> WorkStats {
    WorkStats {
        passes: stats.passes,
        bytes_scanned: stats.bytes_scanned,
        working_memory_bytes: stats.working_memory_bytes,
        seconds: stats.seconds,
        ranges: 1,
        window_bits: stats.window_bits,
    }
}

fn survey_part(survey: &Survey, marks: &mut Marks) -> SurveyPart {
    SurveyPart {
        nonzero: survey.nonzero,
        ones: survey.ones,
        big: survey.big,
        max_bit_length: survey.max_bit_length,
        first_one: survey.first_one.map(|pos| marks.mark(pos)),
        first_big: survey.first_big.map(|pos| marks.mark(pos)),
    }
}

fn nim_part(nim_sum: &[u64], top: &TopHolders, marks: &mut Marks) -> NimPart {
    table::of_range(nim_sum, top, |pos| marks.mark(pos))
}

fn grundy_part(game: &range_passes::GameSpan, marks: &mut Marks) -> GrundyPart {
    GrundyPart {
        grundy_sum: game.grundy_sum,
        holders: game
            .holders
            .iter()
            .map(|h| h.as_ref().map(|found| game_mark(found, marks)))
            .collect(),
    }
}

/// A heap a span's pass kept, as a partial names it.
fn game_mark(found: &Holder, marks: &mut Marks) -> GameMark {
    let (size, residue) = match found.size {
        HeapSize::Exact(h) => (Some(h), None),
        HeapSize::Huge { residue } => (None, Some(residue)),
    };
    GameMark {
        heap: marks.mark(found.pos),
        size,
        residue,
        grundy: found.grundy,
        bits: found.bits,
    }
}

fn past_values(pos: HeapPos, marks: &mut Marks) -> ErrorAt {
    marks.offsets.push(pos.offset);
    ErrorAt {
        offset: pos.offset,
        lines: Lines::default(),
        message: None,
        past_values_heap: Some(pos.index),
    }
}

/// The heaps a partial names, whose line feeds from the range's start are
/// counted once the partial is built, in one read of the range.
#[derive(Default)]
struct Marks {
    offsets: Vec<u64>,
}

impl Marks {
    /// A mark for the heap at `pos`, its lines filled in later.
    fn mark(&mut self, pos: HeapPos) -> Mark {
        self.offsets.push(pos.offset);
        Mark {
            index: pos.index,
            offset: pos.offset,
            lines: Lines::default(),
        }
    }

    /// Counts the line feeds of the range and up to every mark, and
    /// writes them into `partial`.
    fn fill(
        mut self,
        input: &Input<'_>,
        format: Format,
        range: &Range<u64>,
        partial: &mut Partial,
    ) -> Result<(), Error> {
        self.offsets.sort_unstable();
        self.offsets.dedup();
        let (total, at_marks, read) = lines_of(input, format, range, &self.offsets)?;
        partial.stats.bytes_scanned += read;
        let lines_at = |offset: u64| {
            let place = self.offsets.binary_search(&offset).expect("a mark");
            at_marks[place]
        };
        partial.lines = total;
        let fix = |mark: &mut Mark| mark.lines = lines_at(mark.offset);
        if let Some(survey) = &mut partial.survey {
            survey
                .first_one
                .iter_mut()
                .chain(&mut survey.first_big)
                .for_each(fix);
        }
        if let Some(nim) = &mut partial.nim {
            nim.heaps.iter_mut().for_each(fix);
        }
        if let Some(grundy) = &mut partial.grundy {
            grundy
                .holders
                .iter_mut()
                .flatten()
                .for_each(|h| fix(&mut h.heap));
        }
        if let Some(misere) = &mut partial.misere {
            misere
                .firsts
                .iter_mut()
                .flatten()
                .for_each(|h| fix(&mut h.heap));
        }
        if let Some(holders) = &mut partial.holders {
            holders.first.iter_mut().for_each(fix);
        }
        if let Some(error) = &mut partial.error {
            error.lines = lines_at(error.offset);
        }
        Ok(())
    }
}

/// The line feeds of `range`, and those from its start to each of
/// `marks` (offsets at or past its start, in increasing order, which may
/// lie past its end), and the bytes read to count them. For the text
/// formats; none for the others.
fn lines_of(
    input: &Input<'_>,
    format: Format,
    range: &Range<u64>,
    marks: &[u64],
) -> Result<(Lines, Vec<Lines>, u64), Error> {
    if !format.is_text() {
        return Ok((Lines::default(), vec![Lines::default(); marks.len()], 0));
    }
    let mut stops: Vec<u64> = marks.to_vec();
    stops.push(range.end);
    stops.sort_unstable();
    stops.dedup();
    let mut read = 0;
    let found = input
        .lines_from(
            range.start,
            &stops,
            MemoryBudget::ONE_PASS_READ_BYTES,
            &mut read,
        )?
        .expect("a range is of a file");
    let at_stop = |offset: u64| {
        let counted = found[stops.binary_search(&offset).expect("every mark is a stop")];
        Lines {
            lfs: counted.lfs(),
            last_lf: counted.last_lf(),
        }
    };
    let at_marks = marks.iter().map(|&m| at_stop(m)).collect();
    Ok((at_stop(range.end), at_marks, read))
}
