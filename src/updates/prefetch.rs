//! Fetching memory ahead of its use: a stream of updates to random heaps
//! of a large file waits on a cache miss or more per update (the index
//! entry, the updated heaps' table, FILE's bytes, the tree's leaf), and
//! the reader parses updates ahead (`serve.rs`) so that these are fetched
//! while the updates before them are applied.
//!
//! A prefetch is a hint: it changes nothing the program sees, and on
//! targets other than x86-64 it does nothing.

/// Asks the CPU to bring the cache lines of `items` (at most four) in,
/// without waiting for them.
pub(super) fn prefetch<T>(items: &[T]) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let start = items.as_ptr() as usize;
        let end = start + std::mem::size_of_val(items);
        for line in (start & !63..end).step_by(64).take(4) {
            // SAFETY: a prefetch is a hint that never faults, whatever the
            // address, and SSE (which has it) is part of every x86-64 CPU.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(line as *const i8) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = items;
}
