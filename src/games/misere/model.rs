//! One heap that extends the quotient: candidate models of A_{n+1}, their
//! P-portions, the proof that one decides every sum (or the least sum it
//! decides wrong), and its reduction to Q_{n+1}.
//!
//! **Models.** A *model* of A_{n+1} is a finite commutative monoid M, an
//! element ψ(h) of M for each heap h ≤ n + 1 (extended to sums: a
//! homomorphism from the free commutative monoid on the heaps) and a set
//! S ⊆ M such that a sum G is a misère P-position iff ψ(G) ∈ S. Given one
//! whose elements are all images of sums, Q_{n+1} is M divided by the
//! coarsest congruence that keeps S apart from the rest: two sums G, H are
//! ≡ (mod A_{n+1}) iff o⁻(G + X) = o⁻(H + X) for every X, iff ψ(G)·z ∈ S
//! ⇔ ψ(H)·z ∈ S for every z = ψ(X) of M. That is Plambeck–Siegel's
//! definition of the misère quotient read on M (the Myhill–Nerode
//! minimisation of S), computed by [`Congruence::refine`].
//!
//! **Candidates** ([`Candidate`]). The submonoid that the heaps generate in
//! B × C(a_1) × … × C(a_r): B is a *base*, a finite commutative monoid
//! with an element for each heap ≤ n + 1, and C(a) = ⟨x | x^{a+2} = x^a⟩
//! counts the copies of one *coordinate* heap, truncated (a count e ≥ a
//! stands for a + (e − a) mod 2). The first base is Q_n, the new heap
//! H_{n+1} its identity and always a coordinate. Q_n alone can be too
//! coarse: a heap can tell apart sums of smaller heaps that Q_n merges (in
//! misère Kayles two heaps of 5 are ≡ no heap among heaps ≤ 8, and a heap
//! of 9 tells them apart; in Dawson's Kayles Q_24 has 24 elements and the
//! heap of 25 splits many of them). Each failed candidate then gives the
//! next: its reduction (below) as the base, the new heap's coordinate, and
//! coordinates separating every pair of sums found so far that must be
//! apart. Which candidates are tried decides only how soon one is proven,
//! never what is found: every candidate is proven before it is used.
//!
//! **Its P-portion** ([`Candidate::p_portion`]): each element m gets the
//! outcome of one representative sum r_m of least rank (a heap of h tokens
//! has rank 2h − 1; every move lowers the rank of a sum, a split that
//! takes nothing too, so options come first): r_m is a P-position iff it
//! has a move and no option's element is in S. Those elements have
//! representatives of lower rank (the options themselves) and are settled
//! first. The candidate divided by the congruence of S is its reduction
//! ([`Candidate::reduce`]), a [`Model`] to prove: the candidate is a model
//! iff its reduction is (S is a union of classes).
//!
//! **The proof** ([`Model::prove`]): for a sum v let F(v) be the set of
//! w ∈ M such that some option of v, moving in v's own heaps, has its
//! element times w in S. Adding a heap H of element x and option elements
//! O gives F(v + H) = {w : x·w ∈ F(v)} ∪ {w : ψ(v)·o·w ∈ S, o ∈ O} (the
//! options of v + H + W within v + H are those within v with H beside
//! them, and those within H), so the state (ψ(v), whether v has a move,
//! F(v)) of v + H follows from that of v: finitely many states, all
//! reachable ones explored from the empty sum. At each, ψ(v) ∈ S must hold
//! iff v has a move and 1 ∉ F(v). If it holds everywhere, induction on
//! the rank shows that v is a P-position iff ψ(v) ∈ S, for every sum of
//! A_{n+1}: its options have lower rank, so by induction they are
//! P-positions iff their elements are in S, and v is a P-position iff it
//! has a move and none of them is. So the model is Q_{n+1}.
//!
//! **A failure teaches.** The states are explored in the order of their
//! least rank, so the first that fails is reached by a sum v whose options
//! are all decided right: v's outcome is "has a move and 1 ∉ F(v)", which
//! its element's S-membership contradicts. The candidate's representative
//! r of v's element has rank at most v's and its options decided right, so
//! its outcome is the one S gives it: v and r are two sums with one
//! element of the candidate and different outcomes, which **every** model
//! of A_{n+1} separates. They differ in the count of some heap
//! ([`separator`]): a coordinate whose truncation merged the two counts
//! gets its stem raised past the smaller, or else the largest such heap
//! becomes a coordinate. Every later candidate separates every pair found
//! ([`separating`]), so no pair is found twice, and the candidates go on
//! until one is proven or a bound stops them ([`super::Stop`]).

