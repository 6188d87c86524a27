//! Big values produced window by window, most significant limb first: the
//! nim-sum and the move's target are written to `bits` files as they
//! stream, their low limbs kept for the report when they are short enough,
//! and the removed amount's bit length found without holding either.

use crate::encode::limb_binary_digits;
use crate::error::Error;
use crate::input::HeapValue;
use crate::memory::outside_working_memory;
use crate::output::AtomicFile;
use crate::report::Value;
use num_bigint::BigUint;
use std::io::Write;
use std::path::Path;

/// A `bits` text file written limb by limb from the most significant end:
/// no leading zeros, `0` for zero, one trailing LF.
pub struct BitsFile {
    file: AtomicFile,
    path: String,
    started: bool,
}

impl BitsFile {
    /// Starts writing to `path` (completed by [`BitsFile::finish`]).
    pub fn create(path: &Path) -> Result<BitsFile, Error> {
        Ok(BitsFile {
            file: AtomicFile::create(path)?,
            path: path.display().to_string(),
            started: false,
        })
    }

    /// Appends the next limb (the next 64 bits going down).
    pub fn push(&mut self, limb: u64) -> Result<(), Error> {
        let skip = if self.started {
            0
        } else if limb == 0 {
            return Ok(());
        } else {
            self.started = true;
            limb.leading_zeros() as usize
        };
        self.write(&limb_binary_digits(limb)[skip..])
    }

    fn write(&mut self, bytes: &[u8]) -> Result<(), Error> {
        self.file
            .write_all(bytes)
            .map_err(|e| Error::io(&self.path, e))
    }

    /// Ends the number (writing `0` if it had no set bit) and commits the file.
    pub fn finish(mut self) -> Result<(), Error> {
        let tail: &[u8] = if self.started { b"\n" } else { b"0\n" };
        self.write(tail)?;
        self.file.commit()
    }
}

/// A value arriving most significant limb first: its bit length, its low
/// limbs (enough for the report), and optionally a `bits` file.
pub struct TopDownValue {
    bit_length: Option<u64>,
    low_limbs: Vec<u64>,
    file: Option<BitsFile>,
}

impl TopDownValue {
    /// Keeps the low `capture_bits` bits, and writes to `file` when given.
    pub fn new(capture_bits: u64, file: Option<BitsFile>) -> TopDownValue {
        TopDownValue {
            bit_length: None,
            low_limbs: vec![0; capture_bits.div_ceil(64) as usize],
            file,
        }
    }

    /// Takes limb number `index`; limbs must come in decreasing order.
    pub fn push(&mut self, index: u64, limb: u64) -> Result<(), Error> {
        if self.bit_length.is_none() && limb != 0 {
            self.bit_length = Some(64 * index + 64 - u64::from(limb.leading_zeros()));
        }
        if let Some(slot) = usize::try_from(index)
            .ok()
            .and_then(|i| self.low_limbs.get_mut(i))
        {
            *slot = limb;
        }
        match &mut self.file {
            Some(file) => file.push(limb),
            None => Ok(()),
        }
    }

    /// The low limbs kept so far.
    pub fn low_limbs(&self) -> &[u64] {
        &self.low_limbs
    }

    /// Commits the file and reports the value.
    pub fn finish(self, inline_bits: u64) -> Result<Value, Error> {
        if let Some(file) = self.file {
            file.finish()?;
        }
        let bit_length = self.bit_length.unwrap_or(0);
        Ok(value_from_limbs(bit_length, &self.low_limbs, inline_bits))
    }
}

/// The report of a value of `bit_length` bits whose low limbs are `limbs`
/// (hex and dec only when it is at most `inline_bits` long).
pub fn value_from_limbs(bit_length: u64, limbs: &[u64], inline_bits: u64) -> Value {
    if bit_length > inline_bits {
        return Value {
            bit_length,
            hex: None,
            dec: None,
        };
    }
    let used = bit_length.div_ceil(64) as usize;
    let (hex, dec) = outside_working_memory(|| {
        let number = limbs_to_biguint(&limbs[..used]);
        (number.to_str_radix(16), number.to_string())
    });
    Value {
        bit_length,
        hex: Some(hex),
        dec: Some(dec),
    }
}

/// A heap's value for the report.
pub fn heap_value_report(value: &HeapValue<'_>, inline_bits: u64) -> Value {
    let bit_length = value.bit_length();
    if bit_length > inline_bits {
        return value_from_limbs(bit_length, &[], inline_bits);
    }
    value_from_limbs(bit_length, &value.to_limbs(), inline_bits)
}

