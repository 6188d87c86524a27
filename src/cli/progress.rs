//! The progress bar of `analyze` on standard error: bytes read and passes,
//! the rate and the time left, drawn from the library's counters
//! (`nimstream::input::progress`) by a thread of its own, so that the
//! passes never wait on the terminal.
//!
//! It appears only on a terminal, never with `--json`, and only once a run
//! has lasted a second (`NIMSTREAM_PROGRESS_AFTER_MS` sets the delay), so
//! that the short runs which are most runs print nothing but their report.
//! It is cleared before the report is printed.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nimstream::input::progress::{progress, Progress};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How often the bar is redrawn.
const TICK: Duration = Duration::from_millis(100);

/// A bar drawn while an analysis runs; [`AnalysisProgress::finish`] clears
/// it.
pub struct AnalysisProgress {
    done: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl AnalysisProgress {
    /// Starts the bar's thread, unless `json` or standard error is not a
    /// terminal.
    pub fn start(json: bool) -> AnalysisProgress {
        let done = Arc::new(AtomicBool::new(false));
        // The counters are the process's: the bar shows what they gain
        // from here on.
        let base = progress();
        let thread = (!json && std::io::stderr().is_terminal()).then(|| {
            let done = Arc::clone(&done);
            std::thread::spawn(move || draw_until(&done, base, appear_after()))
        });
        AnalysisProgress { done, thread }
    }

    /// Stops and clears the bar.
    pub fn finish(mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The delay before the bar appears: a second, or
/// `NIMSTREAM_PROGRESS_AFTER_MS`.
fn appear_after() -> Duration {
    let millis = std::env::var("NIMSTREAM_PROGRESS_AFTER_MS")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(1000);
    Duration::from_millis(millis)
}

/// Waits `after`, then draws the counters' gains over `base` every tick
/// until `done`.
fn draw_until(done: &AtomicBool, base: Progress, after: Duration) {
    let started = Instant::now();
    while started.elapsed() < after {
        if done.load(Ordering::Relaxed) {
            return;
        }
        std::thread::sleep(TICK);
    }
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
    let mut sized = None;
    // Once the delay is over, at least one frame is drawn, however soon
    // the run ends.
    loop {
        let now = progress();
        let read = now.bytes_read - base.bytes_read;
        // A file's size is known, so the bar has an end; a stream's is not.
        let planned = now.bytes_planned - base.bytes_planned;
        // Before the first pass starts, the first is the one to come.
        bar.set_message(format!("pass {}", (now.passes - base.passes).max(1)));
        if sized != Some(planned > 0) {
            sized = Some(planned > 0);
            bar.set_style(style(planned > 0));
        }
        if planned > 0 {
            bar.set_length(planned.max(read));
        }
        bar.set_position(read);
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
        true => "{msg} {bar:30} {bytes}/{total_bytes} ({binary_bytes_per_sec}, {eta} left)",
        false => "{spinner} {msg} {bytes} read ({binary_bytes_per_sec})",
    };
    ProgressStyle::with_template(template).expect("a valid progress template")
}
