//! A streamed run's state in a file, so that an interrupted run can go on
//! (`--checkpoint`, `--resume`).
//!
//! The file is binary, little-endian: a first line naming it, a format
//! number, then the state — the game, the values computed and the time
//! they took, the kept values (prefix and ring) with their lengths, the
//! engine's split (mask, rare heaps, histogram, review schedule), the
//! period search's next check, the counts of each value and the last heap
//! of each, the values of the heaps watched, the lengths of the output
//! files — and a SHA-256 of all that. It is written whole or not at all
//! ([`AtomicFile`]), after the outputs are flushed to disk, so it never
//! counts bytes a file does not hold.

use super::outputs::Positions;
use super::stats::ValueStats;
use crate::error::Error;
use crate::games::rare_common::EngineState;
use crate::output::AtomicFile;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// The first bytes of a checkpoint.
const MAGIC: &[u8] = b"nimstream grundy checkpoint\n";

/// The format number.
const FORMAT: u32 = 1;

/// Everything a checkpoint holds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Checkpoint {
    /// The canonical game string.
    pub(crate) game: String,
    /// n: the values computed.
    pub(crate) computed: u64,
    /// The seconds spent computing them.
    pub(crate) seconds: f64,
    /// P and R.
    pub(crate) lengths: (u64, u64),
    /// The prefix.
    pub(crate) prefix: Vec<u16>,
    /// The ring's values, oldest first.
    pub(crate) ring: Vec<u16>,
    /// The engine's state (`None` for Nim).
    pub(crate) engine: Option<EngineState>,
    /// When the period search checks next.
    pub(crate) next_check: u64,
    /// The counts of each value and the last heap of each.
    pub(crate) stats: ValueStats,
    /// The values of the heaps watched so far.
    pub(crate) watched: BTreeMap<u64, u16>,
    /// The lengths of the output files.
    pub(crate) positions: Positions,
}

/// Bytes being put together.
#[derive(Default)]
struct Encoder(Vec<u8>);

impl Encoder {
    fn u64(&mut self, x: u64) {
        self.0.extend_from_slice(&x.to_le_bytes());
    }

    fn optional(&mut self, x: Option<u64>) {
        self.u64(x.map_or(0, |x| x + 1));
    }

    fn text(&mut self, text: &str) {
        self.u64(text.len() as u64);
        self.0.extend_from_slice(text.as_bytes());
    }

    fn u16s(&mut self, values: &[u16]) {
        self.u64(values.len() as u64);
        self.0.reserve(2 * values.len());
        values
            .iter()
            .for_each(|v| self.0.extend_from_slice(&v.to_le_bytes()));
    }

    fn u64s(&mut self, values: &[u64]) {
        self.u64(values.len() as u64);
        values.iter().for_each(|&v| self.u64(v));
    }
}

/// Bytes being read back, with the offset for errors.
struct Decoder<'b> {
    bytes: &'b [u8],
    at: usize,
}

impl Decoder<'_> {
    fn take(&mut self, len: usize) -> Result<&[u8], String> {
        let end = self
            .at
            .checked_add(len)
            .filter(|&end| end <= self.bytes.len());
        let end = end.ok_or_else(|| format!("offset {}: the file ends early", self.at))?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }

    fn optional(&mut self) -> Result<Option<u64>, String> {
        Ok(self.u64()?.checked_sub(1))
    }

    /// A length, checked against the bytes left (`size` bytes an item).
    fn len(&mut self, size: usize) -> Result<usize, String> {
        let at = self.at;
        let len = self.u64()?;
        let left = (self.bytes.len() - self.at) / size;
        usize::try_from(len)
            .ok()
            .filter(|&len| len <= left)
            .ok_or_else(|| format!("offset {at}: a length of {len} past the end of the file"))
    }

    fn text(&mut self) -> Result<String, String> {
        let len = self.len(1)?;
        let bytes = self.take(len)?.to_vec();
        String::from_utf8(bytes).map_err(|_| "the game is not text".to_string())
    }

    fn u16s(&mut self) -> Result<Vec<u16>, String> {
        let len = self.len(2)?;
        let bytes = self.take(2 * len)?;
        Ok(bytes
            .chunks_exact(2)
            .map(|b| u16::from_le_bytes([b[0], b[1]]))
            .collect())
    }

    fn u64s(&mut self) -> Result<Vec<u64>, String> {
        let len = self.len(8)?;
        (0..len).map(|_| self.u64()).collect()
    }
}

impl Checkpoint {
    /// The file's bytes.
    fn encode(&self) -> Vec<u8> {
        let mut out = Encoder::default();
        out.0.extend_from_slice(MAGIC);
        out.0.extend_from_slice(&FORMAT.to_le_bytes());
        out.text(&self.game);
        out.u64(self.computed);
        out.u64(self.seconds.to_bits());
        out.u64(self.lengths.0);
        out.u64(self.lengths.1);
        out.u16s(&self.prefix);
        out.u16s(&self.ring);
        match &self.engine {
            None => out.u64(0),
            Some(engine) => {
                out.u64(1);
                out.u64(engine.value_limit);
                out.u64(u64::from(engine.mask));
                out.u64s(&engine.rare_heaps);
                out.u16s(&engine.rare_values);
                out.u64s(&engine.counts);
                engine.review.iter().for_each(|&x| out.u64(x));
            }
        }
        out.u64(self.next_check);
        let (counts, last_heap) = self.stats.parts();
        out.u64s(counts);
        out.u64s(last_heap);
        out.u64s(&self.watched.keys().copied().collect::<Vec<u64>>());
        out.u16s(&self.watched.values().copied().collect::<Vec<u16>>());
        out.optional(self.positions.values);
        out.optional(self.positions.csv);
        out.optional(self.positions.frequencies);
        let digest = Sha256::digest(&out.0);
        out.0.extend_from_slice(&digest);
        out.0
    }

