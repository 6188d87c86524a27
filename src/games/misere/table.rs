//! A finite commutative monoid as its product table, element 0 the
//! identity, and the bitsets over its elements that the proof explores.

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

    /// Whether `i` is in the set.
    #[inline(always)]
    pub(crate) fn has(&self, i: usize) -> bool {
        self.0[i / 64] >> (i % 64) & 1 == 1
    }

    /// Adds `i`.
    #[inline(always)]
    pub(crate) fn insert(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
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
/// `initial` (Moore's partition refinement: u ~ w only if u·g ~ w·g for
/// each generator g, which for a commutative monoid made by them means
/// for every element), as a quotient monoid.
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
    /// The congruence of `initial`'s keys.
    pub(crate) fn refine(
        len: usize,
        mul: impl Fn(u32, u32) -> u32,
        generators: &[u32],
        initial: impl Fn(u32) -> u32,
    ) -> Congruence {
        let mut class: Vec<u32> = (0..len as u32).map(&initial).collect();
        let mut count = usize::MAX;
        loop {
            let mut ids: std::collections::HashMap<Vec<u32>, u32> = Default::default();
            let next: Vec<u32> = (0..len as u32)
                .map(|m| {
                    let mut signature = vec![class[m as usize]];
                    signature.extend(generators.iter().map(|&g| class[mul(m, g) as usize]));
                    let fresh = ids.len() as u32;
                    *ids.entry(signature).or_insert(fresh)
                })
                .collect();
            class = next;
            if ids.len() == count {
                break;
            }
            count = ids.len();
        }
        let mut number = vec![u16::MAX; count];
        let mut members = Vec::with_capacity(count);
        for (m, &c) in class.iter().enumerate() {
            if number[c as usize] == u16::MAX {
                number[c as usize] = members.len() as u16;
                members.push(m as u32);
            }
        }
        let class: Vec<u16> = class.iter().map(|&c| number[c as usize]).collect();
        let table = Table::from_fn(count, |i, j| {
            class[mul(members[i], members[j]) as usize] as usize
        });
        Congruence {
            class,
            table,
            members,
        }
    }
}
