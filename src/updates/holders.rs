//! Where the holders of a bit are, for `--moves` while every heap of FILE
//! fits in 64 bits: how many heaps hold each bit 0 to 63, and a tree of
//! the ORs of blocks of [`BLOCK_HEAPS`] heaps that leads to the first
//! block holding a bit.
//!
//! The counts give `winning_moves` (the holders of the msb) in O(1); they
//! change by the bits an update flips. The tree finds the move's heap:
//! the leftmost block whose OR has the bit, then the first heap in that
//! block that holds it (the caller scans the block). A node is the OR of
//! up to [`FANOUT`] nodes below, so the inner nodes take a seventh of the
//! leaves' memory, and a descent looks at `FANOUT` words per level.
//!
//! An update only ORs its new value into the nodes above its block: a
//! node may then claim bits its heaps no longer hold (a superset, never
//! less). A search that scans a block and finds no holder replaces the
//! block's OR by the exact one it has just read ([`OrTree::set`]) and
//! descends again. Each such miss is paid for by an earlier update that
//! cleared bits of that block, so a search costs O(B + log n) amortized,
//! and an update that does not clear the move's bits costs no block
//! scan at all (recomputing the block's OR at every update would read B
//! heaps each time).

/// Heaps per block (a leaf of the tree): a multiple of the index's sample
/// spacing, so that a block starts on a sample.
pub(super) const BLOCK_HEAPS: u64 = 32;

/// Children per node.
const FANOUT: usize = 8;

/// Per-bit holder counts of the heaps' low 64 bits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct WordHolderCounts(pub(super) [u64; 64]);

impl WordHolderCounts {
    /// Moves the count of each bit from `old`'s bits to `new`'s.
    pub(super) fn replace(&mut self, old: u64, new: u64) {
        let mut lost = old & !new;
        while lost != 0 {
            self.0[lost.trailing_zeros() as usize] -= 1;
            lost &= lost - 1;
        }
        let mut gained = new & !old;
        while gained != 0 {
            self.0[gained.trailing_zeros() as usize] += 1;
            gained &= gained - 1;
        }
    }
}

/// The tree of block ORs: level 0 holds the leaves (one per block), each
/// level above the ORs of up to [`FANOUT`] nodes of the level below, up
/// to a single root.
#[derive(Clone, Debug)]
pub(super) struct OrTree {
    levels: Vec<Vec<u64>>,
}

impl OrTree {
    /// The tree over the exact ORs of the blocks, in order.
    pub(super) fn new(leaves: Vec<u64>) -> OrTree {
        let mut levels = vec![leaves];
        while levels.last().expect("the leaves").len() > 1 {
            let below = levels.last().expect("a level");
            let above = below
                .chunks(FANOUT)
                .map(|nodes| nodes.iter().fold(0, |a, b| a | b))
                .collect();
            levels.push(above);
        }
        OrTree { levels }
    }

    /// ORs `bits` into `leaf` and the nodes above it.
    pub(super) fn add(&mut self, leaf: usize, bits: u64) {
        let mut node = leaf;
        for level in &mut self.levels {
            level[node] |= bits;
            node /= FANOUT;
        }
    }

    /// Sets `leaf` to the exact OR of its block and recomputes the nodes
    /// above it.
    pub(super) fn set(&mut self, leaf: usize, exact: u64) {
        self.levels[0][leaf] = exact;
        let mut node = leaf;
        for k in 1..self.levels.len() {
            let parent = node / FANOUT;
            let below = &self.levels[k - 1];
            let first = parent * FANOUT;
            let children = &below[first..(first + FANOUT).min(below.len())];
            let or = children.iter().fold(0, |a, b| a | b);
            self.levels[k][parent] = or;
            node = parent;
        }
    }

    /// The leftmost leaf whose OR has a bit of `mask` (its block may no
    /// longer hold one: see the module documentation).
    pub(super) fn leftmost(&self, mask: u64) -> Option<usize> {
        let top = self.levels.len() - 1;
        if self.levels[top].first().is_none_or(|root| root & mask == 0) {
            return None;
        }
        let mut node = 0;
        for level in self.levels[..top].iter().rev() {
            let first = node * FANOUT;
            let children = &level[first..(first + FANOUT).min(level.len())];
            let child = children.iter().position(|or| or & mask != 0)?;
            node = first + child;
        }
        Some(node)
    }

    /// Starts fetching `leaf` (a hint).
    pub(super) fn prefetch_leaf(&self, leaf: usize) {
        if let Some(node) = self.levels[0].get(leaf) {
            crate::arch::prefetch::prefetch(std::slice::from_ref(node));
        }
    }

    /// The memory the tree takes, in bytes.
    pub(super) fn bytes(&self) -> u64 {
        self.levels.iter().map(|level| 8 * level.len() as u64).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn the_leftmost_leaf_is_the_first_with_the_bit_however_many_leaves() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for leaves in [1usize, 2, 7, 8, 9, 63, 64, 65, 513, 1000] {
            let ors: Vec<u64> = (0..leaves)
                .map(|_| rng.random::<u64>() & rng.random::<u64>() & rng.random::<u64>())
                .collect();
            let tree = OrTree::new(ors.clone());
            for bit in 0..64 {
                let mask = 1u64 << bit;
                let expected = ors.iter().position(|or| or & mask != 0);
                assert_eq!(tree.leftmost(mask), expected, "{leaves} leaves, bit {bit}");
            }
            assert_eq!(tree.leftmost(0), None);
        }
    }

    #[test]
    fn set_and_add_keep_every_node_the_or_below_it() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let mut ors: Vec<u64> = (0..300)
            .map(|_| rng.random::<u64>() & rng.random::<u64>())
            .collect();
        let mut tree = OrTree::new(ors.clone());
        for _ in 0..2000 {
            let leaf = rng.random_range(0..ors.len());
            let bits = rng.random::<u64>() & rng.random::<u64>() & rng.random::<u64>();
            if rng.random_bool(0.5) {
                ors[leaf] |= bits;
                tree.add(leaf, bits);
            } else {
                ors[leaf] = bits;
                tree.set(leaf, bits);
            }
            let rebuilt = OrTree::new(ors.clone());
            assert_eq!(tree.levels, rebuilt.levels);
        }
    }

    #[test]
    fn counts_follow_the_bits_that_change() {
        let mut counts = WordHolderCounts([0; 64]);
        counts.replace(0, 0b1011);
        counts.replace(0, 0b0010);
        counts.replace(0b1011, 1 << 63);
        assert_eq!(&counts.0[..4], [0, 1, 0, 0]);
        assert_eq!(counts.0[63], 1);
    }

    #[test]
    fn the_inner_nodes_take_a_seventh_of_the_leaves() {
        let tree = OrTree::new(vec![0; 80_000]);
        assert!(tree.bytes() <= 8 * 80_000 * 8 / 7 + 64, "{}", tree.bytes());
    }
}
