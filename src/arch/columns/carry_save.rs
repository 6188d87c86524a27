//! The Harley–Seal carry-save state the column counters keep: three
//! levels of adders that fold eight words into one of eight times the
//! weight, and bit-sliced counter planes under them. Written once on
//! arrays of `N` 64-bit lanes; [`fold8_with`] is the fold on any word type,
//! which the AVX-512 loop runs on its vectors.

/// Bit-sliced planes of the top counters: plane p has weight 512·2^p, so
/// 40 planes count up to 2^49 vectors per lane, far past any file.
const PLANES: usize = 40;

/// Harley–Seal state over `N` lanes: the counts of every vector fed so
/// far, per lane and bit.
#[derive(Clone, Debug)]
pub(super) struct Carries<const N: usize> {
    /// Level l's running words, of weights 8^l, 2·8^l and 4·8^l.
    pub(super) running: [[[u64; N]; 3]; 3],
    /// Level l's carries out (of weight 8^(l+1)) not yet folded into level
    /// l + 1; the top level's go to the planes at once.
    pub(super) pending: [[[u64; N]; 8]; 2],
    pub(super) pending_len: [usize; 2],
    pub(super) planes: [[u64; N]; PLANES],
}

impl<const N: usize> Default for Carries<N> {
    fn default() -> Self {
        Carries {
            running: [[[0; N]; 3]; 3],
            pending: [[[0; N]; 8]; 2],
            pending_len: [0; 2],
            planes: [[0; N]; PLANES],
        }
    }
}

impl<const N: usize> Carries<N> {
    /// Adds the counts held here into `columns`, word bit q into column
    /// q mod `period` (a power of two, at most 64).
    pub(super) fn add_to(&self, columns: &mut [u64; 64], period: usize) {
        let mut add = |lanes: &[u64; N], weight: u64| {
            for &word in lanes {
                let mut rest = word;
                while rest != 0 {
                    columns[rest.trailing_zeros() as usize & (period - 1)] += weight;
                    rest &= rest - 1;
                }
            }
        };
        for (level, running) in self.running.iter().enumerate() {
            let unit = 1 << (3 * level);
            for (k, word) in running.iter().enumerate() {
                add(word, unit << k);
            }
        }
        for (level, pending) in self.pending.iter().enumerate() {
            let weight = 8 << (3 * level);
            for word in &pending[..self.pending_len[level]] {
                add(word, weight);
            }
        }
        for (p, plane) in self.planes.iter().enumerate() {
            add(plane, 512 << p);
        }
    }

    /// The lowest bit of every lane's count in every column: the XOR of
    /// the words fed.
    pub(super) fn parity(&self) -> [u64; N] {
        self.running[0][0]
    }

    /// Adds 8N words (eight vectors of N lanes) by carry-save steps.
    #[inline(always)]
    pub(super) fn step(&mut self, v: &[[u64; N]; 8]) {
        let eights = fold8(&mut self.running[0], v);
        self.add_eights(eights);
    }

    /// Takes the carry out of the first level, one "eights" word per lane
    /// (for a loop that keeps that level's running words elsewhere); every
    /// eighth folds the pending ones into the next level.
    #[inline(always)]
    pub(super) fn add_eights(&mut self, eights: [u64; N]) {
        self.pending[0][self.pending_len[0]] = eights;
        self.pending_len[0] += 1;
        if self.pending_len[0] == 8 {
            self.pending_len[0] = 0;
            let sixty_fours = fold8(&mut self.running[1], &self.pending[0]);
            self.add_sixty_fours(sixty_fours);
        }
    }

    /// Takes one "sixty-fours" word per lane; every eighth folds the
    /// pending ones into the top level and its carry into the planes.
    fn add_sixty_fours(&mut self, sixty_fours: [u64; N]) {
        self.pending[1][self.pending_len[1]] = sixty_fours;
        self.pending_len[1] += 1;
        if self.pending_len[1] == 8 {
            self.pending_len[1] = 0;
            let top = fold8(&mut self.running[2], &self.pending[1]);
            add_to_planes(&mut self.planes, top);
        }
    }
}

/// Adds one word per lane, of the weight of plane 0, into the bit-sliced
/// planes.
fn add_to_planes<const N: usize>(planes: &mut [[u64; N]; PLANES], mut carry: [u64; N]) {
    for plane in planes.iter_mut() {
        let sum = xor(*plane, carry);
        carry = and(*plane, carry);
        *plane = sum;
        if carry == [0; N] {
            return;
        }
    }
    unreachable!("a counter plane overflowed past 2^49 vectors per lane");
}

/// Eight words of equal weight w folded into a level's running words of
/// weights w, 2w and 4w by seven carry-save steps: returns the carry out,
/// of weight 8w.
#[inline(always)]
fn fold8<const N: usize>(running: &mut [[u64; N]; 3], v: &[[u64; N]; 8]) -> [u64; N] {
    fold8_with(running, v, csa)
}

/// [`fold8`] on any words, with `csa` their carry-save adder.
#[inline(always)]
pub(super) fn fold8_with<T: Copy>(
    running: &mut [T; 3],
    v: &[T; 8],
    csa: impl Fn(T, T, T) -> (T, T),
) -> T {
    let [ones, twos, fours] = *running;
    let (twos_a, ones) = csa(ones, v[0], v[1]);
    let (twos_b, ones) = csa(ones, v[2], v[3]);
    let (fours_a, twos) = csa(twos, twos_a, twos_b);
    let (twos_a, ones) = csa(ones, v[4], v[5]);
    let (twos_b, ones) = csa(ones, v[6], v[7]);
    let (fours_b, twos) = csa(twos, twos_a, twos_b);
    let (eights, fours) = csa(fours, fours_a, fours_b);
    *running = [ones, twos, fours];
    eights
}

/// A carry-save adder on every bit of N lanes: returns (carry, sum).
#[inline(always)]
fn csa<const N: usize>(a: [u64; N], b: [u64; N], c: [u64; N]) -> ([u64; N], [u64; N]) {
    let u = xor(a, b);
    let carry = std::array::from_fn(|i| (a[i] & b[i]) | (u[i] & c[i]));
    (carry, xor(u, c))
}

#[inline(always)]
fn xor<const N: usize>(a: [u64; N], b: [u64; N]) -> [u64; N] {
    std::array::from_fn(|i| a[i] ^ b[i])
}

#[inline(always)]
fn and<const N: usize>(a: [u64; N], b: [u64; N]) -> [u64; N] {
    std::array::from_fn(|i| a[i] & b[i])
}
