//! The streamed computation: the engine's values proven one heap after
//! another into the kept values, counted, written out, checked for a
//! period, with checkpoints, until the values asked for exist, a period is
//! proven, the run is interrupted, or a proof needs a value no longer kept.

use super::checkpoint::Checkpoint;
use super::kept::Kept;
use super::outputs::{Outputs, Positions};
use super::plan::Limits;
use super::stats::{RareValues, ValueStats};
use crate::error::Error;
use crate::games::period::PeriodSearch;
use crate::games::rare_common::{KeptValues, Shortfall, ValueEngine};
use crate::games::{Game, GameError, Period};
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The most values a run computes: heaps are `u64`, and 2^48 values are
/// more than any run will make.
pub const MAX_VALUES: u64 = 1 << 48;

/// Nim's values are the heaps, up to 65,535.
const NIM_VALUES: u64 = 1 << 16;

/// Values computed between looks at the interrupt flag, the progress
/// counter and the checkpoint clock.
const CHUNK: u64 = 1 << 14;

/// What a run is asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Values computed at most (a proven period ends the run sooner).
    pub max_values: u64,
    /// How many values are kept.
    pub limits: Limits,
    /// Heaps whose values the run notes as it passes them.
    pub watch: Vec<u64>,
    /// Threads the engine may use: 1, or more for a second one that
    /// gathers splits ahead (0: as many as the machine has).
    pub threads: usize,
}

/// What the caller of [`Streamer::run`] lends it: a flag that ends the run
/// early (Ctrl-C), a counter of the values computed (for a progress bar),
/// and where and how often to save checkpoints.
#[derive(Debug, Default)]
pub struct Control<'c> {
    /// Set to end the run at the next chunk, saving a checkpoint.
    pub interrupt: Option<&'c AtomicBool>,
    /// Stored the values computed after each chunk.
    pub progress: Option<&'c AtomicU64>,
    /// The checkpoint file and how often to save it.
    pub checkpoint: Option<(PathBuf, Duration)>,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// The values asked for exist, or a period is proven.
    Done,
    /// The interrupt flag was set; the state is saved when a checkpoint
    /// file was given.
    Interrupted,
    /// A proof needed a value no longer kept: the message names the heap,
    /// the distance and a `--memory` that keeps it. Every value before
    /// that heap is proven and written.
    Stopped(String),
}

/// A value sequence computed in a stream.
pub struct Streamer {
    game: Game,
    /// `None` for Nim.
    engine: Option<ValueEngine>,
    search: Option<PeriodSearch>,
    kept: Kept,
    stats: ValueStats,
    settings: Settings,
    /// The heaps watched, ascending.
    watch: Vec<u64>,
    /// How many of them are passed.
    watch_passed: usize,
    watched: BTreeMap<u64, u16>,
    period: Option<Period>,
    /// g(p) … g(p + q − 1) once a period is proven.
    cycle: Vec<u16>,
    /// The seconds of the runs before (a resumed run's).
    seconds: f64,
}

/// What a run found.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The game.
    pub game: Game,
    /// How many values were computed: g(0) … g(n − 1).
    pub values_computed: u64,
    /// The least period and its least preperiod, if proven.
    pub period: Option<Period>,
    /// The seconds spent computing, over every run of a resumed sequence.
    pub seconds: f64,
    /// The prefix kept: every value when `all_kept`.
    pub prefix: Vec<u16>,
    /// Whether every value computed is in `prefix`.
    pub all_kept: bool,
    /// g(p) … g(p + q − 1) when a period is proven.
    pub cycle: Vec<u16>,
    /// The heaps watched that were computed, with their values.
    pub watched: BTreeMap<u64, u16>,
    /// How many heaps 1 … n − 1 hold each value, value 0 first.
    pub frequencies: Vec<u64>,
    /// The rare values, if the sequence has a sparse class.
    pub rare: Option<RareValues>,
    /// The largest value of heaps 1 … n − 1.
    pub largest_value: u16,
    /// Once values were dropped, how far back the period search looked:
    /// the ring's length R (a period q from p is proven only while
    /// p + 2q + k fits in it).
    pub period_window: Option<u64>,
}

