//! The `nimstream` binary: the command line ([`nimstream::cli::main`]),
//! with working memory counted by the counting allocator installed here.

use nimstream::working_memory::CountingAllocator;
use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

fn main() -> ExitCode {
    nimstream::cli::main()
}
