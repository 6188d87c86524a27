//! The text of a graph file (SPEC section 9), the layout of seed 003's
//! program: `n m`, then `m` edges `u v` (a move from `u` to `v`), then
//! `k`, then `k` start nodes, all whitespace-separated decimal numbers.
//!
//! One pass over the bytes ([`super::numbers::Numbers`]) reads every
//! number in order and checks it where it stands, so the error reported is
//! always the first wrong byte of the file: a byte that is neither a digit
//! nor whitespace (at that byte), a count too large or a node id not below
//! `n` (at the number's first digit), a number after the last start node
//! (at that number), or the file ending before the counts are met (at the
//! end of the file).
//!
//! Memory follows what is read: the edges go into blocks allocated as
//! they fill (`layout.rs`), and the header's counts only size the blocks
//! and the check against the machine's memory, never beyond what the rest
//! of the file can hold (an edge takes at least four bytes, two digits
//! and two separators; a start node two). A header that announces more
//! than the file holds costs nothing, and reading stops at the end of the
//! file with its error.

use super::csr::{node_range, GraphError, MAX_EDGES, MAX_NODES};
use super::layout::EdgeList;
use super::numbers::{Number, Numbers};
use super::Graph;
use crate::error::ParseError;
use crate::input::source::page_release::PageReleaser;

/// The most tokens a file may name, as many as edges: a sum of more
/// tokens would not fit in memory anyway.
const MAX_TOKENS: u64 = MAX_EDGES;

/// A graph file, read: the graph and the start nodes of its tokens.
#[derive(Debug)]
pub(crate) struct GraphText {
    /// The graph.
    pub graph: Graph,
    /// The node of each token, in file order.
    pub tokens: Vec<u32>,
}

/// Why a graph file could not be read.
#[derive(Debug)]
pub(crate) enum ReadFailure {
    /// The bytes are wrong: offset and message.
    Parse(ParseError),
    /// The graph's arrays could not be allocated.
    Memory(GraphError),
}

impl From<ParseError> for ReadFailure {
    fn from(error: ParseError) -> ReadFailure {
        ReadFailure::Parse(error)
    }
}

/// Reads the graph file `data`, releasing its mapped pages with `pages` as
/// it goes.
pub(crate) fn read_graph(data: &[u8], pages: PageReleaser<'_>) -> Result<GraphText, ReadFailure> {
    let mut numbers = Numbers::new(data, pages);
    let nodes = count(&mut numbers, "the node count n", MAX_NODES, "nodes")?;
    let edges = count(&mut numbers, "the edge count m", MAX_EDGES, "edges")?;
    let room = (numbers.remaining() as u64 / 4 + 1).min(edges);
    let mut list = EdgeList::new(nodes, room).map_err(ReadFailure::Memory)?;
    read_edges(&mut numbers, &mut list, edges)?;
    let graph = Graph::from_edge_list(list).map_err(ReadFailure::Memory)?;
    let tokens = read_tokens(&mut numbers, graph.nodes())?;
    if let Some(extra) = numbers.next()? {
        return Err(trailing(extra, tokens.len()).into());
    }
    numbers.release_all_read();
    Ok(GraphText { graph, tokens })
}

/// Reads a count, at most `max`; `what` names it in messages, `unit` is
/// what it counts.
fn count(numbers: &mut Numbers<'_>, what: &str, max: u64, unit: &str) -> Result<u64, ParseError> {
    let number = expect(numbers, what)?;
    if number.value > max {
        let message = format!(
            "{what} is {}: at most {max} {unit} are supported",
            digits(numbers, number)
        );
        return Err(ParseError::new(number.start as u64, message));
    }
    Ok(number.value)
}

/// Reads the `edges` edges into `list`. The hot loop of the reader.
fn read_edges(
    numbers: &mut Numbers<'_>,
    list: &mut EdgeList,
    edges: u64,
) -> Result<(), ReadFailure> {
    for edge in 0..edges {
        let from = edge_node(numbers, list.nodes(), edge, edges)?;
        let to = edge_node(numbers, list.nodes(), edge, edges)?;
        list.push(from, to).map_err(ReadFailure::Memory)?;
        numbers.release_behind();
    }
    Ok(())
}

/// One end of edge `edge` of `edges`, checked below `nodes`.
#[inline(always)]
fn edge_node(
    numbers: &mut Numbers<'_>,
    nodes: u32,
    edge: u64,
    edges: u64,
) -> Result<u32, ParseError> {
    match numbers.next()? {
        Some(number) if number.value < u64::from(nodes) => Ok(number.value as u32),
        Some(number) => Err(out_of_range(numbers, number, nodes)),
        None => Err(edge_cut_short(numbers, edge, edges)),
    }
}

/// Reads `k` and the `k` start nodes.
fn read_tokens(numbers: &mut Numbers<'_>, nodes: u32) -> Result<Vec<u32>, ParseError> {
    let count = count(numbers, "the token count k", MAX_TOKENS, "tokens")?;
    let room = (numbers.remaining() as u64 / 2 + 1).min(count);
    let mut tokens = Vec::with_capacity(room as usize);
    for index in 0..count {
        let what = || format!("the start node of token {index} (of {count})");
        let Some(node) = numbers.next()? else {
            return Err(end_of_file(numbers, &what()));
        };
        if node.value >= u64::from(nodes) {
            return Err(out_of_range(numbers, node, nodes));
        }
        tokens.push(node.value as u32);
        numbers.release_behind();
    }
    Ok(tokens)
}

/// The next number, or the error at the end of the file naming `what`
/// was expected.
fn expect(numbers: &mut Numbers<'_>, what: &str) -> Result<Number, ParseError> {
    numbers.next()?.ok_or_else(|| end_of_file(numbers, what))
}

