//! A digit string's residue as it arrives in pieces cut anywhere, most
//! significant digit first, in O(1) state: whole chunks go through the
//! modulus's block fold, the digits of an unfinished chunk wait as a
//! number.

use super::{decimal_chunk, Modulus, DECIMAL_CHUNK};
use crate::arch::digits;

/// The digits a [`DigitsResidue`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Radix {
    /// ASCII `0`/`1`.
    Binary,
    /// ASCII hex digits of either case (no `0x` prefix).
    Hex,
    /// ASCII `0`-`9`.
    Decimal,
}

impl Radix {
    /// Digits per chunk: a limb's worth, or 19 decimal digits.
    fn chunk_digits(self) -> usize {
        match self {
            Radix::Binary => 64,
            Radix::Hex => 16,
            Radix::Decimal => DECIMAL_CHUNK,
        }
    }

    /// The value of at most one chunk of digits.
    fn value(self, digits: &[u8]) -> u64 {
        match self {
            Radix::Binary => digits::parse_binary(digits),
            Radix::Hex => digits::parse_hex(digits),
            Radix::Decimal => decimal_chunk(digits),
        }
    }

    /// radix^count, for fewer than one chunk of digits (it fits a `u64`).
    fn power(self, count: usize) -> u64 {
        match self {
            Radix::Binary => 1 << count,
            Radix::Hex => 1 << (4 * count),
            Radix::Decimal => 10u64.pow(count as u32),
        }
    }
}

/// The residue of a digit string that arrives in pieces, most significant
/// digit first, cut anywhere: O(1) state (the residue of the whole chunks
/// so far, and the digits of the unfinished chunk as a number).
///
/// ```
/// use nimstream::games::residue::{DigitsResidue, Modulus, Radix};
///
/// let modulus = Modulus::new(34).expect("a modulus");
/// let mut residue = DigitsResidue::new(&modulus, Radix::Decimal);
/// for piece in ["1234567890", "1234567890", "12345"] {
///     residue.feed(piece.as_bytes());
/// }
/// assert_eq!(residue.finish(), (12345678901234567890_12345u128 % 34) as u64);
/// ```
#[derive(Clone, Debug)]
pub struct DigitsResidue<'m> {
    modulus: &'m Modulus,
    radix: Radix,
    /// The residue of the whole chunks fed so far.
    residue: u64,
    /// The digits after them, as a number.
    pending: u64,
    /// How many digits `pending` holds (fewer than one chunk).
    pending_digits: usize,
}

impl<'m> DigitsResidue<'m> {
    /// An empty digit string (residue 0) of `radix` digits, modulo `modulus`.
    pub fn new(modulus: &'m Modulus, radix: Radix) -> Self {
        DigitsResidue {
            modulus,
            radix,
            residue: 0,
            pending: 0,
            pending_digits: 0,
        }
    }

    /// Appends `digits` (validated digits of the radix) to the string.
    pub fn feed(&mut self, digits: &[u8]) {
        let chunk = self.radix.chunk_digits();
        let digits = self.complete_pending(digits);
        if self.pending_digits > 0 {
            return;
        }
        let whole = digits.len() - digits.len() % chunk;
        self.residue = self.fold_chunks(&digits[..whole]);
        self.pending = self.radix.value(&digits[whole..]);
        self.pending_digits = digits.len() - whole;
    }

    /// The residue of the whole string.
    pub fn finish(self) -> u64 {
        let scale = self.radix.power(self.pending_digits);
        let value = u128::from(self.residue) * u128::from(scale) + u128::from(self.pending);
        self.modulus.reduce_u128(value)
    }

    /// Moves the first digits of `digits` into the unfinished chunk, and
    /// folds the chunk once whole; returns the digits left.
    fn complete_pending<'d>(&mut self, digits: &'d [u8]) -> &'d [u8] {
        if self.pending_digits == 0 {
            return digits;
        }
        let chunk = self.radix.chunk_digits();
        let (head, rest) = digits.split_at((chunk - self.pending_digits).min(digits.len()));
        self.pending = self.pending * self.radix.power(head.len()) + self.radix.value(head);
        self.pending_digits += head.len();
        if self.pending_digits == chunk {
            let powers = match self.radix {
                Radix::Decimal => &self.modulus.chunk_powers,
                Radix::Binary | Radix::Hex => &self.modulus.limb_powers,
            };
            self.residue = self
                .modulus
                .fold_block(self.residue, &[self.pending], powers);
            (self.pending, self.pending_digits) = (0, 0);
        }
        rest
    }

    /// The residue with whole chunks of `digits` appended.
    fn fold_chunks(&self, digits: &[u8]) -> u64 {
        let (modulus, residue) = (self.modulus, self.residue);
        match self.radix {
            Radix::Binary => modulus.fold_digit_limbs(residue, digits, 64, digits::xor_binary),
            Radix::Hex => modulus.fold_digit_limbs(residue, digits, 16, digits::xor_hex),
            Radix::Decimal => modulus.fold_decimal_chunks(residue, digits),
        }
    }
}
