//! The options of `analyze` (and `partial`), as the package passes them:
//! parsed once by the crate's own parsers into its [`Options`].

use crate::run::usage;
use nimstream::games::Game;
use nimstream::{Format, MemoryBudget, Options, Rule, DEFAULT_MAX_VALUES};
use pyo3::prelude::*;
use std::path::PathBuf;

/// The crate's options of one analysis, and the name of its source.
#[pyclass(frozen, module = "nimstream._native")]
#[derive(Clone)]
pub struct Settings {
    pub options: Options,
    pub name: Option<String>,
}

/// `memory=`: a number of bytes, or a budget as `--memory` takes it.
#[derive(FromPyObject)]
pub enum Memory {
    Bytes(u64),
    Text(String),
}

#[pymethods]
impl Settings {
    #[new]
    #[pyo3(signature = (*, format=None, rule="normal", game="nim", memory=None, threads=None,
        inline_bits=4096, decide=false, max_values=None, nim_sum_out=None, move_out=None,
        no_mmap=false, name=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        format: Option<&str>,
        rule: &str,
        game: &str,
        memory: Option<Memory>,
        threads: Option<usize>,
        inline_bits: u64,
        decide: bool,
        max_values: Option<u64>,
        nim_sum_out: Option<PathBuf>,
        move_out: Option<PathBuf>,
        no_mmap: bool,
        name: Option<String>,
    ) -> PyResult<Settings> {
        let options = Options {
            format: format_choice(format)?,
            rule: rule_named(rule)?,
            game: game_named(game)?,
            max_values: max_values.unwrap_or(DEFAULT_MAX_VALUES),
            memory: match memory {
                None => MemoryBudget::default(),
                Some(Memory::Bytes(bytes)) => bytes.to_string().parse().map_err(usage)?,
                Some(Memory::Text(text)) => text.parse().map_err(usage)?,
            },
            decide,
            inline_bits,
            nim_sum_out,
            move_out,
            threads: threads_or_all(threads)?,
            no_mmap,
            ..Options::default()
        };
        Ok(Settings { options, name })
    }
}

/// `format=`: `None` or `"auto"` detects it, else a format name.
pub fn format_choice(name: Option<&str>) -> PyResult<Option<Format>> {
    match name {
        None => Ok(None),
        Some(text) if text.eq_ignore_ascii_case("auto") => Ok(None),
        Some(text) => Format::from_name(text).map(Some).ok_or_else(|| {
            usage(format!(
                "unknown format '{text}': expected bits, hex, dec, unary, u8, u16le, u32le, \
                 u64le or nimb"
            ))
        }),
    }
}

/// `rule=`: `normal` or `misere` (`misère`).
pub fn rule_named(name: &str) -> PyResult<Rule> {
    Rule::from_name(name)
        .ok_or_else(|| usage(format!("unknown rule '{name}': expected normal or misere")))
}

/// `game=`: a game string as `--game` takes it.
pub fn game_named(name: &str) -> PyResult<Game> {
    name.parse()
        .map_err(|e: nimstream::games::GameError| usage(e.to_string()))
}

/// `threads=`: at least 1; `None` is every core, as the command line's
/// default.
pub fn threads_or_all(threads: Option<usize>) -> PyResult<usize> {
    match threads {
        Some(0) => Err(usage("at least 1 thread is needed")),
        Some(n) => Ok(n),
        None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
    }
}