use super::table::{Bits, Congruence, Table};
use crate::games::{Game, Leave};
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};
use std::hash::{Hash, Hasher};

/// The most elements of a candidate's image.
pub const MAX_CANDIDATE: usize = 1 << 20;

/// The most codes of the product a candidate lives in (its index).
const MAX_PRODUCT: usize = 1 << 24;

/// The most bits of the sets F a proof holds (512 MiB): its states, and
/// the cache of each element's and kind's part.
const PROOF_BITS: u64 = 1 << 32;

/// The most elements of a candidate reduced (a model the proof checks).
const MAX_MODEL: usize = 1 << 12;

/// The most candidates tried for one heap.
const MAX_CANDIDATES: usize = 64;

/// The most coordinates of a candidate.
const MAX_COORDINATES: usize = 12;

/// The largest stem of a coordinate.
const MAX_STEM: u32 = 16;

/// A heap whose copies a candidate counts, up to `stem` (counts past it
/// stand for stem + (count − stem) mod 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Coordinate {
    pub(crate) heap: u64,
    pub(crate) stem: u32,
}

/// Why no candidate was proven for a heap.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The candidates passed a bound on their count, coordinates or
    /// stems.
    Unproven,
    /// A candidate's image passed [`MAX_CANDIDATE`] elements.
    Candidate,
    /// A proof passed its bound on states.
    States,
    /// Q_{n+1} would pass the bound on the order.
    Order,
    /// The candidates passed the bound on the work of the whole
    /// computation.
    Work,
}

/// Q_{n+1}, found by a proven candidate.
#[derive(Debug)]
pub(crate) struct Extended {
    /// Q_{n+1}'s product.
    pub(crate) table: Table,
    /// Q_{n+1}'s P-portion.
    pub(crate) p_portion: Vec<bool>,
    /// Φ_{n+1}(0), …, Φ_{n+1}(n + 1).
    pub(crate) pretending: Vec<u16>,
}

/// Q_{n+1} from Q_n (`base`, with Φ_n in `pretending`, heaps 0..=n), the
/// next heap being n + 1, or why no candidate was proven within the
/// bounds. Q_{n+1} has at most `max_order` elements, and a proof explores
/// at most `max_states` states.
pub(crate) fn extend(
    game: &Game,
    base: &Table,
    pretending: &[u16],
    max_order: usize,
    max_states: usize,
    work: &mut u64,
) -> Result<Extended, Refused> {
    let new_heap = pretending.len() as u64;
    let mut base = base.clone();
    let mut classes: Vec<u16> = pretending.iter().copied().chain([0]).collect();
    let mut separations: Vec<Separation> = Vec::new();
    let mut power = Coordinate {
        heap: new_heap,
        stem: 1,
    };
    for _ in 0..MAX_CANDIDATES {
        let mut coordinates = vec![power];
        if let Some(last) = separations.last() {
            join(&mut coordinates, last.coordinate);
        }
        let candidate = separating(game, &base, &classes, &mut coordinates, &separations)?;
        spend(work, candidate.len() * (candidate.kinds.len() + 1))?;
        let portion = candidate.p_portion();
        let model = candidate.reduce(&portion.in_s, MAX_MODEL)?;

        let proof = model.prove(max_states);
        spend(work, model.explored.get() * model.kinds.len() * model.len())?;
        match proof {
            Ok(()) if model.len() > max_order => return Err(Refused::Order),
            Ok(()) => return Ok(model.into_extended()),
            Err(Failure::States) => return Err(Refused::States),
            Err(Failure::Counterexample(v)) => {
                let element = candidate.element_of_heaps(&v);
                let r = candidate.heaps_of_kinds(&portion.representative(element));
                let coordinate = separator(&coordinates, &counts(&v), &counts(&r))?;
                if coordinate.heap == new_heap {
                    power = coordinate;
                }
                separations.push(Separation { v, r, coordinate });
                base = model.table;
                classes = model.heaps;
            }
        }
    }
    Err(Refused::Unproven)
}

