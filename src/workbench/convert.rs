//! Converting an instance from one format to another: the same heaps, in
//! the same order, read by the format's scanner and written by
//! [`encode`], one heap at a time.
//!
//! A regular file is memory-mapped and streamed through; standard input and
//! pipes are read into memory first (conversion needs no bounded-memory
//! guarantee beyond O(input)). Heaps are not copied on the way: an encoder
//! reads the scanned value limb by limb (except for `dec` output of heaps
//! over 128 bits, which goes through num-bigint).
//!
//! Bad input gives the same [`Error::Input`] as `analyze` (offset, and line
//! and column for the text formats); so does a heap too large for the target
//! format (a raw array's width, or `unary`'s limit), naming the heap's index.
//! The writer may have received part of the output by then: write to an
//! [`AtomicFile`](crate::output::AtomicFile), or call [`check_bytes`] first.

use crate::error::Error;
use crate::input::source;
use crate::input::{format_of, Format, Heap, HeapScanner, Scanner};
use crate::workbench::encode::{self, EncodeError};
use std::io::{BufWriter, Write};
use std::path::Path;

/// Size of the write buffer, in bytes.
const BUFFER_BYTES: usize = 1 << 16;

/// An instance mapped or read whole, with its format.
pub struct Input {
    input: source::Input<'static>,
    format: Format,
}

impl Input {
    /// Opens `path` (`-` is standard input, which needs `from`, the
    /// command line's `--format`); `from` `None` detects the format as
    /// `analyze` does.
    pub fn open(path: &Path, from: Option<Format>) -> Result<Input, Error> {
        let shown = path.display().to_string();
        let format = format_of(path, &shown, from, "--format")?;
        // A stream, or a file that cannot be mapped, is read into memory.
        let input = source::Input::open(path, &shown, true)?.held_in_place()?;
        Ok(Input { input, format })
    }

    /// An instance held in memory; `name` stands for its path in errors.
    pub fn from_bytes(data: Vec<u8>, format: Format, name: &str) -> Input {
        Input {
            input: source::Input::memory(data, name),
            format,
        }
    }

    /// The input's format (given or detected).
    pub fn format(&self) -> Format {
        self.format
    }

    fn bytes(&self) -> &[u8] {
        self.input.in_place().expect("held in place").bytes
    }
}

/// Writes the heaps of `input` to `out` (named `out_name` in errors) in
/// format `to`, and returns how many there were.
///
/// ```
/// use nimstream::workbench::convert::{convert, Input};
/// use nimstream::Format;
///
/// let input = Input::from_bytes(b"0x1f 0 101".to_vec(), Format::Hex, "example");
/// let mut out = Vec::new();
/// assert_eq!(convert(&input, Format::Bits, &mut out, "out")?, 3);
/// assert_eq!(out, b"11111\n0\n100000001\n");
/// # Ok::<(), nimstream::Error>(())
/// ```
pub fn convert<W: Write>(input: &Input, to: Format, out: W, out_name: &str) -> Result<u64, Error> {
    let mut out = BufWriter::with_capacity(BUFFER_BYTES, out);
    encode::write_header(to, &mut out).map_err(|e| Error::io(out_name, e))?;
    let heaps = each_heap(input, |index, heap| {
        encode::write_heap(to, &heap.value, &mut out).map_err(|e| match e {
            EncodeError::Io(source) => Error::io(out_name, source),
            too_large => input.heap_error(index, heap, &too_large),
        })
    })?;
    out.flush().map_err(|e| Error::io(out_name, e))?;
    Ok(heaps)
}

/// Checks that every heap of `input` parses and fits format `to`, without
/// writing anything; returns how many heaps there are.
///
/// ```
/// use nimstream::workbench::convert::{check_bytes, Input};
/// use nimstream::Format;
///
/// let input = Input::from_bytes(b"255 256".to_vec(), Format::Dec, "example");
/// let error = check_bytes(&input, Format::U8).unwrap_err();
/// assert_eq!(
///     error.to_string(),
///     "example: offset 4 (line 1, column 5): heap 1: a value of 9 bits does not fit u8 (at most 8 bits)"
/// );
/// ```
pub fn check_bytes(input: &Input, to: Format) -> Result<u64, Error> {
    each_heap(input, |index, heap| {
        encode::check_fits(to, &heap.value).map_err(|e| input.heap_error(index, heap, &e))
    })
}

