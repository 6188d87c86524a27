//! Python ints read where they lie. The stable ABI (abi3) reaches an
//! int's value only through calls (`int.bit_length`, `int.to_bytes`)
//! that cost several times a whole `functools.reduce(operator.xor, …)`
//! step; CPython, though, has kept one layout of its ints' digits on
//! 64-bit builds from 3.9 to 3.14, which this module reads in place:
//!
//! - a header of 16 bytes (`PyObject_HEAD`: reference count, type);
//! - a signed or tagged size of 8 bytes at offset 16: in 3.9–3.11
//!   `ob_size` of `PyObject_VAR_HEAD`, the digit count times the sign
//!   (`Include/cpython/longintrepr.h` of 3.11); in 3.12–3.14
//!   `long_value.lv_tag`, the digit count shifted left by
//!   `_PyLong_NON_SIZE_BITS` (3) with the sign in its low two bits
//!   (`_PyLong_SIGN_MASK`: 0 positive, 1 zero, 2 negative; the third bit
//!   is reserved for immortality);
//! - the digits from offset 24 (`int.__basicsize__`), least significant
//!   first, each a `uint32_t` holding 30 bits.
//!
//! [`layout`] decides once, from the running interpreter, whether that is
//! its layout (CPython 3.9–3.14, 30-bit digits of 4 bytes, digits at 24,
//! the GIL enabled, a 64-bit little-endian machine), and checks it on
//! known ints against `int.to_bytes` and `int.__sizeof__` before trusting
//! it; on any other interpreter, a failed check, or with
//! `NIMSTREAM_INTS=bytes` in the environment, ints go through
//! `int.to_bytes` as before (`sources::magnitude_of`). Only exact `int`s
//! are read in place: a subclass may lay itself out otherwise.

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

/// Where a size-and-sign word lies in a CPython int, and how it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Layout {
    /// 3.9–3.11: `ob_size`, the digit count negated for negative ints.
    SignedSize,
    /// 3.12–3.14: `lv_tag`, the digit count above three bits of sign and
    /// flags.
    Tagged,
}

/// Byte offset of the size word (after the 16-byte `PyObject_HEAD`).
const SIZE_OFFSET: usize = 16;
/// Byte offset of the first digit (`int.__basicsize__`).
const DIGITS_OFFSET: usize = 24;
/// Bits in a digit (`sys.int_info.bits_per_digit`).
const DIGIT_BITS: u64 = 30;

/// A layout checked on this interpreter's ints: only [`layout`] makes
/// one, so that [`read`], a safe function, reads no object through a
/// layout that was not checked.
#[derive(Clone, Copy, Debug)]
pub struct Checked(Layout);

/// The layout decided for this interpreter, once.
static LAYOUT: PyOnceLock<Option<Checked>> = PyOnceLock::new();

/// The layout of this interpreter's ints, or `None` when they must go
/// through `int.to_bytes`.
pub fn layout(py: Python<'_>) -> Option<Checked> {
    *LAYOUT.get_or_init(py, || {
        let layout = claimed(py).ok().flatten()?;
        verified(py, layout).then_some(Checked(layout))
    })
}

