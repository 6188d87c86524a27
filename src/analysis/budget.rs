//! The working-memory budget of `--memory`: a byte count (with an optional
//! `KiB`/`MiB`/`GiB` suffix, at least 64) or `log`, the paper's
//! logarithmic-space mode; and [`Plan`], everything an analysis reads off
//! it. The budget is interpreted here and nowhere else.
//!
//! Two algorithms follow from it (see [`super`]): one pass keeping what
//! the move needs, for a stream (whatever the budget: it can be read only
//! once) and for an input read at any offset under a budget that holds the
//! pass's buffers; or passes over windows of the nim-sum, for smaller
//! budgets and `log`, whose working memory is one window and a few
//! counters.

use crate::input::driver::Reads;
use crate::input::source::page_release::RELEASE_STEP_BYTES;
use crate::input::source::Input;
use crate::input::Format;
use std::fmt;
use std::str::FromStr;

/// How much memory the nim-sum window may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryBudget {
    /// A window of at most this many bytes of bit positions.
    Bytes(u64),
    /// A window of O(log n) bits for an input of n bytes.
    Log,
}

impl Default for MemoryBudget {
    fn default() -> Self {
        MemoryBudget::Bytes(1 << 30)
    }
}

impl MemoryBudget {
    /// The smallest budget accepted, in bytes.
    pub const MIN_BYTES: u64 = 64;

    /// The smallest budget under which an input read at any offset is
    /// analysed in one pass: its read buffers, counters and packed tokens
    /// take a few MiB.
    const ONE_PASS_MIN_BYTES: u64 = 64 << 20;

    /// The most ranges a pass under `log` reads at once: two ranges'
    /// counters and windows stay within its 16 KiB of working memory
    /// (SPEC section 3), and two threads halve a pass over many heaps
    /// (`bench/RESULTS.md`, "One pass of `--memory log`").
    const LOG_RANGES: usize = 2;

    /// The size of a read of the one pass (`pread` into a buffer of each
    /// range). A read's fixed cost is high on these virtual machines (1
    /// GiB cached: `dd bs=1M` 143 ms against `bs=128K` 169, 11 shuffled
    /// rounds), and past 1 MiB (a core's L2) the scan no longer finds
    /// what the kernel copied in cache: against 128 KiB, 1 MiB took 0.97
    /// of the time on hex and 0.81 on u64le, 2 and 4 MiB no less
    /// (`bench/RESULTS.md`).
    pub(crate) const ONE_PASS_READ_BYTES: usize = 1 << 20;

    /// A range shorter than this is not worth a thread of its own.
    const MIN_RANGE_BYTES: u64 = 4 << 20;

    /// The map's pages a pass that reads pieces of whole heaps in place
    /// holds at most, its ranges together: each range releases its pages
    /// behind every this many bytes over the ranges, within the size of a
    /// read and [`RELEASE_STEP_BYTES`]. Peak RSS stays within the one
    /// pass's 64 MiB on any number of cores; on two (8 MiB a range) it is
    /// 25-28 MiB.
    const MAPPED_BYTES: usize = 32 << 20;

    /// The bytes a range reads in place between releases of their pages,
    /// for a pass of `ranges` ranges and reads of `read_bytes`.
    fn release_bytes(ranges: usize, read_bytes: usize) -> usize {
        (Self::MAPPED_BYTES / ranges.max(1))
            .min(RELEASE_STEP_BYTES)
            .max(read_bytes)
    }

    /// The longest heap a pass with positioned reads buffers: a longer
    /// one is read in place from the map (or in pieces).
    const MAX_BUFFERED_HEAP_BYTES: usize = 8 << 20;

    /// How far a windowed pass's cut between ranges looks for a heap
    /// boundary: past it (inside a longer heap) the cut is dropped, so
    /// that no pass reads a long heap twice to split it.
    const CUT_SEARCH_BYTES: usize = 256 << 10;

    /// The window of a stream under `log`, in bits: a stream is read once,
    /// so every heap must fit one window, and 64 bits would refuse most
    /// instances (SPEC section 3).
    const STREAM_LOG_WINDOW_BITS: u64 = 4096;

    /// What an analysis of `input` reads off the budget.
    pub(crate) fn plan(self, input: &Shape) -> Plan {
        let one_pass = match (input.len, self) {
            (None, _) => true,
            (Some(_), MemoryBudget::Bytes(bytes)) => bytes >= Self::ONE_PASS_MIN_BYTES,
            (Some(_), MemoryBudget::Log) => false,
        };
        self.plan_for(input, one_pass)
    }

