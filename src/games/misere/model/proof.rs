//! A candidate reduced, and the proof that it decides every sum, with the
//! states it explores and why it fails (see
//! [`super`], **The proof** and **A failure teaches**).

use super::{Extended, PROOF_BITS};
use crate::games::misere::table::{Bits, Table};
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
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

    pub(super) fn into_extended(self) -> Extended {
        Extended {
            table: self.table,
            p_portion: self.in_s,
            pretending: self.heaps,
        }
    }

    /// The proof of the module docs: every state from the empty sum, in
    /// the order of least rank; the first that fails gives its sum.
    pub(super) fn prove(&self, max_states: usize) -> Result<(), Failure> {
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
