//! Generating instances: random heaps in any input format, streamed to a
//! writer, deterministic for a given seed, with a summary of the nim-sum
//! computed here (independently of the analyzer) so the two can be checked
//! against each other.
//!
//! # The scheme (stable across platforms and releases)
//!
//! The generator is `rand_chacha::ChaCha8Rng::seed_from_u64(seed)`; the only
//! draws are [`RngCore::next_u64`](rand::RngCore::next_u64) calls, used as
//! follows.
//!
//! - `below(n)`: a uniform number in `0 .. n`. For `n = 1` it is 0 and
//!   draws nothing; otherwise Lemire's method: draw `x`, let
//!   `m = x · n` (128-bit); while the low 64 bits of `m` are below
//!   `2^64 mod n`, draw again; the result is the high 64 bits of `m`.
//! - A random heap: its bit length is `b = LO + below(HI − LO + 1)`; then
//!   `⌈b / 64⌉` draws give its limbs, least significant first; the top limb
//!   keeps only its low `b − 64·(⌈b/64⌉ − 1)` bits and gets its highest one
//!   set. `b = 0` is the value 0 and draws no limb.
//! - `random`: every heap is a random heap.
//! - `p-position`: every heap but the last is a random heap; the last is the
//!   XOR of all the others (so it may be shorter than `LO` bits).
//! - `pairs`: a random heap, written twice, then the next one.
//! - `ones`: every heap is 1; nothing is drawn and `--bits` is ignored.
//!
//! With [`Amount::Heaps`] the count includes the balancing heap of
//! `p-position` (and must be even for `pairs`). With [`Amount::Bytes`],
//! heaps are written (in whole pairs for `pairs`) until the output has at
//! least that many bytes; `p-position` then appends its balancing heap, so
//! the output may exceed the size by a heap or two.
//!
//! Memory is O(largest heap): one heap's limbs, the running nim-sum, and a
//! write buffer; the output is never held.
//!
//! This file holds the options and the loop that follows them;
//! `random_heaps.rs` makes the draws, and `heap_sink.rs` writes the heaps
//! and sums them up.

mod heap_sink;
mod random_heaps;

use crate::error::Error;
use crate::input::Format;
use crate::workbench::encode;
use heap_sink::HeapSink;
use random_heaps::RandomHeaps;
use std::fmt;
use std::io::Write;
use std::str::FromStr;

/// The longest heap `gen` writes, in bits (8 GiB of limbs in memory).
pub const MAX_HEAP_BITS: u64 = 1 << 36;

/// What the heaps of a generated instance look like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Independent random heaps.
    Random,
    /// Random heaps, then one that makes the nim-sum 0 (a second-player win
    /// under normal play).
    PPosition,
    /// Equal heaps in pairs (nim-sum 0).
    Pairs,
    /// Every heap is 1.
    Ones,
}

impl Kind {
    /// Every kind, in the order the documentation lists them.
    pub const ALL: [Kind; 4] = [Kind::Random, Kind::PPosition, Kind::Pairs, Kind::Ones];

    /// The name used on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Random => "random",
            Kind::PPosition => "p-position",
            Kind::Pairs => "pairs",
            Kind::Ones => "ones",
        }
    }

    /// Parses a kind name (case-insensitive).
    pub fn from_name(name: &str) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .find(|kind| kind.name().eq_ignore_ascii_case(name))
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The bit lengths of random heaps: uniform in `low ..= high`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BitRange {
    /// The shortest bit length.
    pub low: u64,
    /// The longest bit length (included).
    pub high: u64,
}

impl BitRange {
    /// The default for `format`: 1 to 64 bits, or the element width of a
    /// raw array, or 1 to 10 bits for `unary` (lines of up to 1023 bytes).
    pub fn default_for(format: Format) -> BitRange {
        let high = match format {
            Format::Unary => 10,
            other => encode::max_bit_length(other).unwrap_or(64),
        };
        BitRange { low: 1, high }
    }
}

/// Parses `B` or `LO..HI` (both ends included).
impl FromStr for BitRange {
    type Err = String;

    fn from_str(text: &str) -> Result<BitRange, String> {
        let number = |part: &str| {
            part.trim().parse::<u64>().map_err(|_| {
                format!("invalid bit length '{text}': expected B or LO..HI, e.g. 64 or 1..4096")
            })
        };
        let (low, high) = match text.split_once("..") {
            Some((low, high)) => (number(low)?, number(high)?),
            None => (number(text)?, number(text)?),
        };
        if low > high {
            return Err(format!("invalid bit range '{text}': {low} is above {high}"));
        }
        if high > MAX_HEAP_BITS {
            return Err(format!(
                "bit length {high} is above the largest gen writes ({MAX_HEAP_BITS})"
            ));
        }
        Ok(BitRange { low, high })
    }
}