    /// The plan of one algorithm: one pass, or windowed passes (a stream
    /// is always read in one pass).
    pub(crate) fn plan_for(self, input: &Shape, one_pass: bool) -> Plan {
        let one_pass = one_pass || input.len.is_none();
        let window_limbs = self.window_limbs(input.len);
        let (window_bits, counting) = match (input.len, one_pass) {
            (None, _) => {
                let lean = match self {
                    MemoryBudget::Log => true,
                    MemoryBudget::Bytes(bytes) => bytes < Self::ONE_PASS_MIN_BYTES,
                };
                (self.stream_window_bits(), Counting::Every { lean })
            }
            (Some(_), true) => (64 * window_limbs, Counting::Top { lean: false }),
            (Some(_), false) if input.format.raw_width().is_some() => {
                (64 * window_limbs, Counting::Off)
            }
            (Some(_), false) => (64 * window_limbs, Counting::Top { lean: true }),
        };
        // Each range of a windowed pass holds a window of its own: under a
        // byte budget text formats read one range (raw arrays never need
        // more than their first pass and the first-holder search). Under
        // `log` a window is one limb, and a range's counters take about 6
        // KiB, so a pass reads at most `LOG_RANGES` ranges at once.
        let raw = input.format.raw_width().is_some();
        let ranges = match (one_pass, raw, self) {
            (true, _, _) | (false, true, MemoryBudget::Bytes(_)) => input.threads.max(1),
            (false, _, MemoryBudget::Log) => input.threads.clamp(1, Self::LOG_RANGES),
            (false, false, MemoryBudget::Bytes(_)) => 1,
        };
        let later = Reads {
            ranges,
            min_range_bytes: Self::MIN_RANGE_BYTES,
            read_bytes: self.chunk_bytes(),
            release_bytes: Self::release_bytes(ranges, self.chunk_bytes()),
            // A windowed pass reads heaps in place from the map, so this
            // only bounds how far a cut between ranges looks for a heap
            // boundary (every pass cuts again).
            max_buffered_heap_bytes: Self::CUT_SEARCH_BYTES,
            max_packed_bytes: usize::MAX,
            stream_chunk_bytes: self.chunk_bytes(),
            heaps_in_place: true,
        };
        let first = match one_pass {
            true => Reads {
                read_bytes: Self::ONE_PASS_READ_BYTES,
                release_bytes: Self::release_bytes(ranges, Self::ONE_PASS_READ_BYTES),
                max_buffered_heap_bytes: Self::MAX_BUFFERED_HEAP_BYTES,
                // Each range may hold one long token's packed digits, and
                // their sum is as long as the longest.
                max_packed_bytes: usize::try_from(self.bytes() / (ranges as u64 + 1))
                    .unwrap_or(usize::MAX),
                heaps_in_place: false,
                ..later
            },
            false => later,
        };
        Plan {
            one_pass,
            window_bits,
            window_limbs,
            counting,
            first,
            later,
        }
    }

    /// The window of the windowed passes, in 64-bit limbs, for an input of
    /// `len` bytes: the budget's bytes, or under `log` ⌈log₂(n + 1)⌉ bits
    /// rounded up to whole limbs (one limb for any input a 64-bit machine
    /// can address).
    fn window_limbs(self, len: Option<u64>) -> u64 {
        match self {
            MemoryBudget::Bytes(bytes) => (bytes / 8).max(1),
            MemoryBudget::Log => {
                let n = len.unwrap_or(u64::MAX);
                let log_bits = u64::from(64 - n.saturating_add(1).leading_zeros());
                log_bits.div_ceil(64).max(1)
            }
        }
    }

    /// The window of a stream, in bits.
    fn stream_window_bits(self) -> u64 {
        match self {
            MemoryBudget::Log => Self::STREAM_LOG_WINDOW_BITS,
            MemoryBudget::Bytes(bytes) => bytes.saturating_mul(8),
        }
    }

    /// The budget in bytes (under `log`, none to speak of).
    fn bytes(self) -> u64 {
        match self {
            MemoryBudget::Bytes(bytes) => bytes,
            MemoryBudget::Log => 0,
        }
    }

    /// The size of a read buffer for a stream or for a windowed pass
    /// without a map: the budget within 4 KiB .. 1 MiB, or 4 KiB under
    /// `log`. It grows only when a heap is longer.
    fn chunk_bytes(self) -> usize {
        match self {
            MemoryBudget::Log => 4096,
            MemoryBudget::Bytes(bytes) => bytes.clamp(4096, 1 << 20) as usize,
        }
    }
}

