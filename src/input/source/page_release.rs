//! Keeping the resident size of a mapped input bounded inside long heaps.
//!
//! A pass releases the pages it has left behind at heap boundaries, but a
//! single heap can be gigabytes long (one `bits` token, one `unary` line).
//! A [`PageReleaser`] lets the scanners and the accumulators release the
//! pages of such a heap while they walk through it, step by step, so that
//! peak RSS stays in the tens of MiB whatever the heap's length. It finds
//! where a byte slice lies in the map from the slice's address, so callers
//! only hand it the bytes they are done with.
//!
//! Over bytes that are not in a map (a buffer, a chunk read from a file)
//! it does nothing.

use crate::input::heap::HeapValue;
use memmap2::{Mmap, UncheckedAdvice};
use std::convert::Infallible;
use std::ops::Range;

/// Pages are released in steps of this many bytes as a pass moves on.
pub const RELEASE_STEP_BYTES: usize = 8 << 20;

/// The page size pages are released by.
pub const PAGE: usize = 4096;

/// Drops the resident pages of `map` in `start..end` (rounded inward to
/// whole pages), so that a pass over a file larger than memory keeps a
/// bounded resident size. The bytes stay readable: touching them again
/// reads them back from the file (or the page cache).
pub fn release_pages(map: &Mmap, start: usize, end: usize) {
    let first = start.div_ceil(PAGE) * PAGE;
    let last = (end.min(map.len()) / PAGE) * PAGE;
    if last <= first {
        return;
    }
    // SAFETY: the map is a read-only file mapping that this process never
    // writes, so MADV_DONTNEED only drops clean pages: a later read faults
    // them back in from the file with the same contents, and every `&[u8]`
    // into the map stays valid. The range lies inside the map. A failure
    // only means the pages stay resident.
    let _ = unsafe { map.unchecked_advise_range(UncheckedAdvice::DontNeed, first, last - first) };
}

/// Releases the resident pages of bytes a pass is done with, when they lie
/// in a memory map.
#[derive(Clone, Copy, Default)]
pub struct PageReleaser<'m> {
    map: Option<&'m Mmap>,
}

impl<'m> PageReleaser<'m> {
    /// A releaser that never releases anything (in-memory data).
    pub const NONE: PageReleaser<'static> = PageReleaser { map: None };

    /// A releaser for the pages of `map`.
    pub fn of(map: &'m Mmap) -> Self {
        PageReleaser { map: Some(map) }
    }

    /// Releases the whole pages inside `bytes`, if `bytes` lies in the map.
    pub fn release(&self, bytes: &[u8]) {
        let Some(map) = self.map else { return };
        let map_start = map.as_ptr() as usize;
        let start = bytes.as_ptr() as usize;
        if start < map_start || start + bytes.len() > map_start + map.len() {
            return;
        }
        let offset = start - map_start;
        release_pages(map, offset, offset + bytes.len());
    }

    /// Visits the limbs `limbs` of `value` from the most significant end
    /// in ranges backed by about `RELEASE_STEP_BYTES` bytes of input
    /// each, releasing each range's bytes after its visit; stops at the
    /// first error.
    pub fn in_steps<E>(
        &self,
        value: &HeapValue<'_>,
        limbs: Range<u64>,
        mut visit: impl FnMut(Range<u64>) -> Result<(), E>,
    ) -> Result<(), E> {
        let step = match value.bytes_per_limb() {
            Some(bytes) => (RELEASE_STEP_BYTES / bytes) as u64,
            None => u64::MAX,
        };
        let mut hi = limbs.end;
        while hi > limbs.start {
            let lo = hi.saturating_sub(step).max(limbs.start);
            visit(lo..hi)?;
            self.release(value.limb_bytes(lo..hi));
            hi = lo;
        }
        Ok(())
    }

    /// XORs limbs `first_limb ..` of `value` into `window` (one limb per
    /// slot), releasing the input behind it step by step.
    ///
    /// Inlined up to the test of whether the value reaches the window at
    /// all: in a windowed pass most heaps do not, and that test was the
    /// larger part of the pass's time per heap as a call.
    #[inline(always)]
    pub fn xor_window(&self, value: &HeapValue<'_>, first_limb: u64, window: &mut [u64]) {
        let limb_count = value.bit_length().div_ceil(64);
        if limb_count > first_limb {
            self.xor_reaching(value, first_limb, limb_count, window);
        }
    }

    /// [`Self::xor_window`] for a value of `limb_count` limbs that reaches
    /// the window.
    fn xor_reaching(
        &self,
        value: &HeapValue<'_>,
        first_limb: u64,
        limb_count: u64,
        window: &mut [u64],
    ) {
        let end = limb_count.min(first_limb.saturating_add(window.len() as u64));
        if self.map.is_none() || value.bytes_per_limb().is_none() || end <= first_limb {
            // Nothing to release: no steps.
            value.xor_window(first_limb, window);
            return;
        }
        let xored = self.in_steps(value, first_limb..end, |range| {
            let slots = (range.start - first_limb) as usize..(range.end - first_limb) as usize;
            value.xor_window(range.start, &mut window[slots]);
            Ok::<(), Infallible>(())
        });
        xored.unwrap_or_else(|never| match never {});
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_cover_the_range_top_down_without_gaps() {
        let digits = vec![b'1'; 3 * RELEASE_STEP_BYTES + 1000];
        let value = HeapValue::Binary(&digits);
        let mut seen = Vec::new();
        let limbs = 5..value.bit_length().div_ceil(64);
        let visited = PageReleaser::NONE.in_steps(&value, limbs, |r| {
            seen.push(r);
            Ok::<(), ()>(())
        });
        assert_eq!(visited, Ok(()));
        let step = (RELEASE_STEP_BYTES / 64) as u64;
        assert_eq!(seen.len(), 4);
        assert_eq!(seen[0].end, value.bit_length().div_ceil(64));
        assert!(seen.windows(2).all(|w| w[1].end == w[0].start));
        assert!(seen.iter().all(|r| r.end - r.start <= step));
        assert_eq!(seen.last().unwrap().start, 5);
    }

    #[test]
    fn stepped_windows_equal_whole_windows() {
        let digits: Vec<u8> = (0..RELEASE_STEP_BYTES + 777)
            .map(|i| b'0' + ((i * 7 + i / 13) % 3 == 0) as u8)
            .collect();
        let value = HeapValue::Binary(&digits);
        for (first, len) in [(0, 140_000), (3, 131_072), (131_000, 200), (140_000, 4)] {
            let mut stepped = vec![0u64; len];
            PageReleaser::NONE.xor_window(&value, first, &mut stepped);
            let mut whole = vec![0u64; len];
            value.xor_window(first, &mut whole);
            assert_eq!(stepped, whole, "{first} {len}");
        }
    }
}
