//! Output files are named for what they hold: a file whose extension names
//! one kind of content (an input format, `.csv`, `.svg`) is never written
//! with another, since nimstream reads a file by its extension and would
//! then answer for a different instance without a word. Every command that
//! writes a file checks its name here first (a usage error, exit 2).

use crate::error::Error;
use crate::Format;
use std::path::Path;

/// What an output file holds, as its extension names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Content {
    /// An instance in an input format.
    Instance(Format),
    /// Comma-separated rows.
    Csv,
    /// A drawing.
    Svg,
}

impl Content {
    /// The content a path's extension names, if it names one.
    fn of_path(path: &Path) -> Option<Content> {
        let extension = path.extension()?.to_str()?;
        match extension.to_ascii_lowercase().as_str() {
            "csv" => Some(Content::Csv),
            "svg" => Some(Content::Svg),
            _ => Format::from_path(path).map(Content::Instance),
        }
    }

    /// How the content is named in messages: "bits text", "CSV".
    fn phrase(self) -> String {
        match self {
            Content::Instance(format) if format.is_text() => format!("{} text", format.name()),
            Content::Instance(format) => format!("{} data", format.name()),
            Content::Csv => "CSV".to_string(),
            Content::Svg => "an SVG drawing".to_string(),
        }
    }

    /// The extension that names it.
    fn extension(self) -> &'static str {
        match self {
            Content::Instance(format) => format.extension(),
            Content::Csv => "csv",
            Content::Svg => "svg",
        }
    }
}

/// Checks that the file `path`, which option `flag` writes with `written`,
/// is not named for other content. A name whose extension names nothing
/// (`.txt`, none) is fine.
pub(crate) fn check_output_name(flag: &str, path: &Path, written: Content) -> Result<(), Error> {
    match Content::of_path(path) {
        Some(named) if named != written => Err(Error::Usage(format!(
            "{flag} writes {}, but its name {} reads as {}: name it .{} (or give it an \
             extension that names no format)",
            written.phrase(),
            path.display(),
            named.phrase(),
            written.extension()
        ))),
        _ => Ok(()),
    }
}

/// The format of an instance written to `output` (`-` is standard
/// output): `given` (by the option `flag`), else the one the output's
/// extension names. An extension that names another format than `given`
/// is refused.
pub(crate) fn output_format(
    given: Option<Format>,
    flag: &str,
    output: &Path,
) -> Result<Format, Error> {
    let stdout = output.as_os_str() == "-";
    let named = (!stdout).then(|| Format::from_path(output)).flatten();
    match (given, named) {
        (Some(given), Some(named)) if given != named => Err(Error::Usage(format!(
            "{flag} {} contradicts the output's name {}, which reads as {}: \
             drop {flag} or name the file .{}",
            given.name(),
            output.display(),
            named.name(),
            given.extension()
        ))),
        (Some(given), _) => Ok(given),
        (None, Some(named)) => Ok(named),
        (None, None) if stdout => Err(Error::Usage(format!(
            "{flag} is needed when writing to standard output"
        ))),
        (None, None) => Err(Error::Usage(format!(
            "{flag} is needed: the output's name {} names no format (extensions: \
             .bits, .hex, .dec, .unary, .u8, .u16, .u32, .u64, .nimb)",
            output.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_for_other_content_is_refused_and_a_neutral_one_is_not() {
        let bits = Content::Instance(Format::Bits);
        let error = check_output_name("--move-out", Path::new("to.hex"), bits).unwrap_err();
        assert_eq!(error.exit_code(), 2);
        assert_eq!(
            error.to_string(),
            "--move-out writes bits text, but its name to.hex reads as hex text: name it .bits \
             (or give it an extension that names no format)"
        );
        for fine in ["to.bits", "to.BITS", "to.txt", "to", "-"] {
            assert!(
                check_output_name("--move-out", Path::new(fine), bits).is_ok(),
                "{fine}"
            );
        }
        assert!(check_output_name("--svg", Path::new("g.csv"), Content::Svg).is_err());
        assert!(check_output_name("--csv", Path::new("g.u16"), Content::Csv).is_err());
    }

    #[test]
    fn the_format_comes_from_the_option_or_the_name_and_they_must_agree() {
        let format = |given, name: &str| output_format(given, "--format", Path::new(name));
        assert_eq!(format(None, "q.hex").unwrap(), Format::Hex);
        assert_eq!(format(Some(Format::Bits), "q.txt").unwrap(), Format::Bits);
        assert_eq!(format(Some(Format::U16le), "q.u16").unwrap(), Format::U16le);
        assert_eq!(format(Some(Format::Bits), "-").unwrap(), Format::Bits);
        let contradiction = format(Some(Format::Bits), "q.hex").unwrap_err();
        assert!(contradiction
            .to_string()
            .starts_with("--format bits contradicts"));
        assert!(format(None, "-").is_err());
        assert!(format(None, "q.txt").is_err());
    }
}
