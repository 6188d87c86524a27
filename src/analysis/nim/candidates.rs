//! The heaps the one pass keeps as move candidates: each heap that is the
//! first to hold some bit position. The move of normal play is on the
//! first holder of the nim-sum's msb, and misère's on the first heap ≥ 2
//! (the first holder of its top bit), so the heap is among them whatever
//! the msb turns out to be.
//!
//! Usually only a handful of heaps qualify (random heaps cover every bit
//! after a few), but an adversarial stream (1, 2, 4, 8, …) makes every heap
//! a candidate. So the candidates stay in memory only up to
//! [`IN_MEMORY_BYTES`] bytes; later ones spill to an unlinked temporary
//! file, read back once at the end. Working memory stays bounded; the disk
//! holds at most the candidates themselves.
//!
//! A token read in pieces (longer than a read of the one pass over a file)
//! is too long to keep: it stays in the file ([`HeapInFile`]), known by
//! where its digits are and by its top limbs, which usually decide a move
//! played on it; a bit they do not show is read again from the file.

use crate::error::Error;
use crate::input::{HeapPos, HeapValue};
use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Seek, SeekFrom, Write};
use std::ops::Range;

/// Bytes of candidates (limbs and bookkeeping) kept in memory before the
/// rest spill to disk.
pub const IN_MEMORY_BYTES: usize = 2048;

/// The buffer of the spill file, written and read back.
const SPILL_BUFFER_BYTES: usize = 1024;

/// The limbs a heap left in the file keeps of its top.
pub const TOP_LIMBS: usize = 4;

/// A heap kept whole because the move may be played on it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeptHeap {
    /// Where it is.
    pub pos: HeapPos,
    /// Its line, for a stream of a text format.
    pub line: Option<u64>,
    /// Its value, little-endian limbs without high zero limbs.
    pub limbs: Vec<u64>,
}

/// A heap too long to keep whole, left in the file.
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

/// A candidate found: kept whole, or left in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Candidate {
    /// Kept whole.
    Kept(KeptHeap),
    /// Left in the file.
    InFile(HeapInFile),
}

/// The first holders of every bit position seen so far.
#[derive(Debug, Default)]
pub struct Candidates {
    /// Bits some kept heap holds.
    covered: Vec<u64>,
    /// Limbs of `covered` that are all ones.
    full_limbs: usize,
    in_memory: Vec<KeptHeap>,
    in_memory_bytes: usize,
    spill: Option<BufWriter<File>>,
    /// Every non-zero heap left in the file, in order.
    in_file: Vec<HeapInFile>,
}

impl Candidates {
    /// Whether `value` holds a bit no earlier kept heap held.
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
            None => self.spill.insert(BufWriter::with_capacity(
                SPILL_BUFFER_BYTES,
                tempfile::tempfile()?,
            )),
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

    /// Keeps a heap left in the file.
    pub fn leave_in_file(&mut self, heap: HeapInFile) {
        self.in_file.push(heap);
    }

    /// Where the digits of the heaps left in the file are (they hold no
    /// LF), in order.
    pub fn digits_in_file(&self) -> Vec<Range<u64>> {
        self.in_file.iter().map(|h| h.digits.clone()).collect()
    }

    /// Appends the candidates of the range that follows, whose heap
    /// indices were counted from 0: `heaps_before` heaps precede it.
    pub fn merge(&mut self, mut later: Candidates, heaps_before: u64) -> io::Result<()> {
        later.drain(|mut kept| {
            kept.pos.index += heaps_before;
            self.offer(kept.pos, kept.line, &HeapValue::Limbs(kept.limbs))
        })?;
        self.in_file
            .extend(later.in_file.into_iter().map(|mut heap| {
                heap.pos.index += heaps_before;
                heap
            }));
        Ok(())
    }

    /// The first candidate for which `wanted` holds: of the kept heaps,
    /// unless a heap left in the file comes before and `in_file` says it
    /// holds (`in_file` may read the file again). Reads the spilled
    /// candidates back, so it is asked once; `io_error` names a failed
    /// read of them.
    pub fn first(
        &mut self,
        wanted: impl Fn(&[u64]) -> bool,
        mut in_file: impl FnMut(&HeapInFile) -> Result<bool, Error>,
        io_error: impl Fn(io::Error) -> Error,
    ) -> Result<Option<Candidate>, Error> {
        let mut kept = None;
        self.drain(|candidate| {
            if kept.is_none() && wanted(&candidate.limbs) {
                kept = Some(candidate);
            }
            Ok(())
        })
        .map_err(io_error)?;
        let before = kept.as_ref().map_or(u64::MAX, |k| k.pos.index);
        for heap in self.in_file.iter().take_while(|h| h.pos.index < before) {
            if in_file(heap)? {
                return Ok(Some(Candidate::InFile(heap.clone())));
            }
        }
        Ok(kept.map(Candidate::Kept))
    }

    /// The first holder of each bit position of `positions`, in one read
    /// of the candidates (which empties them, as [`Candidates::first`]
    /// does): `Some(None)` where no heap holds it, `None` where a heap
    /// left in the file comes before every kept holder and its top limbs
    /// do not show the bit (only a read of its digits would tell).
    pub fn first_holders(
        &mut self,
        positions: Range<u64>,
    ) -> io::Result<Vec<Option<Option<HeapPos>>>> {
        let mut kept: Vec<Option<HeapPos>> = vec![None; (positions.end - positions.start) as usize];
        self.drain(|candidate| {
            for (slot, p) in kept.iter_mut().zip(positions.clone()) {
                if slot.is_none() && holds_bit(&candidate.limbs, p) {
                    *slot = Some(candidate.pos);
                }
            }
            Ok(())
        })?;
        let first = |(slot, p): (Option<HeapPos>, u64)| {
            let before = slot.map_or(u64::MAX, |pos| pos.index);
            for heap in self.in_file.iter().take_while(|h| h.pos.index < before) {
                match heap.top_bit(p) {
                    Some(true) => return Some(Some(heap.pos)),
                    Some(false) => {}
                    None => return None,
                }
            }
            Some(slot)
        };
        Ok(kept.into_iter().zip(positions).map(first).collect())
    }

