//! The Grundy values of the elements of a raw array: each element h is a
//! heap whose value is `values[h]` inside the computed table, else
//! `values[p + (h − p) mod q]` by the period; one loop XORs and ORs the
//! values and tallies the elements (their OR, the zeros and the ones), as
//! the game pass on raw arrays needs ([`fold`]), or keeps each value, for
//! the misère pass that counts the heaps of each kind ([`values`]).
//!
//! The cost is the reduction modulo q of every element past the table, a
//! 64-bit one for random `u64le` heaps. The portable build does it as
//! `games::residue::Modulus::reduce_u64` does, with a Barrett estimate
//! (the high half of a 64×64-bit product) and one correction, about
//! 1.4 ns an element. The vector builds hold one element per 64-bit lane:
//!
//! * a period that is a power of two (1, 2, 4, … 2^32) is a mask;
//! * AVX-512 (with IFMA, `avx512.rs`) folds an element's top 16 bits into
//!   the rest and reduces the sum, below 2^49, with 52-bit products, and
//!   permutes a period of at most 64 values out of two registers: about
//!   0.27 ns a `u64` element of `kayles` on the machine it was written on
//!   (`benches/grundy_words.rs`), against 1.4 for the portable loop;
//! * AVX2 (`avx2.rs`) has only 32×32→64-bit products (`vpmuludq`): an
//!   element below 2^32 (any width but 8) takes a 32-bit Barrett
//!   estimate, one product, and one product more for the remainder; an
//!   element of 64 bits takes the high half of the 64-bit Barrett product
//!   from three of its four 32-bit pieces, the low pieces' product and the
//!   carries left out. That estimate is at most two short of the exact
//!   one, so the remainder is below 4q and two corrections (by 2q, then
//!   by q) bring it below q; two products more give the low 64 bits of
//!   estimate·q (q < 2^32 here: 2^32 is a power of two). About 1.1 ns an
//!   element. A period of at most 64 (`kayles`'s 12)
//!   first folds the element into a number below 2^17 with its residue:
//!   each byte times 256^i mod q, summed by two multiply-adds
//!   (`vpmaddubsw`, `vpmaddwd`), then reduced as a 32-bit element; the
//!   `u64` elements of `kayles` took 0.85 of the time
//!   (`benches/grundy_words.rs`).
//!
//! Every lane computes both indices, the table's (h) and the period's
//! (p + r, r < q), and keeps the first where h is inside the table, so the
//! loop has no branch per element; the values are then gathered as 32-bit
//! words at their 16-bit offsets (`vpgatherqd`). A gather at the table's
//! last value would read two bytes past its end: such a lane is masked
//! off and takes that value from a register instead.
//!
//! Each build must give exactly what the portable one gives; the tests
//! hold every build the CPU has against it on random tables, periods and
//! elements of every width.

#[cfg(target_arch = "x86_64")]
mod avx2;
#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(test)]
mod tests;

use super::columns::{load, BlockTally};

/// The largest period a [`WordValues`] takes: 2^32, so that a residue
/// and every 32-bit piece of the reduction fit in 32 bits.
pub const MAX_PERIOD: u64 = 1 << 32;

/// A table of Grundy values with its period, and the constants of the
/// reduction modulo the period, computed once.
///
/// ```
/// use nimstream::arch::grundy_words::{fold, WordValues};
///
/// // Values 0, 1, 2 then period 2 from 1: g(h) = 1 + (h − 1) mod 2 past 2.
/// let table = WordValues::new(&[0, 1, 2], 1, 2).expect("p + q ≤ len");
/// let heaps: Vec<u8> = [1u64, 2, 1 << 40].iter().flat_map(|h| h.to_le_bytes()).collect();
/// let folded = fold(&heaps, 8, &table);
/// // g(1) = 1, g(2) = 2, g(2^40) = values[1 + (2^40 − 1) mod 2] = values[2] = 2.
/// assert_eq!((folded.xor, folded.or), (1, 3));
/// assert_eq!(folded.tally.ones, 1);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct WordValues<'v> {
    /// The computed values.
    values: &'v [u16],
    /// The preperiod p.
    preperiod: u64,
    /// The period q, 1 ≤ q ≤ 2^32.
    period: u64,
    /// ⌊(2^64 − 1)/q⌋: the 64-bit Barrett reciprocal.
    reciprocal: u64,
    /// ⌊(2^32 − 1)/q⌋: the 32-bit Barrett reciprocal, for elements below
    /// 2^32.
    reciprocal_32: u64,
    /// ⌊2^52/q⌋: the 52-bit Barrett reciprocal (IFMA).
    reciprocal_52: u64,
    /// 2^48 mod q: the weight of an element's top 16 bits.
    two_to_48: u64,
}