/// `"digits"` when ints are read in place, `"bytes"` when they go through
/// `int.to_bytes` (for the tests).
#[pyfunction]
pub fn int_path(py: Python<'_>) -> &'static str {
    match layout(py) {
        Some(_) => "digits",
        None => "bytes",
    }
}

/// The layout the interpreter's version and parameters claim, before any
/// int is read.
fn claimed(py: Python<'_>) -> PyResult<Option<Layout>> {
    if cfg!(not(all(
        target_pointer_width = "64",
        target_endian = "little"
    ))) || std::env::var_os("NIMSTREAM_INTS").is_some_and(|path| path == "bytes")
    {
        return Ok(None);
    }
    let sys = py.import("sys")?;
    let implementation: String = sys.getattr("implementation")?.getattr("name")?.extract()?;
    let (major, minor): (u32, u32) = sys
        .getattr("version_info")?
        .extract::<(u32, u32, u32, String, u32)>()
        .map(|v| (v.0, v.1))?;
    let int_info = sys.getattr("int_info")?;
    let bits: u64 = int_info.getattr("bits_per_digit")?.extract()?;
    let digit_size: usize = int_info.getattr("sizeof_digit")?.extract()?;
    let int = py.get_type::<pyo3::types::PyInt>();
    let basic_size: usize = int.getattr("__basicsize__")?.extract()?;
    let item_size: usize = int.getattr("__itemsize__")?.extract()?;
    let free_threaded = py
        .import("sysconfig")?
        .call_method1("get_config_var", ("Py_GIL_DISABLED",))?
        .is_truthy()?;
    if implementation != "cpython"
        || major != 3
        || !(9..=14).contains(&minor)
        || bits != DIGIT_BITS
        || digit_size != 4
        || item_size != 4
        || basic_size != DIGITS_OFFSET
        || free_threaded
    {
        return Ok(None);
    }
    Ok(Some(match minor {
        9..=11 => Layout::SignedSize,
        _ => Layout::Tagged,
    }))
}

/// Whether `layout` reads known ints as `int.to_bytes` and
/// `int.__sizeof__` see them. The size word is checked against
/// `__sizeof__` (the digits the object holds) before any digit is read,
/// so a wrong layout is found without reading past an object.
fn verified(py: Python<'_>, layout: Layout) -> bool {
    let known = "[0, 1, 5, 2**30 - 1, 2**30, 2**60, 2**63, 2**64 - 1, 2**64, 2**90 + 1, \
                 2**4000 + 12345, 7**3000, -1, -5, -2**30, -2**4000 - 1]";
    let Ok(known) = py.eval(&std::ffi::CString::new(known).expect("no NUL"), None, None) else {
        return false;
    };
    let Ok(known) = known.try_iter() else {
        return false;
    };
    known
        .into_iter()
        .all(|int| int.is_ok_and(|int| reads_right(&int, layout)))
}

/// Whether `int` reads the same through `layout` as through Python.
fn reads_right(int: &Bound<'_, PyAny>, layout: Layout) -> bool {
    let expected = || -> PyResult<(bool, Vec<u8>, usize)> {
        let negative = int.lt(0)?;
        let magnitude = int.call_method0("__abs__")?;
        let bits: u64 = magnitude.call_method0("bit_length")?.extract()?;
        let bytes = magnitude.call_method1("to_bytes", (bits.div_ceil(8), "little"))?;
        let size: usize = int.call_method0("__sizeof__")?.extract()?;
        Ok((negative, bytes.extract()?, size))
    };
    let Ok((negative, bytes, size)) = expected() else {
        return false;
    };
    let sign_expected = match negative {
        true => Sign::Negative,
        false => Sign::NonNegative,
    };
    // SAFETY: `int` is a live int object (the reference we hold keeps
    // it alive, the GIL is held), at least `int.__basicsize__` = 24 bytes
    // long (checked by `claimed`), so its size word at offset 16 is in
    // bounds.
    let (count, sign) = unsafe { size_word(int.as_ptr(), layout) };
    // `__sizeof__` is the basic size plus the digits held (at least one
    // from 3.12 on, where zero keeps one digit).
    let held = size.checked_sub(DIGITS_OFFSET).map(|bytes| bytes / 4);
    if !(held == Some(count) || (count == 0 && held == Some(1))) || sign != sign_expected {
        return false;
    }
    // SAFETY: as above, and `count` digits are the object's own, as its
    // `__sizeof__` just confirmed.
    let digits = unsafe { digits_at(int.as_ptr(), count) };
    let mut read = Vec::new();
    Digits(digits).append_le_bytes(&mut read);
    read == bytes
}

/// The sign of an int as its size word holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sign {
    NonNegative,
    Negative,
}

