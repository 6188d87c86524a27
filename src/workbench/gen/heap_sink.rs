//! Where generated heaps go: encoded into a buffered writer that counts its
//! bytes, and XORed into a running nim-sum that becomes the [`Summary`],
//! independently of the analyzer.

use super::{Amount, Summary};
use crate::error::Error;
use crate::input::Format;
use crate::workbench::encode::{self, EncodeError, Magnitude};
use sha2::{Digest, Sha256};
use std::io::{self, BufWriter, Write};

/// Size of the write buffer, in bytes.
const BUFFER_BYTES: usize = 1 << 16;

/// Where heaps go: encoded into a buffered, counted writer, and XORed into
/// the running nim-sum.
pub(super) struct HeapSink<W: Write> {
    out: CountingWriter<BufWriter<W>>,
    name: String,
    format: Format,
    heaps: u64,
    nim_sum: Vec<u64>,
}

impl<W: Write> HeapSink<W> {
    pub(super) fn new(format: Format, out: W, name: &str) -> Result<HeapSink<W>, Error> {
        let mut out = CountingWriter {
            inner: BufWriter::with_capacity(BUFFER_BYTES, out),
            bytes: 0,
        };
        encode::write_header(format, &mut out).map_err(|e| Error::io(name, e))?;
        Ok(HeapSink {
            out,
            name: name.to_string(),
            format,
            heaps: 0,
            nim_sum: Vec::new(),
        })
    }

    /// True while `amount` asks for more heaps, keeping `reserve` heaps
    /// back for the end (a byte amount keeps nothing back).
    pub(super) fn wants_more(&self, amount: Amount, reserve: u64) -> bool {
        match amount {
            Amount::Heaps(n) => self.heaps + reserve < n,
            Amount::Bytes(n) => self.out.bytes < n,
        }
    }

    pub(super) fn write(&mut self, limbs: &[u64]) -> Result<(), Error> {
        encode::write_heap(self.format, limbs, &mut self.out).map_err(|e| match e {
            EncodeError::Io(source) => Error::io(&self.name, source),
            too_large => Error::Usage(format!("heap {}: {too_large}", self.heaps)),
        })?;
        if self.nim_sum.len() < limbs.len() {
            self.nim_sum.resize(limbs.len(), 0);
        }
        for (sum, limb) in self.nim_sum.iter_mut().zip(limbs) {
            *sum ^= limb;
        }
        self.heaps += 1;
        Ok(())
    }

    /// Writes the heap equal to the nim-sum so far, which makes it 0.
    pub(super) fn write_balancing_heap(&mut self) -> Result<(), Error> {
        let balance = self.nim_sum.clone();
        self.write(&balance)
    }

    pub(super) fn finish(mut self) -> Result<Summary, Error> {
        self.out.flush().map_err(|e| Error::io(&self.name, e))?;
        let mut hasher = Sha256::new();
        encode::write_bits(&self.nim_sum[..], &mut hasher)
            .expect("hashing cannot fail to accept bytes");
        Ok(Summary {
            heaps: self.heaps,
            bytes: self.out.bytes,
            nim_sum_bit_length: self.nim_sum[..].bit_length(),
            nim_sum_sha256: hex_digest(&hasher.finalize()),
        })
    }
}

/// Lowercase hex of a digest.
fn hex_digest(digest: &[u8]) -> String {
    digest.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// A writer that counts the bytes it passes on.
struct CountingWriter<W> {
    inner: W,
    bytes: u64,
}

impl<W: Write> Write for CountingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buf)?;
        self.bytes += written as u64;
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