impl<'v> WordValues<'v> {
    /// The table `values` with preperiod `preperiod` and period `period`,
    /// or `None` unless 1 ≤ period ≤ 2^32 ([`MAX_PERIOD`]) and the table
    /// holds a whole period (preperiod + period ≤ `values.len()`).
    pub fn new(values: &'v [u16], preperiod: u64, period: u64) -> Option<WordValues<'v>> {
        if !(1..=MAX_PERIOD).contains(&period) {
            return None;
        }
        if preperiod.checked_add(period)? > values.len() as u64 {
            return None;
        }
        Some(WordValues::with_period(values, preperiod, period))
    }

    /// The table with its reduction constants, unchecked.
    fn with_period(values: &'v [u16], preperiod: u64, period: u64) -> WordValues<'v> {
        WordValues {
            values,
            preperiod,
            period,
            reciprocal: u64::MAX / period,
            reciprocal_32: u64::from(u32::MAX) / period,
            reciprocal_52: (1 << 52) / period,
            two_to_48: (1 << 48) % period,
        }
    }

    /// The value of a heap of `h` tokens.
    #[inline(always)]
    pub fn value(&self, h: u64) -> u16 {
        self.values[self.index(h) as usize]
    }

    /// Where in the table the value of `h` is, with no branch: the period's
    /// index is computed for every h and used only past the table (where
    /// h > p, so the wrapped difference of a small h is never used).
    #[inline(always)]
    fn index(&self, h: u64) -> u64 {
        let periodic = self.preperiod + self.reduce(h.wrapping_sub(self.preperiod));
        if h < self.values.len() as u64 {
            h
        } else {
            periodic
        }
    }

    /// x mod q: the Barrett estimate is at most one short, so x − estimate·q
    /// is below 2q; below q, subtracting q wraps to above it, and `min`
    /// keeps whichever is below q.
    #[inline(always)]
    fn reduce(&self, x: u64) -> u64 {
        let estimate = ((u128::from(x) * u128::from(self.reciprocal)) >> 64) as u64;
        let rest = x - estimate * self.period;
        rest.min(rest.wrapping_sub(self.period))
    }

    /// Whether q is a power of two: the vector builds reduce with a mask.
    fn period_is_power_of_two(&self) -> bool {
        self.period.is_power_of_two()
    }
}

/// What [`fold`] found in a block.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockValues {
    /// The XOR of the elements' Grundy values.
    pub xor: u16,
    /// The OR of the elements' Grundy values.
    pub or: u16,
    /// The OR of the elements and their zero and one counts.
    pub tally: BlockTally,
}

impl BlockValues {
    /// The values and tally of this block and of a `later` one together.
    pub fn merge(self, later: BlockValues) -> BlockValues {
        BlockValues {
            xor: self.xor ^ later.xor,
            or: self.or | later.or,
            tally: self.tally.merge(later.tally),
        }
    }
}

/// The values and tally of the little-endian elements of `width` bytes
/// (1, 2, 4 or 8) of `bytes` (trailing bytes that make no whole element
/// are ignored). Uses AVX-512 (with IFMA) or AVX2 when
/// [`cpu`](super::cpu) allows it.
pub fn fold(bytes: &[u8], width: usize, table: &WordValues<'_>) -> BlockValues {
    dispatch::<false>(bytes, width, table, &mut [])
}

/// The value of each element of `bytes` as [`fold`] reads them, in order,
/// into `values` (which has room for one per whole element), and their
/// tally: for a pass that counts the elements of each value rather than
/// XOR them (misère play's kinds of heaps). Vectorised as [`fold`] is.
///
/// ```
/// use nimstream::arch::grundy_words::{values, WordValues};
///
/// let table = WordValues::new(&[0, 1, 2], 1, 2).expect("p + q ≤ len");
/// let heaps: Vec<u8> = [1u64, 2, 1 << 40].iter().flat_map(|h| h.to_le_bytes()).collect();
/// let mut out = [0u16; 3];
/// let tally = values(&heaps, 8, &table, &mut out);
/// assert_eq!((out, tally.ones), ([1, 2, 2], 1));
/// ```
///
/// # Panics
/// If `values` holds fewer than `bytes.len() / width` values.
pub fn values(
    bytes: &[u8],
    width: usize,
    table: &WordValues<'_>,
    values: &mut [u16],
) -> BlockTally {
    assert!(values.len() >= bytes.len() / width, "room for every value");
    dispatch::<true>(bytes, width, table, values).tally
}

/// [`fold`] (`STORE` false) or [`values`] (`STORE` true, each value
/// written to `out`) by the best build the CPU allows.
fn dispatch<const STORE: bool>(
    bytes: &[u8],
    width: usize,
    table: &WordValues<'_>,
    out: &mut [u16],
) -> BlockValues {
    #[cfg(target_arch = "x86_64")]
    {
        let cpu = super::cpu();
        if cpu.avx512_ifma {
            // SAFETY: `cpu()` reports AVX-512 (F and BW with POPCNT and
            // IFMA) only where the CPU has it.
            return unsafe { by_avx512::<STORE>(bytes, width, table, out) };
        }
        if cpu.avx2 {
            // SAFETY: `cpu()` reports AVX2 only where the CPU has it.
            return unsafe { by_avx2::<STORE>(bytes, width, table, out) };
        }
    }
    by_portable::<STORE>(bytes, width, table, out)
}

/// [`fold`] one element at a time, with the 64-bit Barrett reduction:
/// the reference the vector builds are tested against.
pub fn fold_portable(bytes: &[u8], width: usize, table: &WordValues<'_>) -> BlockValues {
    by_portable::<false>(bytes, width, table, &mut [])
}

/// [`dispatch`]'s portable build.
fn by_portable<const STORE: bool>(
    bytes: &[u8],
    width: usize,
    table: &WordValues<'_>,
    out: &mut [u16],
) -> BlockValues {
    match width {
        1 => fold_scalar::<1, STORE>(bytes, table, out),
        2 => fold_scalar::<2, STORE>(bytes, table, out),
        4 => fold_scalar::<4, STORE>(bytes, table, out),
        _ => fold_scalar::<8, STORE>(bytes, table, out),
    }
}

/// [`fold`] with AVX2 intrinsics, four elements a step.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
pub unsafe fn fold_avx2(bytes: &[u8], width: usize, table: &WordValues<'_>) -> BlockValues {
    by_avx2::<false>(bytes, width, table, &mut [])
}

/// [`dispatch`]'s AVX2 build.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn by_avx2<const STORE: bool>(
    bytes: &[u8],
    width: usize,
    table: &WordValues<'_>,
    out: &mut [u16],
) -> BlockValues {
    match width {
        1 => avx2::fold::<1, STORE>(bytes, table, out),
        2 => avx2::fold::<2, STORE>(bytes, table, out),
        4 => avx2::fold::<4, STORE>(bytes, table, out),
        _ => avx2::fold::<8, STORE>(bytes, table, out),
    }
}