/// The digit count and sign in the size word of the int at `int`.
///
/// # Safety
/// `int` points to a live int object of this interpreter, whose layout
/// `layout` is (or, while [`verified`] checks it, at least 24 bytes).
unsafe fn size_word(int: *mut pyo3::ffi::PyObject, layout: Layout) -> (usize, Sign) {
    // SAFETY: the caller's contract: the 8-byte word at offset 16 is
    // inside the object; `read_unaligned` needs no alignment.
    let word = unsafe {
        int.cast::<u8>()
            .add(SIZE_OFFSET)
            .cast::<u64>()
            .read_unaligned()
    };
    match layout {
        Layout::SignedSize => {
            let size = word as i64;
            let sign = if size < 0 {
                Sign::Negative
            } else {
                Sign::NonNegative
            };
            (size.unsigned_abs() as usize, sign)
        }
        Layout::Tagged => {
            let sign = if word & 3 == 2 {
                Sign::Negative
            } else {
                Sign::NonNegative
            };
            ((word >> 3) as usize, sign)
        }
    }
}

/// The `count` digits of the int at `int`.
///
/// # Safety
/// `int` points to a live int object holding `count` digits from offset
/// 24, which stays alive and unchanged for `'a` (ints are immutable).
unsafe fn digits_at<'a>(int: *mut pyo3::ffi::PyObject, count: usize) -> &'a [u32] {
    // SAFETY: the caller's contract; CPython allocates an int's digits
    // aligned for `digit` (uint32_t) right after its 24-byte head.
    unsafe { std::slice::from_raw_parts(int.cast::<u8>().add(DIGITS_OFFSET).cast::<u32>(), count) }
}

/// An int read in place, or `None` when `heap` is not an exact `int`
/// (subclasses and `__index__` objects go through `int.to_bytes`).
pub fn read<'a>(heap: &'a Bound<'_, PyAny>, layout: Checked) -> Option<(Sign, Digits<'a>)> {
    // SAFETY: `heap` is a live object (the reference we hold).
    if unsafe { pyo3::ffi::PyLong_CheckExact(heap.as_ptr()) } == 0 {
        return None;
    }
    // SAFETY: `heap` is an exact int of this interpreter, whose layout
    // `layout` is (decided and checked by [`layout`]), kept alive for 'a
    // by the reference `heap`, read with the GIL held; the digit count
    // comes from the object itself, and CPython allocates that many
    // digits after the head (`_PyLong_New`).
    let (count, sign) = unsafe { size_word(heap.as_ptr(), layout.0) };
    // SAFETY: as above.
    Some((sign, Digits(unsafe { digits_at(heap.as_ptr(), count) })))
}

/// A magnitude as CPython's 30-bit digits, least significant first.
#[derive(Clone, Copy, Debug)]
pub struct Digits<'a>(pub &'a [u32]);

impl Digits<'_> {
    /// The number of bits in the value (0 for zero).
    pub fn bit_length(&self) -> u64 {
        match self.0.iter().rposition(|&digit| digit != 0) {
            Some(top) => DIGIT_BITS * top as u64 + u64::from(32 - self.0[top].leading_zeros()),
            None => 0,
        }
    }

    /// Appends the value's little-endian bytes without high zero bytes
    /// (`bit_length().div_ceil(8)` of them), as `int.to_bytes` gives them.
    ///
    /// Four digits (120 bits) are 15 bytes, written at once (the last
    /// four padded with zero digits, the high zero bytes cut after): a
    /// few instructions a 64-bit limb, where a limb gathered from the
    /// digits under it costs several loads and shifts.
    pub fn append_le_bytes(&self, out: &mut Vec<u8>) {
        let end = out.len() + self.bit_length().div_ceil(8) as usize;
        out.reserve(15 * self.0.len().div_ceil(4));
        let quads = self.0.chunks_exact(4);
        let last = match quads.remainder() {
            [] => None,
            rest => Some(std::array::from_fn(|i| rest.get(i).copied().unwrap_or(0))),
        };
        for quad in quads
            .map(|quad| [quad[0], quad[1], quad[2], quad[3]])
            .chain(last)
        {
            let [a, b, c, d] = quad.map(u64::from);
            let (low, high) = (a | b << 30, c | d << 30);
            let mut bytes = [0; 16];
            bytes[..8].copy_from_slice(&(low | high << 60).to_le_bytes());
            bytes[8..].copy_from_slice(&(high >> 4).to_le_bytes());
            out.extend_from_slice(&bytes[..15]);
        }
        out.truncate(end);
    }
}
