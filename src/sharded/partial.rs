//! The partial summary of a range, as serde data (`"nimstream_partial":
//! 1`), and its merge with the partial of the adjacent range.
//!
//! Everything a partial says about a heap is relative to its range: heap
//! indices count from 0 at the range's first heap, and line feeds from
//! the range's first byte ([`Mark`]). The merge shifts the later range's
//! marks by the earlier range's heap and line-feed counts, so a partial
//! of any run of adjacent ranges has the same form as a range's own, and
//! merging is associative. Its size is a constant plus the nim-sum:
//! [`TABLE_BITS`](super::range_passes::TABLE_BITS) positions of holders at
//! most, 16 holders under a game, one error.

use super::marks::{mismatch, Lines, Mark};
use super::table::NimPart;
use crate::error::Error;
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::Path;

/// The version this build writes and reads.
pub(crate) const PARTIAL_VERSION: u32 = 1;

/// The partial summary of a byte range of a file (see the module doc of
/// [`crate::sharded`] for the protocol).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Partial {
    /// The version of this format: 1.
    pub(crate) nimstream_partial: u32,
    /// `survey` (the first phase) or `holders` (the second).
    pub(crate) kind: Kind,
    /// The file, as `analyze` names it in its report.
    pub(crate) input: FileInfo,
    /// `normal` or `misere`.
    pub(crate) rule: String,
    /// The game, canonical (`nim` for Nim).
    pub(crate) game: String,
    /// `--max-values` of the run (the game's sequence depends on it).
    pub(crate) max_values: u64,
    /// The bytes `[start, end)` whose heaps this partial counts.
    pub(crate) range: [u64; 2],
    /// Heaps whose first byte lies in the range.
    pub(crate) heaps: u64,
    /// Line feeds in the range's bytes, and where the last one is.
    pub(crate) lines: Lines,
    /// The survey (the first phase only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) survey: Option<SurveyPart>,
    /// What Nim needs (the first phase of Nim only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) nim: Option<NimPart>,
    /// What a game other than Nim needs (the first phase only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) grundy: Option<GrundyPart>,
    /// What misère play of a game other than Nim needs (the first phase
    /// only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) misere: Option<MiserePart>,
    /// The holders of the msb (the second phase only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) holders: Option<HoldersPart>,
    /// The earliest bad input in the range, as data.
    pub(crate) error: Option<ErrorAt>,
    /// What the workers' runs cost, added up.
    pub(crate) stats: WorkStats,
}

/// The phase a partial belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Kind {
    /// The first phase: survey, sums, holders of the top positions.
    Survey,
    /// The second phase: the holders of the nim-sum's msb.
    Holders,
}

impl Kind {
    /// The phase in words.
    fn phrase(self) -> String {
        match self {
            Kind::Survey => "the first phase".to_string(),
            Kind::Holders => "the second phase".to_string(),
        }
    }
}

/// The file a partial reads.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct FileInfo {
    /// The path as given to `analyze`.
    pub(crate) path: String,
    /// The format's name.
    pub(crate) format: String,
    /// The file's size in bytes.
    pub(crate) bytes: u64,
}

impl FileInfo {
    /// The file in words: "big.dec (dec, 1000 bytes)".
    fn phrase(&self) -> String {
        format!("{} ({}, {} bytes)", self.path, self.format, self.bytes)
    }
}

/// The survey counts of a range.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SurveyPart {
    /// Heaps > 0.
    pub(crate) nonzero: u64,
    /// Heaps = 1.
    pub(crate) ones: u64,
    /// Heaps ≥ 2.
    pub(crate) big: u64,
    /// The longest heap's bit length.
    pub(crate) max_bit_length: u64,
    /// The first heap equal to 1.
    pub(crate) first_one: Option<Mark>,
    /// The first heap ≥ 2.
    pub(crate) first_big: Option<Mark>,
}

/// What a game other than Nim needs of a range.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct GrundyPart {
    /// The XOR of the heaps' Grundy values.
    pub(crate) grundy_sum: u16,
    /// For each of the 16 bits of a value, its first holder.
    pub(crate) holders: Vec<Option<GameMark>>,
}

/// What misère play of a game other than Nim needs of a range: the count
/// of the heaps of each kind (a heap's class in the misère quotient and
/// its options' classes: `analysis::misere`) and the first heap of each,
/// its `grundy` the kind. A range with no heap has empty lists.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct MiserePart {
    /// The heaps of each kind.
    pub(crate) counts: Vec<u64>,
    /// The first heap of each kind.
    pub(crate) firsts: Vec<Option<GameMark>>,
}

/// The first holder of a bit of the Grundy values (or, in a
/// [`MiserePart`], the first heap of a kind).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct GameMark {
    /// Where it is.
    pub(crate) heap: Mark,
    /// Its size when it has at most 64 bits.
    pub(crate) size: Option<u64>,
    /// Its size modulo the game's period, when it has more.
    pub(crate) residue: Option<u64>,
    /// Its Grundy value.
    pub(crate) grundy: u16,
    /// Its bit length.
    pub(crate) bits: u64,
}

