//! A candidate reduced, and the proof that it decides every sum, with the
//! states it explores and why it fails (see
//! [`super`], **The proof** and **A failure teaches**).

use super::{Extended, PROOF_BITS};
use crate::games::misere::table::{Bits, Table};
use crate::games::Game;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

/// A candidate reduced: a finite commutative monoid, its S, its kinds of
/// heaps and each heap's element. It is Q_{n+1} once proven a model.
pub(super) struct Model {
    /// The states the last proof explored.
    pub(super) explored: std::cell::Cell<usize>,
    pub(super) table: Table,
    pub(super) in_s: Vec<bool>,
    pub(super) kinds: Vec<ModelKind>,
    /// Each heap's element, heaps 0..=n+1.
    pub(super) heaps: Vec<u16>,
}

/// The heaps of one kind in a [`Model`].
pub(super) struct ModelKind {
    pub(super) element: u16,
    /// The smallest of them, and its rank.
    pub(super) heap: u64,
    pub(super) rank: u64,
    /// The elements of their options, ascending, each once.
    pub(super) options: Vec<u16>,
}

impl Model {
    pub(super) fn len(&self) -> usize {
        self.table.order()
    }

    pub(super) fn mul(&self, u: u32, w: impl Into<u32>) -> u32 {
        u32::from(self.table.mul(u as u16, w.into() as u16))
    }

    pub(super) fn into_extended(self, states: States) -> Extended {
        Extended {
            explored: Explored::new(&self, states),
            table: self.table,
            p_portion: self.in_s,
            pretending: self.heaps,
        }
    }

