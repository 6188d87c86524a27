//! Fetching memory ahead of its use: the one place the prefetch
//! instruction is written. Three kinds of loop wait on cache misses they
//! can see coming: a stream of updates to random heaps of a large file
//! (the index entry, the updated heaps' table, FILE's bytes, the tree's
//! leaf; the reader parses updates ahead, `updates/serve.rs`, so that
//! these are fetched while the updates before them are applied), the pass
//! over a graph's nodes in queue order (`graph/acyclic.rs`), and the
//! loops that read a text input's bytes for the first time, front to
//! back (`read_ahead`); and, outside the crate, the Python package's walk
//! over a list of ints, each an object of its own ([`prefetch_address`]).
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

/// How far ahead of the byte it reads a loop over the input asks for the
/// input's bytes ([`read_ahead`]).
///
/// On an Intel Xeon with AVX-512 under KVM the short-token loop waited on
/// its loads from a file's map: 42 % of its samples fell on the
/// instruction after the load (`perf annotate`). Asking for the line 4 KiB
/// ahead in every loop that reads the input first (the short-token runs,
/// the token-end search, the hex packer) took one thread's pass over 1 GiB
/// (`analyze -j 1`, CPU time, `farm-bench` of 11 pairs in turn) to 0.74 of
/// the time on short `bits`, 0.86 on short `hex`, 0.91 on short `dec`,
/// 0.65 on short `unary`, 0.81 on long `hex` and 0.83 on long `bits`; 512
/// B, 1 KiB and 2 KiB gained less on short `bits`, and so did 8 KiB and
/// more, which reach past the pages the kernel maps at a fault. On Zen 3
/// (AVX2), whose loads did not wait there, a prefetch 2 KiB ahead in the
/// `bits` loop took 1.01 of the time and 8 KiB 1.00 (`bench/RESULTS.md`).
pub(crate) const READ_AHEAD: usize = 4096;

/// Asks the CPU to bring in the cache line [`READ_AHEAD`] bytes past
/// `data[at]`, for a loop that reads `data` forward from `at`; nothing
/// else happens, whatever `at` is (past the end, nothing is read).
#[inline(always)]
pub(crate) fn read_ahead(data: &[u8], at: usize) {
    fetch(data.as_ptr().wrapping_add(at).wrapping_add(READ_AHEAD));
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
