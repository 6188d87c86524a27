//! Fetching memory ahead of its use: the one place the prefetch
//! instruction is written. Two loops wait on cache misses they can see
//! coming: a stream of updates to random heaps of a large file (the index
//! entry, the updated heaps' table, FILE's bytes, the tree's leaf; the
//! reader parses updates ahead, `updates/serve.rs`, so that these are
//! fetched while the updates before them are applied), and the pass over
//! a graph's nodes in queue order (`graph/acyclic.rs`); and, outside
//! the crate, the Python package's walk over a list of ints, each an
//! object of its own ([`prefetch_address`]).
//!
//! A prefetch is a hint: it changes nothing the program sees, and on
//! targets other than x86-64 it does nothing.

/// Asks the CPU to bring the cache lines of `items` (at most four) in,
/// without waiting for them.
#[inline(always)]
pub(crate) fn prefetch<T>(items: &[T]) {
    let start = items.as_ptr().cast::<u8>();
    let skew = start as usize & 63;
    let len = std::mem::size_of_val(items) + skew;
    for line in (0..len).step_by(64).take(4) {
        fetch(start.wrapping_sub(skew).wrapping_add(line));
    }
}

/// Asks the CPU to bring the cache line of `items[index]` in; nothing
/// else happens, whatever `index` is.
#[inline(always)]
pub(crate) fn prefetch_at<T>(items: &[T], index: usize) {
    fetch(items.as_ptr().wrapping_add(index).cast::<u8>());
}

/// Asks the CPU to bring the cache line at `address` in; nothing else
/// happens, whatever `address` is (it is never read).
#[inline(always)]
pub fn prefetch_address<T>(address: *const T) {
    fetch(address.cast::<u8>());
}

/// The prefetch of the cache line at `address`, which is never read.
#[inline(always)]
fn fetch(address: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is a hint: it reads nothing the program can
        // observe and never faults, whatever the address (computed with
        // `wrapping_*`, without dereferencing); SSE, which has it, is part
        // of every x86-64 CPU.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(address.cast::<i8>()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = address;
}
