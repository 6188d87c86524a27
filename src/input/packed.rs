//! A short `hex` token's digits packed in groups of 16 by its scanner, in
//! the same pass that checks them (`formats/hex/packed.rs`): the scratch
//! space they are packed into ([`TokenScratch`]) and the value they make
//! ([`PackedDigits`], a form of [`HeapValue`](super::heap::HeapValue)).
//! The value is the groups, as a little-endian number, shifted right by
//! the unused low digits of the last group; the shift is left to whoever
//! reads the value (a nim-sum keeps one sum per shift and shifts each
//! once at the end, `nimsum::ByShift`).

use super::heap::HeapValue;
use crate::arch::hex_pack::MAX_GROUPS;

/// Where tokens are packed: reused from token to token.
#[derive(Debug, Default)]
pub struct TokenScratch {
    groups: Option<Box<[u64; MAX_GROUPS]>>,
}

impl TokenScratch {
    /// The group buffer, allocated on first use.
    pub(crate) fn groups(&mut self) -> &mut [u64; MAX_GROUPS] {
        self.groups.get_or_insert_with(|| Box::new([0; MAX_GROUPS]))
    }
}

/// A token's digits packed in groups of 16: the value is the groups, as a
/// little-endian number, shifted right by `shift` bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedDigits<'s> {
    /// The groups, the last one read first; the low `shift` bits of the
    /// first are zero.
    pub groups: &'s [u64],
    /// A multiple of 4 below 64: four bits per digit missing from the
    /// last group.
    pub shift: u32,
    /// The value's bit length.
    pub bits: u64,
}

impl<'s> PackedDigits<'s> {
    /// Limb `j` of the value.
    #[inline]
    pub fn limb(&self, j: u64) -> u64 {
        shifted_limb(self.groups, self.shift, j)
    }

    /// The heap the digits make: a word if the value fits 128 bits (a
    /// fold takes a word in registers), else the groups. For `gen
    /// --format hex --bits 1..128`, against the groups for every token,
    /// the one pass took 0.90 of the instructions (valgrind, 32 MiB) and
    /// 0.95 of the time (farm-bench, 256 MiB, one thread).
    #[inline]
    pub fn into_value(self) -> HeapValue<'s> {
        match self.bits <= 128 {
            true => HeapValue::Word(u128::from(self.limb(1)) << 64 | u128::from(self.limb(0))),
            false => HeapValue::Packed(self),
        }
    }
}

/// Limb `j` of little-endian `groups` shifted right by `shift` bits (below
/// 64): the bits of group `j` and group `j + 1` that the shift brings
/// together.
#[inline]
pub fn shifted_limb(groups: &[u64], shift: u32, j: u64) -> u64 {
    let group = |i: u64| {
        usize::try_from(i)
            .ok()
            .and_then(|i| groups.get(i).copied())
            .unwrap_or(0)
    };
    let above = group(j.saturating_add(1))
        .checked_shl(64 - shift)
        .unwrap_or(0);
    group(j) >> shift | above
}
