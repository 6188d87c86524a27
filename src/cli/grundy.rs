//! `nimstream grundy GAME`: a game's value sequence and its period, in
//! memory or past it (SPEC sections 8 and 13), with its outputs,
//! checkpoints and a progress bar.

use super::names::{check_output_name, Content};
use crate::error::Error;
use crate::games::misere::{Quotient, DEFAULT_MAX_HEAP};
use crate::games::stream::{
    Control, Limits, OutputPaths, Outputs, Settings, Status, Streamer, MAX_VALUES,
};
use crate::games::Game;
use crate::workbench::grundy::Table;
use crate::workbench::grundy_misere;
use crate::Format;
use crate::Rule;
use crate::DEFAULT_MAX_VALUES;
use clap::Args;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;
use std::time::Instant;

/// How often a run with `--checkpoint` saves its state, unless
/// `NIMSTREAM_CHECKPOINT_SECONDS` says otherwise.
const CHECKPOINT_EVERY: Duration = Duration::from_secs(5 * 60);

/// Options of `grundy`.
#[derive(Debug, Args)]
pub(crate) struct GrundyArgs {
    /// The game: nim, sub:S (e.g. sub:1,3,4), octal:D (e.g. octal:0.16), kayles, dawsons-kayles, dawsons-chess, grundys-game.
    #[arg(value_parser = super::parse_game)]
    pub game: Game,
    /// Values shown (past the values computed, from the proven period).
    #[arg(long, value_name = "N", default_value_t = 120)]
    pub values: u64,
    /// Values computed at most, looking for the period (up to 2^48).
    #[arg(long, value_name = "M", default_value_t = DEFAULT_MAX_VALUES)]
    pub max_values: u64,
    /// Memory for the values kept: all of them when they fit, else the first and the last ones (bytes; KiB, MiB, GiB suffixes).
    #[arg(long, value_name = "SIZE", default_value = "1GiB", value_parser = super::gen::parse_size)]
    pub memory: u64,
    /// A heap (a decimal of any length) whose value to print; repeatable.
    #[arg(long = "heap", value_name = "H")]
    pub heaps: Vec<String>,
    /// Write every value to FILE as it is proven: raw u16le for a .u16 file, else one decimal a line.
    #[arg(long, value_name = "FILE")]
    pub values_out: Option<PathBuf>,
    /// Write the frequencies of heaps 1 … 2^k at each power of two to FILE (lines `value count` under `# heaps 2^k`).
    #[arg(long, value_name = "FILE")]
    pub frequencies: Option<PathBuf>,
    /// Write `heap,grundy` for every computed value to FILE.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,
    /// Save the state to FILE every few minutes and on Ctrl-C, to go on with --resume.
    #[arg(long, value_name = "FILE")]
    pub checkpoint: Option<PathBuf>,
    /// Go on with the run saved in FILE (its memory; the outputs it wrote are cut back and continued).
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
    /// Threads: 1 computes on one core; more let a second thread gather the next heaps' splits ahead (the default: the machine's cores).
    #[arg(long, value_name = "N", value_parser = super::analyze::parse_threads)]
    pub threads: Option<u64>,
    /// Draw g(h) against h over the computed values to FILE (SVG).
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Play convention: normal (the value sequence) or misere (the misère quotient).
    #[arg(long, value_parser = super::parse_rule, default_value = "normal")]
    pub rule: Rule,
    /// Under misere: heaps computed at most, looking for the period.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_HEAP)]
    pub max_heap: u64,
}

