//! `nimstream._native`: the Python package's native module, a thin layer
//! over the nimstream crate (SPEC section 14). Every computation is a
//! call into the crate's library API; this module only turns Python
//! values into the crate's inputs and options and the crate's reports
//! and errors back into Python values (reports as their JSON, which the
//! package's `Report` reads, so that `Report.to_dict()` is the CLI's
//! `--json` by construction).
//!
//! - `settings.rs`: the options of `analyze`, parsed once ([`Settings`]);
//! - `run.rs`: long work without the GIL, stopped by Ctrl-C, never a
//!   panic into Python; the crate's errors as Python exceptions;
//! - `sources.rs`: the sources of `analyze` and `partial` (a path, bytes,
//!   a numpy array read in place, an iterable of ints streamed as `nimb`
//!   records);
//! - `digits.rs`: CPython's ints read in place (their 30-bit digits),
//!   where the running interpreter's layout is known and checked;
//! - `objects.rs`: `Game`, `Position`, the graph, the sharded runs, `gen`
//!   and `convert`.

mod digits;
mod objects;
mod run;
mod settings;
mod sources;

use nimstream::working_memory::CountingAllocator;
use pyo3::prelude::*;

/// The crate's counting allocator, as the binary installs it, so that a
/// report's `working_memory_bytes` is measured here too (Python's own
/// objects are not Rust allocations and are not counted).
#[global_allocator]
static ALLOCATOR: CountingAllocator = CountingAllocator;

/// The native module; the package `nimstream` wraps it.
#[pymodule]
fn _native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<settings::Settings>()?;
    module.add_class::<objects::Game>()?;
    module.add_class::<objects::Position>()?;
    module.add_function(wrap_pyfunction!(sources::analyze_path, module)?)?;
    module.add_function(wrap_pyfunction!(sources::analyze_bytes, module)?)?;
    module.add_function(wrap_pyfunction!(sources::analyze_array, module)?)?;
    module.add_function(wrap_pyfunction!(sources::analyze_ints, module)?)?;
    module.add_function(wrap_pyfunction!(digits::int_path, module)?)?;
    module.add_function(wrap_pyfunction!(digits::items_path, module)?)?;
    module.add_function(wrap_pyfunction!(objects::graph_path, module)?)?;
    module.add_function(wrap_pyfunction!(objects::graph_bytes, module)?)?;
    module.add_function(wrap_pyfunction!(objects::partial, module)?)?;
    module.add_function(wrap_pyfunction!(objects::merge, module)?)?;
    module.add_function(wrap_pyfunction!(objects::generate, module)?)?;
    module.add_function(wrap_pyfunction!(objects::convert, module)?)?;
    module.add("DEFAULT_MAX_VALUES", nimstream::DEFAULT_MAX_VALUES)?;
    module.add(
        "DEFAULT_MAX_HEAP",
        nimstream::games::misere::DEFAULT_MAX_HEAP,
    )?;
    Ok(())
}
