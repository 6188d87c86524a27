//! The sources of `analyze`: a path, `bytes`, a numpy array of unsigned
//! integers read in place (no copy), and Python ints of any size: a list
//! or tuple of them under Nim read in place, twice (the crate's
//! `analyze_held`), any other iterable streamed into the crate as `nimb`
//! records. Each returns the report as the CLI's `--json` prints it.

use crate::digits::{self, Digits, Sign};
use crate::run::{interruptible, usage};
use crate::settings::Settings;
use nimstream::arch::prefetch::prefetch_address;
use nimstream::games::Game;
use nimstream::workbench::encode::{
    write_header, write_heap, write_leb128, EncodeError, Magnitude,
};
use nimstream::{analyze_bytes as crate_bytes, analyze_path as crate_path, analyze_reader};
use nimstream::{analyze_held, Cancel, Format, HeldHeaps, MemoryBudget, Options, Reads};
use numpy::{
    PyArrayDescrMethods, PyArrayMethods, PyReadonlyArrayDyn, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyInt, PyIterator, PyList, PyTuple};
use std::io::{self, Read};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

/// The options of `settings`, with a cancel flag of their own.
fn cancellable(settings: &Settings) -> (Options, Cancel) {
    let cancel = Cancel::new();
    let options = Options {
        cancel: cancel.clone(),
        ..settings.options.clone()
    };
    (options, cancel)
}

/// The name of a source in the report and in errors.
fn name_of(settings: &Settings, default: &str) -> String {
    settings.name.clone().unwrap_or_else(|| default.to_string())
}

/// `analyze(path)`: the file at `path` (`-` is standard input).
#[pyfunction]
pub fn analyze_path(py: Python<'_>, path: PathBuf, settings: &Settings) -> PyResult<String> {
    let (options, cancel) = cancellable(settings);
    interruptible(py, &cancel, || Ok(crate_path(&path, &options)?.to_json()))
}

/// `analyze(data, format=…)`: bytes in memory, read in place.
#[pyfunction]
pub fn analyze_bytes(
    py: Python<'_>,
    data: &Bound<'_, PyBytes>,
    settings: &Settings,
) -> PyResult<String> {
    let format = settings.options.format.ok_or_else(|| {
        usage("analyzing bytes needs format= (bits, hex, dec, unary, u8, u16le, u32le, u64le or nimb)")
    })?;
    let (options, cancel) = cancellable(settings);
    let name = name_of(settings, "<bytes>");
    let data = data.as_bytes();
    interruptible(py, &cancel, || {
        Ok(crate_bytes(data, format, &name, &options)?.to_json())
    })
}

/// The bytes of a C-contiguous array of `T`, little-endian on this
/// machine (the raw formats are little-endian).
fn array_bytes<'a, T: numpy::Element>(array: &'a PyReadonlyArrayDyn<'_, T>) -> PyResult<&'a [u8]> {
    let elements = array
        .as_slice()
        .map_err(|_| usage("the array is not C-contiguous: pass numpy.ascontiguousarray(a)"))?;
    // SAFETY: the slice's elements are unsigned integers of
    // size_of::<T>() bytes with no padding, so its memory is exactly
    // size_of_val(elements) initialised bytes, which live as long as the
    // borrow of the array (the read-only borrow keeps Rust writers away).
    Ok(unsafe {
        std::slice::from_raw_parts(
            elements.as_ptr().cast::<u8>(),
            std::mem::size_of_val(elements),
        )
    })
}

