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
use std::borrow::Cow;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;

/// The first bytes of a checkpoint.
const MAGIC: &[u8] = b"nimstream grundy checkpoint\n";

/// The format number.
const FORMAT: u32 = 1;

/// Everything a checkpoint holds; the kept values borrowed when saving, so
/// that a save copies nothing (a run under `--memory` has no room for a
/// second copy of them).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Checkpoint<'k> {
    /// The canonical game string.
    pub(crate) game: String,
    /// n: the values computed.
    pub(crate) computed: u64,
    /// The seconds spent computing them.
    pub(crate) seconds: f64,
    /// P and R.
    pub(crate) lengths: (u64, u64),
    /// The prefix.
    pub(crate) prefix: Cow<'k, [u16]>,
    /// The ring's values, oldest first.
    pub(crate) ring: Cow<'k, [u16]>,
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

/// Bytes written out through a running SHA-256.
struct Encoder<W: Write> {
    out: W,
    hash: Sha256,
}

impl<W: Write> Encoder<W> {
    fn bytes(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.hash.update(bytes);
        self.out.write_all(bytes)
    }

    fn u64(&mut self, x: u64) -> io::Result<()> {
        self.bytes(&x.to_le_bytes())
    }

    fn optional(&mut self, x: Option<u64>) -> io::Result<()> {
        self.u64(x.map_or(0, |x| x + 1))
    }

    fn text(&mut self, text: &str) -> io::Result<()> {
        self.u64(text.len() as u64)?;
        self.bytes(text.as_bytes())
    }

    fn u16s(&mut self, values: &[u16]) -> io::Result<()> {
        self.u64(values.len() as u64)?;
        for chunk in values.chunks(1 << 12) {
            let bytes: Vec<u8> = chunk.iter().flat_map(|v| v.to_le_bytes()).collect();
            self.bytes(&bytes)?;
        }
        Ok(())
    }

    fn u64s(&mut self, values: &[u64]) -> io::Result<()> {
        self.u64(values.len() as u64)?;
        values.iter().try_for_each(|&v| self.u64(v))
    }
}

/// Bytes read back through a running SHA-256, with the offset for errors
/// and the bytes left to bound a length.
struct Decoder<R: Read> {
    input: R,
    hash: Sha256,
    at: u64,
    left: u64,
}

impl<R: Read> Decoder<R> {
    fn take(&mut self, buffer: &mut [u8]) -> Result<(), String> {
        self.input
            .read_exact(buffer)
            .map_err(|_| format!("offset {}: the file ends early", self.at))?;
        self.hash.update(&*buffer);
        self.at += buffer.len() as u64;
        self.left = self.left.saturating_sub(buffer.len() as u64);
        Ok(())
    }

    fn u64(&mut self) -> Result<u64, String> {
        let mut bytes = [0; 8];
        self.take(&mut bytes)?;
        Ok(u64::from_le_bytes(bytes))
    }

    fn optional(&mut self) -> Result<Option<u64>, String> {
        Ok(self.u64()?.checked_sub(1))
    }

    /// A length, checked against the bytes left (`size` bytes an item).
    fn len(&mut self, size: u64) -> Result<usize, String> {
        let at = self.at;
        let len = self.u64()?;
        usize::try_from(len)
            .ok()
            .filter(|_| len <= self.left / size)
            .ok_or_else(|| format!("offset {at}: a length of {len} past the end of the file"))
    }

    fn text(&mut self) -> Result<String, String> {
        let mut bytes = vec![0; self.len(1)?];
        self.take(&mut bytes)?;
        String::from_utf8(bytes).map_err(|_| "the game is not text".to_string())
    }

    fn u16s(&mut self) -> Result<Vec<u16>, String> {
        let len = self.len(2)?;
        let mut values = Vec::with_capacity(len);
        let mut bytes = vec![0; 2 << 12];
        while values.len() < len {
            let chunk = (len - values.len()).min(1 << 12);
            self.take(&mut bytes[..2 * chunk])?;
            values.extend(
                bytes[..2 * chunk]
                    .chunks_exact(2)
                    .map(|b| u16::from_le_bytes([b[0], b[1]])),
            );
        }
        Ok(values)
    }

    fn u64s(&mut self) -> Result<Vec<u64>, String> {
        let len = self.len(8)?;
        (0..len).map(|_| self.u64()).collect()
    }
}