/// Little-endian limbs as a num-bigint number.
pub fn limbs_to_biguint(limbs: &[u64]) -> BigUint {
    let mut digits = Vec::with_capacity(limbs.len() * 2);
    for &limb in limbs {
        digits.push(limb as u32);
        digits.push((limb >> 32) as u32);
    }
    BigUint::new(digits)
}

/// The bit length of `remove = x − (x ⊕ g)`, found from the most
/// significant end with constant memory.
///
/// With g's set bits p₁ > p₂ > …, remove = Σ ±2^pₖ, plus where x has the
/// bit and minus where it has not (x has bit p₁). Walking down: if the next
/// set bit has x's bit set (or there is none), the length is cur + 1; if it
/// does not and lies more than one below, the length is cur; if it lies
/// right below, the question moves down to it.
#[derive(Debug, Default)]
pub struct RemoveLength {
    current: Option<u64>,
    done: Option<u64>,
}

impl RemoveLength {
    /// Feeds limb `index` of g and of x, in decreasing limb order.
    pub fn feed(&mut self, index: u64, g: u64, x: u64) {
        let mut rest = g;
        while rest != 0 && self.done.is_none() {
            let bit = 63 - rest.leading_zeros();
            self.step(64 * index + u64::from(bit), x >> bit & 1 == 1);
            rest &= !(1u64 << bit);
        }
    }

    fn step(&mut self, position: u64, x_has_bit: bool) {
        self.done = match self.current {
            None => {
                self.current = Some(position);
                None
            }
            Some(cur) if x_has_bit => Some(cur + 1),
            Some(cur) if position + 1 < cur => Some(cur),
            Some(_) => {
                self.current = Some(position);
                None
            }
        };
    }

    /// The bit length, if the set bits fed so far decide it.
    pub fn decided(&self) -> Option<u64> {
        self.done
    }

    /// The bit length, once every set bit of g was fed (0 if g was 0).
    pub fn finish(&self) -> u64 {
        self.done.or(self.current.map(|cur| cur + 1)).unwrap_or(0)
    }
}

/// `(x − t) mod 2^(64·limbs)` from the low limbs of x and t.
pub fn subtract_low_limbs(x: &[u64], t: &[u64]) -> Vec<u64> {
    let mut borrow = false;
    x.iter()
        .zip(t.iter().chain(std::iter::repeat(&0)))
        .map(|(&a, &b)| {
            let (d1, o1) = a.overflowing_sub(b);
            let (d2, o2) = d1.overflowing_sub(u64::from(borrow));
            borrow = o1 || o2;
            d2
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remove_length(x: u128, g: u128) -> u64 {
        let mut state = RemoveLength::default();
        for index in (0..2u64).rev() {
            let shift = 64 * index;
            state.feed(index, (g >> shift) as u64, (x >> shift) as u64);
        }
        state.finish()
    }

    #[test]
    fn remove_length_matches_subtraction() {
        for x in 0u128..200 {
            for g in 1u128..200 {
                let msb = 127 - g.leading_zeros();
                if x >> msb & 1 == 0 {
                    continue;
                }
                let remove = x - (x ^ g);
                assert_eq!(
                    remove_length(x, g),
                    u64::from(128 - remove.leading_zeros()),
                    "x={x} g={g}"
                );
            }
        }
        let x = (1u128 << 100) | (1 << 64);
        let g = (1u128 << 100) | (1 << 99) | (1 << 63);
        let remove = x - (x ^ g);
        assert_eq!(remove_length(x, g), u64::from(128 - remove.leading_zeros()));
    }

    #[test]
    fn subtraction_borrows_across_limbs() {
        assert_eq!(subtract_low_limbs(&[0, 1], &[1]), vec![u64::MAX, 0]);
    }

    #[test]
    fn values_render_inline_only_when_short() {
        let small = value_from_limbs(5, &[0x1f], 8);
        assert_eq!(small.hex.as_deref(), Some("1f"));
        assert_eq!(small.dec.as_deref(), Some("31"));
        let zero = value_from_limbs(0, &[], 0);
        assert_eq!(
            (zero.hex.as_deref(), zero.dec.as_deref()),
            (Some("0"), Some("0"))
        );
        assert_eq!(value_from_limbs(9, &[0x1ff], 8).hex, None);
    }
}
