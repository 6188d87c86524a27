//! `nimstream completions SHELL` and `nimstream man`: the shell completions
//! and the manual pages, generated from the same clap definitions as the
//! parser (clap_complete, clap_mangen), so they never drift from it.

use super::Cli;
use clap::{Args, CommandFactory};
use clap_complete::Shell;
use nimstream::error::Error;
use std::io::Write;
use std::path::PathBuf;

/// Options of `completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, powershell or elvish.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Options of `man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write every page (nimstream.1, nimstream-analyze.1, …) into DIR
    /// instead of printing the main page.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

/// Prints the completion script for `args.shell` on standard output.
pub fn completions(args: CompletionsArgs) -> Result<(), Error> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "nimstream", &mut script);
    write_stdout(&script)
}

/// Prints the main manual page, or writes one page per command into a
/// folder.
pub fn man(args: ManArgs) -> Result<(), Error> {
    match args.out_dir {
        Some(dir) => clap_mangen::generate_to(Cli::command(), &dir)
            .map_err(|e| Error::io(dir.display().to_string(), e)),
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(Cli::command())
                .render(&mut page)
                .map_err(|e| Error::io("<stdout>", e))?;
            write_stdout(&page)
        }
    }
}

fn write_stdout(bytes: &[u8]) -> Result<(), Error> {
    std::io::stdout()
        .lock()
        .write_all(bytes)
        .map_err(|e| Error::io("<stdout>", e))
}