/// Takes `cost` from the work left, or refuses when there is not that
/// much left.
fn spend(work: &mut u64, cost: usize) -> Result<(), Refused> {
    let cost = cost as u64;
    match *work >= cost {
        true => {
            *work -= cost;
            Ok(())
        }
        false => Err(Refused::Work),
    }
}

/// Two sums with one element in some candidate and different outcomes,
/// and the coordinate that tells them apart.
struct Separation {
    v: Vec<u64>,
    r: Vec<u64>,
    coordinate: Coordinate,
}

/// The candidate on `base` (the heaps' `classes`) and `coordinates`,
/// with coordinates added until it separates every pair in
/// `separations` (the base, a reduced model, may have merged some).
fn separating<'q>(
    game: &Game,
    base: &'q Table,
    classes: &[u16],
    coordinates: &mut Vec<Coordinate>,
    separations: &[Separation],
) -> Result<Candidate<'q>, Refused> {
    loop {
        if coordinates.len() > MAX_COORDINATES {
            return Err(Refused::Unproven);
        }
        let candidate = Candidate::new(game, base, classes, coordinates)?;
        let merged = separations.iter().find(|pair| {
            candidate.element_of_heaps(&pair.v) == candidate.element_of_heaps(&pair.r)
        });
        match merged {
            None => return Ok(candidate),
            Some(pair) => join(coordinates, pair.coordinate),
        }
    }
}

/// Adds `coordinate` to `coordinates`, or raises the stem of the one on
/// its heap.
fn join(coordinates: &mut Vec<Coordinate>, coordinate: Coordinate) {
    match coordinates.iter_mut().find(|c| c.heap == coordinate.heap) {
        Some(c) => c.stem = c.stem.max(coordinate.stem),
        None => coordinates.push(coordinate),
    }
}

/// A sum of heaps as the count of each heap.
fn counts(heaps: &[u64]) -> HashMap<u64, u32> {
    let mut counts = HashMap::new();
    for &heap in heaps {
        *counts.entry(heap).or_insert(0) += 1;
    }
    counts
}

/// The coordinate that separates two sums (as counts of each heap) with
/// one element in the candidate on `coordinates` (module docs): a
/// coordinate whose truncation merged their counts, its stem raised past
/// the smaller, or else the largest heap whose counts differ.
fn separator(
    coordinates: &[Coordinate],
    v: &HashMap<u64, u32>,
    r: &HashMap<u64, u32>,
) -> Result<Coordinate, Refused> {
    let count = |sum: &HashMap<u64, u32>, heap: u64| sum.get(&heap).copied().unwrap_or(0);
    let differs = |heap: u64| count(v, heap) != count(r, heap);
    let heap = match coordinates.iter().find(|c| differs(c.heap)) {
        Some(coordinate) => coordinate.heap,
        None => v
            .keys()
            .chain(r.keys())
            .copied()
            .filter(|&heap| differs(heap))
            .max()
            .ok_or(Refused::Unproven)?,
    };
    let stem = count(v, heap).min(count(r, heap)) + 1;
    match stem > MAX_STEM {
        true => Err(Refused::Unproven),
        false => Ok(Coordinate { heap, stem }),
    }
}

/// Q_n × C(a_1) × … × C(a_r), its elements coded as q · span + the
/// coordinates' counts in mixed radix (radix a_i + 2).
struct Product<'q> {
    base: &'q Table,
    stems: Vec<u32>,
    places: Vec<u32>,
    span: u32,
}

