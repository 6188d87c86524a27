//! Where a game starts: heaps listed on the command line, or read whole
//! from an instance in any format.

use crate::error::Error;
use crate::input::format_of;
use crate::input::source::{Input, InputBytes};
use crate::input::{Format, HeapScanner, Scanner};
use num_bigint::BigUint;
use std::path::Path;

/// Parses `--heaps`: decimal values separated by commas (`3,4,5`); an empty
/// list is a game with no heaps.
pub fn parse_heap_list(text: &str) -> Result<Vec<BigUint>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|item| {
            let item = item.trim();
            item.parse().map_err(|_| {
                format!("`{item}` is not a heap size: expected decimal numbers separated by commas, e.g. 3,4,5")
            })
        })
        .collect()
}

/// Reads every heap of the instance at `path` (`-` reads standard input and
/// needs a `format`); `None` detects the format as `analyze` does.
pub fn read_heaps(path: &Path, format: Option<Format>) -> Result<Vec<BigUint>, Error> {
    let shown = path.display().to_string();
    let format = format_of(path, &shown, format, "--format")?;
    let input = Input::open(path, &shown, false)?.into_memory()?;
    heaps_of(&input, format)
}

/// The heaps of an input read into memory.
fn heaps_of(input: &Input<'_>, format: Format) -> Result<Vec<BigUint>, Error> {
    let InputBytes::Memory(data) = input.bytes() else {
        unreachable!("read into memory");
    };
    let mut scanner = Scanner::new(format, data, 0);
    let mut heaps = Vec::new();
    while let Some(heap) = scanner
        .next_heap()
        .map_err(|e| input.parse_error(format, e))?
    {
        heaps.push(to_biguint(&heap.value.to_limbs()));
    }
    Ok(heaps)
}

/// Little-endian 64-bit limbs as a big integer.
fn to_biguint(limbs: &[u64]) -> BigUint {
    let bytes: Vec<u8> = limbs.iter().flat_map(|limb| limb.to_le_bytes()).collect();
    BigUint::from_bytes_le(&bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::play::tests::heaps;

    /// The heaps of an instance held in memory, `name` standing for its path.
    fn parse_heaps(data: &[u8], format: Format, name: &str) -> Result<Vec<BigUint>, Error> {
        heaps_of(&Input::memory(data, name), format)
    }

    #[test]
    fn unary_lines_are_heaps_of_their_ones() {
        let heaps = parse_heaps(b"111\n\n1\n", Format::Unary, "x.unary").unwrap();
        assert_eq!(heaps, vec![3u32.into(), 0u32.into(), 1u32.into()]);
    }

    #[test]
    fn heap_lists_and_files_give_big_integers() {
        assert_eq!(parse_heap_list("3, 4,5"), Ok(heaps(&[3, 4, 5])));
        assert_eq!(parse_heap_list(""), Ok(vec![]));
        assert!(parse_heap_list("3,x").is_err());
        let big = parse_heaps(b"1 0x10000000000000000001", Format::Hex, "x.hex").unwrap();
        assert_eq!(big[1], (BigUint::from(1u32) << 76u32) + 1u32);
        let error = parse_heaps(b"1 2x", Format::Dec, "x.dec").unwrap_err();
        assert!(error
            .to_string()
            .starts_with("x.dec: offset 3 (line 1, column 4)"));
    }
}