/// The second phase's answer for a range: the holders of one bit.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct HoldersPart {
    /// The bit: the nim-sum's msb.
    pub(crate) msb: u64,
    /// Heaps holding it.
    pub(crate) count: u64,
    /// The first of them.
    pub(crate) first: Option<Mark>,
}

/// Bad input, as data: where, and what (as `analyze` would say it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ErrorAt {
    /// The offset of the first wrong byte.
    pub(crate) offset: u64,
    /// Line feeds from the range's start up to it.
    pub(crate) lines: Lines,
    /// What was found and what was expected; `None` for a heap past the
    /// values computed for a game, whose message names the heap's index
    /// in the whole file.
    pub(crate) message: Option<String>,
    /// That heap's index among the range's heaps.
    pub(crate) past_values_heap: Option<u64>,
}

/// What the workers' runs cost, added up over the ranges.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct WorkStats {
    /// The most passes a range took.
    pub(crate) passes: u64,
    /// Bytes read, every worker together.
    pub(crate) bytes_scanned: u64,
    /// The largest working memory of a worker.
    pub(crate) working_memory_bytes: u64,
    /// The workers' seconds, added up.
    pub(crate) seconds: f64,
    /// Ranges merged.
    pub(crate) ranges: u64,
    /// The window of the workers' passes, in bits.
    pub(crate) window_bits: u64,
}

// `WorkStats` holds a float, compared only as data read back.
impl Eq for WorkStats {}

impl WorkStats {
    /// The cost of the runs of `later` added.
    fn add(&mut self, later: &WorkStats) {
        self.passes = self.passes.max(later.passes);
        self.bytes_scanned += later.bytes_scanned;
        self.working_memory_bytes = self.working_memory_bytes.max(later.working_memory_bytes);
        self.seconds += later.seconds;
        self.ranges += later.ranges;
        self.window_bits = self.window_bits.max(later.window_bits);
    }
}

impl Partial {
    /// The partial as one line of JSON (no trailing LF).
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a partial always serialises")
    }

    /// The heaps of its ranges (those whose first byte lies in them).
    pub fn heaps(&self) -> u64 {
        self.heaps
    }

    /// Whether the partial covers its whole file.
    pub fn is_whole(&self) -> bool {
        self.range == [0, self.input.bytes]
    }

    /// Checks that `later` is of the same run and phase, and starts where
    /// this one ends.
    fn check_adjacent(&self, later: &Partial) -> Result<(), Error> {
        let same = |what: &str, a: String, b: String| match a == b {
            true => Ok(()),
            false => Err(mismatch(format!("their {what} differ ({a} and {b})"))),
        };
        let version = |p: &Partial| format!("version {}", p.nimstream_partial);
        same("versions", version(self), version(later))?;
        same("phases", self.kind.phrase(), later.kind.phrase())?;
        same("inputs", self.input.phrase(), later.input.phrase())?;
        same("rules", self.rule.clone(), later.rule.clone())?;
        same("games", self.game.clone(), later.game.clone())?;
        let max_values = |p: &Partial| format!("--max-values {}", p.max_values);
        same("--max-values", max_values(self), max_values(later))?;
        let msb = |p: &Partial| match p.holders {
            Some(holders) => format!("bit {}", holders.msb),
            None => "no bit".to_string(),
        };
        same("bits searched", msb(self), msb(later))?;
        if self.range[1] != later.range[0] {
            return Err(mismatch(format!(
                "the ranges {}..{} and {}..{} are not adjacent",
                self.range[0], self.range[1], later.range[0], later.range[1]
            )));
        }
        Ok(())
    }

    /// Appends the partial of the range that follows this one.
    pub(crate) fn append(&mut self, later: Partial) -> Result<(), Error> {
        self.check_adjacent(&later)?;
        let (heaps, lines) = (self.heaps, self.lines);
        let shift = |mark: Mark| mark.after(heaps, lines);
        if self.error.is_none() {
            self.error = later.error.map(|error| ErrorAt {
                lines: error.lines.after(lines),
                past_values_heap: error.past_values_heap.map(|index| index + heaps),
                ..error
            });
        }
        self.survey = match (self.survey.take(), later.survey) {
            (Some(mine), Some(theirs)) => Some(mine.append(theirs, shift)),
            _ => None,
        };
        self.nim = match (self.nim.take(), later.nim) {
            (Some(mine), Some(theirs)) => Some(super::table::append(mine, theirs, shift)?),
            _ => None,
        };
        self.grundy = match (self.grundy.take(), later.grundy) {
            (Some(mine), Some(theirs)) => Some(mine.append(theirs, shift)),
            _ => None,
        };
        self.misere = match (self.misere.take(), later.misere) {
            (Some(mine), Some(theirs)) => Some(mine.append(theirs, shift)),
            _ => None,
        };
        self.holders = match (self.holders, later.holders) {
            (Some(mine), Some(theirs)) => Some(HoldersPart {
                count: mine.count + theirs.count,
                first: mine.first.or(theirs.first.map(shift)),
                ..mine
            }),
            _ => None,
        };
        self.range[1] = later.range[1];
        self.heaps += later.heaps;
        self.lines = later.lines.after(lines);
        self.stats.add(&later.stats);
        Ok(())
    }
}

