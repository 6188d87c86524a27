//! The heaps a one-pass analysis keeps as move candidates: each heap that
//! is the first to hold some bit position. The move is played on the first
//! holder of the nim-sum's msb, so it is among them, whatever the msb turns
//! out to be.
//!
//! Usually only a handful of heaps qualify (random heaps cover every bit
//! after a few), but an adversarial stream (1, 2, 4, 8, …) makes every heap
//! a candidate. So the candidates stay in memory only up to
//! [`IN_MEMORY_BYTES`] bytes; later ones spill to an unlinked temporary
//! file, read back once at the end. Working memory stays bounded; the disk
//! holds at most the candidates themselves.

use super::survey::HeapPos;
use crate::input::HeapValue;
use std::fs::File;
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::ops::Range;

/// Bytes of candidates (limbs and bookkeeping) kept in memory before the
/// rest spill to disk.
pub const IN_MEMORY_BYTES: usize = 2048;

/// A heap kept whole because the move may be played on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptHeap {
    /// Where it is.
    pub pos: HeapPos,
    /// Its line, for text formats.
    pub line: Option<u64>,
    /// Its value, little-endian limbs without high zero limbs.
    pub limbs: Vec<u64>,
}

/// A heap too long to keep whole, left in the file: where it is and where
/// its digits are, so that its bits can be read again, and its top limbs,
/// which usually decide a move played on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeapInFile {
    /// Where it is.
    pub pos: HeapPos,
    /// Its digits' bytes (after a `0x` prefix, leading zeros included).
    pub digits: Range<u64>,
    /// Its bit length.
    pub bits: u64,
    /// Its most significant limbs (at most [`TOP_LIMBS`]), little-endian.
    pub top: Vec<u64>,
}

/// The limbs a heap left in the file keeps of its top.
pub const TOP_LIMBS: usize = 4;

impl HeapInFile {
    /// The heap at `pos`, with digits at `digits`, of `bits` bits whose
    /// limb `j` is `limb(j)`.
    pub fn new(
        pos: HeapPos,
        digits: Range<u64>,
        bits: u64,
        limb: impl Fn(u64) -> u64,
    ) -> HeapInFile {
        let limbs = bits.div_ceil(64);
        let low = limbs.saturating_sub(TOP_LIMBS as u64);
        HeapInFile {
            pos,
            digits,
            bits,
            top: (low..limbs).map(limb).collect(),
        }
    }

    /// Bit `position`, when it is among the top limbs or above them.
    pub fn top_bit(&self, position: u64) -> Option<bool> {
        let limbs = self.bits.div_ceil(64);
        let low = limbs - self.top.len() as u64;
        let limb = position / 64;
        if limb >= limbs {
            return Some(false);
        }
        let word = self.top.get(limb.checked_sub(low)? as usize)?;
        Some(word >> (position % 64) & 1 == 1)
    }
}

/// The first holders of every bit position seen so far.
#[derive(Debug, Default)]
pub struct FirstHolders {
    covered: Vec<u64>,
    full_limbs: usize,
    in_memory: Vec<KeptHeap>,
    in_memory_bytes: usize,
    spill: Option<BufWriter<File>>,
}

impl FirstHolders {
    /// Whether `value` holds a bit no earlier heap held.
    #[inline(always)]
    pub fn holds_new_bit(&self, value: &HeapValue<'_>) -> bool {
        let limbs = value.bit_length().div_ceil(64) as usize;
        if limbs <= self.full_limbs {
            // Every position up to the longest heap so far is covered.
            return false;
        }
        (self.full_limbs..limbs)
            .any(|j| value.limb(j as u64) & !self.covered.get(j).unwrap_or(&0) != 0)
    }

