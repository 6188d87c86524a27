//! `nimstream convert IN`: the same heaps in another format.

use clap::Args;
use nimstream::error::Error;
use nimstream::output::AtomicFile;
use nimstream::workbench::convert::{check_bytes, convert, Input};
use nimstream::Format;
use std::path::{Path, PathBuf};

/// Options of `convert`.
#[derive(Debug, Args)]
pub struct ConvertArgs {
    /// The instance to convert (`-` for standard input).
    pub input: PathBuf,
    /// Input format: auto, bits, hex, dec, unary, u8, u16le, u32le, u64le, nimb.
    #[arg(long, default_value = "auto", value_parser = parse_from)]
    pub from: FromFormat,
    /// Output format: bits, hex, dec, unary, u8, u16le, u32le, u64le, nimb (default: the one OUT's extension names).
    #[arg(long, value_parser = super::parse_format)]
    pub to: Option<Format>,
    /// Output file (`-` for standard output).
    #[arg(short, long, default_value = "-", value_name = "FILE")]
    pub output: PathBuf,
}

/// `--from`: a format, or detection (`auto`).
#[derive(Clone, Copy, Debug)]
pub struct FromFormat(pub Option<Format>);

fn parse_from(text: &str) -> Result<FromFormat, String> {
    if text.eq_ignore_ascii_case("auto") {
        return Ok(FromFormat(None));
    }
    super::parse_format(text).map(|f| FromFormat(Some(f)))
}

/// Runs `convert`. Standard output receives nothing unless the whole input
/// converts: it is checked first (a file output appears only when complete).
pub fn run(args: ConvertArgs) -> Result<(), Error> {
    let to = output_format(args.to, &args.output)?;
    let input = Input::open(&args.input, args.from.0)?;
    if args.output.as_os_str() == "-" {
        check_bytes(&input, to)?;
        convert(&input, to, std::io::stdout().lock(), "<stdout>")?;
        return Ok(());
    }
    let mut file = AtomicFile::create(&args.output)?;
    convert(&input, to, &mut file, &args.output.display().to_string())?;
    file.commit()
}

/// The output's format: `--to`, else the one the output's extension names.
/// An extension that names another format than `--to` is refused, so that
/// no file carries a name that misreads it.
fn output_format(to: Option<Format>, output: &Path) -> Result<Format, Error> {
    let named = (output.as_os_str() != "-")
        .then(|| Format::from_path(output))
        .flatten();
    match (to, named) {
        (Some(to), Some(named)) if to != named => Err(Error::Usage(format!(
            "--to {} contradicts the output's name {}, which reads as {}: \
             drop --to or name the file .{}",
            to.name(),
            output.display(),
            named.name(),
            to.extension()
        ))),
        (Some(to), _) => Ok(to),
        (None, Some(named)) => Ok(named),
        (None, None) if output.as_os_str() == "-" => Err(Error::Usage(
            "--to is needed when writing to standard output".to_string(),
        )),
        (None, None) => Err(Error::Usage(format!(
            "--to is needed: the output's name {} names no format (extensions: \
             .bits, .hex, .dec, .unary, .u8, .u16, .u32, .u64, .nimb)",
            output.display()
        ))),
    }
}
