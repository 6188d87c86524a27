//! The two hot loops of the mex engine of octal games and Grundy's game
//! (`games::rare_common`), for sequences whose values are below 1024: the
//! values of the splits of eight heaps at once, and the search for the
//! values a heap's splits still have to show.
//!
//! A split of m tokens into (a, m − a) has the value g(a) ⊕ g(m − a).
//!
//! * [`mark_splits`] takes a list of smaller parts s (with their values
//!   g(s)) and eight consecutive heaps, and sets, for each heap, the bit of
//!   g(s) ⊕ g(m − s) in a 256-bit set per heap: the "transposed" loop,
//!   one entry against eight heaps, whose larger parts m − s are eight
//!   consecutive values, read in one load. The AVX-512 build holds the
//!   eight heaps' sets as registers of eight 64-bit words (4 for 256
//!   values, up to 16 for 1024); the bit of a value x is 1 rotated by x
//!   (`vprolvq`, which takes x mod 64), ORed under a mask into the word
//!   x / 64 (`vpcmpeqq`): two instructions a word. (A variable shift,
//!   `vpsllvq`, which gives 0 past 63, would need one; but LLVM adds a
//!   compare to keep that meaning, making it three.)
//! * [`scan_splits`] walks the splits (a, m − a) of one heap, a = 1, 2, …,
//!   and strikes each value it meets off a set of targets, until none is
//!   left. The AVX-512 build (with VBMI) takes 64 splits a step: the
//!   larger parts are loaded backwards and reversed (`vpermw`), the 64
//!   values narrowed to bytes, and looked up in the 256-byte target table
//!   held in four registers (two `vpermi2b` and a blend on bit 7; for
//!   values up to 512 or 1024, two or four such tables and blends on bits
//!   8 and 9); only the splits that hit a target leave the registers. The table is
//!   written back to memory as targets are struck and read again one step
//!   later, so that the read never waits on the writes.
//!
//! Both builds give exactly what the portable one gives; the tests hold
//! every build the CPU has against it on random values and targets.

#[cfg(target_arch = "x86_64")]
mod avx512;
#[cfg(test)]
mod tests;

/// The least number of values the kernels hold: every value below 256.
pub const VALUES: usize = 256;

/// The most values the kernels handle: every value below 1024.
pub const MAX_VALUES: usize = 1024;

/// The heaps [`mark_splits`] takes at once.
pub const LANES: usize = 8;

/// The value sets of [`LANES`] consecutive heaps, each of 256, 512 or 1024
/// values: bit v of `rows[w][j]`, v = 64w + bit, says that heap j has an
/// option of value v.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C, align(64))]
pub struct LaneSets {
    /// Word w of each heap's set, heap j at index j.
    pub rows: [[u64; LANES]; MAX_VALUES / 64],
    /// How many rows are used: 4, 8 or 16.
    words: usize,
}

impl LaneSets {
    /// Empty sets of the values below `limit` (256, 512 or 1024; a
    /// smaller limit holds 256).
    pub fn new(limit: usize) -> LaneSets {
        assert!(limit <= MAX_VALUES, "at most {MAX_VALUES} values");
        LaneSets {
            rows: [[0; LANES]; MAX_VALUES / 64],
            words: limit.max(VALUES).next_power_of_two() / 64,
        }
    }

    /// How many 64-bit words each heap's set has.
    pub fn words(&self) -> usize {
        self.words
    }

    /// Whether heap `lane` has an option of value `value`.
    pub fn contains(&self, lane: usize, value: u16) -> bool {
        self.rows[usize::from(value) / 64][lane] >> (value % 64) & 1 != 0
    }

    /// Word `word` of heap `lane`'s set.
    pub fn word(&self, word: usize, lane: usize) -> u64 {
        self.rows[word][lane]
    }
}

/// A smaller part of a split, for [`mark_splits`]: its size s and its
/// value g(s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// The size s, at least [`LANES`].
    pub size: u32,
    /// g(s), below 256.
    pub value: u16,
}

