//! Measuring how time and working memory grow with the input: generate an
//! instance of each size, analyze it in a child process, and record what it
//! measured, as a CSV table, log–log plots and fitted growth exponents.
//!
//! Each analysis runs as a separate process of the `nimstream` binary
//! (`analyze FILE --json`), so that its working memory is counted by the
//! binary's counting allocator and its peak resident memory
//! (`ru_maxrss`, from `wait4`) belongs to that analysis alone; it runs on
//! one thread. The instance
//! lives in a temporary folder that is removed once it is measured, so at
//! most one instance is on disk at a time.
//!
//! The growth exponent of a quantity y is the least-squares slope of
//! log y against log n over the sizes measured: 1 for linear growth, 0 for a
//! quantity that does not grow.

mod plot;

pub use plot::render_svg;

use crate::error::Error;
use crate::input::Format;
use crate::workbench::gen::{generate, Amount, BitRange, GenOptions, Kind};
use crate::MemoryBudget;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The CSV header: one column per field of [`Measurement`], in order.
const CSV_HEADER: &str =
    "bytes,heaps,max_bit_length,passes,bytes_scanned,working_memory_bytes,peak_rss_bytes,seconds";

/// How far the generated size may stray from the size asked for (10 %).
const SIZE_TOLERANCE: f64 = 0.10;

/// What to measure: the options of `nimstream complexity`.
#[derive(Clone, Debug)]
pub struct ComplexityOptions {
    /// Instance sizes in bytes, measured in this order.
    pub sizes: Vec<u64>,
    /// Format of the generated instances.
    pub format: Format,
    /// Bit lengths of the generated heaps.
    pub bits: BitRange,
    /// Seed of the generator.
    pub seed: u64,
    /// Working-memory budget of each analysis.
    pub memory: MemoryBudget,
    /// The `nimstream` executable that runs `analyze`.
    pub analyzer: PathBuf,
}

/// One analysis, as measured: a row of `complexity.csv`.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Size of the instance.
    pub bytes: u64,
    /// Heaps in the instance.
    pub heaps: u64,
    /// Bit length of the longest heap.
    pub max_bit_length: u64,
    /// Passes over the input.
    pub passes: u64,
    /// Bytes read over all passes.
    pub bytes_scanned: u64,
    /// Peak working memory of the analysis, counted by its allocator.
    pub working_memory_bytes: u64,
    /// Peak resident memory of the analysis process.
    pub peak_rss_bytes: u64,
    /// Wall-clock time of the analysis.
    pub seconds: f64,
}

impl Measurement {
    /// The row as CSV, without a line end.
    fn csv_row(&self) -> String {
        format!(
            "{},{},{},{},{},{},{},{}",
            self.bytes,
            self.heaps,
            self.max_bit_length,
            self.passes,
            self.bytes_scanned,
            self.working_memory_bytes,
            self.peak_rss_bytes,
            self.seconds
        )
    }
}

/// The fitted growth exponents of time and working memory.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Exponents {
    /// Time grows as n to this power.
    pub time: f64,
    /// Working memory grows as n to this power.
    pub working_memory: f64,
}

impl Exponents {
    /// Fits both exponents, each the least-squares slope of log y against
    /// log n (values not above 0 left out); `None` with fewer than two
    /// distinct sizes.
    pub fn fit(rows: &[Measurement]) -> Option<Exponents> {
        let fit = |y: fn(&Measurement) -> f64| {
            let points: Vec<(f64, f64)> = rows.iter().map(|r| (r.bytes as f64, y(r))).collect();
            growth_exponent(&points)
        };
        Some(Exponents {
            time: fit(|r| r.seconds)?,
            working_memory: fit(|r| r.working_memory_bytes as f64)?,
        })
    }
}

