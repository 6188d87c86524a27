//! The values a streamed sequence keeps: the prefix g(0) … g(P − 1), and
//! once the sequence is longer, a ring of the last R values.
//!
//! The ring is written twice, each value at i mod R and at i mod R + R, so
//! that any run of the last R values is one slice (the engine's kernels
//! read runs) at the cost of a second store per value. It is made when the
//! sequence outgrows the prefix, from the prefix's last values; until then
//! the prefix holds everything and the ring takes no memory.

use crate::games::rare_common::KeptValues;

/// The kept values of a sequence being computed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Kept {
    /// g(0) … g(min(n, P) − 1).
    prefix: Vec<u16>,
    /// P: how many values the prefix keeps.
    prefix_len: u64,
    /// The last values, twice over (`2 · ring_len` entries once made).
    ring: Vec<u16>,
    /// R: how many of the last values the ring keeps.
    ring_len: u64,
    /// n: the values computed.
    computed: u64,
}

impl Kept {
    /// Nothing yet, keeping `prefix_len` ≥ 1 values from the start and
    /// `ring_len` ≥ 1 at the end.
    pub(crate) fn new(prefix_len: u64, ring_len: u64) -> Kept {
        assert!(prefix_len >= 1 && ring_len >= 1, "keep at least one value");
        Kept {
            prefix: Vec::new(),
            prefix_len,
            ring: Vec::new(),
            ring_len,
            computed: 0,
        }
    }

    /// P and R.
    pub(crate) fn lengths(&self) -> (u64, u64) {
        (self.prefix_len, self.ring_len)
    }

    /// Appends g(n).
    pub(crate) fn push(&mut self, value: u16) {
        if self.computed < self.prefix_len {
            if self.prefix.len() == self.prefix.capacity() {
                // Grow by doubling, but never past P.
                let len = self.prefix.len();
                let room = (self.prefix_len as usize - len).min(len.max(1 << 10));
                self.prefix.reserve_exact(room);
            }
            self.prefix.push(value);
        } else {
            if self.ring.is_empty() {
                self.make_ring();
            }
            let at = (self.computed % self.ring_len) as usize;
            self.ring[at] = value;
            self.ring[at + self.ring_len as usize] = value;
        }
        self.computed += 1;
    }

    /// The ring, filled with the prefix's last values.
    fn make_ring(&mut self) {
        let r = self.ring_len as usize;
        self.ring = vec![0; 2 * r];
        let start = self.computed.saturating_sub(self.ring_len);
        for heap in start..self.computed {
            let at = (heap % self.ring_len) as usize;
            let value = self.prefix[heap as usize];
            self.ring[at] = value;
            self.ring[at + r] = value;
        }
    }

    /// Every value so far, while the prefix holds them all.
    pub(crate) fn whole(&self) -> Option<&[u16]> {
        (self.computed <= self.prefix_len).then_some(&self.prefix[..])
    }

    /// The prefix: g(0) … g(min(n, P) − 1).
    pub(crate) fn prefix(&self) -> &[u16] {
        &self.prefix
    }

    /// The prefix, given up.
    pub(crate) fn into_prefix(self) -> Vec<u16> {
        self.prefix
    }

    /// The first heap the ring keeps (n − R, or 0), when it is made.
    fn ring_start(&self) -> Option<u64> {
        (!self.ring.is_empty()).then(|| self.computed.saturating_sub(self.ring_len))
    }

    /// The values of heaps `start` … `end` − 1 from the ring, which keeps
    /// them all.
    fn ring_run(&self, start: u64, end: u64) -> &[u16] {
        let at = (start % self.ring_len) as usize;
        &self.ring[at..at + (end - start) as usize]
    }

    /// The last values kept without a gap, and the heap of the first: all
    /// of them while the prefix holds every value, the ring's after.
    pub(crate) fn last_run(&self) -> (u64, &[u16]) {
        match self.ring_start() {
            None => (0, &self.prefix),
            Some(start) => (start, self.ring_run(start, self.computed)),
        }
    }

    /// The ring's values, oldest first (empty until it is made).
    pub(crate) fn ring_values(&self) -> &[u16] {
        match self.ring_start() {
            None => &[],
            Some(start) => self.ring_run(start, self.computed),
        }
    }

    /// Kept values restored: the prefix, and the ring's last values (empty
    /// unless n > P), for `computed` values.
    pub(crate) fn restore(
        prefix_len: u64,
        ring_len: u64,
        computed: u64,
        prefix: Vec<u16>,
        last: &[u16],
    ) -> Kept {
        let mut kept = Kept::new(prefix_len, ring_len);
        kept.prefix = prefix;
        kept.computed = computed;
        if computed > prefix_len {
            let r = ring_len as usize;
            kept.ring = vec![0; 2 * r];
            let start = computed - last.len() as u64;
            for (heap, &value) in (start..).zip(last) {
                let at = (heap % ring_len) as usize;
                kept.ring[at] = value;
                kept.ring[at + r] = value;
            }
        }
        kept
    }
}

impl KeptValues for Kept {
    fn computed(&self) -> u64 {
        self.computed
    }

    fn run_before(&self, end: u64) -> &[u16] {
        if end <= self.prefix.len() as u64 {
            return &self.prefix[..end as usize];
        }
        match self.ring_start() {
            Some(start) if end > start => self.ring_run(start, end),
            _ => &[],
        }
    }

    fn run_from(&self, start: u64) -> &[u16] {
        if start < self.prefix.len() as u64 {
            return &self.prefix[start as usize..];
        }
        match self.ring_start() {
            Some(first) if start >= first && start < self.computed => {
                self.ring_run(start, self.computed)
            }
            _ => &[],
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every run the kept values give is the true values' run of that
    /// place, and the values that must be kept are there.
    #[test]
    fn runs_are_the_values_and_the_prefix_and_ring_are_kept() {
        let values: Vec<u16> = (0..200u16).map(|h| h.wrapping_mul(7919) % 97).collect();
        for (p, r) in [(10, 5), (5, 10), (1, 1), (300, 7), (16, 16)] {
            let mut kept = Kept::new(p, r);
            for (n, &value) in values.iter().enumerate() {
                kept.push(value);
                let n = n as u64 + 1;
                for end in 0..=n {
                    let run = kept.run_before(end);
                    let start = end - run.len() as u64;
                    assert_eq!(
                        run,
                        &values[start as usize..end as usize],
                        "{p} {r} {n} {end}"
                    );
                    if end <= p || end + r > n {
                        assert!(end == 0 || !run.is_empty(), "{p} {r} {n} {end}");
                    }
                }
                for start in 0..n {
                    let run = kept.run_from(start);
                    let end = start as usize + run.len();
                    assert_eq!(run, &values[start as usize..end], "{p} {r} {n} {start}");
                    if start < p || start + r >= n {
                        assert!(!run.is_empty(), "{p} {r} {n} {start}");
                    }
                }
                assert_eq!(kept.whole().is_some(), n <= p);
                let (first, last) = kept.last_run();
                assert_eq!(last, &values[first as usize..n as usize]);
                assert!(n <= p || n - first == r.min(n));
            }
            let again = Kept::restore(
                p,
                r,
                values.len() as u64,
                kept.prefix().to_vec(),
                kept.ring_values(),
            );
            assert_eq!(again, kept, "{p} {r}");
        }
    }
}