/// For each part s of `parts` and each heap j < 8, sets bit g(s) ⊕ g(m_j − s)
/// of `sets`' heap j, where the larger parts come from `larger`: the values
/// g(x) of a run of heaps that ends `gap` heaps below m_0, so that
/// g(m_j − s) = `larger[larger.len() + gap − s + j]`.
///
/// Every part must have `gap` + `LANES` ≤ s ≤ `larger.len()` + `gap`, and
/// every value in `larger` and in `parts` must be below the sets' limit
/// (the callers hold both; otherwise the portable build panics and the
/// others set wrong bits). Uses AVX-512 when [`cpu`](super::cpu) allows
/// it.
pub fn mark_splits(larger: &[u16], gap: usize, parts: &[Part], sets: &mut LaneSets) {
    #[cfg(target_arch = "x86_64")]
    if super::cpu().avx512 {
        // SAFETY: `cpu()` reports AVX-512 F and BW only where the CPU has
        // them.
        return unsafe { avx512::mark_splits(larger, gap, parts, sets) };
    }
    mark_splits_portable(larger, gap, parts, sets)
}

/// [`mark_splits`] one bit at a time: the reference.
pub fn mark_splits_portable(larger: &[u16], gap: usize, parts: &[Part], sets: &mut LaneSets) {
    for part in parts {
        let start = larger.len() + gap - part.size as usize;
        for (lane, &value) in larger[start..start + LANES].iter().enumerate() {
            let x = usize::from(value ^ part.value);
            sets.rows[x / 64][lane] |= 1 << (x % 64);
        }
    }
}

/// The values a scan still looks for: `flags[v]` is non-zero while value v
/// is a target.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Targets {
    /// One byte per value (0 or 0xFF): at least 256 of them, a multiple of
    /// 64.
    flags: Vec<u8>,
    /// How many flags are set.
    left: usize,
}

impl Targets {
    /// No targets, for values below `limit` (at least 256 are held).
    pub fn new(limit: usize) -> Targets {
        Targets {
            flags: vec![0; limit.max(VALUES).next_multiple_of(64)],
            left: 0,
        }
    }

    /// Makes `value` a target.
    pub fn add(&mut self, value: u16) {
        let flag = &mut self.flags[usize::from(value)];
        self.left += usize::from(*flag == 0);
        *flag = 0xFF;
    }

    /// How many targets are left.
    pub fn left(&self) -> usize {
        self.left
    }

    /// The least target left, if any.
    pub fn least(&self) -> Option<u16> {
        self.flags.iter().position(|&f| f != 0).map(|v| v as u16)
    }

    /// Strikes every target off.
    pub fn clear(&mut self) {
        self.flags.fill(0);
        self.left = 0;
    }

    /// Strikes `value` off, if it is a target.
    #[inline(always)]
    fn strike(&mut self, value: u16) {
        let flag = &mut self.flags[usize::from(value)];
        self.left -= usize::from(*flag != 0);
        *flag = 0;
    }
}

/// Strikes off `targets` the value g(a) ⊕ g(m − a) of each split of a
/// walk, in order, until no target is left: split i pairs `smaller[i]`
/// with `larger[larger.len() − 1 − i]` (the larger parts read backwards).
/// Returns whether every target was struck off. Splits past the one that
/// struck the last target may be looked at too (their values are only
/// struck off).
///
/// `smaller` and `larger` have the same length and every value's XOR with
/// another is below the targets' limit. Uses AVX-512 (with VBMI) when
/// [`cpu`](super::cpu) allows it and the limit is at most 1024.
pub fn scan_splits(smaller: &[u16], larger: &[u16], targets: &mut Targets) -> bool {
    assert_eq!(smaller.len(), larger.len(), "one larger part per smaller");
    #[cfg(target_arch = "x86_64")]
    if super::cpu().avx512_vbmi {
        // SAFETY: `cpu()` reports AVX-512 F, BW and VBMI only where the
        // CPU has them.
        return unsafe { avx512::scan_splits(smaller, larger, targets) };
    }
    scan_splits_portable(smaller, larger, targets)
}

/// [`scan_splits`] one split at a time: the reference.
pub fn scan_splits_portable(smaller: &[u16], larger: &[u16], targets: &mut Targets) -> bool {
    for (&a, &b) in smaller.iter().zip(larger.iter().rev()) {
        if targets.left == 0 {
            break;
        }
        targets.strike(a ^ b);
    }
    targets.left == 0
}