/// The error at the end of the file: `what` was still expected.
fn end_of_file(numbers: &Numbers<'_>, what: &str) -> ParseError {
    ParseError::new(
        numbers.len() as u64,
        format!("the file ends too early: expected {what}"),
    )
}

/// The end-of-file error inside edge `edge` of `edges`.
#[cold]
fn edge_cut_short(numbers: &Numbers<'_>, edge: u64, edges: u64) -> ParseError {
    end_of_file(
        numbers,
        &format!("edge {edge} of the {edges} the header announces"),
    )
}

/// The error for a node id not below the node count, at its first digit.
#[cold]
fn out_of_range(numbers: &Numbers<'_>, number: Number, nodes: u32) -> ParseError {
    let message = format!(
        "node {} is out of range: {}",
        digits(numbers, number),
        node_range(nodes)
    );
    ParseError::new(number.start as u64, message)
}

/// The error for a number after the last start node.
fn trailing(number: Number, tokens: usize) -> ParseError {
    let message = format!(
        "a number after the {tokens} start node{} the file announces: the file should end there",
        if tokens == 1 { "" } else { "s" }
    );
    ParseError::new(number.start as u64, message)
}

/// The digits of `number` as written, for messages: its value, or the
/// text itself when it does not fit in `u64` (shortened past 40 digits).
fn digits(numbers: &Numbers<'_>, number: Number) -> String {
    if number.value < u64::MAX {
        return number.value.to_string();
    }
    let mut end = number.start;
    while end < numbers.len() && numbers.text(end..end + 1)[0].is_ascii_digit() {
        end += 1;
    }
    let text = String::from_utf8_lossy(numbers.text(number.start..end));
    if text.len() <= 40 {
        text.into_owned()
    } else {
        format!("{}… ({} digits)", &text[..20], text.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<GraphText, ParseError> {
        read_graph(text.as_bytes(), PageReleaser::NONE).map_err(|failure| match failure {
            ReadFailure::Parse(error) => error,
            ReadFailure::Memory(error) => panic!("{error}"),
        })
    }

    fn error(text: &str) -> (u64, String) {
        let error = read(text).unwrap_err();
        (error.offset, error.message)
    }

    #[test]
    fn the_seed_layout_is_read() {
        let text = read("4 3\n0 1\n1 2\n0 3\n2\n0 0\n").unwrap();
        let followers: Vec<&[u32]> = (0..4).map(|node| text.graph.followers(node)).collect();
        assert_eq!(followers, [&[1, 3][..], &[2], &[], &[]]);
        assert_eq!(text.tokens, [0, 0]);
        let empty = read("0 0 0").unwrap();
        assert_eq!((empty.graph.nodes(), empty.tokens.len()), (0, 0));
    }

    #[test]
    fn each_error_is_at_its_first_wrong_byte() {
        assert_eq!(
            error(""),
            (
                0,
                "the file ends too early: expected the node count n".into()
            )
        );
        assert_eq!(
            error("3 2\n0 1\n1"),
            (
                9,
                "the file ends too early: expected edge 1 of the 2 the header announces".into()
            )
        );
        assert_eq!(
            error("3 1\n0 1\n"),
            (
                8,
                "the file ends too early: expected the token count k".into()
            )
        );
        assert_eq!(
            error("3 1\n0 1\n2 1"),
            (
                11,
                "the file ends too early: expected the start node of token 1 (of 2)".into()
            )
        );
        assert_eq!(
            error("3 1\n0 3\n1 0\n"),
            (
                6,
                "node 3 is out of range: the graph has 3 nodes (0 to 2)".into()
            )
        );
        assert_eq!(
            error("3 1\n0 1\n1 7\n"),
            (
                10,
                "node 7 is out of range: the graph has 3 nodes (0 to 2)".into()
            )
        );
        assert_eq!(
            error("3 1\n0 1\n1 0 2\n"),
            (
                12,
                "a number after the 1 start node the file announces: the file should end there"
                    .into()
            )
        );
        assert_eq!(
            error("3 1\n0 x1\n"),
            (
                6,
                "expected a decimal digit (0-9) or whitespace, found 'x' (0x78)".into()
            )
        );
        assert_eq!(
            error("3 -1\n"),
            (
                2,
                "expected a decimal digit (0-9) or whitespace, found '-' (0x2d)".into()
            )
        );
    }

    #[test]
    fn counts_too_large_are_refused_where_they_stand() {
        assert_eq!(
            error("4294967296 0 0"),
            (
                0,
                "the node count n is 4294967296: at most 4294967295 nodes are supported".into()
            )
        );
        assert_eq!(
            error("1 99999999999999999999999 0"),
            (
                2,
                "the edge count m is 99999999999999999999999: at most 4294967295 edges are supported"
                    .into()
            )
        );
        assert_eq!(
            error("2 0 99999999999999999999 0"),
            (
                4,
                "the token count k is 99999999999999999999: at most 4294967295 tokens are supported"
                    .into()
            )
        );
        let long = format!("2 1\n0 {}\n0\n", "7".repeat(50));
        assert_eq!(
            error(&long),
            (
                6,
                "node 77777777777777777777… (50 digits) is out of range: the graph has 2 nodes (0 to 1)"
                    .into()
            )
        );
    }

    #[test]
    fn a_header_larger_than_the_file_allocates_only_what_the_file_holds() {
        // 4 billion edges announced in a few bytes: the end of the file is
        // the error, after an allocation the size of the file.
        assert_eq!(
            error("5 4000000000\n0 1\n"),
            (
                17,
                "the file ends too early: expected edge 1 of the 4000000000 the header announces"
                    .into()
            )
        );
        // A bad byte before the end is still the first error.
        assert_eq!(error("5 4000000000\n0 1 ;").0, 17);
    }
}
