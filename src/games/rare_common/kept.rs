//! Where the engine reads the values computed so far ([`KeptValues`]):
//! all of them, or the prefix and the last values a streamed sequence
//! keeps; and why it may not give the next value ([`Shortfall`]).

/// Where the engine reads the values computed so far.
pub(crate) trait KeptValues {
    /// How many values are computed: g(0) … g(n − 1).
    fn computed(&self) -> u64;

    /// The longest kept run of values ending just before heap `end`
    /// (≤ n): g(end − len) … g(end − 1).
    fn run_before(&self, end: u64) -> &[u16];

    /// The longest kept run of values starting at heap `start` (empty
    /// when g(`start`) is not kept).
    fn run_from(&self, start: u64) -> &[u16];

    /// g(`heap`), if kept.
    fn value(&self, heap: u64) -> Option<u16> {
        self.run_from(heap).first().copied()
    }
}

impl KeptValues for [u16] {
    fn computed(&self) -> u64 {
        self.len() as u64
    }

    fn run_before(&self, end: u64) -> &[u16] {
        &self[..end as usize]
    }

    fn run_from(&self, start: u64) -> &[u16] {
        self.get(start as usize..).unwrap_or(&[])
    }
}

/// Why the engine could not give the next value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shortfall {
    /// The value of `heap` is past 65,535, the largest a table holds.
    TooLarge {
        /// The heap.
        heap: u64,
    },
    /// The proof of `heap`'s value reads g(`needs`), which is not kept.
    Forgotten {
        /// The heap being proven.
        heap: u64,
        /// The heap whose value it needed.
        needs: u64,
    },
}

/// g(`needs`), read for the proof of `heap`.
pub(super) fn value_of<K: KeptValues + ?Sized>(
    kept: &K,
    heap: u64,
    needs: u64,
) -> Result<u16, Shortfall> {
    kept.value(needs)
        .ok_or(Shortfall::Forgotten { heap, needs })
}