/// How the initial pass of `updates` reads FILE on `threads` threads:
/// in pieces cut at heap boundaries as the one pass reads it (in place
/// from the map, else into small buffers), a heap too long for them in
/// place from the map, which the updates then read; no token packed (the
/// session keeps no budget).
pub(crate) fn update_reads(threads: usize) -> Reads {
    Reads {
        ranges: threads.max(1),
        min_range_bytes: MemoryBudget::MIN_RANGE_BYTES,
        read_bytes: MemoryBudget::ONE_PASS_READ_BYTES,
        release_bytes: MemoryBudget::release_bytes(threads, MemoryBudget::ONE_PASS_READ_BYTES),
        max_buffered_heap_bytes: MemoryBudget::MAX_BUFFERED_HEAP_BYTES,
        max_packed_bytes: 0,
        stream_chunk_bytes: 128 << 10,
        heaps_in_place: false,
    }
}

/// What the budget depends on about an input.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    /// Its size when it can be read at any offset; `None` for a stream.
    pub len: Option<u64>,
    /// Its format.
    pub format: Format,
    /// The threads the user allows.
    pub threads: usize,
}

impl Shape {
    /// The shape of `input` in `format`, read on `threads` threads.
    pub(crate) fn of(input: &Input<'_>, format: Format, threads: usize) -> Shape {
        Shape {
            len: input.size(),
            format,
            threads,
        }
    }
}

/// How the first pass counts the heaps holding each bit position (see
/// [`super::nim::holder_counts`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Counting {
    /// Every position: a stream cannot be read again. `lean`: without
    /// staging heaps for the carry-save tree, which takes 64 bytes more a
    /// limb position; under `log` and small budgets.
    Every { lean: bool },
    /// The top positions; the rest is counted again if the msb lies there.
    /// `lean`: without the AVX-512 column loop, whose state takes about 4
    /// KiB more a position; for the windowed passes, where that would be
    /// most of the working memory (and under `log` two ranges' counters
    /// share its 16 KiB).
    Top { lean: bool },
    /// None: a later pass counts the holders of the msb (raw arrays under
    /// a small budget, whose passes are cheap and whose working memory
    /// stays a few words).
    Off,
}

/// Everything one analysis reads off the budget.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plan {
    /// One pass keeping what the move needs, rather than windowed passes.
    pub one_pass: bool,
    /// The most bits of nim-sum the first pass holds: a longer heap is an
    /// error on a stream, and leaves the nim-sum to the windowed passes
    /// otherwise.
    pub window_bits: u64,
    /// The window of the windowed passes, in limbs.
    pub window_limbs: u64,
    /// How the first pass counts the holders of each bit.
    pub counting: Counting,
    /// How the first pass reads.
    pub first: Reads,
    /// How the passes after it read.
    pub later: Reads,
}

impl Plan {
    /// The first pass's reads, but no long token packed whole: for a pass
    /// that needs each digit once (a residue), as the reads bring it.
    pub(crate) fn first_unpacked(&self) -> Reads {
        Reads {
            max_packed_bytes: 0,
            ..self.first
        }
    }

    /// The passes after the first, once it has counted the `heaps` of an
    /// input of `len` bytes. They read heaps in place from the map, and a
    /// pass over heaps longer than [`MemoryBudget::CUT_SEARCH_BYTES`] on
    /// average does little but fault the map's pages in and release them,
    /// which two threads do more slowly than one (the pages are released
    /// from both cores' TLBs): four heaps of 4.5 million bits under `log`
    /// took 20.9 s on two threads against 12.5 s on one, while 1 GiB of
    /// heaps of 1–4,096 bits took half the time. Such passes read one
    /// range, and no cut looks for a boundary inside their heaps.
    pub(crate) fn after_first_pass(&mut self, heaps: u64, len: u64) {
        if len / heaps.max(1) > MemoryBudget::CUT_SEARCH_BYTES as u64 {
            self.later.ranges = 1;
        }
    }
}

/// A byte count with an optional `KiB`/`MiB`/`GiB` (or `K`/`M`/`G`, or `B`)
/// suffix, case-insensitive; `None` when malformed or too large.
pub fn parse_byte_size(text: &str) -> Option<u64> {
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(digits_end);
    let unit: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        _ => return None,
    };
    number.parse::<u64>().ok()?.checked_mul(unit)
}

impl FromStr for MemoryBudget {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        if text.eq_ignore_ascii_case("log") {
            return Ok(MemoryBudget::Log);
        }
        let bytes = parse_byte_size(text).ok_or_else(|| {
            format!(
                "invalid memory budget '{text}': expected bytes with an optional \
                 KiB, MiB or GiB suffix (e.g. 64KiB), or 'log'"
            )
        })?;
        if bytes < MemoryBudget::MIN_BYTES {
            return Err(format!(
                "memory budget '{text}' is below the minimum of {} bytes",
                MemoryBudget::MIN_BYTES
            ));
        }
        Ok(MemoryBudget::Bytes(bytes))
    }
}