/// Set by the SIGINT and SIGTERM handler of a run that saves checkpoints.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Runs `grundy`.
pub(crate) fn run(args: GrundyArgs) -> Result<(), Error> {
    let values_out = args.values_out.as_ref().map(|path| {
        let format = match Format::from_path(path) {
            Some(Format::U16le) => Format::U16le,
            _ => Format::Dec,
        };
        (path, Content::Instance(format))
    });
    let named = [
        args.csv.as_ref().map(|path| (path, Content::Csv)),
        args.svg.as_ref().map(|path| (path, Content::Svg)),
        values_out,
    ];
    let flags = ["--csv", "--svg", "--values-out"];
    for (flag, (path, content)) in flags
        .into_iter()
        .zip(named)
        .filter_map(|(f, n)| Some((f, n?)))
    {
        check_output_name(flag, path, content)?;
    }
    if args.rule == Rule::Misere {
        return run_misere(&args);
    }
    // --max-values bounds the computation; --values only what is shown.
    let max_values = args.max_values;
    if max_values > MAX_VALUES {
        return Err(Error::Usage(format!(
            "--max-values {max_values} is past 2^48 = {MAX_VALUES}, the most a run computes"
        )));
    }
    let limits = Limits::for_memory(args.memory).ok_or_else(|| {
        Error::Usage(format!(
            "--memory {} keeps too few values: give at least 64KiB",
            args.memory
        ))
    })?;
    if limits.prefix < args.values.min(max_values) {
        return Err(Error::Usage(format!(
            "--values {} shows more values than --memory {} keeps ({})",
            args.values, args.memory, limits.prefix
        )));
    }
    let watch: Vec<u64> = args
        .heaps
        .iter()
        .filter_map(|heap| heap.parse().ok())
        .collect();
    let settings = Settings {
        max_values,
        limits,
        watch,
        threads: args.threads.map_or(0, |threads| threads as usize),
    };
    let paths = OutputPaths {
        values: args.values_out.clone(),
        csv: args.csv.clone(),
        frequencies: args.frequencies.clone(),
    };
    let (mut streamer, mut outputs) = match &args.resume {
        Some(path) => {
            let (streamer, positions) = Streamer::resume(path, &args.game, settings)?;
            (streamer, Outputs::reopen(&paths, &positions)?)
        }
        None => {
            let in_place = args.checkpoint.is_some();
            (
                Streamer::new(&args.game, settings),
                Outputs::create(&paths, in_place)?,
            )
        }
    };
    if args.checkpoint.is_some() {
        save_on_interrupt();
    }
    let progress = AtomicU64::new(streamer.values_computed());
    let control = Control {
        interrupt: Some(&INTERRUPTED),
        progress: Some(&progress),
        checkpoint: args
            .checkpoint
            .clone()
            .map(|path| (path, checkpoint_every())),
    };
    let target = streamer.target();
    let done = AtomicBool::new(false);
    let status = std::thread::scope(|scope| {
        if !args.json && std::io::stderr().is_terminal() {
            scope.spawn(|| draw_progress(&progress, target, &done));
        }
        let status = streamer.run(&mut outputs, &control);
        done.store(true, Ordering::Relaxed);
        status
    });
    match status? {
        Status::Done => {}
        Status::Stopped(message) => {
            outputs.finish()?;
            return Err(Error::Stopped(message));
        }
        Status::Interrupted => {
            let saved = match &args.checkpoint {
                Some(path) => format!(
                    "the state is saved in {0}: go on with --resume {0}",
                    path.display()
                ),
                None => "nothing was saved".into(),
            };
            return Err(Error::Interrupted(format!(
                "interrupted after {} values; {saved}",
                streamer.values_computed()
            )));
        }
    }
    outputs.finish()?;
    report(&args, &Table::from_outcome(streamer.into_outcome()))
}

/// Prints the table, writes the plot.
fn report(args: &GrundyArgs, table: &Table) -> Result<(), Error> {
    let heaps = args
        .heaps
        .iter()
        .map(|heap| Ok((heap.clone(), table.heap_value(heap)?)))
        .collect::<Result<Vec<(String, u16)>, Error>>()?;
    if let Some(path) = &args.svg {
        table.svg(path)?;
    }
    let shown = usize::try_from(args.values).unwrap_or(usize::MAX);
    let text = match args.json {
        true => table.json(shown, &heaps) + "\n",
        false => {
            let mut text = table.render(shown);
            for (heap, grundy) in &heaps {
                text += &format!("g({heap}) = {grundy}\n");
            }
            text
        }
    };
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| Error::io("<stdout>", e))
}

/// `grundy GAME --rule misere`: the misère quotient (SPEC section 12).
fn run_misere(args: &GrundyArgs) -> Result<(), Error> {
    let started = Instant::now();
    let q = Quotient::compute(&args.game, args.max_heap)?;
    let seconds = started.elapsed().as_secs_f64();
    let text = match args.json {
        true => grundy_misere::json(&q, seconds) + "\n",
        false => grundy_misere::render(
            &q,
            seconds,
            usize::try_from(args.values).unwrap_or(usize::MAX),
        ),
    };
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| Error::io("<stdout>", e))
}

/// The checkpoint interval: `NIMSTREAM_CHECKPOINT_SECONDS`, or five
/// minutes.
fn checkpoint_every() -> Duration {
    std::env::var("NIMSTREAM_CHECKPOINT_SECONDS")
        .ok()
        .and_then(|text| text.parse().ok())
        .map_or(CHECKPOINT_EVERY, Duration::from_secs_f64)
}

/// Makes SIGINT and SIGTERM set [`INTERRUPTED`] instead of ending the
/// process, so that the run saves its checkpoint first (the outputs of
/// such a run are written in place, so nothing partial is to be removed).
fn save_on_interrupt() {
    for signal in [libc::SIGINT, libc::SIGTERM] {
        // SAFETY: `sigaction` gets a zero-initialised action whose handler
        // is an `extern "C" fn(c_int)` doing only an atomic store (async-
        // signal-safe), and valid pointers.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = note_interrupt as *const () as libc::sighandler_t;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(signal, &action, std::ptr::null_mut());
        }
    }
}

/// The handler of [`save_on_interrupt`].
extern "C" fn note_interrupt(_signal: libc::c_int) {
    INTERRUPTED.store(true, Ordering::Relaxed);
}

/// Draws the progress bar of a run on standard error until `done`:
/// values out of `target`, values a second, time left (the caller draws
/// it on a terminal only, never with `--json`).
fn draw_progress(progress: &AtomicU64, target: u64, done: &AtomicBool) {
    let bar = ProgressBar::with_draw_target(Some(target), ProgressDrawTarget::stderr());
    let style = "{bar:30} {human_pos}/{human_len} values ({per_sec}, {eta} left)";
    bar.set_style(ProgressStyle::with_template(style).expect("a valid progress template"));
    while !done.load(Ordering::Relaxed) {
        bar.set_position(progress.load(Ordering::Relaxed));
        std::thread::sleep(Duration::from_millis(100));
    }
    bar.finish_and_clear();
}
