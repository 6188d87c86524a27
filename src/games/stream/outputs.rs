//! The files a streamed run writes as its values are proven: every value
//! (`--values-out`: raw `u16le` for a `.u16` file, else one decimal a line;
//! `--csv`: `heap,grundy` rows) and the frequencies at each power of two
//! (`--frequencies`).
//!
//! A run without checkpoints writes each file through
//! [`AtomicFile`]: it appears when the run ends
//! (with every value proven, also when the run stops short for memory),
//! or not at all. A run that saves checkpoints writes them in place, so
//! that a resumed run can cut each back to the length its checkpoint
//! recorded and go on: the result is the same bytes as a run without a
//! break.

use crate::error::Error;
use crate::output::AtomicFile;
use std::fs::{File, OpenOptions};
use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The write buffer of each output.
const BUFFER_BYTES: usize = 1 << 20;

/// The files a run writes, each optional.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OutputPaths {
    /// Every value, g(0) first: raw `u16le` when the name ends in `.u16`,
    /// else one decimal a line.
    pub values: Option<PathBuf>,
    /// A line `heap,grundy`, then one row for every value.
    pub csv: Option<PathBuf>,
    /// The frequencies of heaps 1 … 2^k at each power of two.
    pub frequencies: Option<PathBuf>,
}

/// How many bytes each output holds, as a checkpoint records them (`None`:
/// not written).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Positions {
    /// The values file.
    pub values: Option<u64>,
    /// The CSV file.
    pub csv: Option<u64>,
    /// The frequencies file.
    pub frequencies: Option<u64>,
}

/// Where an output's bytes go.
enum Destination {
    /// A file that appears whole when the run ends.
    Atomic(BufWriter<AtomicFile>),
    /// A file written in place, which a resumed run goes on with.
    InPlace(BufWriter<File>),
}

/// One output file and how much of it is written.
struct Output {
    path: String,
    destination: Destination,
    written: u64,
}

impl Output {
    /// A new file at `path`, written in place when `in_place`.
    fn create(path: &Path, in_place: bool) -> Result<Output, Error> {
        let shown = path.display().to_string();
        let destination = match in_place {
            true => Destination::InPlace(BufWriter::with_capacity(
                BUFFER_BYTES,
                File::create(path).map_err(|e| Error::io(&shown, e))?,
            )),
            false => Destination::Atomic(BufWriter::with_capacity(
                BUFFER_BYTES,
                AtomicFile::create(path)?,
            )),
        };
        Ok(Output {
            path: shown,
            destination,
            written: 0,
        })
    }

    /// The file at `path` cut back to `length` bytes, written on in place.
    fn reopen(path: &Path, length: u64) -> Result<Output, Error> {
        let shown = path.display().to_string();
        let io = |e| Error::io(&shown, e);
        let mut file = OpenOptions::new().write(true).open(path).map_err(io)?;
        let found = file.metadata().map_err(io)?.len();
        if found < length {
            return Err(Error::Usage(format!(
                "{shown} holds {found} bytes, fewer than the {length} the checkpoint recorded: \
                 it is not the file the interrupted run wrote"
            )));
        }
        file.set_len(length).map_err(io)?;
        file.seek(SeekFrom::End(0)).map_err(io)?;
        Ok(Output {
            path: shown,
            destination: Destination::InPlace(BufWriter::with_capacity(BUFFER_BYTES, file)),
            written: length,
        })
    }

    /// Appends `bytes`.
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        let done = match &mut self.destination {
            Destination::Atomic(writer) => writer.write_all(bytes),
            Destination::InPlace(writer) => writer.write_all(bytes),
        };
        done.map_err(|e| Error::io(&self.path, e))?;
        self.written += bytes.len() as u64;
        Ok(())
    }

    /// Makes every byte written so far durable (a checkpoint counts on
    /// them).
    fn sync(&mut self) -> Result<(), Error> {
        let io = |e| Error::io(&self.path, e);
        match &mut self.destination {
            Destination::Atomic(writer) => writer.flush().map_err(io),
            Destination::InPlace(writer) => {
                writer.flush().map_err(io)?;
                writer.get_ref().sync_data().map_err(io)
            }
        }
    }

    /// Finishes the file: an atomic one appears under its name.
    fn finish(self) -> Result<(), Error> {
        let io = |e: std::io::Error| Error::io(&self.path, e);
        match self.destination {
            Destination::Atomic(writer) => writer
                .into_inner()
                .map_err(|e| io(e.into_error()))?
                .commit(),
            Destination::InPlace(mut writer) => writer.flush().map_err(io),
        }
    }
}

