//! `nimstream convert IN`: the same heaps in another format.

use super::analyze::{parse_format_choice, FormatChoice};
use super::compressed;
use super::names::output_format;
use crate::error::Error;
use crate::output::AtomicFile;
use crate::workbench::convert::{check_bytes, convert, Input};
use crate::Format;
use clap::Args;
use std::path::PathBuf;

/// Options of `convert`.
#[derive(Debug, Args)]
pub(crate) struct ConvertArgs {
    /// The instance to convert (`-` for standard input).
    pub input: PathBuf,
    /// Input format: auto, bits, hex, dec, unary, u8, u16le, u32le, u64le, nimb (`--from` is an alias).
    #[arg(short, long, alias = "from", default_value = "auto", value_parser = parse_format_choice)]
    pub format: FormatChoice,
    /// Output format: bits, hex, dec, unary, u8, u16le, u32le, u64le, nimb (default: the one OUT's extension names).
    #[arg(long, value_parser = super::parse_format)]
    pub to: Option<Format>,
    /// Output file (`-` for standard output).
    #[arg(short, long, default_value = "-", value_name = "FILE")]
    pub output: PathBuf,
}

/// Runs `convert`. Standard output receives nothing unless the whole input
/// converts: it is checked first (a file output appears only when complete).
pub(crate) fn run(args: ConvertArgs) -> Result<(), Error> {
    let to = output_format(args.to, "--to", &args.output)?;
    let from = args.format.0;
    compressed::refuse(&args.input, "convert", from)?;
    let input = Input::open(&args.input, from)
        .map_err(|e| compressed::explained(e, &args.input, "convert", from))?;
    if args.output.as_os_str() == "-" {
        check_bytes(&input, to)?;
        convert(&input, to, std::io::stdout().lock(), "<stdout>")?;
        return Ok(());
    }
    let mut file = AtomicFile::create(&args.output)?;
    convert(&input, to, &mut file, &args.output.display().to_string())?;
    file.commit()
}
