//! The `nimstream` binary: parse the command line, run, map errors to exit
//! statuses (1 bad input or I/O, 2 usage; 3 a merge whose result is not a
//! report). Working memory is counted by the counting allocator installed
//! here.

mod cli;

use clap::Parser;
use cli::{run, Cli, Finished};
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
    // Usage errors keep clap's whole message (the tip of a similar name,
    // the usage line, "For more information, try '--help'"), exit 2.
    let cli = Cli::parse();
    // The library ignores an unknown `NIMSTREAM_SIMD`; the binary says so.
    let checked = simd_cap_from_env().map_err(Error::Usage);
    match checked.and_then(|_| run(cli)) {
        Ok(Finished::Done) => ExitCode::SUCCESS,
        Ok(Finished::NotAReport) => ExitCode::from(Finished::NOT_A_REPORT),
        Err(error) if error.is_broken_pipe() => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(error.exit_code() as u8)
        }
    }
}
