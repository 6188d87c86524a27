//! A candidate model of A_{n+1} (see [`super`], **Candidates** and **Its
//! P-portion**): the image of the heaps in the product, its kinds of
//! heaps, its P-portion, and its reduction to a [`Model`].

use super::product::Product;
use super::proof::{Model, ModelKind};
use super::{Coordinate, Refused, MAX_CANDIDATE};
use crate::games::misere::table::{Congruence, Table};
use crate::games::{Game, Leave};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// The live heaps of one kind: one element and one set of option
/// elements (heaps of a kind are interchangeable in every sum).
#[derive(Debug)]
pub(super) struct Kind {
    /// Their element (an index into the image).
    pub(super) element: u32,
    /// The smallest of them.
    pub(super) heap: u64,
    /// Its rank, 2 · heap − 1.
    pub(super) rank: u64,
    /// The elements of their options, ascending, each once.
    pub(super) options: Vec<u32>,
}

/// A candidate model of A_{n+1}: the image of the heaps in the product,
/// indexed densely (element 0 the identity), and the kinds of heaps.
pub(super) struct Candidate<'q> {
    pub(super) product: Product<'q>,
    /// Each code's index in the image (`u32::MAX` outside it).
    pub(super) index: Vec<u32>,
    /// Each element's code.
    pub(super) codes: Vec<u32>,
    pub(super) kinds: Vec<Kind>,
    /// Each heap's element, heaps 0..=n+1.
    pub(super) heaps: Vec<u32>,
    /// The product of every two elements, row by row, for an image of
    /// at most [`DENSE`] elements (else [`Product::mul`] each time): the
    /// P-portion and the reduction take a few products per element and
    /// kind, each a division per coordinate.
    products: Option<Vec<u32>>,
}

/// The most elements of an image whose products are made once.
const DENSE: usize = 1 << 10;

/// A candidate's P-portion and the representative sums that made it.
pub(super) struct Portion {
    /// Whether each element is in S.
    pub(super) in_s: Vec<bool>,
    /// Each element's representative: the element before its last heap,
    /// and that heap's kind (`None` for the identity).
    pub(super) parent: Vec<Option<(u32, u32)>>,
}

impl Portion {
    /// The kinds of the heaps of `element`'s representative.
    pub(super) fn representative(&self, mut element: u32) -> Vec<u32> {
        let mut kinds = Vec::new();
        while let Some((before, kind)) = self.parent[element as usize] {
            kinds.push(kind);
            element = before;
        }
        kinds
    }
}

