//! The package's other entry points over the crate: a heap game's value
//! sequence (`Game`, SPEC section 8), game graphs (section 9), a position
//! that takes updates (`Position`, section 10), the partials and merge of
//! sharded runs (section 11), and `gen`'s and `convert`'s instances.
//! Reports come back as the CLI's JSON.

use crate::run::{abandonable, interruptible, to_python, usage};
use crate::settings::{format_choice, game_named, rule_named, threads_or_all, Settings};
use crate::sources::{ints_as_nimb, magnitude_of};
use nimstream::games::misere::{Quotient, DEFAULT_MAX_HEAP};
use nimstream::graph::{analyze_graph_bytes, analyze_graph_path, GraphOptions};
use nimstream::output::AtomicFile;
use nimstream::sharded::{self, Outcome};
use nimstream::updates::{render, Position as CratePosition, UpdateOptions};
use nimstream::workbench::convert::{convert as workbench_convert, Input as ConvertInput};
use nimstream::workbench::gen::{self, Amount, BitRange, GenOptions, Kind};
use nimstream::workbench::grundy::Table;
use nimstream::workbench::grundy_misere;
use nimstream::{Cancel, Format, Options, DEFAULT_MAX_VALUES};
use numpy::{IntoPyArray, PyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::ops::Range;
use std::path::PathBuf;
use std::time::Instant;

/// A heap game and its value sequence, computed until a period is proven
/// or `max_values` values exist (off the GIL; Ctrl-C returns at once, the
/// computation finishing in the background, since the crate's sequences
/// take no cancel flag).
#[pyclass(module = "nimstream._native")]
pub struct Game {
    game: nimstream::games::Game,
    max_values: u64,
    table: Table,
}

impl Game {
    /// The table, recomputed with at least `n` values when it has fewer
    /// and no period gives the rest (as `grundy --values N` does).
    fn table_for(&mut self, py: Python<'_>, n: u64) -> PyResult<&Table> {
        let outcome = self.table.outcome();
        let short = outcome.period.is_none() && outcome.values_computed < n;
        if short {
            let max_values = self.max_values.max(n);
            let game = self.game.clone();
            self.table = abandonable(py, move || Table::compute(&game, max_values))?;
        }
        Ok(&self.table)
    }
}

#[pymethods]
impl Game {
    #[new]
    #[pyo3(signature = (name, *, max_values=DEFAULT_MAX_VALUES))]
    fn new(py: Python<'_>, name: &str, max_values: u64) -> PyResult<Game> {
        let game = game_named(name)?;
        let computed = game.clone();
        let table = abandonable(py, move || Table::compute(&computed, max_values))?;
        Ok(Game {
            game,
            max_values,
            table,
        })
    }

    /// The canonical game string.
    #[getter]
    fn canonical(&self) -> String {
        self.game.to_string()
    }

    /// How many values were computed.
    #[getter]
    fn values_computed(&self) -> u64 {
        self.table.outcome().values_computed
    }

    /// (preperiod, period), or `None` when none was proven.
    fn period(&self) -> Option<(u64, u64)> {
        self.table.outcome().period.map(|p| (p.preperiod, p.period))
    }

    /// g(0), …, g(n − 1) as a numpy array of uint16, computing past
    /// `max_values` when no period is proven within it.
    fn values<'py>(&mut self, py: Python<'py>, n: u64) -> PyResult<Bound<'py, PyArray1<u16>>> {
        let shown = usize::try_from(n).map_err(|_| usage("n is too large"))?;
        let values = self.table_for(py, n)?.first_values(shown);
        Ok(values.into_pyarray(py))
    }

    /// g(h) for a heap `h` of any size.
    fn value(&self, h: &Bound<'_, PyAny>) -> PyResult<u16> {
        let decimal = decimal_of(h)?;
        self.table
            .heap_value(&decimal)
            .map_err(|error| to_python(h.py(), error))
    }

    /// `grundy GAME --values n --heap H… --json`, as text.
    #[pyo3(signature = (values=120, heaps=Vec::new()))]
    fn grundy_json(
        &self,
        py: Python<'_>,
        values: u64,
        heaps: Vec<Bound<'_, PyAny>>,
    ) -> PyResult<String> {
        let shown = usize::try_from(values).map_err(|_| usage("values is too large"))?;
        let heaps = heaps
            .iter()
            .map(|h| {
                let decimal = decimal_of(h)?;
                let value = self
                    .table
                    .heap_value(&decimal)
                    .map_err(|e| to_python(py, e))?;
                Ok((decimal, value))
            })
            .collect::<PyResult<Vec<_>>>()?;
        // As the CLI: the values shown stop at those computed.
        Ok(self.table.json(shown, &heaps))
    }

    /// `grundy GAME --rule misere --max-heap N --json`, as text: the
    /// misère quotient of heaps up to the period's proof (off the GIL).
    #[pyo3(signature = (max_heap=DEFAULT_MAX_HEAP))]
    fn misere_json(&self, py: Python<'_>, max_heap: u64) -> PyResult<String> {
        let game = self.game.clone();
        let started = Instant::now();
        let quotient = abandonable(py, move || Ok(Quotient::compute(&game, max_heap)?))?;
        Ok(grundy_misere::json(
            &quotient,
            started.elapsed().as_secs_f64(),
        ))
    }

    fn __repr__(&self) -> String {
        format!("Game('{}')", self.game)
    }
}