/// `analyze(array)`: a numpy array of `uint8`, `uint16`, `uint32` or
/// `uint64`, read in place as `u8`, `u16le`, `u32le` or `u64le`; `format=`,
/// when given, is the array's raw bytes' format (`uint8` arrays of text).
#[pyfunction]
pub fn analyze_array(
    py: Python<'_>,
    array: &Bound<'_, PyUntypedArray>,
    settings: &Settings,
) -> PyResult<String> {
    if cfg!(target_endian = "big") {
        return Err(usage(
            "numpy arrays are read as little-endian; this machine is big-endian",
        ));
    }
    if !array.dtype().is_native_byteorder().unwrap_or(true) {
        return Err(usage(
            "the array is not in this machine's byte order: pass a.astype(a.dtype.newbyteorder('='))",
        ));
    }
    let width = array.dtype().itemsize();
    let implied = match (array.dtype().kind(), width) {
        (b'u', 1) => Format::U8,
        (b'u', 2) => Format::U16le,
        (b'u', 4) => Format::U32le,
        (b'u', 8) => Format::U64le,
        _ => {
            return Err(usage(format!(
                "arrays of {} cannot be heaps: expected uint8, uint16, uint32 or uint64 \
                 (heaps are non-negative; convert with a.astype(numpy.uint64))",
                array.dtype()
            )))
        }
    };
    let format = match settings.options.format {
        None => implied,
        Some(asked) if asked == implied || width == 1 => asked,
        Some(asked) => {
            return Err(usage(format!(
                "format={} does not match an array of {}, which is {}",
                asked.name(),
                array.dtype(),
                implied.name()
            )))
        }
    };
    let (options, cancel) = cancellable(settings);
    let name = name_of(settings, "<array>");
    let analyze = |data: &[u8]| {
        interruptible(py, &cancel, || {
            Ok(crate_bytes(data, format, &name, &options)?.to_json())
        })
    };
    match width {
        1 => analyze(array_bytes(
            &array.cast::<numpy::PyArrayDyn<u8>>()?.readonly(),
        )?),
        2 => analyze(array_bytes(
            &array.cast::<numpy::PyArrayDyn<u16>>()?.readonly(),
        )?),
        4 => analyze(array_bytes(
            &array.cast::<numpy::PyArrayDyn<u32>>()?.readonly(),
        )?),
        _ => analyze(array_bytes(
            &array.cast::<numpy::PyArrayDyn<u64>>()?.readonly(),
        )?),
    }
}

/// `analyze(iterable)`: Python ints of any size. A list or tuple under
/// Nim (and the default memory budget) is read in place ([`held_ints`]);
/// any other iterable is streamed in one pass (never held whole). Two threads share the work: this
/// one, holding the GIL, encodes the ints as `nimb` records a batch at a
/// time and looks for Ctrl-C between batches; a worker, without the GIL,
/// analyzes the batches as one stream (at most [`BATCHES_AHEAD`] wait)
/// and hands each read batch back to be refilled, so that the same few
/// buffers go round (a new one would cost its pages' faults each time).
#[pyfunction]
pub fn analyze_ints(
    py: Python<'_>,
    heaps: &Bound<'_, PyAny>,
    settings: &Settings,
) -> PyResult<String> {
    if settings.options.format.is_some_and(|f| f != Format::Nimb) {
        return Err(usage(
            "an iterable of ints has no format: leave format= out",
        ));
    }
    let options = &settings.options;
    let sequence =
        heaps.is_exact_instance_of::<PyList>() || heaps.is_exact_instance_of::<PyTuple>();
    if sequence && options.game == Game::Nim && options.memory == MemoryBudget::default() {
        return held_ints(py, heaps, &name_of(settings, "<ints>"), options);
    }
    let mut heaps = heaps.try_iter().map_err(|_| {
        PyTypeError::new_err(format!(
            "cannot analyze a {}: expected a path, bytes, a numpy array or an iterable of ints",
            heaps
                .get_type()
                .name()
                .map_or_else(|_| "?".to_string(), |n| n.to_string())
        ))
    })?;
    let (options, cancel) = cancellable(settings);
    let name = name_of(settings, "<ints>");
    let (batches, received) = sync_channel::<Vec<u8>>(BATCHES_AHEAD);
    let (read, emptied) = sync_channel::<Vec<u8>>(BATCHES_AHEAD + 2);
    let (report, failure) = std::thread::scope(|scope| {
        let worker = scope.spawn(|| {
            let mut reader = Batches {
                received,
                read,
                batch: Vec::new(),
                at: 0,
            };
            let analyzed = catch_unwind(AssertUnwindSafe(|| {
                analyze_reader(&mut reader, Format::Nimb, &name, &options)
            }));
            analyzed.map(|report| report.map(|report| report.to_json()))
        });
        let failure = send_batches(py, &mut heaps, &name, &batches, &emptied);
        if failure.is_some() {
            cancel.cancel();
        }
        drop(batches);
        let report = py.detach(|| worker.join().unwrap_or_else(Err));
        (report, failure)
    });
    if let Some(failure) = failure {
        return Err(failure);
    }
    match report {
        Ok(report) => report.map_err(|error| crate::run::to_python(py, error)),
        Err(panic) => Err(crate::run::internal(panic)),
    }
}