    /// The proof of the module docs: every state from the empty sum, in
    /// the order of least rank; the first that fails gives its sum. The
    /// states, once all hold, for the next heap's proof.
    pub(super) fn prove(&self, max_states: usize) -> Result<States, Failure> {
        let in_s = &self.in_s[..];
        let mut steps = Steps::new(self, max_states);
        let mut store = States::new(steps.words);
        store.find_or_add(0, false, &vec![0; steps.words]);
        // Each state's least rank so far, the state and kind it came
        // from, and whether it is settled (popped at its least rank).
        let mut best: Vec<u64> = vec![0];
        let mut parent: Vec<Option<(u32, u32)>> = vec![None];
        let mut done = vec![false];
        let mut queue = BinaryHeap::from([Reverse((0u64, 0u32))]);
        let mut f = vec![0u64; steps.words];
        while let Some(Reverse((rank, id))) = queue.pop() {
            if done[id as usize] {
                continue;
            }
            done[id as usize] = true;
            self.explored.set(store.len());
            let (m, live) = store.head(id);
            f.copy_from_slice(store.set(id));
            if !holds(in_s, m, live, &f) {
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
            steps.enter();
            for index in 0..self.kinds.len() as u32 {
                let (to, new) = steps.successor(&mut store, m, &f, index)?;
                if new {
                    best.push(u64::MAX);
                    parent.push(None);
                    done.push(false);
                }
                let reached = rank + self.kinds[index as usize].rank;
                if reached < best[to as usize] {
                    best[to as usize] = reached;
                    parent[to as usize] = Some((id, index));
                    queue.push(Reverse((reached, to)));
                }
            }
        }
        Ok(store)
    }

    /// The proof again from the states of the last heap's proven model
    /// (`last`, Q_n), when this model is Q_n again with the new heap's
    /// class one of its elements: `None` if it is not, or if some state
    /// fails (the full [`prove`](Self::prove) then finds the least sum
    /// that fails).
    ///
    /// The heaps ≤ n keep their elements and options under the
    /// isomorphism π from Q_n ([`isomorphism`]), so the states Q_n's proof
    /// reached — every state of a sum of heaps ≤ n — are states of this
    /// proof, π applied to ψ(v) and to F(v) (F(v) is read from the
    /// options of v's own heaps, and S = π(S_n)), and they hold. What is
    /// left is every state that a new kind of heap (none of its heaps
    /// ≤ n) reaches from them, and all that those reach: the reachable
    /// states are the same as the full proof's, in another order, and
    /// the induction of the module docs needs only that each holds.
    pub(super) fn prove_from(&self, last: &Explored, max_states: usize) -> Option<States> {
        let pi = isomorphism(last, self)?;
        let mut steps = Steps::new(self, max_states);
        let words = steps.words;
        let mut store = States::new(words);
        let mut moved = vec![0u64; words];
        for id in 0..last.states.len() as u32 {
            let (m, live) = last.states.head(id);
            moved.fill(0);
            for (w, &to) in pi.iter().enumerate() {
                moved[to as usize / 64] |=
                    (last.states.set(id)[w / 64] >> (w % 64) & 1) << (to % 64);
            }
            store.find_or_add(u32::from(pi[m as usize]), live, &moved);
        }
        let old = last.heaps.len() as u64 - 1;
        let fresh: Vec<u32> = (0u32..)
            .zip(&self.kinds)
            .filter(|(_, kind)| kind.heap > old)
            .map(|(index, _)| index)
            .collect();
        let (in_s, kinds) = (&self.in_s[..], self.kinds.len() as u32);
        let mut f = vec![0u64; words];
        let mut pending: Vec<u32> = Vec::new();
        for id in 0..store.len() as u32 {
            let (m, _) = store.head(id);
            f.copy_from_slice(store.set(id));
            steps.enter();
            for &index in &fresh {
                let (to, new) = steps.successor(&mut store, m, &f, index).ok()?;
                if new {
                    pending.push(to);
                }
            }
        }
        while let Some(id) = pending.pop() {
            let (m, live) = store.head(id);
            f.copy_from_slice(store.set(id));
            if !holds(in_s, m, live, &f) {
                return None;
            }
            steps.enter();
            for index in 0..kinds {
                let (to, new) = steps.successor(&mut store, m, &f, index).ok()?;
                if new {
                    pending.push(to);
                }
            }
        }
        self.explored.set(store.len());
        Some(store)
    }
}

/// Whether a state holds: ψ(v) ∈ S iff v has a move and 1 ∉ F(v).
fn holds(in_s: &[bool], m: u32, live: bool, f: &[u64]) -> bool {
    let one_in_f = f[0] & 1 == 1;
    match live {
        true => in_s[m as usize] != one_in_f,
        false => !in_s[m as usize],
    }
}

/// The isomorphism π from the last proven model onto `model` that takes
/// each heap ≤ n's element to its element in `model` and keeps S, as the
/// image of each element of the last; `None` if there is none (a new
/// element, or the heaps' products or S disagree). The last model's
/// elements are products of its heaps, so π is fixed by the heaps, and
/// a bijection that is a homomorphism on products by the heaps is one
/// on all products.
fn isomorphism(last: &Explored, model: &Model) -> Option<Vec<u16>> {
    let order = last.table.order();
    if order != model.len() {
        return None;
    }
    let mut pi = vec![u16::MAX; order];
    let mut taken = vec![false; order];
    let mut assign = |pi: &mut [u16], from: u16, to: u16| -> Option<bool> {
        match pi[from as usize] {
            u16::MAX
                if !taken[to as usize] && last.in_s[from as usize] == model.in_s[to as usize] =>
            {
                pi[from as usize] = to;
                taken[to as usize] = true;
                Some(true)
            }
            at if at == to => Some(false),
            _ => None,
        }
    };
    let pairs: Vec<(u16, u16)> = last
        .heaps
        .iter()
        .zip(&model.heaps)
        .map(|(&from, &to)| (from, to))
        .collect();
    let mut reached = vec![0u16];
    assign(&mut pi, 0, 0)?;
    for &(from, to) in &pairs {
        if assign(&mut pi, from, to)? {
            reached.push(from);
        }
    }
    let mut next = 0;
    while next < reached.len() {
        let u = reached[next];
        next += 1;
        for &(from, to) in &pairs {
            let (product, image) = (last.table.mul(u, from), model.table.mul(pi[u as usize], to));
            if assign(&mut pi, product, image)? {
                reached.push(product);
            }
        }
    }
    (reached.len() == order).then_some(pi)
}

/// The states of a proven model, kept for the next heap's proof
/// ([`Model::prove_from`]).
pub(crate) struct Explored {
    table: Table,
    in_s: Vec<bool>,
    /// Each heap's element, heaps 0..=n.
    heaps: Vec<u16>,
    states: States,
}

impl Explored {
    /// Q_n's product.
    pub(super) fn table(&self) -> &Table {
        &self.table
    }