/// A non-negative Python int in decimal.
fn decimal_of(h: &Bound<'_, PyAny>) -> PyResult<String> {
    let int = h
        .call_method0(pyo3::intern!(h.py(), "__index__"))
        .map_err(|_| pyo3::exceptions::PyTypeError::new_err("a heap is an int"))?;
    let decimal = int.str()?.to_string();
    match decimal.starts_with('-') {
        true => Err(PyValueError::new_err(format!("heap {decimal} is negative"))),
        false => Ok(decimal),
    }
}

/// A position that takes updates (`nimstream updates`).
#[pyclass(unsendable, module = "nimstream._native")]
pub struct Position {
    position: CratePosition<'static>,
}

#[pymethods]
impl Position {
    /// From a path (`source` a str) or from bytes in `format`; `heaps`:
    /// an iterable of ints instead.
    #[new]
    #[pyo3(signature = (*, path=None, data=None, heaps=None, format=None, rule="normal",
        moves=true, inline_bits=4096, threads=None, name=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        path: Option<PathBuf>,
        data: Option<Vec<u8>>,
        heaps: Option<&Bound<'_, PyAny>>,
        format: Option<&str>,
        rule: &str,
        moves: bool,
        inline_bits: u64,
        threads: Option<usize>,
        name: Option<String>,
    ) -> PyResult<Position> {
        let options = UpdateOptions {
            format: format_choice(format)?,
            rule: rule_named(rule)?,
            moves,
            inline_bits,
            threads: threads_or_all(threads)?,
        };
        let (data, format) = match (path, data, heaps) {
            (Some(path), None, None) => {
                let position = CratePosition::open(&path, &options);
                let position = position.map_err(|e| to_python(py, e))?;
                return Ok(Position { position });
            }
            (None, Some(data), None) => {
                let format = options
                    .format
                    .ok_or_else(|| usage("a Position of bytes needs format="))?;
                (data, format)
            }
            (None, None, Some(heaps)) => {
                let name = name.as_deref().unwrap_or("<ints>");
                (ints_as_nimb(heaps, name)?, Format::Nimb)
            }
            _ => return Err(usage("a Position takes one of path=, data= or heaps=")),
        };
        let name = name.unwrap_or_else(|| "<heaps>".to_string());
        // A position is not Send (it may hold a stream), so its first
        // pass runs here, with the GIL held.
        let position = CratePosition::from_vec(data, format, &name, &options);
        let position = position.map_err(|e| to_python(py, e))?;
        Ok(Position { position })
    }

    /// Sets heap `i` to `x`.
    fn set(&mut self, i: u64, x: &Bound<'_, PyAny>) -> PyResult<()> {
        let limbs = limbs_of(x)?;
        self.position
            .set(i, &limbs)
            .map_err(|error| to_python(x.py(), error))
    }

    /// Heaps in the position.
    #[getter]
    fn heaps(&self) -> u64 {
        self.position.heaps()
    }

    /// The line `updates --json` prints for the position now.
    fn status_json(&mut self, py: Python<'_>) -> PyResult<String> {
        let status = self.position.status().map_err(|e| to_python(py, e))?;
        Ok(render::json(&status).trim_end().to_string())
    }
}