    /// The checkpoint in `bytes`, or what is wrong with them.
    fn decode(bytes: &[u8]) -> Result<Checkpoint, String> {
        let body_len = bytes
            .len()
            .checked_sub(32)
            .filter(|_| bytes.starts_with(MAGIC))
            .ok_or("not a nimstream grundy checkpoint")?;
        let (body, digest) = bytes.split_at(body_len);
        if Sha256::digest(body)[..] != *digest {
            return Err("its checksum does not match: the file is damaged".into());
        }
        let mut input = Decoder {
            bytes: body,
            at: MAGIC.len(),
        };
        let format = u32::from_le_bytes(input.take(4)?.try_into().expect("4 bytes"));
        if format != FORMAT {
            return Err(format!(
                "format {format}, but this nimstream reads format {FORMAT}"
            ));
        }
        let game = input.text()?;
        let computed = input.u64()?;
        let seconds = f64::from_bits(input.u64()?);
        let lengths = (input.u64()?, input.u64()?);
        let prefix = input.u16s()?;
        let ring = input.u16s()?;
        let engine = match input.u64()? {
            0 => None,
            _ => Some(EngineState {
                value_limit: input.u64()?,
                mask: input.u64()? as u16,
                rare_heaps: input.u64s()?,
                rare_values: input.u16s()?,
                counts: input.u64s()?,
                review: [input.u64()?, input.u64()?, input.u64()?],
            }),
        };
        let next_check = input.u64()?;
        let counts = input.u64s()?;
        let last_heap = input.u64s()?;
        if counts.len() != last_heap.len() {
            return Err("the counts and last heaps differ in length".into());
        }
        let heaps = input.u64s()?;
        let values = input.u16s()?;
        if heaps.len() != values.len() {
            return Err("the heaps watched and their values differ in number".into());
        }
        let positions = Positions {
            values: input.optional()?,
            csv: input.optional()?,
            frequencies: input.optional()?,
        };
        if input.at != body.len() {
            return Err(format!(
                "offset {}: bytes past the end of the state",
                input.at
            ));
        }
        Ok(Checkpoint {
            game,
            computed,
            seconds,
            lengths,
            prefix,
            ring,
            engine,
            next_check,
            stats: ValueStats::from_parts(counts, last_heap),
            watched: heaps.into_iter().zip(values).collect(),
            positions,
        })
    }

    /// Writes the checkpoint to `path`, whole or not at all.
    pub(crate) fn save(&self, path: &Path) -> Result<(), Error> {
        let mut file = AtomicFile::create(path)?;
        file.write_all(&self.encode())
            .map_err(|e| Error::io(path.display().to_string(), e))?;
        file.commit()
    }

    /// The checkpoint in the file at `path`.
    pub(crate) fn load(path: &Path) -> Result<Checkpoint, Error> {
        let shown = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| Error::io(&shown, e))?;
        Checkpoint::decode(&bytes).map_err(|why| Error::Usage(format!("{shown}: {why}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Checkpoint {
        let mut stats = ValueStats::default();
        stats.count(1, 1);
        stats.count(2, 0);
        Checkpoint {
            game: "octal:0.161".into(),
            computed: 12,
            seconds: 0.25,
            lengths: (8, 4),
            prefix: vec![0, 1, 0, 2, 1, 0, 2, 1],
            ring: vec![3, 2, 1, 3],
            engine: Some(EngineState {
                value_limit: 4,
                mask: 0xFFFE,
                rare_heaps: vec![1, 2],
                rare_values: vec![1, 0],
                counts: vec![4, 4, 2, 2],
                review: [256, 2, 10],
            }),
            next_check: 40,
            stats,
            watched: [(3, 2), (9, 2)].into_iter().collect(),
            positions: Positions {
                values: Some(24),
                csv: None,
                frequencies: Some(0),
            },
        }
    }

    #[test]
    fn a_checkpoint_reads_back_as_written() {
        let checkpoint = sample();
        assert_eq!(
            Checkpoint::decode(&checkpoint.encode()).unwrap(),
            checkpoint
        );
        let nim = Checkpoint {
            engine: None,
            ..sample()
        };
        assert_eq!(Checkpoint::decode(&nim.encode()).unwrap(), nim);
    }

    #[test]
    fn a_damaged_or_foreign_file_is_refused_saying_why() {
        let bytes = sample().encode();
        let mut flipped = bytes.clone();
        flipped[60] ^= 1;
        assert!(Checkpoint::decode(&flipped)
            .unwrap_err()
            .contains("damaged"));
        assert!(Checkpoint::decode(&bytes[..bytes.len() - 1]).is_err());
        assert!(Checkpoint::decode(b"3 4 5\n")
            .unwrap_err()
            .contains("not a nimstream"));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.checkpoint");
        sample().save(&path).unwrap();
        assert_eq!(Checkpoint::load(&path).unwrap(), sample());
        std::fs::write(&path, b"nimstream grundy checkpoint\nshort").unwrap();
        let error = Checkpoint::load(&path).unwrap_err().to_string();
        assert!(error.contains("run.checkpoint: "), "{error}");
    }
}