    /// Keeps the heap if it is the first to hold some bit.
    pub fn offer(
        &mut self,
        pos: HeapPos,
        line: Option<u64>,
        value: &HeapValue<'_>,
    ) -> io::Result<()> {
        if !self.holds_new_bit(value) {
            return Ok(());
        }
        let limbs = value.to_limbs();
        self.cover(&limbs);
        let kept = KeptHeap { pos, line, limbs };
        let cost = footprint(&kept);
        if self.spill.is_none() && self.in_memory_bytes + cost <= IN_MEMORY_BYTES {
            self.in_memory_bytes += cost;
            self.in_memory.push(kept);
            return Ok(());
        }
        let spill = match &mut self.spill {
            Some(spill) => spill,
            None => self
                .spill
                .insert(BufWriter::with_capacity(1024, tempfile::tempfile()?)),
        };
        write_record(spill, &kept)
    }

    fn cover(&mut self, limbs: &[u64]) {
        if self.covered.len() < limbs.len() {
            self.covered.resize(limbs.len(), 0);
        }
        for (c, l) in self.covered.iter_mut().zip(limbs) {
            *c |= l;
        }
        while self.covered.get(self.full_limbs) == Some(&u64::MAX) {
            self.full_limbs += 1;
        }
    }

    /// The earliest kept heap whose bit `position` is set.
    pub fn first_with_bit(&mut self, position: u64) -> io::Result<Option<KeptHeap>> {
        let (limb, bit) = ((position / 64) as usize, position % 64);
        let holds = |limbs: &[u64]| limbs.get(limb).is_some_and(|w| w >> bit & 1 == 1);
        if let Some(kept) = self.in_memory.iter().find(|k| holds(&k.limbs)) {
            return Ok(Some(kept.clone()));
        }
        let Some(spill) = self.spill.take() else {
            return Ok(None);
        };
        let mut file = spill.into_inner().map_err(io::IntoInnerError::into_error)?;
        file.seek(SeekFrom::Start(0))?;
        find_in_spill(&mut file, limb, bit)
    }
}

impl FirstHolders {
    /// Hands every kept heap to `visit`, in input order, emptying the list
    /// (spilled ones are read back one by one); stops at the first error.
    pub fn drain(&mut self, mut visit: impl FnMut(KeptHeap) -> io::Result<()>) -> io::Result<()> {
        self.in_memory.drain(..).try_for_each(&mut visit)?;
        let Some(spill) = self.spill.take() else {
            return Ok(());
        };
        let mut file = spill.into_inner().map_err(io::IntoInnerError::into_error)?;
        let end = file.seek(SeekFrom::End(0))?;
        file.seek(SeekFrom::Start(0))?;
        let mut input = io::BufReader::new(file);
        let mut at = 0;
        while at < end {
            let kept = read_record(&mut input)?;
            at += 32 + 8 * kept.limbs.len() as u64;
            visit(kept)?;
        }
        Ok(())
    }
}

/// The memory a kept heap takes: its limbs, its record, and room for the
/// list to have doubled past it.
fn footprint(kept: &KeptHeap) -> usize {
    8 * kept.limbs.len() + 2 * std::mem::size_of::<KeptHeap>()
}

fn write_u64(out: &mut impl Write, value: u64) -> io::Result<()> {
    out.write_all(&value.to_le_bytes())
}

fn read_u64(input: &mut impl Read) -> io::Result<u64> {
    let mut bytes = [0u8; 8];
    input.read_exact(&mut bytes)?;
    Ok(u64::from_le_bytes(bytes))
}

/// A record: index, offset, line (`u64::MAX` for none), limb count, limbs.
fn write_record(out: &mut impl Write, kept: &KeptHeap) -> io::Result<()> {
    write_u64(out, kept.pos.index)?;
    write_u64(out, kept.pos.offset)?;
    write_u64(out, kept.line.unwrap_or(u64::MAX))?;
    write_u64(out, kept.limbs.len() as u64)?;
    kept.limbs.iter().try_for_each(|&limb| write_u64(out, limb))
}