impl<'q> Candidate<'q> {
    pub(super) fn new(
        game: &Game,
        base: &'q Table,
        classes: &[u16],
        coordinates: &[Coordinate],
    ) -> Result<Candidate<'q>, Refused> {
        let product = Product::new(base, coordinates)?;
        let top = classes.len() as u64 - 1;
        // Each heap's code: its class in the base and one copy of its
        // coordinate, if it has one.
        let codes_of_heaps: Vec<u32> = (0..=top)
            .map(|h| {
                let q = classes[h as usize];
                let at = coordinates.iter().position(|c| c.heap == h);
                product.code(q, at)
            })
            .collect();
        let code = |h: u64| codes_of_heaps[h as usize];
        let mut found: HashMap<(u32, Vec<u32>), usize> = HashMap::new();
        let mut kinds: Vec<(u32, u64, Vec<u32>)> = Vec::new();
        let mut heap_codes = vec![0u32; top as usize + 1];
        for h in 1..=top {
            let mut options: Vec<u32> = game
                .options(h)
                .map(|option| match option.leave {
                    Leave::Nothing => 0,
                    Leave::One(a) => code(a),
                    Leave::Two(a, b) => product.mul(code(a), code(b)),
                })
                .collect();
            if options.is_empty() {
                continue; // a heap with no move is the empty game, 1
            }
            options.sort_unstable();
            options.dedup();
            heap_codes[h as usize] = code(h);
            let fresh = kinds.len();
            if *found.entry((code(h), options.clone())).or_insert(fresh) == fresh {
                kinds.push((code(h), h, options));
            }
        }
        // The image: the identity and the products of the kinds' elements.
        let mut index = vec![u32::MAX; product.len()];
        let mut codes = vec![0u32];
        index[0] = 0;
        let mut next = 0;
        while next < codes.len() {
            let from = codes[next];
            next += 1;
            for &(generator, _, _) in &kinds {
                let to = product.mul(from, generator);
                if index[to as usize] == u32::MAX {
                    if codes.len() >= MAX_CANDIDATE {
                        return Err(Refused::Candidate);
                    }
                    index[to as usize] = codes.len() as u32;
                    codes.push(to);
                }
            }
        }
        let dense = |code: u32| index[code as usize];
        let kinds = kinds
            .into_iter()
            .map(|(element, heap, options)| {
                let mut options: Vec<u32> = options.into_iter().map(dense).collect();
                options.sort_unstable();
                Kind {
                    element: dense(element),
                    heap,
                    rank: 2 * heap - 1,
                    options,
                }
            })
            .collect();
        let heaps = heap_codes.into_iter().map(dense).collect();
        let products = (codes.len() <= DENSE).then(|| {
            let parts: Vec<(u16, u32)> = codes.iter().map(|&u| product.parts(u)).collect();
            let product = &product;
            parts
                .iter()
                .flat_map(|&u| parts.iter().map(move |&w| product.mul_parts(u, w)))
                .map(|code| index[code as usize])
                .collect()
        });
        Ok(Candidate {
            product,
            index,
            codes,
            kinds,
            heaps,
            products,
        })
    }

    pub(super) fn len(&self) -> usize {
        self.codes.len()
    }

    /// The product of two elements of the image.
    pub(super) fn mul(&self, u: u32, w: u32) -> u32 {
        if let Some(products) = &self.products {
            return products[u as usize * self.len() + w as usize];
        }
        let code = self
            .product
            .mul(self.codes[u as usize], self.codes[w as usize]);
        self.index[code as usize]
    }

    /// The element of a sum of heaps of `kinds`.
    pub(super) fn element_of_kinds(&self, kinds: &[u32]) -> u32 {
        kinds.iter().fold(0, |product, &kind| {
            self.mul(product, self.kinds[kind as usize].element)
        })
    }

    /// The element of a sum of `heaps`.
    pub(super) fn element_of_heaps(&self, heaps: &[u64]) -> u32 {
        heaps
            .iter()
            .fold(0, |product, &h| self.mul(product, self.heaps[h as usize]))
    }

    /// A sum of heaps of `kinds` as heaps (the smallest of each kind).
    pub(super) fn heaps_of_kinds(&self, kinds: &[u32]) -> Vec<u64> {
        kinds
            .iter()
            .map(|&kind| self.kinds[kind as usize].heap)
            .collect()
    }

    /// The P-portion S, from representatives of least rank (module docs):
    /// the elements settled in the order of (rank, element, parent), each
    /// queued again only when a parent lowers that order.
    pub(super) fn p_portion(&self) -> Portion {
        let len = self.len();
        let mut portion = Portion {
            in_s: vec![false; len],
            parent: vec![None; len],
        };
        let mut settled = vec![false; len];
        let mut best: Vec<(u64, Option<(u32, u32)>)> = vec![(u64::MAX, None); len];
        best[0] = (0, None);
        let mut queue = BinaryHeap::from([Reverse((0u64, 0u32, None))]);
        while let Some(Reverse((rank, m, parent))) = queue.pop() {
            if settled[m as usize] {
                continue;
            }
            settled[m as usize] = true;
            portion.parent[m as usize] = parent;
            let kinds = portion.representative(m);
            portion.in_s[m as usize] = self.is_p(&kinds, &portion.in_s);
            for (index, kind) in (0u32..).zip(&self.kinds) {
                let to = self.mul(m, kind.element);
                let reached = (rank + kind.rank, Some((m, index)));
                if !settled[to as usize] && reached < best[to as usize] {
                    best[to as usize] = reached;
                    queue.push(Reverse((reached.0, to, reached.1)));
                }
            }
        }
        portion
    }

    /// Whether the sum of heaps of `kinds` is a misère P-position, its
    /// options' outcomes read from `in_s`: it has a move and no option's
    /// element is in S.
    pub(super) fn is_p(&self, kinds: &[u32], in_s: &[bool]) -> bool {
        if kinds.is_empty() {
            return false;
        }
        let mut sorted = kinds.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        sorted.iter().all(|&kind| {
            let mut rest = kinds.to_vec();
            let at = rest
                .iter()
                .position(|&k| k == kind)
                .expect("a kind of the sum");
            rest.swap_remove(at);
            let rest = self.element_of_kinds(&rest);
            self.kinds[kind as usize]
                .options
                .iter()
                .all(|&o| !in_s[self.mul(rest, o) as usize])
        })
    }

    /// The image divided by the coarsest congruence keeping S apart
    /// (module docs): Q_{n+1} if the candidate is a model, and the model
    /// the proof checks either way. `None` past `max_order` classes.
    pub(super) fn reduce(&self, in_s: &[bool], max_order: usize) -> Result<Model, Refused> {
        // Kinds outnumber their elements.
        let mut generators: Vec<u32> = self.kinds.iter().map(|kind| kind.element).collect();
        generators.sort_unstable();
        generators.dedup();
        let congruence = Congruence::refine(
            self.len(),
            |u, w| self.mul(u, w),
            &generators,
            |m| u32::from(in_s[m as usize]),
            max_order,
        )
        .ok_or(Refused::Candidate)?;
        let class = |m: u32| congruence.class[m as usize];
        let mut found: HashMap<(u16, Vec<u16>), usize> = HashMap::new();
        let mut kinds: Vec<ModelKind> = Vec::new();
        for kind in &self.kinds {
            let mut options: Vec<u16> = kind.options.iter().map(|&o| class(o)).collect();
            options.sort_unstable();
            options.dedup();
            let fresh = kinds.len();
            let at = *found
                .entry((class(kind.element), options.clone()))
                .or_insert(fresh);
            if at == fresh {
                kinds.push(ModelKind {
                    element: class(kind.element),
                    heap: kind.heap,
                    rank: kind.rank,
                    options,
                });
            } else if kind.rank < kinds[at].rank {
                (kinds[at].heap, kinds[at].rank) = (kind.heap, kind.rank);
            }
        }
        Ok(Model {
            explored: std::cell::Cell::new(0),
            in_s: congruence
                .members
                .iter()
                .map(|&m| in_s[m as usize])
                .collect(),
            heaps: self.heaps.iter().map(|&m| class(m)).collect(),
            table: congruence.table,
            kinds,
        })
    }
}