impl Streamer {
    /// A run of `game`'s sequence, from g(0).
    pub fn new(game: &Game, settings: Settings) -> Streamer {
        let Limits { prefix, ring } = settings.limits;
        Streamer {
            game: game.clone(),
            engine: engine_for(game, settings.threads),
            search: PeriodSearch::for_game(game),
            kept: Kept::new(prefix.min(settings.max_values).max(1), ring),
            stats: ValueStats::default(),
            watch: sorted(&settings.watch),
            watch_passed: 0,
            settings,
            watched: BTreeMap::new(),
            period: None,
            cycle: Vec::new(),
            seconds: 0.0,
        }
    }

    /// The run saved in the checkpoint at `path`, to go on with `settings`
    /// (their limits give way to the checkpoint's: the kept values are
    /// those it saved), and the lengths of the outputs it recorded.
    ///
    /// Fails when the file is not a checkpoint, or one of another game.
    pub fn resume(
        path: &std::path::Path,
        game: &Game,
        settings: Settings,
    ) -> Result<(Streamer, Positions), Error> {
        let saved = Checkpoint::load(path)?;
        let shown = path.display();
        if saved.game != game.to_string() {
            return Err(Error::Usage(format!(
                "{shown} is a checkpoint of {}, not of {game}",
                saved.game
            )));
        }
        let (prefix, ring) = saved.lengths;
        let engine = match saved.engine {
            Some(state) => Some(ValueEngine::restore(game, state).ok_or_else(|| {
                Error::Usage(format!("{shown}: the engine's state is not one of {game}"))
            })?),
            None => None,
        };
        let mut search = PeriodSearch::for_game(game);
        if let Some(search) = &mut search {
            search.set_next_check(saved.next_check);
        }
        let kept_ok = prefix >= 1
            && ring >= 1
            && saved.prefix.len() as u64 == saved.computed.min(prefix)
            && saved.ring.len() as u64
                == if saved.computed > prefix {
                    saved.computed.min(ring)
                } else {
                    0
                };
        if !kept_ok {
            return Err(Error::Usage(format!(
                "{shown}: the kept values do not match the lengths saved"
            )));
        }
        let kept = Kept::restore(
            prefix,
            ring,
            saved.computed,
            saved.prefix.into_owned(),
            &saved.ring,
        );
        let settings = Settings {
            limits: Limits { prefix, ring },
            ..settings
        };
        let streamer = Streamer {
            game: game.clone(),
            engine,
            search,
            kept,
            stats: saved.stats,
            watch_passed: sorted(&settings.watch).partition_point(|&heap| heap < saved.computed),
            watch: sorted(&settings.watch),
            settings,
            watched: saved.watched,
            period: None,
            cycle: Vec::new(),
            seconds: saved.seconds,
        };
        Ok((streamer, saved.positions))
    }

    /// How many values are computed.
    pub fn values_computed(&self) -> u64 {
        self.kept.computed()
    }

    /// The values the run goes to: the settings' maximum, capped at
    /// [`MAX_VALUES`] (and at 65,536 for Nim).
    pub fn target(&self) -> u64 {
        let cap = match self.engine {
            Some(_) => MAX_VALUES,
            None => NIM_VALUES,
        };
        self.settings.max_values.min(cap)
    }

    /// Computes values until the target, a proven period, the interrupt
    /// flag or a shortfall, writing each to `outputs` as it is proven.
    pub fn run(&mut self, outputs: &mut Outputs, control: &Control<'_>) -> Result<Status, Error> {
        self.run_until(self.target(), outputs, control)
    }