impl<'q> Product<'q> {
    fn new(base: &'q Table, coordinates: &[Coordinate]) -> Result<Product<'q>, Refused> {
        let mut places = Vec::with_capacity(coordinates.len());
        let mut span: usize = 1;
        for coordinate in coordinates {
            places.push(span as u32);
            span = span.saturating_mul(coordinate.stem as usize + 2);
        }
        if span.saturating_mul(base.order()) > MAX_PRODUCT {
            return Err(Refused::Candidate);
        }
        Ok(Product {
            base,
            stems: coordinates.iter().map(|c| c.stem).collect(),
            places,
            span: span as u32,
        })
    }

    fn len(&self) -> usize {
        self.base.order() * self.span as usize
    }

    /// The element of Q_n class `q` with one copy of coordinate `at`.
    fn code(&self, q: u16, at: Option<usize>) -> u32 {
        u32::from(q) * self.span + at.map_or(0, |i| self.places[i])
    }

    /// The product: classes multiplied in Q_n, counts added and truncated.
    fn mul(&self, u: u32, w: u32) -> u32 {
        let (qu, ru) = (u / self.span, u % self.span);
        let (qw, rw) = (w / self.span, w % self.span);
        let q = self.base.mul(qu as u16, qw as u16);
        let mut counts = 0;
        for (&stem, &place) in self.stems.iter().zip(&self.places) {
            let radix = stem + 2;
            let mut e = ru / place % radix + rw / place % radix;
            if e >= radix {
                e = stem + (e - stem) % 2;
            }
            counts += e * place;
        }
        u32::from(q) * self.span + counts
    }
}

/// The live heaps of one kind: one element and one set of option
/// elements (heaps of a kind are interchangeable in every sum).
#[derive(Debug)]
struct Kind {
    /// Their element (an index into the image).
    element: u32,
    /// The smallest of them.
    heap: u64,
    /// Its rank, 2 · heap − 1.
    rank: u64,
    /// The elements of their options, ascending, each once.
    options: Vec<u32>,
}

/// A candidate model of A_{n+1}: the image of the heaps in the product,
/// indexed densely (element 0 the identity), and the kinds of heaps.
struct Candidate<'q> {
    product: Product<'q>,
    /// Each code's index in the image (`u32::MAX` outside it).
    index: Vec<u32>,
    /// Each element's code.
    codes: Vec<u32>,
    kinds: Vec<Kind>,
    /// Each heap's element, heaps 0..=n+1.
    heaps: Vec<u32>,
}

/// Why a proof failed.
enum Failure {
    /// The heaps of a least sum decided wrong.
    Counterexample(Vec<u64>),
    /// The states passed the bound.
    States,
}

/// A candidate's P-portion and the representative sums that made it.
struct Portion {
    /// Whether each element is in S.
    in_s: Vec<bool>,
    /// Each element's representative: the element before its last heap,
    /// and that heap's kind (`None` for the identity).
    parent: Vec<Option<(u32, u32)>>,
}

impl Portion {
    /// The kinds of the heaps of `element`'s representative.
    fn representative(&self, mut element: u32) -> Vec<u32> {
        let mut kinds = Vec::new();
        while let Some((before, kind)) = self.parent[element as usize] {
            kinds.push(kind);
            element = before;
        }
        kinds
    }
}

/// The states of a proof — ψ(v), whether v has a move, F(v) — each
/// stored once, the sets' words in one vector, found again by a hash.
struct States {
    words: usize,
    heads: Vec<(u32, bool)>,
    sets: Vec<u64>,
    /// The first state of each hash, and for each state the next of its
    /// hash (`u32::MAX`: none).
    first: FxHashMap<u64, u32>,
    next: Vec<u32>,
}

impl States {
    fn new(words: usize) -> States {
        States {
            words,
            heads: Vec::new(),
            sets: Vec::new(),
            first: FxHashMap::default(),
            next: Vec::new(),
        }
    }

    fn len(&self) -> usize {
        self.heads.len()
    }

    fn head(&self, id: u32) -> (u32, bool) {
        self.heads[id as usize]
    }

    fn set(&self, id: u32) -> &[u64] {
        &self.sets[id as usize * self.words..(id as usize + 1) * self.words]
    }

    /// The state's id, and whether it is new.
    fn find_or_add(&mut self, m: u32, live: bool, set: &[u64]) -> (u32, bool) {
        let mut hasher = rustc_hash::FxHasher::default();
        (m, live, set).hash(&mut hasher);
        let hash = hasher.finish();
        let mut at = self.first.get(&hash).copied().unwrap_or(u32::MAX);
        while at != u32::MAX {
            if self.heads[at as usize] == (m, live) && self.set(at) == set {
                return (at, false);
            }
            at = self.next[at as usize];
        }
        let id = self.heads.len() as u32;
        self.heads.push((m, live));
        self.sets.extend_from_slice(set);
        self.next
            .push(self.first.insert(hash, id).unwrap_or(u32::MAX));
        (id, true)
    }
}