/// `x` (a non-negative int) as little-endian 64-bit limbs.
fn limbs_of(x: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    Ok(magnitude_of(x, 0, "<update>")?.limbs())
}

/// `graph(path)`: the report of `nimstream graph PATH --json`.
#[pyfunction]
#[pyo3(signature = (path, values_out=None))]
pub fn graph_path(py: Python<'_>, path: PathBuf, values_out: Option<PathBuf>) -> PyResult<String> {
    let options = GraphOptions { values_out };
    interruptible(py, &Cancel::default(), || {
        Ok(analyze_graph_path(&path, &options)?.to_json())
    })
}

/// `graph(data)`: the same for the graph's text in memory.
#[pyfunction]
#[pyo3(signature = (data, name, values_out=None))]
pub fn graph_bytes(
    py: Python<'_>,
    data: &Bound<'_, PyBytes>,
    name: &str,
    values_out: Option<PathBuf>,
) -> PyResult<String> {
    let options = GraphOptions { values_out };
    let data = data.as_bytes();
    interruptible(py, &Cancel::default(), || {
        Ok(analyze_graph_bytes(data, name, &options)?.to_json())
    })
}

/// `analyze PATH --range START..END --partial [--phase2 PLAN]`: one
/// range's partial, as JSON.
#[pyfunction]
#[pyo3(signature = (path, start, end, settings, phase2=None))]
pub fn partial(
    py: Python<'_>,
    path: PathBuf,
    start: u64,
    end: u64,
    settings: &Settings,
    phase2: Option<&str>,
) -> PyResult<String> {
    let plan = match phase2 {
        None => None,
        Some(text) => Some(one_partial(py, text)?),
    };
    let range: Range<u64> = start..end;
    let options = &settings.options;
    interruptible(py, &Cancel::default(), || {
        let partial = match &plan {
            None => sharded::analyze_range(&path, range, options)?,
            Some(plan) => sharded::holders_range(&path, range, plan, options)?,
        };
        Ok(partial.to_json())
    })
}

/// The one partial of `text` (a plan).
fn one_partial(py: Python<'_>, text: &str) -> PyResult<sharded::Partial> {
    let mut all = sharded::parse_partials(text, "<plan>").map_err(|e| to_python(py, e))?;
    match all.len() {
        1 => Ok(all.remove(0)),
        n => Err(usage(format!(
            "the plan holds {n} partials; phase2= takes the one merge gave"
        ))),
    }
}

/// `merge PARTIAL…`: `("report", json)`, `("second_phase", json)` (the
/// plan) or `("partial", json)` (the partials cover part of the file).
#[pyfunction]
#[pyo3(signature = (partials, settings))]
pub fn merge(
    py: Python<'_>,
    partials: Vec<String>,
    settings: &Settings,
) -> PyResult<(&'static str, String)> {
    let mut all = Vec::new();
    for (n, text) in partials.iter().enumerate() {
        let name = format!("<partial {n}>");
        all.extend(sharded::parse_partials(text, &name).map_err(|e| to_python(py, e))?);
    }
    let options = Options {
        inline_bits: settings.options.inline_bits,
        memory: settings.options.memory,
        no_mmap: settings.options.no_mmap,
        ..Options::default()
    };
    interruptible(py, &Cancel::default(), || {
        Ok(match sharded::merge(all, &options)? {
            Outcome::Report(report) => ("report", report.to_json()),
            Outcome::SecondPhase(partial) => ("second_phase", partial.to_json()),
            Outcome::Partial(partial) => ("partial", partial.to_json()),
        })
    })
}