    /// [`run`](Self::run), but stopping at `until` values (a run can be
    /// paused there and saved, as an interrupt would).
    pub fn run_until(
        &mut self,
        until: u64,
        outputs: &mut Outputs,
        control: &Control<'_>,
    ) -> Result<Status, Error> {
        let started = Instant::now();
        let mut saved_at = Instant::now();
        let until = until.min(self.target());
        let status = loop {
            if self.period.is_some() || self.kept.computed() >= until {
                break Status::Done;
            }
            let end = until.min(self.kept.computed() + CHUNK);
            if let Err(shortfall) = self.compute_until(end, outputs)? {
                break Status::Stopped(self.stop_message(shortfall));
            }
            if let Some(progress) = control.progress {
                progress.store(self.kept.computed(), Ordering::Relaxed);
            }
            if control
                .interrupt
                .is_some_and(|flag| flag.load(Ordering::Relaxed))
            {
                break Status::Interrupted;
            }
            if let Some((path, every)) = &control.checkpoint {
                if saved_at.elapsed() >= *every {
                    self.seconds += started.elapsed().as_secs_f64();
                    self.save(path, outputs)?;
                    self.seconds -= started.elapsed().as_secs_f64();
                    saved_at = Instant::now();
                }
            }
        };
        self.seconds += started.elapsed().as_secs_f64();
        if status == Status::Interrupted {
            if let Some((path, _)) = &control.checkpoint {
                self.save(path, outputs)?;
            }
        }
        Ok(status)
    }

    /// Computes values up to `end` (or a proven period), or the shortfall
    /// that stopped a proof.
    fn compute_until(
        &mut self,
        end: u64,
        outputs: &mut Outputs,
    ) -> Result<Result<(), Shortfall>, Error> {
        while self.kept.computed() < end {
            let heap = self.kept.computed();
            let value = match &mut self.engine {
                Some(engine) => match engine.next_value(&self.kept) {
                    Ok(value) => value,
                    Err(Shortfall::TooLarge { heap }) => return Err(too_large(heap)),
                    Err(shortfall) => return Ok(Err(shortfall)),
                },
                None => heap as u16,
            };
            self.kept.push(value);
            if let Some(engine) = &mut self.engine {
                engine.record(heap, value, self.kept.whole());
            }
            self.count(heap, value, outputs)?;
            if self.check_period(heap + 1) {
                break;
            }
        }
        Ok(Ok(()))
    }

    /// Counts g(`heap`) = `value`: the stats, the frequencies at a power of
    /// two, the outputs, the heaps watched.
    #[inline]
    fn count(&mut self, heap: u64, value: u16, outputs: &mut Outputs) -> Result<(), Error> {
        if heap > 0 {
            self.stats.count(heap, value);
            if heap.is_power_of_two() && outputs.wants_frequencies() {
                outputs.frequencies(&self.stats.frequencies_text(heap.trailing_zeros()))?;
            }
        }
        outputs.value(heap, value)?;
        if self.watch.get(self.watch_passed) == Some(&heap) {
            self.watched.insert(heap, value);
            self.watch_passed += 1;
        }
        Ok(())
    }

    /// Looks for a period when one is due with `known` values; true when
    /// one is proven.
    fn check_period(&mut self, known: u64) -> bool {
        let Some(search) = &mut self.search else {
            return false;
        };
        if !search.is_due(known) && known != self.settings.max_values {
            return false;
        }
        let (first, window) = self.kept.last_run();
        let Some(period) = search.check_window(window, first) else {
            return false;
        };
        // A proof sees the heap before the preperiod (or starts at 0), so
        // the period's values are in the window.
        let start = (period.preperiod - first) as usize;
        self.cycle = window[start..start + period.period as usize].to_vec();
        self.period = Some(period);
        true
    }