    pub(super) fn new(model: &Model, states: States) -> Explored {
        Explored {
            table: model.table.clone(),
            in_s: model.in_s.clone(),
            heaps: model.heaps.clone(),
            states,
        }
    }

    /// The elements x of Q_n that a new heap whose options have the
    /// classes `options` may have if Q_{n+1} is Q_n: beside each sum v
    /// of heaps ≤ n (each state), v + H must hold — ψ(v)·x ∈ S iff 1 ∉
    /// F(v + H), and 1 ∈ F(v + H) iff x ∈ F(v) or ψ(v)·o ∈ S for an
    /// option class o (the module docs' F(v + H)). A necessary condition
    /// only: the model each gives is still proven.
    pub(super) fn classes_for(&self, options: &[u16]) -> Vec<u16> {
        let order = self.table.order() as u16;
        let in_s = |m: u16| self.in_s[m as usize];
        let option_in_s: Vec<bool> = (0..order)
            .map(|m| options.iter().any(|&o| in_s(self.table.mul(m, o))))
            .collect();
        (0..order)
            .filter(|&x| {
                (0..self.states.len() as u32).all(|id| {
                    let m = self.states.head(id).0 as u16;
                    let f = self.states.set(id);
                    let x_in_f = f[x as usize / 64] >> (x % 64) & 1 == 1;
                    in_s(self.table.mul(m, x)) != (x_in_f || option_in_s[m as usize])
                })
            })
            .collect()
    }

    /// Q_n with Φ_n(0), …, Φ_n(n) (`pretending`, in Q_n's elements) and
    /// Φ(n + 1) = `x`, as a model of A_{n+1} to prove: its kinds made as
    /// a candidate's reduction makes them, heap by heap.
    pub(super) fn model_with(&self, game: &Game, pretending: &[u16], x: u16) -> Model {
        let heaps: Vec<u16> = pretending.iter().copied().chain([x]).collect();
        let mut found: HashMap<(u16, Vec<u16>), ()> = HashMap::new();
        let mut kinds = Vec::new();
        for h in 1..heaps.len() as u64 {
            let options = self.table.option_classes(game, h, |a| heaps[a as usize]);
            if options.is_empty() {
                continue;
            }
            let key = (heaps[h as usize], options);
            if found.insert(key.clone(), ()).is_none() {
                kinds.push(ModelKind {
                    element: key.0,
                    heap: h,
                    rank: 2 * h - 1,
                    options: key.1,
                });
            }
        }
        Model {
            explored: std::cell::Cell::new(0),
            table: self.table.clone(),
            in_s: self.in_s.clone(),
            kinds,
            heaps,
        }
    }
}

/// One step of a proof: the state that a heap of a kind makes from a
/// state, with what it reads made once (each element's and kind's part
/// of F, {w : u·w ∈ S} for each u, and per state {w : x·w ∈ F} for each
/// element x some kind has).
struct Steps<'m> {
    model: &'m Model,
    words: usize,
    max_states: usize,
    stabilizers: Stabilizers<'m>,
    /// F's part made within each kind's heap, by element and kind:
    /// cached while the cache would stay within PROOF_BITS.
    within: Vec<Option<Box<[u64]>>>,
    cached: bool,
    /// Each element some kind has: its products w ↦ w·x.
    times: Vec<Vec<u32>>,
    /// Each kind's element's place in `times`.
    at_element: Vec<usize>,
    /// {w : x·w ∈ F} for the state entered, by element, `words` words
    /// each, made when first asked (`made`).
    pulled: Vec<u64>,
    made: Vec<bool>,
    next: Vec<u64>,
}