/// For each element u met, the set {w : u·w ∈ S}, made when first asked.
struct Stabilizers<'m> {
    candidate: &'m Model,
    in_s: &'m [bool],
    sets: Vec<Option<Bits>>,
}

impl Stabilizers<'_> {
    fn get(&mut self, u: u32) -> &Bits {
        let (candidate, in_s) = (self.candidate, self.in_s);
        self.sets[u as usize].get_or_insert_with(|| {
            let len = candidate.len();
            let mut bits = Bits::empty(len);
            (0..len as u32)
                .filter(|&w| in_s[candidate.mul(u, w) as usize])
                .for_each(|w| bits.insert(w as usize));
            bits
        })
    }
}

impl<'q> Candidate<'q> {
    fn new(
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
        Ok(Candidate {
            product,
            index,
            codes,
            kinds,
            heaps,
        })
    }

    fn len(&self) -> usize {
        self.codes.len()
    }

    /// The product of two elements of the image.
    fn mul(&self, u: u32, w: u32) -> u32 {
        let code = self
            .product
            .mul(self.codes[u as usize], self.codes[w as usize]);
        self.index[code as usize]
    }

    /// The element of a sum of heaps of `kinds`.
    fn element_of_kinds(&self, kinds: &[u32]) -> u32 {
        kinds.iter().fold(0, |product, &kind| {
            self.mul(product, self.kinds[kind as usize].element)
        })
    }

    /// The element of a sum of `heaps`.
    fn element_of_heaps(&self, heaps: &[u64]) -> u32 {
        heaps
            .iter()
            .fold(0, |product, &h| self.mul(product, self.heaps[h as usize]))
    }

    /// A sum of heaps of `kinds` as heaps (the smallest of each kind).
    fn heaps_of_kinds(&self, kinds: &[u32]) -> Vec<u64> {
        kinds
            .iter()
            .map(|&kind| self.kinds[kind as usize].heap)
            .collect()
    }