/// How much to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Amount {
    /// Exactly this many heaps.
    Heaps(u64),
    /// Heaps until the output has at least this many bytes.
    Bytes(u64),
}

/// What to generate: the options of `nimstream gen`.
#[derive(Clone, Debug)]
pub struct GenOptions {
    /// The output format.
    pub format: Format,
    /// How many heaps, or how many bytes.
    pub amount: Amount,
    /// Bit lengths of the random heaps.
    pub bits: BitRange,
    /// The shape of the instance.
    pub kind: Kind,
    /// The seed of the random generator.
    pub seed: u64,
}

impl GenOptions {
    /// Checks the options fit together (each failure is a usage error).
    pub fn check(&self) -> Result<(), Error> {
        if let (Kind::Pairs, Amount::Heaps(n)) = (self.kind, self.amount) {
            if n % 2 == 1 {
                return Err(Error::Usage(format!(
                    "--kind pairs writes heaps in pairs, so --heaps must be even (got {n})"
                )));
            }
        }
        match encode::max_bit_length(self.format) {
            Some(limit) if self.bits.high > limit => Err(Error::Usage(format!(
                "--bits {} does not fit {}: its heaps have at most {limit} bits",
                self.bits.high, self.format
            ))),
            _ => Ok(()),
        }
    }
}

/// What `gen` wrote: the fields of its JSON summary.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Heaps written.
    pub heaps: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Bit length of the nim-sum of the heaps written.
    pub nim_sum_bit_length: u64,
    /// Lowercase hex SHA-256 of the nim-sum as `bits` text (trailing LF
    /// included), the form `analyze --nim-sum-out` writes.
    pub nim_sum_sha256: String,
}

impl Summary {
    /// The summary as one JSON object (one line, no trailing LF).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a summary serializes")
    }
}

