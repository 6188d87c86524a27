//! `nimstream complexity`: measure how time and working memory grow with
//! the input, and write the table and the plots.

use crate::error::Error;
use crate::workbench::complexity::{
    measure, render_csv, render_svg, ComplexityOptions, Exponents, Measurement,
};
use crate::workbench::gen::BitRange;
use crate::Format;
use crate::MemoryBudget;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::PathBuf;

/// Options of `complexity`.
#[derive(Debug, Args)]
pub(crate) struct ComplexityArgs {
    /// Instance sizes, in order: bytes with optional KiB, MiB or GiB
    /// suffixes, separated by commas.
    #[arg(long, value_name = "SIZES", value_delimiter = ',', default_value = "1MiB,4MiB,16MiB", value_parser = parse_positive_size)]
    pub sizes: Vec<u64>,
    /// Format of the generated instances.
    #[arg(short, long, default_value = "bits", value_parser = super::parse_format)]
    pub format: Format,
    /// Bit length of each heap: B, or LO..HI (both included, uniform).
    #[arg(long, value_name = "B|LO..HI", default_value = "1..256")]
    pub bits: BitRange,
    /// Seed of the random generator.
    #[arg(long, default_value_t = 0, value_name = "S")]
    pub seed: u64,
    /// Working-memory budget of each analysis: bytes (KiB, MiB, GiB
    /// suffixes), at least 64, or `log`.
    #[arg(long, default_value = "1GiB", value_parser = parse_memory)]
    pub memory: MemoryBudget,
    /// Folder for complexity.csv and complexity.svg (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

fn parse_positive_size(text: &str) -> Result<u64, String> {
    match super::gen::parse_size(text)? {
        0 => Err(format!(
            "invalid size '{text}': sizes must be at least 1 byte"
        )),
        bytes => Ok(bytes),
    }
}

fn parse_memory(text: &str) -> Result<MemoryBudget, String> {
    text.parse()
}

/// Runs `complexity`: measures each size, writes the CSV and the SVG, and
/// prints the table and the growth exponents.
pub(crate) fn run(args: ComplexityArgs) -> Result<(), Error> {
    let shown_out = args.out.display().to_string();
    std::fs::create_dir_all(&args.out).map_err(|e| Error::io(shown_out.as_str(), e))?;
    let analyzer = std::env::current_exe().map_err(|e| Error::io("<current executable>", e))?;
    let options = ComplexityOptions {
        sizes: args.sizes,
        format: args.format,
        bits: args.bits,
        seed: args.seed,
        memory: args.memory,
        analyzer,
    };
    let bar = progress_bar(options.sizes.len() as u64);
    let rows = measure(&options, |row| {
        bar.set_message(format!("{} bytes in {:.3} s", row.bytes, row.seconds));
        bar.inc(1);
    });
    bar.finish_and_clear();
    let rows = rows?;

    let csv_path = args.out.join("complexity.csv");
    std::fs::write(&csv_path, render_csv(&rows))
        .map_err(|e| Error::io(csv_path.display().to_string(), e))?;
    let title = format!(
        "nimstream analyze: {} input, --memory {}",
        options.format,
        memory_label(options.memory)
    );
    let svg_path = args.out.join("complexity.svg");
    render_svg(&rows, &title, &svg_path)?;

    let mut text = render_table(&rows);
    text.push_str(&render_exponents(Exponents::fit(&rows)));
    text.push_str(&format!(
        "wrote {} and {}\n",
        csv_path.display(),
        svg_path.display()
    ));
    std::io::stdout()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| Error::io("<stdout>", e))
}

/// `--memory` as a person writes it: `log`, or bytes with a binary suffix.
fn memory_label(budget: MemoryBudget) -> String {
    match budget {
        MemoryBudget::Log => "log".to_string(),
        MemoryBudget::Bytes(bytes) => human_bytes(bytes),
    }
}

/// Bytes with the largest binary suffix that divides them exactly.
fn human_bytes(bytes: u64) -> String {
    let units = [(30, "GiB"), (20, "MiB"), (10, "KiB")];
    units
        .iter()
        .find(|(shift, _)| bytes != 0 && bytes.is_multiple_of(1 << shift))
        .map_or(format!("{bytes}"), |(shift, unit)| {
            format!("{}{unit}", bytes >> shift)
        })
}

/// A bar of sizes measured on standard error, only when it is a terminal.
fn progress_bar(sizes: u64) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let style = ProgressStyle::with_template("{bar:30} {pos}/{len} sizes measured; last: {msg}")
        .expect("a valid progress template");
    ProgressBar::new(sizes).with_style(style)
}

/// The rows for people: aligned columns.
fn render_table(rows: &[Measurement]) -> String {
    let mut text = format!(
        "{:>12}  {:>9}  {:>6}  {:>14}  {:>12}  {:>10}\n",
        "bytes", "heaps", "passes", "working memory", "peak RSS", "seconds"
    );
    for row in rows {
        text.push_str(&format!(
            "{:>12}  {:>9}  {:>6}  {:>14}  {:>12}  {:>10.4}\n",
            row.bytes,
            row.heaps,
            row.passes,
            row.working_memory_bytes,
            row.peak_rss_bytes,
            row.seconds
        ));
    }
    text
}

/// The exponents line, or why there is none. Exponents that round to zero
/// print as `0.00`, never `-0.00`.
fn render_exponents(exponents: Option<Exponents>) -> String {
    let tidy = |exponent: f64| {
        if exponent.abs() < 0.005 {
            0.0
        } else {
            exponent
        }
    };
    match exponents {
        Some(fitted) => format!(
            "time grows as n^{:.2}, working memory as n^{:.2}\n",
            tidy(fitted.time),
            tidy(fitted.working_memory)
        ),
        None => "growth exponents need at least two different sizes\n".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_are_positive_byte_counts() {
        assert_eq!(parse_positive_size("64KiB"), Ok(64 << 10));
        assert!(parse_positive_size("0").is_err());
        assert!(parse_positive_size("1TB").is_err());
    }

    #[test]
    fn budgets_are_labelled_as_typed() {
        assert_eq!(memory_label(MemoryBudget::Log), "log");
        assert_eq!(memory_label(MemoryBudget::Bytes(1 << 30)), "1GiB");
        assert_eq!(memory_label(MemoryBudget::Bytes(96 << 10)), "96KiB");
        assert_eq!(memory_label(MemoryBudget::Bytes(100)), "100");
    }

    #[test]
    fn exponents_print_with_two_decimals() {
        let fitted = Exponents {
            time: 1.016,
            working_memory: -0.001,
        };
        assert_eq!(
            render_exponents(Some(fitted)),
            "time grows as n^1.02, working memory as n^0.00\n"
        );
    }
}
