//! The analysis: the rules of SPEC section 1 on top of the window
//! accumulator, over a regular file in one pass on several threads
//! (`chunked`, when the budget and the heaps allow), over a slice in
//! several passes (`passes`), or over a stream in one (`stream`).
//!
//! Entry points: [`analyze_path`], [`analyze_bytes`], [`analyze_reader`].
//! Each returns a [`Report`] with the same facts the command line prints.

mod budget;
mod bulk;
mod chunked;
mod counts;
mod holders;
mod passes;
pub mod rules;
mod stream;
mod survey;
mod values;

pub use budget::{parse_byte_size, MemoryBudget, MIN_BUDGET_BYTES};
pub use rules::{Player, Rule};
pub use stream::STDIN_NAME;
pub use survey::{HeapPos, Survey};

use crate::error::Error;
use crate::input::source::{self, Source};
use crate::input::{Format, NIMB_HEADER};
use crate::memory::MemoryMeter;
use crate::report::{InputInfo, Move, Report, Stats, Value};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How to analyze: the options of `nimstream analyze`.
#[derive(Clone, Debug)]
pub struct Options {
    /// The input format; `None` detects it from the extension or magic.
    pub format: Option<Format>,
    /// Normal or misère play.
    pub rule: Rule,
    /// The working-memory budget for the nim-sum window.
    pub memory: MemoryBudget,
    /// Stop as soon as the winner is known.
    pub decide: bool,
    /// Values up to this many bits are written into the report.
    pub inline_bits: u64,
    /// Write the whole nim-sum here as `bits` text.
    pub nim_sum_out: Option<PathBuf>,
    /// Write the move's target value here as `bits` text.
    pub move_out: Option<PathBuf>,
    /// Worker threads.
    pub threads: usize,
    /// Read regular files with plain reads instead of a memory map (each
    /// pass reads the file again).
    pub no_mmap: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            format: None,
            rule: Rule::Normal,
            memory: MemoryBudget::default(),
            decide: false,
            inline_bits: 4096,
            nim_sum_out: None,
            move_out: None,
            threads: 1,
            no_mmap: false,
        }
    }
}

/// What an analysis found, before it is dressed as a [`Report`].
#[derive(Debug)]
pub struct Facts {
    survey: Survey,
    nim_sum: Option<Value>,
    msb: Option<u64>,
    winner: Player,
    winning_moves: Option<u64>,
    winning_move: Option<Move>,
    passes: u64,
    bytes_scanned: u64,
    window_bits: u64,
    threads: u64,
}

/// Analyzes the file at `path` (`-` reads standard input).
///
/// ```
/// use nimstream::{analyze_path, Options, Player};
/// let report = analyze_path("fixtures/three-four-five.dec".as_ref(), &Options::default())?;
/// assert_eq!(report.winner, Player::First);
/// assert_eq!(report.winning_move.unwrap().heap, 0);
/// # Ok::<(), nimstream::Error>(())
/// ```
pub fn analyze_path(path: &Path, options: &Options) -> Result<Report, Error> {
    let shown = path.display().to_string();
    if shown == "-" {
        let format = options.format.ok_or_else(|| {
            Error::Usage(
                "standard input needs --format (bits, hex, dec, unary, u8, u16le, u32le, \
                 u64le or nimb): there is no extension to detect it from"
                    .into(),
            )
        })?;
        let stdin = std::io::stdin();
        let mut lock = stdin.lock();
        return analyze_reader(&mut lock, format, "-", options);
    }
    let format = match options.format {
        Some(format) => format,
        None => detect(path, &shown)?,
    };
    let started = Instant::now();
    let meter = MemoryMeter::start();
    let (facts, bytes) = match source::open(path, &shown, !options.no_mmap)? {
        Source::Mapped(file) => {
            let facts = match chunked::analyze(file.stamp(), format, options)? {
                Some(facts) => facts,
                None => passes::SliceRun::with_map(&file, format, &shown, options).run()?,
            };
            file.stamp().check()?;
            (facts, file.map().len() as u64)
        }
        Source::Reread(file) => {
            let facts = match chunked::analyze(file.stamp(), format, options)? {
                Some(facts) => facts,
                None => passes::SliceRun::with_reread(&file, format, &shown, options).run()?,
            };
            file.stamp().check()?;
            (facts, file.stamp().len_at_open())
        }
        Source::Stream(mut reader) => {
            let facts = stream::analyze_stream(&mut reader, format, &shown, options)?;
            let bytes = facts.bytes_scanned;
            (facts, bytes)
        }
    };
    Ok(build_report(
        facts,
        InputInfo {
            path: shown,
            format,
            bytes,
        },
        options,
        &meter,
        started,
    ))
}

/// Analyzes an instance held in memory; `name` stands for its path.
///
/// ```
/// use nimstream::{analyze_bytes, Format, Options, Player, Rule};
/// let options = Options { rule: Rule::Misere, ..Options::default() };
/// let report = analyze_bytes(b"1 1", Format::Dec, "pair", &options)?;
/// assert_eq!(report.winner, Player::First);
/// # Ok::<(), nimstream::Error>(())
/// ```
pub fn analyze_bytes(
    data: &[u8],
    format: Format,
    name: &str,
    options: &Options,
) -> Result<Report, Error> {
    let started = Instant::now();
    let meter = MemoryMeter::start();
    let facts = passes::SliceRun::new(data, format, name, options).run()?;
    let input = InputInfo {
        path: name.to_string(),
        format,
        bytes: data.len() as u64,
    };
    Ok(build_report(facts, input, options, &meter, started))
}

/// Analyzes a stream in one pass; `name` stands for its path (`-` for
/// standard input). Every heap must fit in one `--memory` window.
pub fn analyze_reader(
    reader: &mut dyn Read,
    format: Format,
    name: &str,
    options: &Options,
) -> Result<Report, Error> {
    let started = Instant::now();
    let meter = MemoryMeter::start();
    let facts = stream::analyze_stream(reader, format, name, options)?;
    let input = InputInfo {
        path: name.to_string(),
        format,
        bytes: facts.bytes_scanned,
    };
    Ok(build_report(facts, input, options, &meter, started))
}

/// The format of `path` from its extension, or from the `nimb` magic.
pub fn detect(path: &Path, shown: &str) -> Result<Format, Error> {
    if let Some(format) = Format::from_path(path) {
        return Ok(format);
    }
    let head = source::peek(path, shown, 4)?;
    if head == NIMB_HEADER[..4] {
        return Ok(Format::Nimb);
    }
    Err(Error::Usage(format!(
        "{shown}: cannot tell the input format from the file name; pass --format \
         (bits, hex, dec, unary, u8, u16le, u32le, u64le or nimb)"
    )))
}

fn build_report(
    facts: Facts,
    input: InputInfo,
    options: &Options,
    meter: &MemoryMeter,
    started: Instant,
) -> Report {
    let survey = &facts.survey;
    Report {
        schema: 1,
        input,
        rule: options.rule,
        heaps: survey.heaps,
        nonzero_heaps: survey.nonzero,
        ones: survey.ones,
        big: survey.big,
        max_bit_length: survey.max_bit_length,
        nim_sum: facts.nim_sum,
        msb: facts.msb,
        winner: facts.winner,
        winning_moves: facts.winning_moves,
        winning_move: facts.winning_move,
        stats: Stats {
            passes: facts.passes,
            bytes_scanned: facts.bytes_scanned,
            working_memory_bytes: meter.peak_bytes(),
            threads: facts.threads,
            seconds: started.elapsed().as_secs_f64(),
            window_bits: facts.window_bits,
        },
    }
}