/// Reads the record written by [`write_record`].
fn read_record(input: &mut impl Read) -> io::Result<KeptHeap> {
    let index = read_u64(input)?;
    let offset = read_u64(input)?;
    let line = Some(read_u64(input)?).filter(|&l| l != u64::MAX);
    let count = read_u64(input)?;
    let limbs = (0..count)
        .map(|_| read_u64(input))
        .collect::<io::Result<_>>()?;
    Ok(KeptHeap {
        pos: HeapPos { index, offset },
        line,
        limbs,
    })
}

/// Scans the spilled records for the first with bit `bit` of limb `limb`,
/// reading one limb of each record and loading only the one that matches.
fn find_in_spill(file: &mut File, limb: usize, bit: u64) -> io::Result<Option<KeptHeap>> {
    let end = file.seek(SeekFrom::End(0))?;
    let mut at = 0;
    while at < end {
        file.seek(SeekFrom::Start(at))?;
        let index = read_u64(file)?;
        let offset = read_u64(file)?;
        let line = Some(read_u64(file)?).filter(|&l| l != u64::MAX);
        let count = read_u64(file)?;
        let limbs_at = at + 32;
        at = limbs_at + 8 * count;
        if (limb as u64) >= count {
            continue;
        }
        file.seek(SeekFrom::Start(limbs_at + 8 * limb as u64))?;
        if read_u64(file)? >> bit & 1 == 0 {
            continue;
        }
        file.seek(SeekFrom::Start(limbs_at))?;
        let limbs = (0..count)
            .map(|_| read_u64(file))
            .collect::<io::Result<_>>()?;
        let pos = HeapPos { index, offset };
        return Ok(Some(KeptHeap { pos, line, limbs }));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offer_all(holders: &mut FirstHolders, values: &[u128]) {
        for (i, &v) in values.iter().enumerate() {
            let pos = HeapPos {
                index: i as u64,
                offset: 10 * i as u64,
            };
            holders
                .offer(pos, Some(i as u64 + 1), &HeapValue::Word(v))
                .unwrap();
        }
    }

    #[test]
    fn only_first_holders_are_kept() {
        let mut holders = FirstHolders::default();
        offer_all(&mut holders, &[5, 1, 4, 2, 7]);
        let found = holders.first_with_bit(1).unwrap().unwrap();
        assert_eq!((found.pos.index, found.limbs.as_slice()), (3, &[2u64][..]));
        assert_eq!(holders.in_memory.len(), 2);
    }

    #[test]
    fn candidates_past_the_limit_spill_and_are_found_again() {
        let mut holders = FirstHolders::default();
        let powers: Vec<u128> = (0..128).map(|k| 1u128 << k).collect();
        let rounds = 4;
        for round in 0..rounds {
            let shifted: Vec<HeapValue> = powers
                .iter()
                .map(|&p| {
                    HeapValue::Limbs(
                        [vec![0; 2 * round], vec![p as u64, (p >> 64) as u64]].concat(),
                    )
                })
                .collect();
            for (i, v) in shifted.iter().enumerate() {
                let trimmed = HeapValue::Limbs(v.to_limbs());
                let pos = HeapPos {
                    index: (round * 128 + i) as u64,
                    offset: 0,
                };
                holders.offer(pos, None, &trimmed).unwrap();
            }
        }
        assert!(holders.spill.is_some());
        assert!(holders.in_memory_bytes <= IN_MEMORY_BYTES);
        let last_round = rounds - 1;
        let position = 64 * 2 * last_round as u64 + 70;
        let found = holders.first_with_bit(position).unwrap().unwrap();
        assert_eq!(found.pos.index, (last_round * 128 + 70) as u64);
        assert!(found.limbs[(position / 64) as usize] >> (position % 64) & 1 == 1);
        assert_eq!(holders.first_with_bit(64 * 1000).unwrap(), None);
    }
}