/// [`fold`] with AVX-512 intrinsics, eight elements a step. A CPU with
/// AVX-512 but no IFMA (Skylake-SP, Cascade Lake) runs the AVX2 build.
///
/// # Safety
/// The CPU must support AVX-512 F, BW and IFMA with POPCNT
/// ([`Cpu::avx512_ifma`](super::Cpu::avx512_ifma)).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512ifma,popcnt")]
pub unsafe fn fold_avx512(bytes: &[u8], width: usize, table: &WordValues<'_>) -> BlockValues {
    by_avx512::<false>(bytes, width, table, &mut [])
}

/// [`dispatch`]'s AVX-512 build.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw,avx512ifma,popcnt")]
fn by_avx512<const STORE: bool>(
    bytes: &[u8],
    width: usize,
    table: &WordValues<'_>,
    out: &mut [u16],
) -> BlockValues {
    match width {
        1 => avx512::fold::<1, STORE>(bytes, table, out),
        2 => avx512::fold::<2, STORE>(bytes, table, out),
        4 => avx512::fold::<4, STORE>(bytes, table, out),
        _ => avx512::fold::<8, STORE>(bytes, table, out),
    }
}

/// The scalar loop over `W`-byte elements, with no branch per element;
/// with `STORE`, each value goes to `out` in place of the XOR and OR.
#[inline(always)]
fn fold_scalar<const W: usize, const STORE: bool>(
    bytes: &[u8],
    table: &WordValues<'_>,
    out: &mut [u16],
) -> BlockValues {
    let mut block = BlockValues::default();
    for (i, element) in bytes.chunks_exact(W).enumerate() {
        let h = load::<W>(element);
        let g = table.values[table.index(h) as usize];
        if STORE {
            out[i] = g;
        } else {
            block.xor ^= g;
            block.or |= g;
        }
        block.tally.or |= h;
        block.tally.zeros += u64::from(h == 0);
        block.tally.ones += u64::from(h == 1);
    }
    block
}