impl<'m> Steps<'m> {
    fn new(model: &'m Model, max_states: usize) -> Steps<'m> {
        let len = model.len();
        let words = len.div_ceil(64);
        let kinds = model.kinds.len();
        let cached = (len as u64 * len as u64) * kinds as u64 <= PROOF_BITS;
        // Kinds outnumber their elements.
        let elements: Vec<u16> = {
            let mut elements: Vec<u16> = model.kinds.iter().map(|kind| kind.element).collect();
            elements.sort_unstable();
            elements.dedup();
            elements
        };
        Steps {
            model,
            words,
            max_states: max_states.min((PROOF_BITS / len as u64) as usize),
            stabilizers: Stabilizers {
                candidate: model,
                in_s: &model.in_s,
                sets: vec![None; len],
            },
            within: vec![None; if cached { len * kinds } else { 0 }],
            cached,
            times: elements
                .iter()
                .map(|&x| (0..len as u32).map(|w| model.mul(w, x)).collect())
                .collect(),
            at_element: model
                .kinds
                .iter()
                .map(|kind| elements.binary_search(&kind.element).expect("listed"))
                .collect(),
            pulled: vec![0; elements.len() * words],
            made: vec![false; elements.len()],
            next: vec![0; words],
        }
    }

    /// Starts the steps from another state.
    fn enter(&mut self) {
        self.made.fill(false);
    }

    /// The state a heap of kind `index` makes from the state entered
    /// (element `m`, F = `f`): its id in `store`, and whether it is new.
    fn successor(
        &mut self,
        store: &mut States,
        m: u32,
        f: &[u64],
        index: u32,
    ) -> Result<(u32, bool), Failure> {
        let model = self.model;
        let kind = &model.kinds[index as usize];
        let has = |set: &[u64], i: usize| set[i / 64] >> (i % 64) & 1 == 1;
        let element = self.at_element[index as usize];
        let words = self.words;
        let times = &self.times[element];
        let pull = &mut self.pulled[element * words..(element + 1) * words];
        if !self.made[element] {
            self.made[element] = true;
            pull.fill(0);
            for (w, &xw) in times.iter().enumerate() {
                pull[w / 64] |= u64::from(has(f, xw as usize)) << (w % 64);
            }
        }
        let stabilizers = &mut self.stabilizers;
        let len = model.len();
        let mut made = || {
            let mut bits = Bits::empty(len);
            for &o in &kind.options {
                bits.union_with(stabilizers.get(model.mul(m, o)));
            }
            bits.into_words()
        };
        let made_here;
        let part: &[u64] = match self.cached {
            true => self.within[m as usize * model.kinds.len() + index as usize]
                .get_or_insert_with(made),
            false => {
                made_here = made();
                &made_here
            }
        };
        for ((word, &a), &b) in self.next.iter_mut().zip(part).zip(pull.iter()) {
            *word = a | b;
        }
        let found = store.find_or_add(model.mul(m, kind.element), true, &self.next);
        if found.1 && store.len() > self.max_states {
            return Err(Failure::States);
        }
        Ok(found)
    }
}

/// Why a proof failed.
pub(super) enum Failure {
    /// The heaps of a least sum decided wrong.
    Counterexample(Vec<u64>),
    /// The states passed the bound.
    States,
}

/// The states of a proof — ψ(v), whether v has a move, F(v) — each
/// stored once, the sets' words in one vector, found again by a hash.
pub(super) struct States {
    pub(super) words: usize,
    pub(super) heads: Vec<(u32, bool)>,
    pub(super) sets: Vec<u64>,
    /// The first state of each hash, and for each state the next of its
    /// hash (`u32::MAX`: none).
    pub(super) first: FxHashMap<u64, u32>,
    pub(super) next: Vec<u32>,
}

impl States {
    pub(super) fn new(words: usize) -> States {
        States {
            words,
            heads: Vec::new(),
            sets: Vec::new(),
            first: FxHashMap::default(),
            next: Vec::new(),
        }
    }

    pub(super) fn len(&self) -> usize {
        self.heads.len()
    }

    pub(super) fn head(&self, id: u32) -> (u32, bool) {
        self.heads[id as usize]
    }

    pub(super) fn set(&self, id: u32) -> &[u64] {
        &self.sets[id as usize * self.words..(id as usize + 1) * self.words]
    }

    /// The state's id, and whether it is new.
    pub(super) fn find_or_add(&mut self, m: u32, live: bool, set: &[u64]) -> (u32, bool) {
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
pub(super) struct Stabilizers<'m> {
    pub(super) candidate: &'m Model,
    pub(super) in_s: &'m [bool],
    pub(super) sets: Vec<Option<Bits>>,
}

impl Stabilizers<'_> {
    pub(super) fn get(&mut self, u: u32) -> &Bits {
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
