//! The progress bars on standard error: `analyze`'s bytes read and passes,
//! the rate and the time left, drawn from the library's counters
//! (`crate::input::driver::progress`) by a thread of its own, so that the
//! passes never wait on the terminal; and `play`'s moves made.
//!
//! A bar appears only on a terminal, never with `--json`, and only once a
//! run has lasted a second (`NIMSTREAM_PROGRESS_AFTER_MS` sets the delay),
//! so that the short runs which are most runs print nothing but their
//! result. It is cleared before the result is printed.
//!
//! The rate is the bytes read over the time since the run began
//! ([`Pace`]), not indicatif's estimate from the bar's recent steps: the
//! bar starts a second into the run, at the bytes already read, and an
//! estimate from its steps takes that first jump for a step made in no
//! time (it showed "6.33 TiB/s, 0s left").

use crate::input::driver::progress::{progress, Progress};
use indicatif::{BinaryBytes, HumanDuration, ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the bar is redrawn.
const TICK: Duration = Duration::from_millis(100);

/// A thread that draws a bar on standard error from the delay on (see
/// the module doc), until [`Drawer::finish`].
struct Drawer {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drawer {
    /// Starts the thread when `shown` and standard error is a terminal: it
    /// waits the delay from `started`, then calls `draw`, which draws
    /// frames until the flag it is given is set.
    fn start(
        shown: bool,
        started: Instant,
        draw: impl FnOnce(&AtomicBool) + Send + 'static,
    ) -> Drawer {
        let done = Arc::new(AtomicBool::new(false));
        let thread = (shown && std::io::stderr().is_terminal()).then(|| {
            let done = Arc::clone(&done);
            let after = appear_after();
            std::thread::spawn(move || {
                while started.elapsed() < after {
                    if done.load(Ordering::Relaxed) {
                        return;
                    }
                    std::thread::sleep(TICK);
                }
                draw(&done);
            })
        });
        Drawer { done, thread }
    }

    /// Stops the thread, once it has drawn its last frame.
    fn finish(mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// A bar drawn while an analysis runs; [`AnalysisProgress::finish`] clears
/// it.
pub(crate) struct AnalysisProgress(Drawer);

impl AnalysisProgress {
    /// Starts the bar's thread, unless `json` or standard error is not a
    /// terminal.
    pub(crate) fn start(json: bool) -> AnalysisProgress {
        // The counters are the process's: the bar shows what they gain
        // from here on.
        let (base, started) = (progress(), Instant::now());
        AnalysisProgress(Drawer::start(!json, started, move |done| {
            draw_until(done, base, started)
        }))
    }

    /// Stops and clears the bar.
    pub(crate) fn finish(self) {
        self.0.finish();
    }
}

/// The delay before a bar appears: a second, or
/// `NIMSTREAM_PROGRESS_AFTER_MS`.
fn appear_after() -> Duration {
    let millis = std::env::var("NIMSTREAM_PROGRESS_AFTER_MS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(1000);
    Duration::from_millis(millis)
}

/// Draws the counters' gains over `base` every tick until `done`; the run
/// began at `started`.
fn draw_until(done: &AtomicBool, base: Progress, started: Instant) {
    // Hidden until its first frame holds the bytes already read.
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    let mut sized = None;
    // Once the delay is over, at least one frame is drawn, however soon
    // the run ends.
    loop {
        let now = progress();
        let read = now.bytes_read - base.bytes_read;
        // A file's size is known, so the bar has an end; a stream's is not.
        let planned = now.bytes_planned - base.bytes_planned;
        // Before the first pass starts, the first is the one to come.
        bar.set_prefix(format!("pass {}", (now.passes - base.passes).max(1)));
        if sized != Some(planned > 0) {
            sized = Some(planned > 0);
            bar.set_style(style(planned > 0));
        }
        if planned > 0 {
            bar.set_length(planned.max(read));
        }
        bar.set_position(read);
        bar.set_message(Pace::of(read, planned, started.elapsed()).phrase());
        if bar.is_hidden() {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            bar.tick();
        }
        if done.load(Ordering::Relaxed) {
            break;
        }
        std::thread::sleep(TICK);
    }
    bar.finish_and_clear();
}

/// The bar of a run whose bytes are planned (`sized`), else a counter.
fn style(sized: bool) -> ProgressStyle {
    let template = match sized {
        true => "{prefix} {bar:30} {bytes}/{total_bytes} ({msg})",
        false => "{spinner} {prefix} {bytes} read ({msg})",
    };
    ProgressStyle::with_template(template).expect("a valid progress template")
}

/// How fast a run reads, and how long the bytes planned so far will take:
/// the average since the run began, steady from the first frame on.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Pace {
    /// Bytes a second; `None` before there is anything to measure.
    bytes_per_second: Option<f64>,
    /// The time left for the bytes planned; `None` for a stream (nothing
    /// planned) or without a rate.
    left: Option<Duration>,
}

impl Pace {
    /// The shortest run a rate is given for.
    const MEASURED_AFTER: Duration = Duration::from_millis(50);

    /// The pace of a run that has read `read` of the `planned` bytes in
    /// `elapsed`.
    fn of(read: u64, planned: u64, elapsed: Duration) -> Pace {
        let seconds = elapsed.as_secs_f64();
        let rate = (read > 0 && elapsed >= Pace::MEASURED_AFTER).then(|| read as f64 / seconds);
        let left = rate
            .filter(|_| planned > 0)
            .map(|rate| Duration::from_secs_f64(planned.saturating_sub(read) as f64 / rate));
        Pace {
            bytes_per_second: rate,
            left,
        }
    }

    /// "120.00 MiB/s, 3 seconds left"; "measuring" before there is a rate.
    fn phrase(&self) -> String {
        match (self.bytes_per_second, self.left) {
            (None, _) => "measuring".to_string(),
            (Some(rate), None) => format!("{}/s", BinaryBytes(rate as u64)),
            (Some(rate), Some(left)) => {
                format!(
                    "{}/s, {} left",
                    BinaryBytes(rate as u64),
                    HumanDuration(left)
                )
            }
        }
    }
}

/// The bar of `play`: the moves made, of at most `--max-moves`, and the
/// time spent; a move may take long (the optimal side analyzes the
/// whole position), so the bar is drawn by a thread of its own.
pub(crate) struct MoveProgress {
    bar: ProgressBar,
    drawer: Drawer,
}

impl MoveProgress {
    /// A bar for a game of at most `max_moves` moves, drawn if `shown`
    /// and standard error is a terminal.
    pub(crate) fn start(max_moves: u64, shown: bool) -> MoveProgress {
        let bar = ProgressBar::with_draw_target(Some(max_moves), ProgressDrawTarget::hidden());
        let template = "{bar:30} {human_pos}/{human_len} moves ({elapsed})";
        bar.set_style(ProgressStyle::with_template(template).expect("a valid progress template"));
        let drawn = bar.clone();
        let drawer = Drawer::start(shown, Instant::now(), move |done| {
            drawn.set_draw_target(ProgressDrawTarget::stderr());
            while !done.load(Ordering::Relaxed) {
                drawn.tick();
                std::thread::sleep(TICK);
            }
        });
        MoveProgress { bar, drawer }
    }

    /// The game has made `moves` moves.
    pub(crate) fn moved(&self, moves: u64) {
        self.bar.set_position(moves);
    }

    /// Stops and clears the bar.
    pub(crate) fn finish(self) {
        self.drawer.finish();
        self.bar.finish_and_clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn the_first_frame_shows_the_rate_since_the_start_not_its_jump() {
        // A second into a 12-second run of 1,200 MiB, 100 MiB read.
        let pace = Pace::of(100 * MIB, 1200 * MIB, Duration::from_secs(1));
        assert_eq!(pace.bytes_per_second, Some(100.0 * MIB as f64));
        assert_eq!(pace.left, Some(Duration::from_secs(11)));
        assert_eq!(pace.phrase(), "100.00 MiB/s, 11 seconds left");
    }

    #[test]
    fn the_time_left_falls_with_the_time_spent_on_a_steady_run() {
        // 100 MiB a second over 1,200 MiB: 8 s left at 4 s, 6 s at 6 s.
        for (at, left) in [(4, 8), (6, 6), (11, 1), (12, 0)] {
            let pace = Pace::of(at * 100 * MIB, 1200 * MIB, Duration::from_secs(at));
            assert_eq!(pace.left, Some(Duration::from_secs(left)), "at {at} s");
        }
    }

    #[test]
    fn a_stream_has_a_rate_and_no_end_and_nothing_read_has_no_rate() {
        let stream = Pace::of(3 * MIB, 0, Duration::from_secs(2));
        assert_eq!(stream.left, None);
        assert_eq!(stream.phrase(), "1.50 MiB/s");
        for (read, elapsed) in [(0, 5000), (MIB, 10)] {
            let early = Pace::of(read, 8 * MIB, Duration::from_millis(elapsed));
            assert_eq!(early.phrase(), "measuring", "{read} in {elapsed} ms");
        }
    }
}
