//! A finite commutative monoid as its product table, element 0 the
//! identity, and the bitsets over its elements that the proof explores.

use crate::games::{Game, Leave};

/// A finite commutative monoid: `order` elements numbered from 0 (the
/// identity), the product of i and j at `cells[i * order + j]`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Table {
    order: usize,
    cells: Vec<u16>,
}

impl Table {
    /// The trivial monoid {1}.
    pub(crate) fn trivial() -> Table {
        Table {
            order: 1,
            cells: vec![0],
        }
    }

    /// The monoid of `order` elements whose product is `product`.
    pub(crate) fn from_fn(order: usize, product: impl Fn(usize, usize) -> usize) -> Table {
        let mut cells = Vec::with_capacity(order * order);
        for i in 0..order {
            cells.extend((0..order).map(|j| product(i, j) as u16));
        }
        Table { order, cells }
    }

    /// The number of elements.
    pub(crate) fn order(&self) -> usize {
        self.order
    }

    /// The product of elements `i` and `j`.
    #[inline(always)]
    pub(crate) fn mul(&self, i: u16, j: u16) -> u16 {
        self.cells[i as usize * self.order + j as usize]
    }

    /// The classes of the options of heap `h` of `game`, ascending, each
    /// once, where heap `a` has the class `class(a)`: nothing left is the
    /// identity, one heap its class, two heaps their product.
    pub(crate) fn option_classes(
        &self,
        game: &Game,
        h: u64,
        class: impl Fn(u64) -> u16,
    ) -> Vec<u16> {
        let mut classes: Vec<u16> = game
            .options(h)
            .map(|option| match option.leave {
                Leave::Nothing => 0,
                Leave::One(a) => class(a),
                Leave::Two(a, b) => self.mul(class(a), class(b)),
            })
            .collect();
        classes.sort_unstable();
        classes.dedup();
        classes
    }

    /// The row of products i · j for every j.
    pub(crate) fn rows(&self) -> std::slice::ChunksExact<'_, u16> {
        self.cells.chunks_exact(self.order)
    }

    /// `x` to the power `exponent`, by squaring (x⁰ = 1).
    pub(crate) fn pow(&self, x: u16, mut exponent: u64) -> u16 {
        let (mut result, mut base) = (0, x);
        while exponent > 0 {
            if exponent & 1 == 1 {
                result = self.mul(result, base);
            }
            base = self.mul(base, base);
            exponent >>= 1;
        }
        result
    }
}

/// A set of monoid elements, one bit each.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Bits(Box<[u64]>);

impl Bits {
    /// The empty set over `len` elements.
    pub(crate) fn empty(len: usize) -> Bits {
        Bits(vec![0; len.div_ceil(64)].into_boxed_slice())
    }

    /// Adds `i`.
    #[inline(always)]
    pub(crate) fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    /// The set's words, bit i of word i / 64 for element i.
    pub(crate) fn into_words(self) -> Box<[u64]> {
        self.0
    }

    /// Adds every element of `other`.
    pub(crate) fn union_with(&mut self, other: &Bits) {
        for (word, &more) in self.0.iter_mut().zip(other.0.iter()) {
            *word |= more;
        }
    }
}

/// The coarsest congruence of a commutative monoid (elements 0..`len`,
/// product `mul`, made by `generators`) finer than the partition by
/// `initial`, as a quotient monoid.
///
/// A partition that multiplication by each generator respects (u ~ w ⇒
/// u·g ~ w·g) is a congruence of a commutative monoid the generators make:
/// u ~ u' and w = g₁⋯g_k give u·w ~ u'·w step by step, and then
/// u·w ~ u'·w ~ u'·w'. The coarsest such partition finer than `initial`
/// is the minimal automaton of the elements read letter by letter
/// (letters: the generators; output: `initial`), found by Hopcroft's
/// partition refinement in O(g · len · log len).
pub(crate) struct Congruence {
    /// Each element's class, the identity's (that of element 0) 0, the
    /// others numbered in the order of their first member.
    pub(crate) class: Vec<u16>,
    /// The quotient's product.
    pub(crate) table: Table,
    /// The first member of each class.
    pub(crate) members: Vec<u32>,
}

impl Congruence {
    /// The congruence of `initial`'s keys, or `None` when it has more
    /// than `max_order` classes.
    pub(crate) fn refine(
        len: usize,
        mul: impl Fn(u32, u32) -> u32,
        generators: &[u32],
        initial: impl Fn(u32) -> u32,
        max_order: usize,
    ) -> Option<Congruence> {
        let block = hopcroft(len, |u, g| mul(u, generators[g]), generators.len(), initial);
        let mut number = vec![u32::MAX; len];
        let mut members: Vec<u32> = Vec::new();
        for (m, &b) in block.iter().enumerate() {
            if number[b as usize] == u32::MAX {
                if members.len() >= max_order {
                    return None;
                }
                number[b as usize] = members.len() as u32;
                members.push(m as u32);
            }
        }
        let class: Vec<u16> = block.iter().map(|&b| number[b as usize] as u16).collect();
        let table = Table::from_fn(members.len(), |i, j| {
            class[mul(members[i], members[j]) as usize] as usize
        });
        Some(Congruence {
            class,
            table,
            members,
        })
    }
}