/// A list or tuple of ints analyzed as Nim where they lie, with the GIL
/// held throughout (the list must not change under the analysis; its
/// ints, immutable, are read without a copy): the crate's
/// [`analyze_held`] reads CPython's 30-bit digits in two passes, the
/// nim-sum, then the holders of its msb. Ctrl-C is looked for every
/// [`SIGNAL_EVERY`] ints.
fn held_ints(
    py: Python<'_>,
    heaps: &Bound<'_, PyAny>,
    name: &str,
    options: &Options,
) -> PyResult<String> {
    let mut held = HeldInts {
        heaps,
        name,
        scratch: Vec::new(),
    };
    let analyzed = catch_unwind(AssertUnwindSafe(|| analyze_held(&mut held, name, options)));
    match analyzed {
        Ok(Ok(report)) => Ok(report.to_json()),
        Ok(Err(Failure::Python(error))) => Err(error),
        Ok(Err(Failure::Analysis(error))) => Err(crate::run::to_python(py, error)),
        Err(panic) => Err(crate::run::internal(panic)),
    }
}

/// How many ints are read between two looks for Ctrl-C.
const SIGNAL_EVERY: usize = 1 << 16;

/// A list or tuple of ints as the crate's [`HeldHeaps`]: CPython's
/// digits in place ([`crate::digits`]), other ints (another interpreter,
/// `__index__` objects) turned into 30-bit digits in `scratch`.
struct HeldInts<'a, 'py> {
    heaps: &'a Bound<'py, PyAny>,
    name: &'a str,
    scratch: Vec<u32>,
}

/// Why reading held ints stopped: a Python exception (a heap that is not
/// a non-negative int, Ctrl-C), or the crate's error.
enum Failure {
    Python(PyErr),
    Analysis(nimstream::Error),
}

impl From<nimstream::Error> for Failure {
    fn from(error: nimstream::Error) -> Failure {
        Failure::Analysis(error)
    }
}

impl From<PyErr> for Failure {
    fn from(error: PyErr) -> Failure {
        Failure::Python(error)
    }
}

impl HeldHeaps for HeldInts<'_, '_> {
    type Error = Failure;

    fn digit_bits(&self) -> u32 {
        digits::DIGIT_BITS
    }

    fn each(&mut self, reads: Reads, mut visit: impl FnMut(&[u32])) -> Result<(), Failure> {
        let py = self.heaps.py();
        let (Some(ints), Some(items)) = (digits::layout(py), digits::items_layout(py)) else {
            let heaps = self.heaps.try_iter()?;
            for (index, heap) in heaps.enumerate() {
                if index % SIGNAL_EVERY == 0 {
                    py.check_signals()?;
                }
                self.visit_bound(&heap?, index, &mut visit)?;
            }
            return Ok(());
        };
        // The list's items in place, each read afresh (its length and
        // items may change whenever Python code runs: a signal handler,
        // an `__index__`).
        for index in 0.. {
            if index % SIGNAL_EVERY == 0 {
                py.check_signals()?;
            }
            let Some(heap) = digits::item(self.heaps, items, index) else {
                return Ok(());
            };
            if let Some(ahead) = digits::item(self.heaps, items, index + 2 * FETCH_AHEAD) {
                prefetch_address(ahead);
            }
            if reads == Reads::Digits {
                if let Some(ahead) = digits::item(self.heaps, items, index + FETCH_AHEAD) {
                    // SAFETY: an item of the list, which holds a reference.
                    unsafe { digits::prefetch_digits(ahead, ints) };
                }
            }
            // SAFETY: `heap` is an item of the list, which holds a
            // reference to it; no Python code runs before `visit` returns.
            match unsafe { digits::read_object(heap, ints) } {
                Some((Sign::NonNegative, digits)) => visit(digits.0),
                _ => {
                    // SAFETY: as above; the new reference keeps the int
                    // alive while Python code runs.
                    let heap = unsafe { Bound::from_borrowed_ptr(py, heap) };
                    self.visit_bound(&heap, index, &mut visit)?;
                }
            }
        }
        unreachable!("a list is shorter than usize::MAX")
    }
}

/// How far ahead a walk over a list fetches the ints: an int's head is a
/// cache miss (each is an object of its own), and the walk reads one in a
/// few tens of nanoseconds. The head of the int `2 * FETCH_AHEAD` ahead
/// is asked for, and the digits of the one `FETCH_AHEAD` ahead, whose
/// head (its length) has arrived by then.
const FETCH_AHEAD: usize = 8;