/// The least-squares slope of log y against log x over `points`: the
/// exponent k of y ∝ x^k. Points with x or y not above 0 have no logarithm
/// and are left out. `None` when fewer than two distinct x remain.
fn growth_exponent(points: &[(f64, f64)]) -> Option<f64> {
    let logs: Vec<(f64, f64)> = points
        .iter()
        .filter(|&&(x, y)| x > 0.0 && y > 0.0)
        .map(|&(x, y)| (x.ln(), y.ln()))
        .collect();
    let count = logs.len() as f64;
    let mean_x = logs.iter().map(|p| p.0).sum::<f64>() / count;
    let mean_y = logs.iter().map(|p| p.1).sum::<f64>() / count;
    let spread: f64 = logs.iter().map(|p| (p.0 - mean_x).powi(2)).sum();
    let covariance: f64 = logs.iter().map(|p| (p.0 - mean_x) * (p.1 - mean_y)).sum();
    (spread > 1e-12).then(|| covariance / spread)
}

/// The whole table as CSV: the header, then one line per row.
pub fn render_csv(rows: &[Measurement]) -> String {
    let mut text = format!("{CSV_HEADER}\n");
    for row in rows {
        text.push_str(&row.csv_row());
        text.push('\n');
    }
    text
}

/// Measures every size of `options`, in order, calling `on_row` after each.
pub fn measure(
    options: &ComplexityOptions,
    mut on_row: impl FnMut(&Measurement),
) -> Result<Vec<Measurement>, Error> {
    let mut rows = Vec::with_capacity(options.sizes.len());
    for &size in &options.sizes {
        let row = measure_size(options, size)?;
        on_row(&row);
        rows.push(row);
    }
    Ok(rows)
}

/// Generates an instance of about `size` bytes and analyzes it.
fn measure_size(options: &ComplexityOptions, size: u64) -> Result<Measurement, Error> {
    let folder = tempfile::tempdir().map_err(|e| Error::io("<temporary folder>", e))?;
    let instance = folder
        .path()
        .join(format!("instance.{}", options.format.extension()));
    let shown = instance.display().to_string();
    let gen_options = GenOptions {
        format: options.format,
        amount: Amount::Bytes(size),
        bits: options.bits,
        kind: Kind::Random,
        seed: options.seed,
    };
    let file = File::create(&instance).map_err(|e| Error::io(shown.as_str(), e))?;
    generate(&gen_options, file, &shown)?;
    let row = analyze_in_child(options, &instance, folder.path())?;
    check_size(size, row.bytes)?;
    Ok(row)
}

/// Fails unless `bytes` is within [`SIZE_TOLERANCE`] of `asked`.
fn check_size(asked: u64, bytes: u64) -> Result<(), Error> {
    let off = (bytes as f64 - asked as f64).abs() / (asked.max(1) as f64);
    if off > SIZE_TOLERANCE {
        return Err(Error::Check(format!(
            "asked for an instance of {asked} bytes but got {bytes} ({:.0} % off, more than 10 %): \
             try a larger size or a narrower --bits",
            off * 100.0
        )));
    }
    Ok(())
}