/// `gen`'s sizes and bit lengths: an int, or text as the command takes it.
#[derive(FromPyObject)]
pub enum Spec {
    Number(u64),
    Text(String),
}

/// `nimstream gen --format FORMAT … -o OUT --json`: writes an instance to
/// `out` (whole or not at all); returns the summary's JSON.
#[pyfunction]
#[pyo3(signature = (out, format, heaps=None, size=None, bits=None, kind="random", seed=0))]
#[allow(clippy::too_many_arguments)]
pub fn generate(
    py: Python<'_>,
    out: PathBuf,
    format: &str,
    heaps: Option<u64>,
    size: Option<Spec>,
    bits: Option<Spec>,
    kind: &str,
    seed: u64,
) -> PyResult<String> {
    let format =
        format_choice(Some(format))?.ok_or_else(|| usage("gen needs a format, not auto"))?;
    let amount = match (heaps, size) {
        (Some(n), None) => Amount::Heaps(n),
        (None, Some(Spec::Number(bytes))) => Amount::Bytes(bytes),
        (None, Some(Spec::Text(text))) => {
            Amount::Bytes(nimstream::parse_byte_size(&text).ok_or_else(|| {
                usage(format!("invalid size '{text}': expected bytes, e.g. 64MiB"))
            })?)
        }
        _ => return Err(usage("gen takes one of heaps= or size=")),
    };
    let bits = match bits {
        None => BitRange::default_for(format),
        Some(Spec::Number(b)) => b.to_string().parse().map_err(usage)?,
        Some(Spec::Text(text)) => text.parse().map_err(usage)?,
    };
    let kind = Kind::from_name(kind).ok_or_else(|| {
        usage(format!(
            "unknown kind '{kind}': expected random, p-position, pairs or ones"
        ))
    })?;
    let options = GenOptions {
        format,
        amount,
        bits,
        kind,
        seed,
    };
    options.check().map_err(|e| to_python(py, e))?;
    interruptible(py, &Cancel::default(), || {
        let mut file = AtomicFile::create(&out)?;
        let summary = gen::generate(&options, &mut file, &out.display().to_string())?;
        file.commit()?;
        Ok(summary.to_json())
    })
}

/// `nimstream convert`: the heaps of the file at `path` (or of `data`, in
/// `from_`) in format `to`: written to `out` (whole or not at all), or
/// returned as bytes.
#[pyfunction]
#[pyo3(signature = (to, path=None, data=None, from_=None, out=None, name="<bytes>"))]
pub fn convert<'py>(
    py: Python<'py>,
    to: &str,
    path: Option<PathBuf>,
    data: Option<Vec<u8>>,
    from_: Option<&str>,
    out: Option<PathBuf>,
    name: &str,
) -> PyResult<Option<Bound<'py, PyBytes>>> {
    let to = format_choice(Some(to))?.ok_or_else(|| usage("convert needs to=, a format"))?;
    let from = format_choice(from_)?;
    let input = match (path, data) {
        (Some(path), None) => ConvertInput::open(&path, from).map_err(|e| to_python(py, e))?,
        (None, Some(data)) => {
            let from = from.ok_or_else(|| usage("converting bytes needs format="))?;
            ConvertInput::from_bytes(data, from, name)
        }
        _ => return Err(usage("convert takes one of a path or bytes")),
    };
    match out {
        Some(out) => {
            let written = || {
                let mut file = AtomicFile::create(&out)?;
                workbench_convert(&input, to, &mut file, &out.display().to_string())?;
                file.commit()
            };
            written().map_err(|e| to_python(py, e))?;
            Ok(None)
        }
        None => {
            let mut bytes = Vec::new();
            workbench_convert(&input, to, &mut bytes, "<bytes>").map_err(|e| to_python(py, e))?;
            Ok(Some(PyBytes::new(py, &bytes)))
        }
    }
}
