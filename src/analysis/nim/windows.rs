//! The windowed passes: the nim-sum a window of bit positions at a time,
//! most significant first, for heaps longer than the budget and for
//! `--memory log` (SPEC section 3, "Bounded memory").
//!
//! Each pass XORs the bits of every heap that fall in its window
//! ([`WindowXor`]), so working memory is one window whatever the heaps'
//! length. The windows come top-down so that the nim-sum and the move's
//! target stream out to their files from the most significant end and no
//! window is held twice; with `--decide` the passes stop at the first
//! window that is not zero.

use crate::error::Error;
use crate::input::driver::{At, Fold, Needs};
use crate::input::{Heap, HeapValue, PageReleaser, WordBlock};
use crate::nimsum::WindowAccumulator;

/// One window of the nim-sum: limbs `first .. first + len`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Its lowest limb.
    pub first: u64,
    /// Its limbs.
    pub len: usize,
}

/// The windows of `window_limbs` limbs that cover a nim-sum of
/// `max_bit_length` bits, most significant first.
pub fn top_down(max_bit_length: u64, window_limbs: u64) -> impl Iterator<Item = Window> {
    let max_limbs = max_bit_length.div_ceil(64);
    (0..max_limbs.div_ceil(window_limbs)).rev().map(move |k| {
        let first = k * window_limbs;
        Window {
            first,
            len: window_limbs.min(max_limbs - first) as usize,
        }
    })
}

/// The fold of one windowed pass: the XOR of every heap's bits in the
/// window.
#[derive(Debug)]
pub struct WindowXor {
    window: WindowAccumulator,
}

impl WindowXor {
    /// An empty window.
    pub fn new(window: Window) -> WindowXor {
        WindowXor {
            window: WindowAccumulator::new(window.first, window.len),
        }
    }

    /// The window's limbs, least significant first.
    pub fn into_limbs(self) -> Vec<u64> {
        self.window.into_limbs()
    }
}

impl Fold for WindowXor {
    fn needs(&self) -> Needs {
        Needs::WORDS
    }

    #[inline]
    fn heap(&mut self, _: u64, heap: &Heap<'_>, at: &mut At<'_>) -> Result<(), Error> {
        self.window.xor(&heap.value, at.pages);
        Ok(())
    }

    /// XORs the block's XOR into the window: the bits of a heap in the
    /// window are XORed in whatever heap they come from.
    fn words(&mut self, block: WordBlock<'_>, _: &mut At<'_>) -> Result<(), Error> {
        let xor = HeapValue::Word(block.xor());
        self.window.xor(&xor, PageReleaser::NONE);
        Ok(())
    }

    fn merge(&mut self, later: WindowXor, _: u64) -> Result<(), Error> {
        self.window.merge(&later.window);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_cover_every_limb_once_from_the_top() {
        let windows: Vec<Window> = top_down(64 * 10 + 3, 4).collect();
        let firsts: Vec<(u64, usize)> = windows.iter().map(|w| (w.first, w.len)).collect();
        assert_eq!(firsts, [(8, 3), (4, 4), (0, 4)]);
        assert_eq!(top_down(0, 4).count(), 0);
    }
}
