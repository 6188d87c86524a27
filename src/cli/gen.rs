//! `nimstream gen`: write an instance, and sum up what was written on
//! standard error.

use super::names::output_format;
use crate::error::Error;
use crate::output::AtomicFile;
use crate::parse_byte_size;
use crate::workbench::gen::{generate, Amount, BitRange, GenOptions, Kind, Summary};
use crate::Format;
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

/// Options of `gen`.
#[derive(Debug, Args)]
pub(crate) struct GenArgs {
    /// Output format: bits, hex, dec, unary, u8, u16le, u32le, u64le, nimb
    /// (default: the one the output's extension names).
    #[arg(short, long, value_parser = super::parse_format)]
    pub format: Option<Format>,
    /// How much to write.
    #[command(flatten)]
    pub amount: AmountArgs,
    /// Bit length of each heap: B, or LO..HI (both included, uniform)
    /// [default: 1..64; the element width for u8..u64le; 1..10 for unary].
    #[arg(long, value_name = "B|LO..HI")]
    pub bits: Option<BitRange>,
    /// Shape of the instance: random, p-position (the last heap makes the
    /// nim-sum 0), pairs (equal heaps in pairs), ones (all heaps 1).
    #[arg(long, default_value = "random", value_parser = parse_kind)]
    pub kind: Kind,
    /// Seed of the random generator: the same seed gives the same bytes.
    #[arg(long, default_value_t = 0, value_name = "S")]
    pub seed: u64,
    /// Output file (`-` for standard output).
    #[arg(short, long, default_value = "-", value_name = "FILE")]
    pub output: PathBuf,
    /// Print the summary on standard error as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// `--heaps N` or `--size BYTES`, exactly one.
#[derive(Debug, Args)]
#[group(required = true, multiple = false)]
pub(crate) struct AmountArgs {
    /// Number of heaps (the balancing heap of p-position included).
    #[arg(long, value_name = "N")]
    pub heaps: Option<u64>,
    /// Write heaps until the output reaches this size: bytes, with an
    /// optional KiB, MiB or GiB suffix (or K, M, G).
    #[arg(long, value_name = "BYTES", value_parser = parse_size)]
    pub size: Option<u64>,
}

impl AmountArgs {
    fn amount(&self) -> Amount {
        match (self.heaps, self.size) {
            (Some(heaps), _) => Amount::Heaps(heaps),
            (None, Some(bytes)) => Amount::Bytes(bytes),
            (None, None) => unreachable!("clap requires --heaps or --size"),
        }
    }
}

fn parse_kind(text: &str) -> Result<Kind, String> {
    Kind::from_name(text)
        .ok_or_else(|| format!("unknown kind '{text}': expected random, p-position, pairs or ones"))
}

/// Parses a byte count with an optional `KiB`/`MiB`/`GiB` (or `K`/`M`/`G`)
/// suffix, case-insensitive.
pub(super) fn parse_size(text: &str) -> Result<u64, String> {
    parse_byte_size(text).ok_or_else(|| {
        format!(
            "invalid size '{text}': expected bytes with an optional KiB, MiB or GiB suffix, \
             e.g. 64MiB"
        )
    })
}

/// Runs `gen`: writes the instance, then the summary on standard error.
pub(crate) fn run(args: GenArgs) -> Result<(), Error> {
    let format = output_format(args.format, "--format", &args.output)?;
    let options = GenOptions {
        format,
        amount: args.amount.amount(),
        bits: args.bits.unwrap_or(BitRange::default_for(format)),
        kind: args.kind,
        seed: args.seed,
    };
    options.check()?;
    let shown = args.output.display().to_string();
    let summary = if shown == "-" {
        write_with_progress(&options, std::io::stdout().lock(), "<stdout>", args.json)?
    } else {
        write_file(&options, &args.output, args.json)?
    };
    let text = if args.json {
        summary.to_json() + "\n"
    } else {
        render_summary(&summary, &shown, format)
    };
    std::io::stderr()
        .lock()
        .write_all(text.as_bytes())
        .map_err(|e| Error::io("<stderr>", e))
}

/// Generates into a file that appears only once complete.
fn write_file(options: &GenOptions, path: &Path, json: bool) -> Result<Summary, Error> {
    let mut file = AtomicFile::create(path)?;
    let summary = write_with_progress(options, &mut file, &path.display().to_string(), json)?;
    file.commit()?;
    Ok(summary)
}

fn write_with_progress<W: Write>(
    options: &GenOptions,
    out: W,
    name: &str,
    json: bool,
) -> Result<Summary, Error> {
    let bar = progress_bar(options.amount, json);
    let summary = generate(options, bar.wrap_write(out), name);
    bar.finish_and_clear();
    summary
}

/// A bar of bytes written on standard error when it is a terminal (a bar
/// for `--size`, a counter for `--heaps`); hidden otherwise and with `--json`.
fn progress_bar(amount: Amount, json: bool) -> ProgressBar {
    if json || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let (bar, template) = match amount {
        Amount::Bytes(total) => (
            ProgressBar::new(total),
            "{bar:40} {bytes}/{total_bytes} ({binary_bytes_per_sec}, {eta})",
        ),
        Amount::Heaps(_) => (
            ProgressBar::new_spinner(),
            "{spinner} {bytes} written ({binary_bytes_per_sec})",
        ),
    };
    let style = ProgressStyle::with_template(template).expect("a valid progress template");
    bar.with_style(style)
}

/// The summary for people: aligned lines.
fn render_summary(summary: &Summary, output: &str, format: Format) -> String {
    let output = if output == "-" { "<stdout>" } else { output };
    let lines = [
        ("output", format!("{output} ({format})")),
        ("heaps", summary.heaps.to_string()),
        ("bytes", summary.bytes.to_string()),
        ("nim-sum", format!("{} bits", summary.nim_sum_bit_length)),
        ("nim-sum sha256", summary.nim_sum_sha256.clone()),
    ];
    lines
        .iter()
        .map(|(label, text)| format!("{label:<14}  {text}\n"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_take_binary_suffixes() {
        assert_eq!(parse_size("4096"), Ok(4096));
        assert_eq!(parse_size("1KiB"), Ok(1024));
        assert_eq!(parse_size("3m"), Ok(3 << 20));
        assert_eq!(parse_size("2G"), Ok(2 << 30));
        assert!(parse_size("1TB").is_err());
        assert!(parse_size("MiB").is_err());
    }

    #[test]
    fn kinds_are_named_as_on_the_command_line() {
        for kind in Kind::ALL {
            assert_eq!(parse_kind(kind.name()), Ok(kind));
        }
        assert!(parse_kind("misere").is_err());
    }
}