/// Runs `analyze --json` on `instance` in a child process and reads its
/// report and its peak resident memory. Its standard error goes to a file
/// in `scratch`, quoted on failure.
fn analyze_in_child(
    options: &ComplexityOptions,
    instance: &Path,
    scratch: &Path,
) -> Result<Measurement, Error> {
    let analyzer = options.analyzer.display().to_string();
    let stderr_path = scratch.join("analyze.stderr");
    let stderr =
        File::create(&stderr_path).map_err(|e| Error::io(stderr_path.display().to_string(), e))?;
    let mut child = Command::new(&options.analyzer)
        .arg("analyze")
        .arg(instance)
        .args(["--json", "--memory", &memory_argument(options.memory)])
        .args(["--format", options.format.name()])
        // One thread, the paper's machine: how many ranges a pass reads on
        // depends on the input's size (a file under 8 MiB is one), which
        // would put a step into the curves that is not growth.
        .args(["--threads", "1"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .map_err(|e| Error::io(analyzer.as_str(), e))?;
    let mut stdout = Vec::new();
    let mut pipe = child.stdout.take().expect("stdout is piped");
    std::io::Read::read_to_end(&mut pipe, &mut stdout)
        .map_err(|e| Error::io(analyzer.as_str(), e))?;
    let (status, peak_rss_bytes) = wait_with_peak_rss(child.id())?;
    if status != Some(0) {
        let message = std::fs::read_to_string(&stderr_path).unwrap_or_default();
        return Err(Error::Check(format!(
            "{analyzer} analyze {} failed ({}): {}",
            instance.display(),
            status.map_or("killed by a signal".to_string(), |c| format!("exit {c}")),
            message.trim()
        )));
    }
    parse_report(&stdout, peak_rss_bytes).ok_or_else(|| {
        Error::Check(format!(
            "{analyzer} analyze --json printed an unexpected report"
        ))
    })
}

/// The `--memory` argument that parses back to `budget`.
fn memory_argument(budget: MemoryBudget) -> String {
    match budget {
        MemoryBudget::Bytes(bytes) => bytes.to_string(),
        MemoryBudget::Log => "log".to_string(),
    }
}

/// Waits for the child `pid`: its exit code (`None` when a signal ended
/// it) and its peak resident memory in bytes.
fn wait_with_peak_rss(pid: u32) -> Result<(Option<i32>, u64), Error> {
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value of this plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    loop {
        // SAFETY: `pid` is our own child, not yet reaped (its `Child` is
        // never waited on), and both pointers are to live locals.
        let reaped = unsafe { libc::wait4(pid as libc::pid_t, &mut status, 0, &mut usage) };
        if reaped == pid as libc::pid_t {
            break;
        }
        let error = std::io::Error::last_os_error();
        if error.kind() != std::io::ErrorKind::Interrupted {
            return Err(Error::io("<analyze child>", error));
        }
    }
    let code = libc::WIFEXITED(status).then(|| libc::WEXITSTATUS(status));
    // ru_maxrss is in KiB on Linux.
    let peak_rss_bytes = u64::try_from(usage.ru_maxrss).unwrap_or(0) * 1024;
    Ok((code, peak_rss_bytes))
}

/// Reads a row from the JSON report of `analyze --json`.
fn parse_report(json: &[u8], peak_rss_bytes: u64) -> Option<Measurement> {
    let report: serde_json::Value = serde_json::from_slice(json).ok()?;
    let stats = &report["stats"];
    let number = |value: &serde_json::Value| value.as_u64();
    Some(Measurement {
        bytes: number(&report["input"]["bytes"])?,
        heaps: number(&report["heaps"])?,
        max_bit_length: number(&report["max_bit_length"])?,
        passes: number(&stats["passes"])?,
        bytes_scanned: number(&stats["bytes_scanned"])?,
        working_memory_bytes: number(&stats["working_memory_bytes"])?,
        peak_rss_bytes,
        seconds: stats["seconds"].as_f64()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exponents_are_the_slopes_of_time_and_memory() {
        // Time grows as the square of the size; working memory stays flat.
        let row = |bytes: u64, seconds: f64| Measurement {
            bytes,
            heaps: bytes / 8,
            max_bit_length: 64,
            passes: 1,
            bytes_scanned: bytes,
            working_memory_bytes: 4096,
            peak_rss_bytes: 1 << 20,
            seconds,
        };
        let fitted = Exponents::fit(&[row(1_000, 0.01), row(10_000, 1.0)]).unwrap();
        assert!((fitted.time - 2.0).abs() < 1e-9);
        assert!(fitted.working_memory.abs() < 1e-9);
        assert_eq!(Exponents::fit(&[row(1_000, 0.01)]), None);
    }

    pub(super) fn row(bytes: u64, seconds: f64, working_memory_bytes: u64) -> Measurement {
        Measurement {
            bytes,
            heaps: bytes / 100,
            max_bit_length: 256,
            passes: 4,
            bytes_scanned: 5 * bytes,
            working_memory_bytes,
            peak_rss_bytes: 3 << 20,
            seconds,
        }
    }

    #[test]
    fn the_slope_of_a_power_law_is_its_exponent() {
        let linear = [(1e3, 2e-3), (1e4, 2e-2), (1e6, 2.0)];
        assert!((growth_exponent(&linear).unwrap() - 1.0).abs() < 1e-9);
        let flat = [(1e3, 4096.0), (1e5, 4096.0)];
        assert!(growth_exponent(&flat).unwrap().abs() < 1e-12);
        let square_root = [(4.0, 2.0), (16.0, 4.0), (64.0, 8.0)];
        assert!((growth_exponent(&square_root).unwrap() - 0.5).abs() < 1e-9);
        let quadratic = [(10.0, 100.0), (100.0, 10_000.0), (1000.0, 1_000_000.0)];
        assert!((growth_exponent(&quadratic).unwrap() - 2.0).abs() < 1e-9);
    }

    #[test]
    fn a_slope_needs_two_distinct_sizes() {
        assert_eq!(growth_exponent(&[]), None);
        assert_eq!(growth_exponent(&[(10.0, 1.0)]), None);
        assert_eq!(growth_exponent(&[(10.0, 1.0), (10.0, 5.0)]), None);
    }

    #[test]
    fn points_without_a_logarithm_are_left_out() {
        let points = [(10.0, 0.0), (100.0, 0.01), (1000.0, 0.1), (0.0, 5.0)];
        assert!((growth_exponent(&points).unwrap() - 1.0).abs() < 1e-9);
        assert_eq!(growth_exponent(&[(10.0, 0.0), (1000.0, 0.5)]), None);
    }

    #[test]
    fn exponents_fit_time_and_working_memory() {
        let rows = [row(1 << 20, 0.01, 9000), row(1 << 22, 0.04, 9000)];
        let fitted = Exponents::fit(&rows).unwrap();
        assert!((fitted.time - 1.0).abs() < 1e-9);
        assert!(fitted.working_memory.abs() < 1e-12);
    }

    #[test]
    fn the_csv_has_the_header_then_one_line_per_row_in_order() {
        let csv = render_csv(&[row(1000, 0.25, 64), row(4000, 1.5, 128)]);
        assert_eq!(
            csv,
            "bytes,heaps,max_bit_length,passes,bytes_scanned,working_memory_bytes,peak_rss_bytes,seconds\n\
             1000,10,256,4,5000,64,3145728,0.25\n\
             4000,40,256,4,20000,128,3145728,1.5\n"
        );
    }

    #[test]
    fn sizes_more_than_ten_percent_off_are_refused() {
        assert!(check_size(1000, 1099).is_ok());
        assert!(check_size(1000, 901).is_ok());
        assert!(check_size(1000, 1101).is_err());
        assert!(check_size(1000, 899).is_err());
    }

    #[test]
    fn memory_budgets_are_passed_on_in_a_form_analyze_parses() {
        for budget in [MemoryBudget::Log, MemoryBudget::Bytes(1 << 30)] {
            assert_eq!(memory_argument(budget).parse(), Ok(budget));
        }
    }

    #[test]
    fn reports_are_read_into_rows() {
        let json = br#"{"input":{"bytes":6},"heaps":3,"max_bit_length":3,
            "stats":{"passes":2,"bytes_scanned":12,"working_memory_bytes":96,"seconds":0.5}}"#;
        assert_eq!(
            parse_report(json, 2048),
            Some(Measurement {
                bytes: 6,
                heaps: 3,
                max_bit_length: 3,
                passes: 2,
                bytes_scanned: 12,
                working_memory_bytes: 96,
                peak_rss_bytes: 2048,
                seconds: 0.5,
            })
        );
        assert_eq!(parse_report(b"{}", 0), None);
    }
}