impl fmt::Display for MemoryBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemoryBudget::Bytes(bytes) => write!(f, "{bytes} bytes"),
            MemoryBudget::Log => f.write_str("log"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_scale_by_powers_of_1024() {
        assert_eq!("64".parse(), Ok(MemoryBudget::Bytes(64)));
        assert_eq!("64KiB".parse(), Ok(MemoryBudget::Bytes(64 << 10)));
        assert_eq!("3M".parse(), Ok(MemoryBudget::Bytes(3 << 20)));
        assert_eq!("1gib".parse(), Ok(MemoryBudget::Bytes(1 << 30)));
        assert_eq!("LOG".parse(), Ok(MemoryBudget::Log));
    }

    #[test]
    fn small_or_malformed_budgets_are_refused() {
        assert!("63".parse::<MemoryBudget>().is_err());
        assert!("1TiB5".parse::<MemoryBudget>().is_err());
        assert!("KiB".parse::<MemoryBudget>().is_err());
        assert!("99999999999999999999G".parse::<MemoryBudget>().is_err());
    }

    #[test]
    fn log_windows_are_one_limb_for_real_inputs() {
        assert_eq!(MemoryBudget::Log.window_limbs(Some(0)), 1);
        assert_eq!(MemoryBudget::Log.window_limbs(Some(u64::MAX)), 1);
        assert_eq!(MemoryBudget::Bytes(64).window_limbs(Some(10)), 8);
    }

    fn shape(len: Option<u64>, format: Format) -> Shape {
        Shape {
            len,
            format,
            threads: 4,
        }
    }

    #[test]
    fn streams_take_one_pass_under_every_budget() {
        for budget in [MemoryBudget::Log, MemoryBudget::Bytes(64)] {
            let plan = budget.plan(&shape(None, Format::Hex));
            assert!(plan.one_pass);
            assert_eq!(plan.counting, Counting::Every { lean: true });
        }
        let roomy = MemoryBudget::Bytes(1 << 30).plan(&shape(None, Format::Hex));
        assert_eq!(roomy.counting, Counting::Every { lean: false });
        let log = MemoryBudget::Log.plan(&shape(None, Format::Bits));
        assert_eq!(log.window_bits, 4096);
        assert_eq!(
            MemoryBudget::Bytes(64)
                .plan(&shape(None, Format::Bits))
                .window_bits,
            512
        );
    }

    #[test]
    fn small_budgets_read_files_in_windows_on_one_thread() {
        let plan = MemoryBudget::Bytes(1 << 20).plan(&shape(Some(1 << 30), Format::Dec));
        assert!(!plan.one_pass);
        assert_eq!((plan.window_limbs, plan.first.ranges), (1 << 17, 1));
        assert!(plan.first.heaps_in_place);
        let raw = MemoryBudget::Bytes(64).plan(&shape(Some(1 << 30), Format::U64le));
        assert_eq!((raw.counting, raw.first.ranges), (Counting::Off, 4));
        let default = MemoryBudget::default().plan(&shape(Some(1 << 30), Format::Dec));
        assert!(default.one_pass && !default.first.heaps_in_place);
        assert_eq!(default.first.max_packed_bytes, (1 << 30) / 5);
    }

    #[test]
    fn passes_over_long_heaps_read_one_range() {
        let mut plan = MemoryBudget::Log.plan(&shape(Some(1 << 30), Format::Bits));
        plan.after_first_pass(1 << 20, 1 << 30);
        assert_eq!((plan.first.ranges, plan.later.ranges), (2, 2));
        plan.after_first_pass(4, 1 << 30);
        assert_eq!((plan.first.ranges, plan.later.ranges), (2, 1));
        let mut empty = MemoryBudget::Log.plan(&shape(Some(0), Format::Bits));
        empty.after_first_pass(0, 0);
        assert_eq!(empty.later.ranges, 2);
    }

    #[test]
    fn log_passes_read_at_most_two_ranges() {
        let raw = MemoryBudget::Log.plan(&shape(Some(1 << 30), Format::U64le));
        assert_eq!(
            (raw.counting, raw.first.ranges, raw.window_bits),
            (Counting::Off, 2, 64)
        );
        let dec = MemoryBudget::Log.plan(&shape(Some(1 << 30), Format::Dec));
        assert_eq!(
            (dec.one_pass, dec.first.ranges, dec.later.ranges),
            (false, 2, 2)
        );
        let one = Shape {
            threads: 1,
            ..shape(Some(1 << 30), Format::Hex)
        };
        assert_eq!(MemoryBudget::Log.plan(&one).first.ranges, 1);
    }
}
