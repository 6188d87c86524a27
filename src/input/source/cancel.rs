//! Stopping an analysis from another thread: a [`Cancel`] flag that the
//! caller raises (the Python package, on Ctrl-C) and the reading polls
//! between pieces of input, so that a run over many gigabytes stops
//! within milliseconds instead of at its end.
//!
//! An analysis given a flag ([`Options::cancel`](crate::Options::cancel))
//! checks it before every positioned read of a file and every piece of a
//! file read from its map in the same sizes (at most a few MiB), before
//! every read of a stream, and, for whole ranges read in place
//! (memory, a map), between pieces of [`CANCEL_PIECE_BYTES`] cut at heap
//! boundaries (a `nimb` input in place, whose records are found only from
//! the start, is one piece). The analysis then fails with an I/O error
//! whose source is [`Cancelled`] ([`Error::is_cancelled`]). An input
//! without a flag (the command line's) is read exactly as before. The
//! entry points of `analyze_path`, `analyze_bytes` and `analyze_reader`
//! take the flag; the sharded runs, updates and game graphs do not.

use crate::error::{Cancelled, Error};
use std::io::{self, Read};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;

/// Bytes read in place between two looks at the flag: a few milliseconds
/// at the speed of the slowest format (4 KiB in the unit tests, so that
/// small inputs are cut into many pieces).
pub const CANCEL_PIECE_BYTES: u64 = if cfg!(test) { 4 << 10 } else { 16 << 20 };

/// A flag that stops the analyses given it; clones share the flag. The
/// default never stops anything and costs nothing.
///
/// ```
/// use nimstream::{analyze_bytes, Cancel, Format, Options};
///
/// let cancel = Cancel::new();
/// let options = Options { cancel: cancel.clone(), ..Options::default() };
/// cancel.cancel(); // from another thread, while the analysis runs
/// let stopped = analyze_bytes(b"3 4 5", Format::Dec, "example", &options).unwrap_err();
/// assert!(stopped.is_cancelled());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Cancel(Option<Arc<AtomicBool>>);

impl Cancel {
    /// A flag not raised yet.
    pub fn new() -> Cancel {
        Cancel(Some(Arc::new(AtomicBool::new(false))))
    }

    /// Raises the flag: every analysis given it (or a clone) stops at its
    /// next look.
    pub fn cancel(&self) {
        if let Some(flag) = &self.0 {
            flag.store(true, Relaxed);
        }
    }

    /// Whether the flag is raised.
    pub fn is_cancelled(&self) -> bool {
        self.0.as_ref().is_some_and(|flag| flag.load(Relaxed))
    }

    /// Whether there is a flag to look at (not the default).
    pub(crate) fn is_armed(&self) -> bool {
        self.0.is_some()
    }

    /// The error of an analysis of `name` stopped by the flag, if it is
    /// raised.
    pub(crate) fn check(&self, name: &str) -> Result<(), Error> {
        match self.is_cancelled() {
            true => Err(Error::io(name, cancelled())),
            false => Ok(()),
        }
    }
}

/// The I/O error a cancelled read returns.
fn cancelled() -> io::Error {
    io::Error::other(Cancelled)
}

/// A stream that looks at the flag before each read.
pub(crate) struct CancellableRead<R> {
    pub(crate) reader: R,
    pub(crate) cancel: Cancel,
}