/// Calls `visit` with each heap of `input` and its index; returns the count.
fn each_heap<F>(input: &Input, mut visit: F) -> Result<u64, Error>
where
    F: FnMut(u64, &Heap<'_>) -> Result<(), Error>,
{
    let mut scanner = Scanner::new(input.format, input.bytes(), 0);
    let mut index = 0;
    let parse_error = |e| input.input.parse_error(input.format, e);
    while let Some(heap) = scanner.next_heap().map_err(parse_error)? {
        visit(index, &heap)?;
        index += 1;
    }
    input.input.check_unchanged()?;
    Ok(index)
}

impl Input {
    /// The error for heap `index`, which the target format cannot hold.
    fn heap_error(&self, index: u64, heap: &Heap<'_>, error: &EncodeError) -> Error {
        let message = format!("heap {index}: {error}");
        self.input.error_at(self.format, heap.offset, message, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::gen::{generate, Amount, BitRange, GenOptions, Kind};

    fn convert_to_vec(data: &[u8], from: Format, to: Format) -> Result<Vec<u8>, Error> {
        let input = Input::from_bytes(data.to_vec(), from, "in");
        let mut out = Vec::new();
        convert(&input, to, &mut out, "out")?;
        Ok(out)
    }

    fn heaps_of(format: Format, data: &[u8]) -> Vec<Vec<u64>> {
        let mut scanner = Scanner::new(format, data, 0);
        let mut heaps = Vec::new();
        while let Some(heap) = scanner.next_heap().unwrap() {
            heaps.push(heap.value.to_limbs());
        }
        heaps
    }

    fn generated(format: Format, bits: &str) -> Vec<u8> {
        let options = GenOptions {
            format,
            amount: Amount::Heaps(40),
            bits: bits.parse::<BitRange>().unwrap(),
            kind: Kind::Random,
            seed: 5,
        };
        let mut out = Vec::new();
        generate(&options, &mut out, "gen").unwrap();
        out
    }

    #[test]
    fn every_pair_of_formats_keeps_the_heaps() {
        for from in Format::ALL {
            let data = generated(from, "0..8");
            let heaps = heaps_of(from, &data);
            for to in Format::ALL {
                let out = convert_to_vec(&data, from, to).unwrap();
                assert_eq!(heaps_of(to, &out), heaps, "{from} → {to}");
            }
        }
    }

    #[test]
    fn long_heaps_survive_the_unbounded_formats() {
        let unbounded = [Format::Bits, Format::Hex, Format::Dec, Format::Nimb];
        for from in unbounded {
            let data = generated(from, "60..300");
            let heaps = heaps_of(from, &data);
            for to in unbounded {
                let out = convert_to_vec(&data, from, to).unwrap();
                assert_eq!(heaps_of(to, &out), heaps, "{from} → {to}");
            }
        }
    }

    #[test]
    fn converting_to_the_same_format_normalises() {
        let out = convert_to_vec(b"  0x00Ff\r\n000 ", Format::Hex, Format::Hex).unwrap();
        assert_eq!(out, b"ff\n0\n");
    }

    #[test]
    fn bad_input_is_reported_with_line_and_column() {
        let error = convert_to_vec(b"101\n1x1", Format::Bits, Format::Dec).unwrap_err();
        assert_eq!(error.exit_code(), 1);
        assert!(
            error
                .to_string()
                .starts_with("in: offset 5 (line 2, column 2): "),
            "{error}"
        );
    }

    #[test]
    fn a_heap_too_wide_for_a_raw_target_is_named() {
        let data = generated(Format::Nimb, "1..64");
        let error = convert_to_vec(&data, Format::Nimb, Format::U8).unwrap_err();
        let text = error.to_string();
        assert!(text.starts_with("in: offset "), "{text}");
        assert!(
            text.contains(": heap ") && text.contains("does not fit u8"),
            "{text}"
        );
        assert_eq!(error.exit_code(), 1);
    }
}
