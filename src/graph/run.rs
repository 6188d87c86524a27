//! `nimstream graph FILE` in the library: open the file, read the graph,
//! solve it, decide the tokens, write `--values-out`, and build the
//! report.
//!
//! A regular file is read through its memory map (the pages behind the
//! reader are released as it goes, so the resident size of the map stays
//! a few MiB); anything that cannot be mapped (an empty file, a pipe,
//! standard input) is read into memory first. The file must not change
//! while it is read: a change is an error, never a wrong report (see
//! `input::file_changes`).

use super::parse::{read_graph, GraphText, ReadFailure};
use super::report::{GraphInput, GraphReport, GraphStats};
use crate::error::Error;
use crate::input::source::page_release::PageReleaser;
use crate::input::source::Input;
use crate::input::Format;
use crate::output::AtomicFile;
use crate::working_memory::MemoryMeter;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// What `graph` does besides deciding.
#[derive(Clone, Debug, Default)]
pub struct GraphOptions {
    /// Write every node's value to this file, one a line (the number, or
    /// `inf` and the members of K).
    pub values_out: Option<PathBuf>,
}

/// Reads, solves and decides the graph file at `path` (`-` reads standard
/// input).
///
/// ```
/// use nimstream::graph::{analyze_graph_path, GraphOptions, Outcome};
///
/// let report = analyze_graph_path("fixtures/game-graph.txt".as_ref(), &GraphOptions::default())?;
/// assert_eq!((report.nodes, report.edges, report.tokens), (7, 8, 3));
/// assert_eq!(report.winner, Outcome::First);
/// # Ok::<(), nimstream::Error>(())
/// ```
pub fn analyze_graph_path(path: &Path, options: &GraphOptions) -> Result<GraphReport, Error> {
    let started = Instant::now();
    let meter = MemoryMeter::start();
    let name = path.display().to_string();
    let input = Input::open(path, &name, true)?.held_in_place()?;
    let place = input.in_place().expect("held in place");
    let (bytes, text) = (
        place.bytes.len() as u64,
        read(&input, place.bytes, place.pages)?,
    );
    finish(text, name, bytes, options, started, meter)
}

/// Reads, solves and decides a graph file held in memory; `name` stands
/// for its path.
///
/// ```
/// use nimstream::graph::{analyze_graph_bytes, GraphOptions, Outcome, Value};
///
/// // A 2-cycle: neither player can force a win.
/// let report = analyze_graph_bytes(b"2 2\n0 1\n1 0\n1\n0\n", "loop", &GraphOptions::default())?;
/// assert_eq!(report.values, [Value::Infinite(vec![])]);
/// assert_eq!(report.winner, Outcome::Draw);
/// # Ok::<(), nimstream::Error>(())
/// ```
pub fn analyze_graph_bytes(
    data: &[u8],
    name: &str,
    options: &GraphOptions,
) -> Result<GraphReport, Error> {
    let started = Instant::now();
    let meter = MemoryMeter::start();
    let input = Input::memory(data, name);
    let text = read(&input, data, PageReleaser::NONE)?;
    finish(
        text,
        name.to_string(),
        data.len() as u64,
        options,
        started,
        meter,
    )
}

/// Reads the graph in `data`, the bytes of `input`; an error names its
/// offset, line and column.
fn read(input: &Input<'_>, data: &[u8], pages: PageReleaser<'_>) -> Result<GraphText, Error> {
    let text = read_graph(data, pages).map_err(|failure| match failure {
        // The numbers are `dec` tokens: errors are located like theirs.
        ReadFailure::Parse(error) => input.parse_error(Format::Dec, error),
        ReadFailure::Memory(error) => Error::io(
            input.name(),
            std::io::Error::new(std::io::ErrorKind::OutOfMemory, error.to_string()),
        ),
    })?;
    input.check_unchanged()?;
    Ok(text)
}

/// Solves the graph, decides its tokens, writes the values if asked, and
/// builds the report.
fn finish(
    text: GraphText,
    path: String,
    bytes: u64,
    options: &GraphOptions,
    started: Instant,
    meter: MemoryMeter,
) -> Result<GraphReport, Error> {
    let read_seconds = started.elapsed().as_secs_f64();
    let solving = Instant::now();
    let solution = text.graph.solve();
    let solve_seconds = solving.elapsed().as_secs_f64();
    let decision = solution
        .decide(&text.tokens)
        .expect("the reader checked every start node");
    if let Some(out) = &options.values_out {
        let mut file = AtomicFile::create(out)?;
        solution
            .write_values(&mut file)
            .map_err(|e| Error::io(out.display().to_string(), e))?;
        file.commit()?;
    }
    let stats = GraphStats {
        acyclic_nodes: solution.acyclic_nodes(),
        rounds: solution.rounds(),
        read_seconds,
        solve_seconds,
        seconds: started.elapsed().as_secs_f64(),
        working_memory_bytes: meter.peak_bytes(),
    };
    Ok(GraphReport {
        schema: 1,
        input: GraphInput { path, bytes },
        nodes: u64::from(text.graph.nodes()),
        edges: text.graph.edges(),
        tokens: text.tokens.len() as u64,
        values: decision.values,
        sum: decision.sum,
        winner: decision.winner,
        winning_move: decision.winning_move,
        stats,
    })
}
