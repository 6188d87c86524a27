//! The `nimstream` binary: parse the command line, run, map errors to exit
//! statuses (1 bad input or I/O, 2 usage). Working memory is counted by
//! the counting allocator installed here.

mod cli;

use clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand;
use clap::Parser;
use cli::{run, Cli};
use nimstream::arch::simd_cap_from_env;
use nimstream::error::Error;
use nimstream::output::remove_partial_outputs_on_interrupt;
use nimstream::working_memory::CountingAllocator;
use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn main() -> ExitCode {
    // Ctrl-C must not leave half-written output files behind.
    remove_partial_outputs_on_interrupt();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        // Usage errors are one `error:` line, like every other error: the
        // first paragraph of clap's message, without the usage and hint.
        // Help and the version print as usual.
        Err(error)
            if error.use_stderr() && error.kind() != DisplayHelpOnMissingArgumentOrSubcommand =>
        {
            let text = error.to_string();
            let first: Vec<&str> = text
                .lines()
                .take_while(|line| !line.trim().is_empty())
                .map(str::trim)
                .collect();
            eprintln!("{}", first.join(" "));
            return ExitCode::from(2);
        }
        Err(error) => error.exit(),
    };
    // The library ignores an unknown `NIMSTREAM_SIMD`; the binary says so.
    let checked = simd_cap_from_env().map_err(Error::Usage);
    match checked.and_then(|_| run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.is_broken_pipe() => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(error.exit_code() as u8)
        }
    }
}
