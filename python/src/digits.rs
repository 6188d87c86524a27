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
//!
//! The items of an exact list or tuple are read in place too ([`item`]),
//! where [`items_layout`] finds them as CPython 3.9–3.14 lays them out
//! (`Include/cpython/listobject.h`, `tupleobject.h`): after the 24 bytes
//! of `PyObject_VAR_HEAD`, whose `ob_size` at offset 16 is the length, a
//! list has the pointer `ob_item` to its items, a tuple the items
//! themselves from `tuple.__basicsize__` on (24, or 32 where 3.14 caches
//! the hash before them). Checked on a known list and tuple against
//! `id()`, as the ints are; a walk over a list of ints then costs no
//! reference count and no iterator call per int, and can fetch the ints
//! ahead of their reading.

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
pub const DIGIT_BITS: u32 = 30;

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

/// `"items"` when the items of lists and tuples are read in place,
/// `"iterator"` when they are iterated (for the tests).
#[pyfunction]
pub fn items_path(py: Python<'_>) -> &'static str {
    match items_layout(py) {
        Some(_) => "items",
        None => "iterator",
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
        || bits != u64::from(DIGIT_BITS)
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
    // SAFETY: `heap` is a live object, kept alive for 'a by the reference
    // `heap` (ints are immutable).
    unsafe { read_object(heap.as_ptr(), layout) }
}

/// A magnitude as CPython's 30-bit digits, least significant first.
#[derive(Clone, Copy, Debug)]
pub struct Digits<'a>(pub &'a [u32]);

impl Digits<'_> {
    /// The number of bits in the value (0 for zero).
    pub fn bit_length(&self) -> u64 {
        match self.0.iter().rposition(|&digit| digit != 0) {
            Some(top) => {
                u64::from(DIGIT_BITS) * top as u64 + u64::from(32 - self.0[top].leading_zeros())
            }
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

/// Little-endian 64-bit `limbs` as 30-bit digits in `out` (replacing
/// what it held), as CPython would hold the same value.
pub fn from_limbs(limbs: &[u64], out: &mut Vec<u32>) {
    out.clear();
    let bits = 64 * limbs.len();
    let digit = |at: usize| {
        let (limb, shift) = (at / 64, at % 64);
        let low = limbs[limb] >> shift;
        let high = match (shift > 64 - DIGIT_BITS as usize, limbs.get(limb + 1)) {
            (true, Some(&next)) => next << (64 - shift),
            _ => 0,
        };
        (low | high) as u32 & ((1 << DIGIT_BITS) - 1)
    };
    out.extend((0..bits).step_by(DIGIT_BITS as usize).map(digit));
}

/// Where the items of lists and tuples lie, checked on this interpreter.
#[derive(Clone, Copy, Debug)]
pub struct Items {
    /// Byte offset of a tuple's first item (`tuple.__basicsize__`).
    tuple_items: usize,
}

/// Byte offset of a list's (and a tuple's) length, `ob_size`.
const LENGTH_OFFSET: usize = 16;
/// Byte offset of a list's pointer to its items, `ob_item`.
const LIST_ITEMS_OFFSET: usize = 24;

/// The items layout decided for this interpreter, once.
static ITEMS: PyOnceLock<Option<Items>> = PyOnceLock::new();

/// Where lists' and tuples' items lie on this interpreter, or `None`
/// when they must be iterated (where ints are not read in place either).
pub fn items_layout(py: Python<'_>) -> Option<Items> {
    *ITEMS.get_or_init(py, || {
        layout(py)?;
        let basic_size: usize = py
            .get_type::<pyo3::types::PyTuple>()
            .getattr("__basicsize__")
            .ok()?
            .extract()
            .ok()?;
        let items = Items {
            tuple_items: basic_size,
        };
        (matches!(basic_size, 24 | 32) && items_read_right(py, items)).then_some(items)
    })
}

/// Whether `items` reads a known list and tuple as `id()` sees them.
fn items_read_right(py: Python<'_>, items: Items) -> bool {
    let known = "(lambda xs: (xs, tuple(xs), [id(x) for x in xs]))([object() for _ in range(5)] + [7, 2**100])";
    let Ok(known) = py.eval(&std::ffi::CString::new(known).expect("no NUL"), None, None) else {
        return false;
    };
    let Ok((list, tuple, ids)) =
        known.extract::<(Bound<'_, PyAny>, Bound<'_, PyAny>, Vec<usize>)>()
    else {
        return false;
    };
    [list, tuple].iter().all(|sequence| {
        let read: Vec<usize> = (0..ids.len() + 1)
            .map_while(|index| item(sequence, items, index))
            .map(|item| item as usize)
            .collect();
        read == ids
    })
}

/// Item `index` of `sequence` where it lies, when `sequence` is an exact
/// list or tuple and `index` is below its length; `None` otherwise. The
/// pointer is borrowed from the sequence: it stays valid while no Python
/// code runs (which could change the list).
#[inline]
pub fn item(
    sequence: &Bound<'_, PyAny>,
    items: Items,
    index: usize,
) -> Option<*mut pyo3::ffi::PyObject> {
    let object = sequence.as_ptr();
    // SAFETY: `sequence` is a live object (the reference we hold, the GIL
    // held); its exact type is checked before any field is read.
    let (is_list, is_tuple) = unsafe {
        (
            pyo3::ffi::PyList_CheckExact(object) != 0,
            pyo3::ffi::PyTuple_CheckExact(object) != 0,
        )
    };
    if !is_list && !is_tuple {
        return None;
    }
    // SAFETY: an exact list or tuple of this interpreter, whose layout
    // `items` is (checked by [`items_layout`]): its length lies at offset
    // 16, and its first item (a tuple) or the pointer to its items (a
    // list) at the offsets read; `index` is below the length, so the item
    // read is one of the `ob_size` the sequence holds.
    unsafe {
        let base = object.cast::<u8>();
        let length = base.add(LENGTH_OFFSET).cast::<isize>().read();
        if index >= length.max(0) as usize {
            return None;
        }
        let first = match is_list {
            true => base
                .add(LIST_ITEMS_OFFSET)
                .cast::<*mut *mut pyo3::ffi::PyObject>()
                .read(),
            false => base
                .add(items.tuple_items)
                .cast::<*mut pyo3::ffi::PyObject>(),
        };
        Some(first.add(index).read())
    }
}

/// The int at `int` read in place, as [`read`] reads a bound one.
///
/// # Safety
/// `int` points to a live object that stays alive and unchanged for `'a`.
pub unsafe fn read_object<'a>(
    int: *mut pyo3::ffi::PyObject,
    layout: Checked,
) -> Option<(Sign, Digits<'a>)> {
    // SAFETY: the caller's contract: `int` is a live object.
    if unsafe { pyo3::ffi::PyLong_CheckExact(int) } == 0 {
        return None;
    }
    // SAFETY: as in [`read`]: an exact int of this interpreter, whose
    // layout `layout` is, alive for 'a by the caller's contract.
    let (count, sign) = unsafe { size_word(int, layout.0) };
    // SAFETY: as above.
    Some((sign, Digits(unsafe { digits_at(int, count) })))
}

/// Asks the CPU to bring in the digits of the int at `int` (when it is
/// an exact int), whose head it reads: a walk over a list asks for each
/// int's head first, then, a few ints later, for its digits.
///
/// # Safety
/// `int` points to a live object.
pub unsafe fn prefetch_digits(int: *mut pyo3::ffi::PyObject, layout: Checked) {
    // SAFETY: the caller's contract: `int` is a live object.
    if unsafe { pyo3::ffi::PyLong_CheckExact(int) } == 0 {
        return;
    }
    // SAFETY: an exact int of this interpreter, whose layout `layout` is.
    let (count, _) = unsafe { size_word(int, layout.0) };
    let end = DIGITS_OFFSET + 4 * count;
    for line in (64..end).step_by(64) {
        nimstream::arch::prefetch::prefetch_address(int.cast::<u8>().wrapping_add(line));
    }
}