    /// The message of a proof stopped for want of g(`needs`).
    fn stop_message(&self, shortfall: Shortfall) -> String {
        let Shortfall::Forgotten { heap, needs } = shortfall else {
            unreachable!("a value past 65535 is an error, not a stop");
        };
        let (prefix, ring) = self.kept.lengths();
        let memory = Limits::memory_to_keep(needs, heap);
        format!(
            "the proof of heap {heap}'s value needs g({needs}), {distance} heaps back, but the run \
             keeps only the first {prefix} values and the last {ring}: {heap} values are proven \
             (and written); --memory {mib}MiB would keep g({needs})",
            distance = heap - needs,
            mib = memory >> 20,
        )
    }

    /// Saves the state to `path`, after making the outputs durable.
    pub fn save(&self, path: &std::path::Path, outputs: &mut Outputs) -> Result<(), Error> {
        let positions = outputs.sync()?;
        let ring = match self.kept.whole() {
            Some(_) => &[][..],
            None => self.kept.ring_values(),
        };
        Checkpoint {
            game: self.game.to_string(),
            computed: self.kept.computed(),
            seconds: self.seconds,
            lengths: self.kept.lengths(),
            prefix: Cow::Borrowed(self.kept.prefix()),
            ring: Cow::Borrowed(ring),
            engine: self.engine.as_ref().map(ValueEngine::state),
            next_check: self.search.as_ref().map_or(0, PeriodSearch::next_check),
            stats: self.stats.clone(),
            watched: self.watched.clone(),
            positions,
        }
        .save(path)
    }

    /// What the run found (the kept prefix moved into it).
    pub fn into_outcome(self) -> Outcome {
        let all_kept = self.kept.whole().is_some();
        let period_window = (!all_kept).then(|| self.kept.lengths().1);
        Outcome {
            values_computed: self.kept.computed(),
            frequencies: self.stats.counts().to_vec(),
            rare: self.stats.rare(),
            largest_value: self.stats.largest(),
            prefix: self.kept.into_prefix(),
            game: self.game,
            period: self.period,
            seconds: self.seconds,
            all_kept,
            cycle: self.cycle,
            watched: self.watched,
            period_window,
        }
    }
}

/// The engine of `game` (`None` for Nim) on `threads` threads (0: the
/// machine's).
fn engine_for(game: &Game, threads: usize) -> Option<ValueEngine> {
    let mut engine = ValueEngine::for_game(game)?;
    if threads > 0 {
        engine.set_threads(threads);
    }
    Some(engine)
}

/// The heaps of `watch`, ascending, once each.
fn sorted(watch: &[u64]) -> Vec<u64> {
    let mut heaps = watch.to_vec();
    heaps.sort_unstable();
    heaps.dedup();
    heaps
}

/// The error of a value past 65,535.
fn too_large(heap: u64) -> Error {
    GameError::new(format!(
        "the Grundy value of heap {heap} is past 65535, the largest value a table holds"
    ))
    .into()
}

impl Outcome {
    /// g(`heap`) as the run knows it: kept in the prefix, watched, or past
    /// the preperiod from the period; `None` for a heap computed but
    /// neither kept nor watched, or past the values computed without a
    /// period.
    pub fn value(&self, heap: u64) -> Option<u16> {
        if let Some(&value) = usize::try_from(heap).ok().and_then(|h| self.prefix.get(h)) {
            return Some(value);
        }
        if let Some(&value) = self.watched.get(&heap) {
            return Some(value);
        }
        match self.period {
            Some(period) if heap >= period.preperiod => self.value_at_residue(heap % period.period),
            _ => None,
        }
    }

    /// g(h) for every heap h ≥ p with h mod q = `residue` mod q, given a
    /// proven period q from p (`None` without one).
    pub fn value_at_residue(&self, residue: u64) -> Option<u16> {
        let Period { preperiod, period } = self.period?;
        let offset = (residue % period + period - preperiod % period) % period;
        self.cycle.get(offset as usize).copied()
    }
}
