//! The `nimstream` binary: parse the command line, run, map errors to exit
//! statuses (1 bad input or I/O, 2 usage). Working memory is counted by
//! the counting allocator installed here.

use clap::Parser;
use nimstream::cli::{run, Cli};
use nimstream::memory::CountingAllocator;
use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) if error.is_broken_pipe() => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::from(error.exit_code() as u8)
        }
    }
}