impl SurveyPart {
    fn append(self, later: SurveyPart, shift: impl Fn(Mark) -> Mark) -> SurveyPart {
        SurveyPart {
            nonzero: self.nonzero + later.nonzero,
            ones: self.ones + later.ones,
            big: self.big + later.big,
            max_bit_length: self.max_bit_length.max(later.max_bit_length),
            first_one: self.first_one.or(later.first_one.map(&shift)),
            first_big: self.first_big.or(later.first_big.map(&shift)),
        }
    }
}

impl GrundyPart {
    fn append(self, later: GrundyPart, shift: impl Fn(Mark) -> Mark) -> GrundyPart {
        let holders = self
            .holders
            .into_iter()
            .zip(later.holders)
            .map(|(mine, theirs)| {
                mine.or(theirs.map(|mark| GameMark {
                    heap: shift(mark.heap),
                    ..mark
                }))
            })
            .collect();
        GrundyPart {
            grundy_sum: self.grundy_sum ^ later.grundy_sum,
            holders,
        }
    }
}

impl MiserePart {
    fn append(mut self, later: MiserePart, shift: impl Fn(Mark) -> Mark) -> MiserePart {
        let kinds = self.counts.len().max(later.counts.len());
        self.counts.resize(kinds, 0);
        self.firsts.resize(kinds, None);
        for (kind, (count, first)) in later.counts.into_iter().zip(later.firsts).enumerate() {
            self.counts[kind] += count;
            if self.firsts[kind].is_none() {
                self.firsts[kind] = first.map(|mark| GameMark {
                    heap: shift(mark.heap),
                    ..mark
                });
            }
        }
        self
    }
}

/// The partials in the file at `path` (`-`: standard input), one JSON
/// object a line (blank lines skipped): what `analyze --range …
/// --partial` and `merge` print. A line that is not a partial of this
/// version is bad input (exit 1), located by its line.
///
/// ```
/// use nimstream::sharded::{analyze_range, read_partials};
/// use nimstream::Options;
///
/// let partial = analyze_range("fixtures/three-four-five.dec".as_ref(), 0..6, &Options::default())?;
/// let dir = tempfile::tempdir().unwrap();
/// let path = dir.path().join("partials.jsonl");
/// std::fs::write(&path, partial.to_json() + "\n").unwrap();
/// assert_eq!(read_partials(&path)?, vec![partial]);
/// # Ok::<(), nimstream::Error>(())
/// ```
pub fn read_partials(path: &Path) -> Result<Vec<Partial>, Error> {
    let stdin = path.as_os_str() == "-";
    let name = match stdin {
        true => "<stdin>".to_string(),
        false => path.display().to_string(),
    };
    let mut text = String::new();
    let read = match stdin {
        true => std::io::stdin().read_to_string(&mut text),
        false => std::fs::File::open(path).and_then(|mut f| f.read_to_string(&mut text)),
    };
    read.map_err(|e| Error::io(&name, e))?;
    parse_partials(&text, &name)
}

/// The partials in `text`, one JSON object a line (blank lines skipped),
/// as [`read_partials`] reads them from a file named `name`.
///
/// ```
/// use nimstream::sharded::{analyze_range, parse_partials};
/// use nimstream::Options;
///
/// let partial = analyze_range("fixtures/three-four-five.dec".as_ref(), 0..6, &Options::default())?;
/// assert_eq!(parse_partials(&partial.to_json(), "partial")?, vec![partial]);
/// assert!(parse_partials("{}", "partial").is_err());
/// # Ok::<(), nimstream::Error>(())
/// ```
pub fn parse_partials(text: &str, name: &str) -> Result<Vec<Partial>, Error> {
    let mut partials = Vec::new();
    let mut offset = 0u64;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        if !line.trim().is_empty() {
            let bad = |message: String| Error::Input {
                path: name.to_string(),
                offset,
                line_col: Some((n as u64 + 1, 1)),
                message,
            };
            let partial: Partial = serde_json::from_str(line)
                .map_err(|e| bad(format!("not a nimstream partial: {e}")))?;
            if partial.nimstream_partial != PARTIAL_VERSION {
                return Err(bad(format!(
                    "a partial of version {}; this nimstream reads version {PARTIAL_VERSION}",
                    partial.nimstream_partial
                )));
            }
            partials.push(partial);
        }
        offset += line.len() as u64;
    }
    Ok(partials)
}
