//! Big values produced window by window, most significant limb first: the
//! nim-sum and the move's target stream to their `bits` files, their low
//! limbs kept for the report when they are short enough, and the removed
//! amount's bit length is found without holding either.

use crate::analysis::facts::Number;
use crate::error::Error;
use crate::output::BitsFile;

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

    /// Commits the file and gives the value.
    pub fn finish(self, inline_bits: u64) -> Result<Number, Error> {
        if let Some(file) = self.file {
            file.finish()?;
        }
        let bit_length = self.bit_length.unwrap_or(0);
        Ok(Number::new(bit_length, &self.low_limbs, inline_bits))
    }
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
}