impl Checkpoint<'_> {
    /// Writes the checkpoint's bytes to `out`, the SHA-256 of them last.
    fn encode(&self, out: impl Write) -> io::Result<()> {
        let mut out = Encoder {
            out,
            hash: Sha256::new(),
        };
        out.bytes(MAGIC)?;
        out.bytes(&FORMAT.to_le_bytes())?;
        out.text(&self.game)?;
        out.u64(self.computed)?;
        out.u64(self.seconds.to_bits())?;
        out.u64(self.lengths.0)?;
        out.u64(self.lengths.1)?;
        out.u16s(&self.prefix)?;
        out.u16s(&self.ring)?;
        match &self.engine {
            None => out.u64(0)?,
            Some(engine) => {
                out.u64(1)?;
                out.u64(engine.value_limit)?;
                out.u64(u64::from(engine.mask))?;
                out.u64s(&engine.rare_heaps)?;
                out.u16s(&engine.rare_values)?;
                out.u64s(&engine.counts)?;
                engine.review.iter().try_for_each(|&x| out.u64(x))?;
            }
        }
        out.u64(self.next_check)?;
        let (counts, last_heap) = self.stats.parts();
        out.u64s(counts)?;
        out.u64s(last_heap)?;
        out.u64s(&self.watched.keys().copied().collect::<Vec<u64>>())?;
        out.u16s(&self.watched.values().copied().collect::<Vec<u16>>())?;
        out.optional(self.positions.values)?;
        out.optional(self.positions.csv)?;
        out.optional(self.positions.frequencies)?;
        let digest = out.hash.finalize();
        out.out.write_all(&digest)?;
        out.out.flush()
    }

    /// The checkpoint in the `len` bytes of `input`, or what is wrong with
    /// them.
    fn decode(input: impl Read, len: u64) -> Result<Checkpoint<'static>, String> {
        let mut input = Decoder {
            input,
            hash: Sha256::new(),
            at: 0,
            left: len
                .checked_sub(32)
                .ok_or("not a nimstream grundy checkpoint")?,
        };
        let mut magic = [0; MAGIC.len()];
        input.take(&mut magic)?;
        if magic != MAGIC {
            return Err("not a nimstream grundy checkpoint".into());
        }
        let mut format = [0; 4];
        input.take(&mut format)?;
        let format = u32::from_le_bytes(format);
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
        if input.left != 0 {
            return Err(format!(
                "offset {}: bytes past the end of the state",
                input.at
            ));
        }
        let mut digest = [0; 32];
        input
            .input
            .read_exact(&mut digest)
            .map_err(|_| "the file ends early".to_string())?;
        if input.hash.finalize()[..] != digest {
            return Err("its checksum does not match: the file is damaged".into());
        }
        Ok(Checkpoint {
            game,
            computed,
            seconds,
            lengths,
            prefix: Cow::Owned(prefix),
            ring: Cow::Owned(ring),
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
        let shown = || path.display().to_string();
        self.encode(BufWriter::with_capacity(1 << 20, &mut file))
            .map_err(|e| Error::io(shown(), e))?;
        file.commit()
    }

    /// The checkpoint in the file at `path`.
    pub(crate) fn load(path: &Path) -> Result<Checkpoint<'static>, Error> {
        let shown = path.display().to_string();
        let file = File::open(path).map_err(|e| Error::io(&shown, e))?;
        let len = file.metadata().map_err(|e| Error::io(&shown, e))?.len();
        Checkpoint::decode(BufReader::with_capacity(1 << 20, file), len)
            .map_err(|why| Error::Usage(format!("{shown}: {why}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Checkpoint<'static> {
        let mut stats = ValueStats::default();
        stats.count(1, 1);
        stats.count(2, 0);
        Checkpoint {
            game: "octal:0.161".into(),
            computed: 12,
            seconds: 0.25,
            lengths: (8, 4),
            prefix: Cow::Owned(vec![0, 1, 0, 2, 1, 0, 2, 1]),
            ring: Cow::Owned(vec![3, 2, 1, 3]),
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

    /// The bytes of `checkpoint`.
    fn encoded(checkpoint: &Checkpoint<'_>) -> Vec<u8> {
        let mut bytes = Vec::new();
        checkpoint.encode(&mut bytes).unwrap();
        bytes
    }

    /// The checkpoint in `bytes`.
    fn decoded(bytes: &[u8]) -> Result<Checkpoint<'static>, String> {
        Checkpoint::decode(bytes, bytes.len() as u64)
    }

    #[test]
    fn a_checkpoint_reads_back_as_written() {
        let checkpoint = sample();
        assert_eq!(decoded(&encoded(&checkpoint)).unwrap(), checkpoint);
        let nim = Checkpoint {
            engine: None,
            ..sample()
        };
        assert_eq!(decoded(&encoded(&nim)).unwrap(), nim);
    }

    #[test]
    fn a_damaged_or_foreign_file_is_refused_saying_why() {
        let bytes = encoded(&sample());
        let mut flipped = bytes.clone();
        flipped[60] ^= 1;
        assert!(decoded(&flipped).unwrap_err().contains("damaged"));
        assert!(decoded(&bytes[..bytes.len() - 1]).is_err());
        assert!(decoded(b"3 4 5\n").unwrap_err().contains("not a nimstream"));
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.checkpoint");
        sample().save(&path).unwrap();
        assert_eq!(Checkpoint::load(&path).unwrap(), sample());
        std::fs::write(&path, b"nimstream grundy checkpoint\nshort").unwrap();
        let error = Checkpoint::load(&path).unwrap_err().to_string();
        assert!(error.contains("run.checkpoint: "), "{error}");
    }
}