/// Writes the instance `options` describes to `out` (named `out_name` in
/// errors) and sums it up.
///
/// ```
/// use nimstream::workbench::gen::{generate, Amount, BitRange, GenOptions, Kind};
/// use nimstream::Format;
///
/// let options = GenOptions {
///     format: Format::Dec,
///     amount: Amount::Heaps(4),
///     bits: BitRange { low: 1, high: 8 },
///     kind: Kind::PPosition,
///     seed: 7,
/// };
/// let mut out = Vec::new();
/// let summary = generate(&options, &mut out, "example")?;
/// assert_eq!(summary.heaps, 4);
/// assert_eq!(summary.bytes, out.len() as u64);
/// assert_eq!(summary.nim_sum_bit_length, 0);
/// # Ok::<(), nimstream::Error>(())
/// ```
pub fn generate<W: Write>(options: &GenOptions, out: W, out_name: &str) -> Result<Summary, Error> {
    options.check()?;
    let mut sink = HeapSink::new(options.format, out, out_name)?;
    let mut heaps = RandomHeaps::new(options.seed, options.bits);
    let amount = options.amount;
    match options.kind {
        Kind::Random => {
            while sink.wants_more(amount, 0) {
                sink.write(heaps.next())?;
            }
        }
        Kind::PPosition => {
            while sink.wants_more(amount, 1) {
                sink.write(heaps.next())?;
            }
            if amount != Amount::Heaps(0) {
                sink.write_balancing_heap()?;
            }
        }
        Kind::Pairs => {
            while sink.wants_more(amount, 0) {
                let heap = heaps.next();
                sink.write(heap)?;
                sink.write(heap)?;
            }
        }
        Kind::Ones => {
            while sink.wants_more(amount, 0) {
                sink.write(&[1])?;
            }
        }
    }
    sink.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::{HeapScanner, Scanner};

    fn options(format: Format, amount: Amount, bits: &str, kind: Kind) -> GenOptions {
        GenOptions {
            format,
            amount,
            bits: bits.parse().unwrap(),
            kind,
            seed: 1,
        }
    }

    fn run(options: &GenOptions) -> (Vec<u8>, Summary) {
        let mut out = Vec::new();
        let summary = generate(options, &mut out, "test").unwrap();
        (out, summary)
    }

    /// Every heap of `data` as limbs.
    fn heaps_of(format: Format, data: &[u8]) -> Vec<Vec<u64>> {
        let mut scanner = Scanner::new(format, data, 0);
        let mut heaps = Vec::new();
        while let Some(heap) = scanner.next_heap().unwrap() {
            heaps.push(heap.value.to_limbs());
        }
        heaps
    }

    #[test]
    fn bit_ranges_parse_single_lengths_and_ranges() {
        assert_eq!("64".parse(), Ok(BitRange { low: 64, high: 64 }));
        assert_eq!("0..130".parse(), Ok(BitRange { low: 0, high: 130 }));
        assert!("9..3".parse::<BitRange>().is_err());
        assert!("x".parse::<BitRange>().is_err());
        assert!(format!("{}", MAX_HEAP_BITS + 1)
            .parse::<BitRange>()
            .is_err());
    }

    #[test]
    fn the_same_seed_gives_the_same_bytes() {
        let first = options(Format::Hex, Amount::Heaps(50), "1..200", Kind::Random);
        let again = run(&first);
        assert_eq!(run(&first), again);
        let other_seed = GenOptions { seed: 2, ..first };
        assert_ne!(run(&other_seed).0, again.0);
    }

    #[test]
    fn the_seed_fixes_the_output_for_good() {
        let (out, _) = run(&options(
            Format::Dec,
            Amount::Heaps(3),
            "1..16",
            Kind::Random,
        ));
        assert_pinned(&out, b"107\n834\n24\n");
    }

    /// Compares against a pinned output, printing both on failure.
    fn assert_pinned(actual: &[u8], pinned: &[u8]) {
        assert_eq!(
            String::from_utf8_lossy(actual),
            String::from_utf8_lossy(pinned),
            "the generation scheme changed: the same seed must give the same bytes"
        );
    }

    #[test]
    fn p_positions_count_the_balancing_heap_and_sum_to_zero() {
        for format in Format::ALL {
            let bits = BitRange::default_for(format);
            let opts = GenOptions {
                bits,
                ..options(format, Amount::Heaps(7), "1", Kind::PPosition)
            };
            let (out, summary) = run(&opts);
            let heaps = heaps_of(format, &out);
            assert_eq!((heaps.len(), summary.heaps), (7, 7), "{format}");
            let mut sum = vec![0u64; 2];
            for heap in &heaps {
                for (s, l) in sum.iter_mut().zip(heap) {
                    *s ^= l;
                }
            }
            assert_eq!(sum, [0, 0], "{format}");
            assert_eq!(summary.nim_sum_bit_length, 0);
        }
    }

    #[test]
    fn pairs_repeat_each_heap_and_refuse_an_odd_count() {
        let (out, summary) = run(&options(
            Format::Bits,
            Amount::Heaps(6),
            "1..100",
            Kind::Pairs,
        ));
        let heaps = heaps_of(Format::Bits, &out);
        assert!(heaps.chunks(2).all(|pair| pair[0] == pair[1]));
        assert_eq!(summary.nim_sum_bit_length, 0);
        let odd = options(Format::Bits, Amount::Heaps(5), "8", Kind::Pairs);
        let error = generate(&odd, Vec::new(), "test").unwrap_err();
        assert_eq!(error.exit_code(), 2);
    }

    #[test]
    fn ones_are_all_one() {
        let (out, summary) = run(&options(Format::Unary, Amount::Heaps(3), "5", Kind::Ones));
        assert_eq!(out, b"1\n1\n1\n");
        assert_eq!(summary.nim_sum_bit_length, 1);
    }

    #[test]
    fn a_size_stops_once_reached_and_keeps_the_instance_valid() {
        for kind in Kind::ALL {
            let opts = options(Format::U32le, Amount::Bytes(1001), "1..32", kind);
            let (out, summary) = run(&opts);
            assert!(
                (1001..1001 + 8).contains(&out.len()),
                "{kind}: {}",
                out.len()
            );
            assert_eq!(summary.bytes, out.len() as u64);
            if kind == Kind::Pairs {
                assert_eq!(summary.heaps % 2, 0);
            }
        }
        let (out, _) = run(&options(Format::Nimb, Amount::Bytes(0), "8", Kind::Random));
        assert_eq!(out, b"NIMB\x01\0\0\0");
    }

    #[test]
    fn raw_formats_refuse_bits_wider_than_their_elements() {
        let wide = options(Format::U16le, Amount::Heaps(1), "1..17", Kind::Random);
        assert_eq!(generate(&wide, Vec::new(), "t").unwrap_err().exit_code(), 2);
        let unary = options(Format::Unary, Amount::Heaps(1), "41", Kind::Random);
        assert_eq!(
            generate(&unary, Vec::new(), "t").unwrap_err().exit_code(),
            2
        );
        let fits = options(Format::U16le, Amount::Heaps(1), "16", Kind::Random);
        assert!(generate(&fits, Vec::new(), "t").is_ok());
    }

    #[test]
    fn the_summary_hashes_the_nim_sum_bits_text() {
        let (_, summary) = run(&options(Format::U8, Amount::Heaps(1), "0", Kind::Random));
        // SHA-256 of "0\n".
        assert_eq!(
            summary.nim_sum_sha256,
            "9a271f2a916b0b6ee6cecb2426f0b3206ef074578be55d9bc94f6f3fe3ab86aa"
        );
        assert_eq!(
            summary.to_json(),
            format!(
                "{{\"heaps\":1,\"bytes\":1,\"nim_sum_bit_length\":0,\"nim_sum_sha256\":\"{}\"}}",
                summary.nim_sum_sha256
            )
        );
    }
}