    /// The P-portion S, from representatives of least rank (module docs).
    fn p_portion(&self) -> Portion {
        let len = self.len();
        let mut portion = Portion {
            in_s: vec![false; len],
            parent: vec![None; len],
        };
        let mut settled = vec![false; len];
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
                if !settled[to as usize] {
                    queue.push(Reverse((rank + kind.rank, to, Some((m, index)))));
                }
            }
        }
        portion
    }

    /// Whether the sum of heaps of `kinds` is a misère P-position, its
    /// options' outcomes read from `in_s`: it has a move and no option's
    /// element is in S.
    fn is_p(&self, kinds: &[u32], in_s: &[bool]) -> bool {
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
    fn reduce(&self, in_s: &[bool], max_order: usize) -> Result<Model, Refused> {
        let generators: Vec<u32> = self.kinds.iter().map(|kind| kind.element).collect();
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

/// A candidate reduced: a finite commutative monoid, its S, its kinds of
/// heaps and each heap's element. It is Q_{n+1} once proven a model.
struct Model {
    /// The states the last proof explored.
    explored: std::cell::Cell<usize>,
    table: Table,
    in_s: Vec<bool>,
    kinds: Vec<ModelKind>,
    /// Each heap's element, heaps 0..=n+1.
    heaps: Vec<u16>,
}

/// The heaps of one kind in a [`Model`].
struct ModelKind {
    element: u16,
    /// The smallest of them, and its rank.
    heap: u64,
    rank: u64,
    /// The elements of their options, ascending, each once.
    options: Vec<u16>,
}

impl Model {
    fn len(&self) -> usize {
        self.table.order()
    }

    fn mul(&self, u: u32, w: impl Into<u32>) -> u32 {
        u32::from(self.table.mul(u as u16, w.into() as u16))
    }

    fn into_extended(self) -> Extended {
        Extended {
            table: self.table,
            p_portion: self.in_s,
            pretending: self.heaps,
        }
    }

    /// The proof of the module docs: every state from the empty sum, in
    /// the order of least rank; the first that fails gives its sum.
    fn prove(&self, max_states: usize) -> Result<(), Failure> {
        let (len, in_s) = (self.len(), &self.in_s[..]);
        let words = len.div_ceil(64);
        let mut stabilizers = Stabilizers {
            candidate: self,
            in_s,
            sets: vec![None; len],
        };
        // F's part made within each kind's heap, by element and kind:
        // cached while the cache would stay within PROOF_BITS.
        let kinds = self.kinds.len();
        let cached = (len as u64 * len as u64) * kinds as u64 <= PROOF_BITS;
        let mut within: Vec<Option<Box<[u64]>>> = vec![None; if cached { len * kinds } else { 0 }];
        let max_states = max_states.min((PROOF_BITS / len as u64) as usize);
        // {w : x·w ∈ F} for each element x some kind has, made once a
        // state (kinds outnumber their elements).
        let elements: Vec<u16> = {
            let mut elements: Vec<u16> = self.kinds.iter().map(|kind| kind.element).collect();
            elements.sort_unstable();
            elements.dedup();
            elements
        };
        let times: Vec<Vec<u32>> = elements
            .iter()
            .map(|&x| (0..len as u32).map(|w| self.mul(w, x)).collect())
            .collect();
        let at_element: Vec<usize> = self
            .kinds
            .iter()
            .map(|kind| elements.binary_search(&kind.element).expect("listed"))
            .collect();
        let mut store = States::new(words);
        store.find_or_add(0, false, &vec![0; words]);
        // Each state's least rank so far, the state and kind it came
        // from, and whether it is settled (popped at its least rank).
        let mut best: Vec<u64> = vec![0];
        let mut parent: Vec<Option<(u32, u32)>> = vec![None];
        let mut done = vec![false];
        let mut queue = BinaryHeap::from([Reverse((0u64, 0u32))]);
        let (mut f, mut next) = (vec![0u64; words], vec![0u64; words]);
        let mut pulled = vec![vec![0u64; words]; elements.len()];
        let has = |set: &[u64], i: usize| set[i / 64] >> (i % 64) & 1 == 1;
        while let Some(Reverse((rank, id))) = queue.pop() {
            if done[id as usize] {
                continue;
            }
            done[id as usize] = true;
            self.explored.set(store.len());
            let (m, live) = store.head(id);
            f.copy_from_slice(store.set(id));
            let holds = match live {
                true => in_s[m as usize] != has(&f, 0),
                false => !in_s[m as usize],
            };
            if !holds {
                let mut kinds = Vec::new();
                let mut at = id;
                while let Some((before, kind)) = parent[at as usize] {
                    kinds.push(kind);
                    at = before;
                }
                return Err(Failure::Counterexample(
                    kinds.iter().map(|&k| self.kinds[k as usize].heap).collect(),
                ));
            }
            for (set, times) in pulled.iter_mut().zip(&times) {
                set.fill(0);
                for (w, &xw) in times.iter().enumerate() {
                    set[w / 64] |= u64::from(has(&f, xw as usize)) << (w % 64);
                }
            }
            for (index, kind) in (0u32..).zip(&self.kinds) {
                let mut made = || {
                    let mut bits = Bits::empty(len);
                    for &o in &kind.options {
                        bits.union_with(stabilizers.get(self.mul(m, o)));
                    }
                    bits.into_words()
                };
                let made_here;
                let part: &[u64] = match cached {
                    true => within[m as usize * kinds + index as usize].get_or_insert_with(made),
                    false => {
                        made_here = made();
                        &made_here
                    }
                };
                let pull = &pulled[at_element[index as usize]];
                for ((word, &a), &b) in next.iter_mut().zip(part).zip(pull) {
                    *word = a | b;
                }
                let (to, new) = store.find_or_add(self.mul(m, kind.element), true, &next);
                if new {
                    if store.len() > max_states {
                        return Err(Failure::States);
                    }
                    best.push(u64::MAX);
                    parent.push(None);
                    done.push(false);
                }
                let reached = rank + kind.rank;
                if reached < best[to as usize] {
                    best[to as usize] = reached;
                    parent[to as usize] = Some((id, index));
                    queue.push(Reverse((reached, to)));
                }
            }
        }
        Ok(())
    }
}