impl HeldInts<'_, '_> {
    /// Visits `heap`, the `index`-th, as [`magnitude_of`] reads it: in
    /// place, or through Python as 30-bit digits in `scratch`.
    fn visit_bound(
        &mut self,
        heap: &Bound<'_, PyAny>,
        index: usize,
        visit: &mut impl FnMut(&[u32]),
    ) -> Result<(), Failure> {
        match magnitude_of(heap, index as u64, self.name)? {
            IntMagnitude::Digits(digits) => visit(digits.0),
            other => {
                digits::from_limbs(&other.limbs(), &mut self.scratch);
                visit(&self.scratch)
            }
        }
        Ok(())
    }
}

/// Batches of records the encoder may be ahead of the analysis.
const BATCHES_AHEAD: usize = 2;

/// Bytes of `nimb` records encoded in a batch.
const BATCH_BYTES: usize = 1 << 20;

/// A batch's capacity: its last record may start just below
/// [`BATCH_BYTES`], and a batch that must grow copies itself.
const BATCH_CAPACITY: usize = 2 * BATCH_BYTES;

/// Encodes the ints of `heaps` into batches (the header first; a batch
/// the worker has read and sent back to `emptied`, or a new one) and sends
/// them, until the iterator ends or the worker stops taking them; looks
/// for Ctrl-C after each. Returns the Python error that stopped it: a
/// value that is not an int, a negative int, the iterator's own
/// exception, or the signal's.
fn send_batches(
    py: Python<'_>,
    heaps: &mut Bound<'_, PyIterator>,
    name: &str,
    batches: &SyncSender<Vec<u8>>,
    emptied: &Receiver<Vec<u8>>,
) -> Option<PyErr> {
    let mut batch = Vec::with_capacity(BATCH_CAPACITY);
    write_header(Format::Nimb, &mut batch).expect("a Vec takes the header");
    let mut index = 0u64;
    let mut ended = false;
    while !ended {
        while batch.len() < BATCH_BYTES {
            let written = match heaps.next() {
                None => {
                    ended = true;
                    break;
                }
                Some(heap) => heap.and_then(|heap| write_int(&heap, index, name, &mut batch)),
            };
            if let Err(failure) = written {
                return Some(failure);
            }
            index += 1;
        }
        if let Err(signal) = py.check_signals() {
            return Some(signal);
        }
        let next = match emptied.try_recv() {
            Ok(mut read) => {
                read.clear();
                read
            }
            Err(_) => Vec::with_capacity(BATCH_CAPACITY),
        };
        let full = std::mem::replace(&mut batch, next);
        if py.detach(|| batches.send(full)).is_err() {
            // The analysis stopped (bad input cannot be: the records are
            // well formed; a panic comes back from the worker).
            return None;
        }
    }
    None
}

/// The batches of records as one `nimb` stream; each, once read, goes
/// back to the encoder on `read` (or is dropped when `read` is full).
struct Batches {
    received: Receiver<Vec<u8>>,
    read: SyncSender<Vec<u8>>,
    batch: Vec<u8>,
    at: usize,
}

