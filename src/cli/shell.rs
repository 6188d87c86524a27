//! `nimstream completions SHELL` and `nimstream man`: the shell completions
//! and the manual pages, generated from the same clap definitions as the
//! parser (clap_complete, clap_mangen), so they never drift from it.

use super::{help, Cli};
use crate::error::Error;
use crate::output::AtomicFile;
use clap::{Args, CommandFactory};
use clap_complete::Shell;
use clap_mangen::Man;
use roff::{bold, roman, Roff};
use std::io::Write;
use std::path::PathBuf;

/// Options of `completions`.
#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell or elvish.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Options of `man`.
#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// Write every page (nimstream.1, nimstream-analyze.1, …) into DIR,
    /// made if missing, instead of printing the main page.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

/// Prints the completion script for `args.shell` on standard output.
pub(crate) fn completions(args: CompletionsArgs) -> Result<(), Error> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "nimstream", &mut script);
    write_stdout(&script)
}

/// Prints the main manual page, or writes one page per command into a
/// folder, made if missing.
pub(crate) fn man(args: ManArgs) -> Result<(), Error> {
    let mut top = Cli::command().disable_help_subcommand(true);
    // Built, every command knows its full name (`nimstream-analyze`).
    top.build();
    let Some(dir) = args.out_dir else {
        return write_stdout(&page(&top, "nimstream"));
    };
    let shown = dir.display().to_string();
    std::fs::create_dir_all(&dir).map_err(|e| Error::io(&shown, e))?;
    let pages = std::iter::once((&top, "nimstream")).chain(
        top.get_subcommands()
            .map(|command| (command, command.get_name())),
    );
    for (command, name) in pages {
        let path = dir.join(Man::new(command.clone()).get_filename());
        let mut file = AtomicFile::create(&path)?;
        file.write_all(&page(command, name))
            .map_err(|e| Error::io(path.display().to_string(), e))?;
        file.commit()?;
    }
    Ok(())
}

/// The manual page of `command` (named `name` in [`help::of`]): clap_mangen's
/// sections but its EXTRA, which would reflow `--help`'s examples into one
/// paragraph, and in its place EXAMPLES and EXIT STATUS, every line kept.
fn page(command: &clap::Command, name: &str) -> Vec<u8> {
    let man = Man::new(command.clone());
    let mut page = Vec::new();
    let shown = |arg: &clap::Arg| !arg.is_hide_set();
    let sections: [(Section, bool); 5] = [
        (Man::render_title, true),
        (Man::render_name_section, true),
        (Man::render_synopsis_section, true),
        (Man::render_description_section, true),
        (
            Man::render_options_section,
            command.get_arguments().any(shown),
        ),
    ];
    let more: [(Section, bool); 1] = [(Man::render_subcommands_section, command.has_subcommands())];
    for (section, wanted) in sections.into_iter().chain(more) {
        if wanted {
            section(&man, &mut page).expect("writing to memory");
        }
    }
    help_sections(&help::of(name))
        .to_writer(&mut page)
        .expect("writing to memory");
    if command.get_version().is_some() {
        man.render_version_section(&mut page)
            .expect("writing to memory");
    }
    page
}

/// One of clap_mangen's sections.
type Section = fn(&Man, &mut dyn Write) -> std::io::Result<()>;

/// EXAMPLES (each command line in bold, what it shows indented below it,
/// in no-fill mode so that no line is joined or broken) and EXIT STATUS.
fn help_sections(help: &help::Help) -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["EXAMPLES"]).control("nf", []);
    for (index, (line, shows)) in help.examples.iter().enumerate() {
        if index > 0 {
            roff.text([roman("")]);
        }
        roff.text([bold(*line)]);
        roff.text([roman(format!("    {shows}"))]);
    }
    roff.control("fi", []).control("SH", ["EXIT STATUS"]);
    for (status, when) in help.statuses {
        roff.control("TP", []);
        roff.text([roman(status.to_string())]);
        roff.text([roman(*when)]);
    }
    roff
}

fn write_stdout(bytes: &[u8]) -> Result<(), Error> {
    std::io::stdout()
        .lock()
        .write_all(bytes)
        .map_err(|e| Error::io("<stdout>", e))
}
