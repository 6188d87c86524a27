//! Working memory, counted rather than estimated: a global allocator that
//! keeps the bytes currently allocated and the peak since the last reset.
//!
//! The binary installs [`CountingAllocator`] as its global allocator; the
//! analysis resets the peak when it starts and reports the peak above what
//! was allocated before it began. A program that does not install the
//! allocator sees 0.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static CURRENT: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);
static PAUSED: AtomicBool = AtomicBool::new(false);
static EXCLUDED: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting bytes in use and their peak. Install it
/// in a program to have [`Stats::working_memory_bytes`] measured:
///
/// ```
/// use nimstream::working_memory::CountingAllocator;
/// use nimstream::{analyze_bytes, Format, Options};
///
/// #[global_allocator]
/// static ALLOCATOR: CountingAllocator = CountingAllocator;
///
/// let report = analyze_bytes(b"3 4 5", Format::Dec, "example", &Options::default())?;
/// assert!(report.stats.working_memory_bytes > 0);
/// # Ok::<(), nimstream::Error>(())
/// ```
///
/// [`Stats::working_memory_bytes`]: crate::report::Stats::working_memory_bytes
pub struct CountingAllocator;

impl CountingAllocator {
    fn record_alloc(size: usize) {
        let now = CURRENT.fetch_add(size, Ordering::Relaxed) + size;
        if !PAUSED.load(Ordering::Relaxed) {
            let counted = now.saturating_sub(EXCLUDED.load(Ordering::Relaxed));
            PEAK.fetch_max(counted, Ordering::Relaxed);
        }
        INSTALLED.store(true, Ordering::Relaxed);
    }

    fn record_free(size: usize) {
        CURRENT.fetch_sub(size, Ordering::Relaxed);
    }
}

// SAFETY: every method forwards to `System` with the caller's layout and
// pointer unchanged, so `System`'s guarantees carry over; the counters are
// plain atomics and never allocate.
unsafe impl GlobalAlloc for CountingAllocator {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            Self::record_alloc(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc_zeroed`'s contract.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            Self::record_alloc(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by `System` with `layout` (see `alloc`).
        unsafe { System.dealloc(ptr, layout) };
        Self::record_free(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract, and
        // `ptr` came from `System` with `layout`.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            Self::record_free(layout.size());
            Self::record_alloc(new_size);
        }
        new
    }
}

/// Runs `render` without counting what it allocates as working memory:
/// the digits of values written into the report are output (their size is
/// the user's `--inline-bits`), not the analysis's windows and counters.
/// Meant for the analysis thread; allocations made meanwhile on other
/// threads are not counted either.
pub(crate) fn outside_working_memory<T>(render: impl FnOnce() -> T) -> T {
    let before = CURRENT.load(Ordering::Relaxed);
    let was_paused = PAUSED.swap(true, Ordering::Relaxed);
    let out = render();
    let kept = CURRENT.load(Ordering::Relaxed).saturating_sub(before);
    EXCLUDED.fetch_add(kept, Ordering::Relaxed);
    PAUSED.store(was_paused, Ordering::Relaxed);
    out
}

/// Measures the peak working memory of one piece of work.
#[derive(Debug)]
pub(crate) struct MemoryMeter {
    baseline: usize,
}

impl MemoryMeter {
    /// Starts measuring: the peak is reset to what is allocated now.
    pub(crate) fn start() -> MemoryMeter {
        EXCLUDED.store(0, Ordering::Relaxed);
        let baseline = CURRENT.load(Ordering::Relaxed);
        PEAK.store(baseline, Ordering::Relaxed);
        MemoryMeter { baseline }
    }

    /// The most bytes allocated at once since `start`, above the baseline
    /// (0 when the counting allocator is not installed).
    pub(crate) fn peak_bytes(&self) -> u64 {
        if !INSTALLED.load(Ordering::Relaxed) {
            return 0;
        }
        PEAK.load(Ordering::Relaxed).saturating_sub(self.baseline) as u64
    }
}