/// Hopcroft's minimisation of the automaton with states 0..`len`,
/// letters 0..`letters`, moves `step` and outputs `initial`: each
/// state's block of the coarsest partition finer than the outputs that
/// every letter respects.
fn hopcroft(
    len: usize,
    step: impl Fn(u32, usize) -> u32,
    letters: usize,
    initial: impl Fn(u32) -> u32,
) -> Vec<u32> {
    // The moves backwards, letter by letter: the states q with
    // step(q, a) = w are sources[a][starts[a][w]..starts[a][w + 1]].
    let mut starts = vec![vec![0u32; len + 1]; letters];
    let mut sources = vec![vec![0u32; len]; letters];
    for a in 0..letters {
        let targets: Vec<u32> = (0..len as u32).map(|q| step(q, a)).collect();
        for &w in &targets {
            starts[a][w as usize + 1] += 1;
        }
        for w in 0..len {
            starts[a][w + 1] += starts[a][w];
        }
        let mut fill = starts[a].clone();
        for (q, &w) in targets.iter().enumerate() {
            sources[a][fill[w as usize] as usize] = q as u32;
            fill[w as usize] += 1;
        }
    }
    // The blocks: each a range of `order`; `position` is each state's
    // place in it.
    let mut keys: std::collections::HashMap<u32, u32> = Default::default();
    let mut block: Vec<u32> = (0..len as u32)
        .map(|q| {
            let fresh = keys.len() as u32;
            *keys.entry(initial(q)).or_insert(fresh)
        })
        .collect();
    let blocks = keys.len();
    let mut order: Vec<u32> = (0..len as u32).collect();
    order.sort_by_key(|&q| block[q as usize]);
    let mut position = vec![0u32; len];
    for (i, &q) in order.iter().enumerate() {
        position[q as usize] = i as u32;
    }
    let mut first = vec![0u32; blocks];
    let mut size = vec![0u32; blocks];
    for &q in &order {
        size[block[q as usize] as usize] += 1;
    }
    for b in 1..blocks {
        first[b] = first[b - 1] + size[b - 1];
    }
    let mut marked = vec![0u32; blocks];
    let mut pending: Vec<(u32, usize)> = Vec::new();
    let mut waiting: std::collections::HashSet<(u32, usize)> = Default::default();
    for b in 0..blocks as u32 {
        for a in 0..letters {
            pending.push((b, a));
            waiting.insert((b, a));
        }
    }
    let mut touched: Vec<u32> = Vec::new();
    while let Some((splitter, a)) = pending.pop() {
        waiting.remove(&(splitter, a));
        let (from, to) = (
            first[splitter as usize],
            first[splitter as usize] + size[splitter as usize],
        );
        let states: Vec<u32> = order[from as usize..to as usize].to_vec();
        // Mark every state that letter a takes into the splitter: move
        // it to the front of its block.
        for w in states {
            let range = starts[a][w as usize] as usize..starts[a][w as usize + 1] as usize;
            for &q in &sources[a][range] {
                let b = block[q as usize] as usize;
                let (at, front) = (position[q as usize], first[b] + marked[b]);
                if at < front {
                    continue;
                }
                if marked[b] == 0 {
                    touched.push(b as u32);
                }
                let other = order[front as usize];
                order.swap(at as usize, front as usize);
                position[other as usize] = at;
                position[q as usize] = front;
                marked[b] += 1;
            }
        }
        // Split each touched block into its marked front and the rest.
        for b in touched.drain(..) {
            let b = b as usize;
            let count = marked[b];
            marked[b] = 0;
            if count == size[b] {
                continue;
            }
            let new = first.len() as u32;
            first.push(first[b]);
            size.push(count);
            marked.push(0);
            first[b] += count;
            size[b] -= count;
            for i in first[new as usize]..first[new as usize] + count {
                block[order[i as usize] as usize] = new;
            }
            for c in 0..letters {
                if waiting.contains(&(b as u32, c)) {
                    pending.push((new, c));
                    waiting.insert((new, c));
                } else {
                    let smaller = match size[new as usize] <= size[b] {
                        true => new,
                        false => b as u32,
                    };
                    pending.push((smaller, c));
                    waiting.insert((smaller, c));
                }
            }
        }
    }
    block
}