    /// Hands every kept heap to `visit`, in input order, emptying the list
    /// (spilled ones are read back one by one); stops at the first error.
    fn drain(&mut self, mut visit: impl FnMut(KeptHeap) -> io::Result<()>) -> io::Result<()> {
        self.in_memory.drain(..).try_for_each(&mut visit)?;
        self.in_memory_bytes = 0;
        let Some(spill) = self.spill.take() else {
            return Ok(());
        };
        let mut file = spill.into_inner().map_err(io::IntoInnerError::into_error)?;
        let end = file.stream_position()?;
        file.seek(SeekFrom::Start(0))?;
        // A small buffer, as for writing: the spill exists to bound memory.
        let mut input = BufReader::with_capacity(SPILL_BUFFER_BYTES, file);
        let mut at = 0;
        while at < end {
            let kept = read_record(&mut input)?;
            at += 32 + 8 * kept.limbs.len() as u64;
            visit(kept)?;
        }
        Ok(())
    }
}

/// True when bit `position` of little-endian `limbs` is set.
pub fn holds_bit(limbs: &[u64], position: u64) -> bool {
    let word = usize::try_from(position / 64)
        .ok()
        .and_then(|j| limbs.get(j));
    word.is_some_and(|w| w >> (position % 64) & 1 == 1)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(index: usize) -> HeapPos {
        HeapPos {
            index: index as u64,
            offset: 10 * index as u64,
        }
    }

    fn offer_all(candidates: &mut Candidates, values: &[u128]) {
        for (i, &v) in values.iter().enumerate() {
            candidates
                .offer(pos(i), Some(i as u64 + 1), &HeapValue::Word(v))
                .unwrap();
        }
    }

    fn first_holding(candidates: &mut Candidates, bit: u64) -> Option<Candidate> {
        let never = |_: &HeapInFile| Ok(false);
        candidates
            .first(|limbs| holds_bit(limbs, bit), never, |e| Error::io("t", e))
            .unwrap()
    }

    fn pos_of(candidate: Option<Candidate>) -> Option<HeapPos> {
        candidate.map(|found| match found {
            Candidate::Kept(kept) => kept.pos,
            Candidate::InFile(heap) => heap.pos,
        })
    }

    #[test]
    fn only_first_holders_are_kept() {
        let mut candidates = Candidates::default();
        offer_all(&mut candidates, &[5, 1, 4, 2, 7]);
        assert_eq!(candidates.in_memory.len(), 2);
        let Some(Candidate::Kept(found)) = first_holding(&mut candidates, 1) else {
            panic!("heap 3 holds bit 1");
        };
        assert_eq!((found.pos.index, found.limbs.as_slice()), (3, &[2u64][..]));
    }

    #[test]
    fn candidates_past_the_limit_spill_and_are_found_again() {
        let mut candidates = Candidates::default();
        let powers: Vec<u128> = (0..128).map(|k| 1u128 << k).collect();
        let rounds = 4;
        for round in 0..rounds {
            for (i, p) in powers.iter().enumerate() {
                let limbs = [vec![0; 2 * round], vec![*p as u64, (p >> 64) as u64]].concat();
                let trimmed = HeapValue::Limbs(HeapValue::Limbs(limbs).to_limbs());
                candidates
                    .offer(pos(round * 128 + i), None, &trimmed)
                    .unwrap();
            }
        }
        assert!(candidates.spill.is_some());
        assert!(candidates.in_memory_bytes <= IN_MEMORY_BYTES);
        let last_round = rounds - 1;
        let position = 64 * 2 * last_round as u64 + 70;
        let Some(Candidate::Kept(found)) = first_holding(&mut candidates, position) else {
            panic!("a spilled heap holds the bit");
        };
        assert_eq!(found.pos.index, (last_round * 128 + 70) as u64);
        assert!(holds_bit(&found.limbs, position));
    }

    #[test]
    fn a_heap_in_the_file_before_the_first_kept_holder_comes_first() {
        let mut candidates = Candidates::default();
        offer_all(&mut candidates, &[1, 0, 0, 6]);
        let long = HeapInFile::new(pos(2), 20..90, 70, |j| [4, 1 << 5][j as usize]);
        candidates.leave_in_file(long.clone());
        assert_eq!(long.top_bit(69), Some(true));
        assert_eq!(long.top_bit(200), Some(false));
        let holds = |heap: &HeapInFile| Ok(heap.top_bit(2).unwrap_or(true));
        let found = candidates
            .first(|limbs| holds_bit(limbs, 2), holds, |e| Error::io("t", e))
            .unwrap();
        assert_eq!(pos_of(found), Some(pos(2)));
    }

    #[test]
    fn merged_ranges_keep_the_earliest_holders() {
        let (mut first, mut second) = (Candidates::default(), Candidates::default());
        offer_all(&mut first, &[4, 1]);
        offer_all(&mut second, &[1, 2, 8]);
        first.merge(second, 2).unwrap();
        let found = pos_of(first_holding(&mut first, 3));
        assert_eq!(found.map(|p| p.index), Some(4));
    }
}