impl<R: Read> Read for CancellableRead<R> {
    fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
        match self.cancel.is_cancelled() {
            true => Err(cancelled()),
            false => self.reader.read(buffer),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::encode::{write_header, write_heap};
    use crate::{analyze_bytes, analyze_path, analyze_reader, Format, MemoryBudget, Options, Rule};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// About 40 KiB of random heaps in `format` (ten pieces in place).
    fn instance(format: Format, seed: u64) -> Vec<u8> {
        let mut random = ChaCha8Rng::seed_from_u64(seed);
        let mut out = Vec::new();
        write_header(format, &mut out).unwrap();
        let bits = crate::workbench::encode::max_bit_length(format).unwrap_or(300);
        while out.len() < 40 << 10 {
            let limbs: Vec<u64> = (0..bits.div_ceil(64)).map(|_| random.random()).collect();
            let mut value = limbs;
            let keep =
                random.random_range(0..=bits.min(if format == Format::Unary { 6 } else { bits }));
            for (i, limb) in value.iter_mut().enumerate() {
                let low = 64 * i as u64;
                *limb = match keep {
                    k if k >= low + 64 => *limb,
                    k if k > low => *limb & ((1 << (k - low)) - 1),
                    _ => 0,
                };
            }
            write_heap(format, &value[..], &mut out).unwrap();
        }
        out
    }

    /// The report as JSON without its stats.
    fn without_stats(json: String) -> String {
        json[..json.find(r#","stats""#).unwrap()].to_string()
    }

    #[test]
    fn a_flag_never_raised_changes_no_report() {
        let variants = [
            Options::default(),
            Options {
                rule: Rule::Misere,
                ..Options::default()
            },
            Options {
                memory: MemoryBudget::Log,
                ..Options::default()
            },
            Options {
                game: "kayles".parse().unwrap(),
                ..Options::default()
            },
        ];
        for (seed, format) in Format::ALL.into_iter().enumerate() {
            let data = instance(format, seed as u64);
            let file = tempfile::NamedTempFile::new().unwrap();
            std::fs::write(file.path(), &data).unwrap();
            for threads in [1, 3] {
                for variant in &variants {
                    let plain = Options {
                        threads,
                        format: Some(format),
                        ..variant.clone()
                    };
                    let armed = Options {
                        cancel: Cancel::new(),
                        ..plain.clone()
                    };
                    // In memory (read in place), and from a file (a map
                    // read in place by the windowed passes).
                    let reports = |options: &Options| {
                        let bytes = analyze_bytes(&data, format, "t", options).unwrap();
                        let path = analyze_path(file.path(), options).unwrap();
                        [
                            without_stats(bytes.to_json()),
                            without_stats(path.to_json()),
                        ]
                    };
                    assert_eq!(
                        reports(&armed),
                        reports(&plain),
                        "{format:?}, {threads} threads, {variant:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_raised_flag_stops_every_source() {
        let cancel = Cancel::new();
        cancel.cancel();
        let raised = Options {
            cancel,
            ..Options::default()
        };
        let windowed = Options {
            memory: MemoryBudget::Log,
            ..raised.clone()
        };
        for format in Format::ALL {
            let data = instance(format, 7);
            let file = tempfile::NamedTempFile::new().unwrap();
            std::fs::write(file.path(), &data).unwrap();
            let options = Options {
                format: Some(format),
                ..raised.clone()
            };
            let mapped = Options {
                format: Some(format),
                ..windowed.clone()
            };
            let stopped = [
                analyze_bytes(&data, format, "t", &raised),
                analyze_path(file.path(), &options),
                analyze_path(file.path(), &mapped),
                analyze_reader(&mut &data[..], format, "-", &raised),
            ];
            for (source, result) in stopped.into_iter().enumerate() {
                let error = result.unwrap_err();
                assert!(error.is_cancelled(), "{format:?}, source {source}: {error}");
                assert!(error.to_string().ends_with("the analysis was cancelled"));
            }
        }
    }

    #[test]
    fn a_stream_stops_at_the_read_after_the_flag() {
        let data = instance(Format::Hex, 3);
        let cancel = Cancel::new();
        let options = Options {
            cancel: cancel.clone(),
            ..Options::default()
        };
        // The reader raises the flag once it has served its first read.
        struct Raising<'d> {
            data: &'d [u8],
            served: usize,
            cancel: Cancel,
        }
        impl Read for Raising<'_> {
            fn read(&mut self, buffer: &mut [u8]) -> io::Result<usize> {
                if self.served > 0 {
                    self.cancel.cancel();
                }
                let n = self.data.read(buffer)?;
                self.served += n;
                Ok(n)
            }
        }
        let mut reader = Raising {
            data: &data,
            served: 0,
            cancel,
        };
        let error = analyze_reader(&mut reader, Format::Hex, "-", &options).unwrap_err();
        assert!(error.is_cancelled(), "{error}");
        assert!(reader.served < data.len(), "stopped before the end");
    }
}