/// The output files of a run.
#[derive(Default)]
pub struct Outputs {
    /// The values file, and whether it is raw `u16le`.
    values: Option<(Output, bool)>,
    csv: Option<Output>,
    frequencies: Option<Output>,
}

/// Whether `path` names a raw `u16le` file.
fn is_u16(path: &Path) -> bool {
    path.extension().is_some_and(|extension| extension == "u16")
}

impl Outputs {
    /// No files.
    pub fn none() -> Outputs {
        Outputs::default()
    }

    /// New files at `paths`, written in place when the run saves
    /// checkpoints (`in_place`), else appearing whole when it ends.
    pub fn create(paths: &OutputPaths, in_place: bool) -> Result<Outputs, Error> {
        let open = |path: &Option<PathBuf>| {
            path.as_deref()
                .map(|p| Output::create(p, in_place))
                .transpose()
        };
        let mut outputs = Outputs {
            values: open(&paths.values)?
                .map(|output| (output, paths.values.as_deref().is_some_and(is_u16))),
            csv: open(&paths.csv)?,
            frequencies: open(&paths.frequencies)?,
        };
        if let Some(csv) = &mut outputs.csv {
            csv.write(b"heap,grundy\n")?;
        }
        Ok(outputs)
    }

    /// The files at `paths` cut back to the lengths a checkpoint recorded,
    /// written on in place. A file asked for that the interrupted run did
    /// not write cannot be resumed.
    pub fn reopen(paths: &OutputPaths, at: &Positions) -> Result<Outputs, Error> {
        let reopen =
            |path: &Option<PathBuf>, length: Option<u64>, option: &str| match (path, length) {
                (None, _) => Ok(None),
                (Some(path), Some(length)) => Output::reopen(path, length).map(Some),
                (Some(_), None) => Err(Error::Usage(format!(
                    "{option} was not written by the run the checkpoint comes from: a resumed run \
                 writes only the outputs the first run did"
                ))),
            };
        Ok(Outputs {
            values: reopen(&paths.values, at.values, "--values-out")?
                .map(|output| (output, paths.values.as_deref().is_some_and(is_u16))),
            csv: reopen(&paths.csv, at.csv, "--csv")?,
            frequencies: reopen(&paths.frequencies, at.frequencies, "--frequencies")?,
        })
    }

    /// Writes g(`heap`) = `value` to the values and CSV files.
    #[inline]
    pub(crate) fn value(&mut self, heap: u64, value: u16) -> Result<(), Error> {
        if let Some((output, raw)) = &mut self.values {
            match raw {
                true => output.write(&value.to_le_bytes())?,
                false => {
                    output.write(itoa::Buffer::new().format(value).as_bytes())?;
                    output.write(b"\n")?;
                }
            }
        }
        if let Some(csv) = &mut self.csv {
            csv.write(itoa::Buffer::new().format(heap).as_bytes())?;
            csv.write(b",")?;
            csv.write(itoa::Buffer::new().format(value).as_bytes())?;
            csv.write(b"\n")?;
        }
        Ok(())
    }

    /// Whether a frequencies file is written.
    pub(crate) fn wants_frequencies(&self) -> bool {
        self.frequencies.is_some()
    }

    /// Appends `text` to the frequencies file.
    pub(crate) fn frequencies(&mut self, text: &str) -> Result<(), Error> {
        match &mut self.frequencies {
            Some(output) => output.write(text.as_bytes()),
            None => Ok(()),
        }
    }

    /// Makes every byte written durable and returns the lengths.
    pub(crate) fn sync(&mut self) -> Result<Positions, Error> {
        for output in self.outputs_mut() {
            output.sync()?;
        }
        Ok(Positions {
            values: self.values.as_ref().map(|(output, _)| output.written),
            csv: self.csv.as_ref().map(|output| output.written),
            frequencies: self.frequencies.as_ref().map(|output| output.written),
        })
    }

    /// Every output, mutably.
    fn outputs_mut(&mut self) -> impl Iterator<Item = &mut Output> {
        let values = self.values.as_mut().map(|(output, _)| output);
        values
            .into_iter()
            .chain(self.csv.as_mut())
            .chain(self.frequencies.as_mut())
    }

    /// Finishes every file.
    pub fn finish(self) -> Result<(), Error> {
        let values = self.values.map(|(output, _)| output);
        for output in values.into_iter().chain(self.csv).chain(self.frequencies) {
            output.finish()?;
        }
        Ok(())
    }
}