impl Read for Batches {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.at == self.batch.len() {
            match self.received.recv() {
                Ok(batch) => {
                    let read = std::mem::replace(&mut self.batch, batch);
                    if read.capacity() > 0 {
                        let _ = self.read.try_send(read);
                    }
                    self.at = 0;
                }
                Err(_) => return Ok(0),
            }
        }
        let n = out.len().min(self.batch.len() - self.at);
        out[..n].copy_from_slice(&self.batch[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

/// A non-negative Python int's magnitude: its digits in place (an exact
/// `int` on CPython, [`crate::digits`]), a word, or its little-endian
/// bytes.
pub enum IntMagnitude<'a> {
    Digits(Digits<'a>),
    Word(u64),
    Bytes(Bound<'a, PyBytes>),
}

impl IntMagnitude<'_> {
    /// The magnitude as little-endian 64-bit limbs, without high zero
    /// limbs.
    pub fn limbs(&self) -> Vec<u64> {
        let bytes = match self {
            IntMagnitude::Word(word) => return vec![*word],
            IntMagnitude::Bytes(bytes) => bytes.as_bytes(),
            IntMagnitude::Digits(digits) => &{
                let mut bytes = Vec::new();
                digits.append_le_bytes(&mut bytes);
                bytes
            },
        };
        (0..bytes.bit_length().div_ceil(64))
            .map(|i| bytes.limb(i))
            .collect()
    }
}

/// The magnitude of `heap`, the `index`-th int of the source `name`. An
/// exact `int` is read in place where [`crate::digits::layout`] allows;
/// otherwise an int below 2^63 is read in one call, a longer one through
/// `int.to_bytes` (the stable ABI has no faster way to its digits).
/// Objects with `__index__` (numpy integers) are taken as ints.
pub fn magnitude_of<'a>(
    heap: &'a Bound<'_, PyAny>,
    index: u64,
    name: &str,
) -> PyResult<IntMagnitude<'a>> {
    let py = heap.py();
    if let Some((sign, digits)) = digits::layout(py).and_then(|layout| digits::read(heap, layout)) {
        return match sign {
            Sign::NonNegative => Ok(IntMagnitude::Digits(digits)),
            Sign::Negative => Err(negative(py, heap, index, name)),
        };
    }
    let owned;
    let heap = match heap.is_instance_of::<PyInt>() {
        true => heap,
        false => {
            owned = index_of(heap, index)?;
            &owned
        }
    };
    let mut overflow = 0;
    // SAFETY: `heap` is a live int and `overflow` a valid out-pointer.
    let small = unsafe { pyo3::ffi::PyLong_AsLongLongAndOverflow(heap.as_ptr(), &mut overflow) };
    if small == -1 && overflow == 0 {
        if let Some(error) = PyErr::take(py) {
            return Err(error);
        }
    }
    if overflow < 0 || (overflow == 0 && small < 0) {
        return Err(negative(py, heap, index, name));
    }
    if overflow == 0 {
        return Ok(IntMagnitude::Word(small as u64));
    }
    let bits: u64 = heap
        .call_method0(pyo3::intern!(py, "bit_length"))?
        .extract()?;
    let little = pyo3::intern!(py, "little");
    let bytes = heap.call_method1(pyo3::intern!(py, "to_bytes"), (bits.div_ceil(8), little))?;
    Ok(IntMagnitude::Bytes(bytes.cast_into::<PyBytes>()?))
}

/// Appends `heap`, the `index`-th int of the source `name`, to `out` as
/// a `nimb` record.
fn write_int(heap: &Bound<'_, PyAny>, index: u64, name: &str, out: &mut Vec<u8>) -> PyResult<()> {
    let written = match magnitude_of(heap, index, name)? {
        IntMagnitude::Digits(digits) => write_leb128(digits.bit_length().div_ceil(8), out)
            .map(|()| digits.append_le_bytes(out))
            .map_err(EncodeError::from),
        IntMagnitude::Word(word) => write_heap(Format::Nimb, &[word][..], out),
        IntMagnitude::Bytes(bytes) => write_heap(Format::Nimb, bytes.as_bytes(), out),
    };
    written.map_err(|e| PyValueError::new_err(e.to_string()))
}

/// `heap` as an int through `__index__`, or a `TypeError` naming it.
fn index_of<'py>(heap: &Bound<'py, PyAny>, index: u64) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: `heap` is a live object; PyNumber_Index returns a new
    // reference or NULL with an exception set, which from_owned_ptr_or_err
    // takes.
    unsafe { Bound::from_owned_ptr_or_err(heap.py(), pyo3::ffi::PyNumber_Index(heap.as_ptr())) }
        .map_err(|_| {
            let kind = heap
                .get_type()
                .name()
                .map_or_else(|_| "?".to_string(), |n| n.to_string());
            PyTypeError::new_err(format!("heap {index} is a {kind}, not an int"))
        })
}

/// The `InputError` of a negative heap: its index stands for the offset.
fn negative(py: Python<'_>, heap: &Bound<'_, PyAny>, index: u64, name: &str) -> PyErr {
    let error = nimstream::Error::Input {
        path: name.to_string(),
        offset: index,
        line_col: None,
        message: format!("heap {index} is negative ({heap}): heaps are non-negative"),
    };
    crate::run::to_python(py, error)
}

/// Every int of `heaps` as a `nimb` instance in memory (the heaps of a
/// `Position`).
pub fn ints_as_nimb(heaps: &Bound<'_, PyAny>, name: &str) -> PyResult<Vec<u8>> {
    let mut out = Vec::new();
    write_header(Format::Nimb, &mut out).expect("a Vec takes the header");
    for (index, heap) in heaps.try_iter()?.enumerate() {
        write_int(&heap?, index as u64, name, &mut out)?;
    }
    Ok(out)
}
