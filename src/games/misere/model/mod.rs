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
//! minimisation of S), computed by [`Congruence::refine`](super::table::Congruence::refine).
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
//! ([`Candidate::reduce`]), a [`Model`](proof::Model) to prove: the candidate is a model
//! iff its reduction is (S is a union of classes).
//!
//! **The proof** ([`Model::prove`](proof::Model::prove)): for a sum v let F(v) be the set of
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
//! **The next heap starts from the last proof.** Past the heaps that
//! make the quotient grow (in misère Kayles Q_n keeps its 40 elements
//! from heap 27 on, while every heap up to 98 with options of new classes
//! still needs a proof), Q_{n+1} is often Q_n again, the new heap's class
//! one of its elements. The states of Q_n's proof are then those of every
//! sum of heaps ≤ n in the new model too, and they hold; only the states
//! the new heap reaches from them are left to check
//! ([`Model::prove_from`](proof::Model::prove_from)). So each heap first
//! tries Q_n itself, no candidate built ([`same_quotient`]): the elements
//! x that every state allows beside the new heap
//! ([`Explored::classes_for`]), each model Q_n with Φ(n + 1) = x proven
//! from Q_n's states. A proven one is Q_{n+1}: Q_n is reduced, and so is
//! a model on its elements. Else the candidates below find Q_{n+1}, and
//! their reduction too is proven from Q_n's states when it is Q_n again
//! (through the isomorphism the heaps fix). A state that fails sends the
//! candidate to the full proof, which finds the least sum that fails.
//! Either way the same quotient is found; the work counted is less
//! (Q_n's elements in place of a candidate's).
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
//!
//! The rooms: the search over candidates (this file), the product they
//! live in (`product.rs`), a candidate, its P-portion and its reduction
//! (`candidate.rs`), and the proof of a reduced candidate (`proof.rs`).

mod candidate;
mod product;
mod proof;

use super::table::Table;
use crate::games::Game;
use candidate::Candidate;
pub(crate) use proof::Explored;
use proof::Failure;
use std::collections::HashMap;

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
pub(crate) struct Extended {
    /// Q_{n+1}'s product.
    pub(crate) table: Table,
    /// Q_{n+1}'s P-portion.
    pub(crate) p_portion: Vec<bool>,
    /// Φ_{n+1}(0), …, Φ_{n+1}(n + 1).
    pub(crate) pretending: Vec<u16>,
    /// The states of its proof, for the next heap's.
    pub(crate) explored: Explored,
}

/// Q_{n+1} from Q_n (`base`, with Φ_n in `pretending`, heaps 0..=n), the
/// next heap being n + 1, or why no candidate was proven within the
/// bounds. Q_{n+1} has at most `max_order` elements, and a proof explores
/// at most `max_states` states. `last` holds the states of Q_n's proof,
/// from which a proof of Q_n again starts ([`proof::Model::prove_from`]).
pub(crate) fn extend(
    game: &Game,
    base: &Table,
    pretending: &[u16],
    last: Option<&Explored>,
    max_order: usize,
    max_states: usize,
    work: &mut u64,
) -> Result<Extended, Refused> {
    if let Some(last) = last {
        if let Some(found) = same_quotient(game, pretending, last, max_states, work)? {
            return Ok(found);
        }
    }
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

        let proof = match last.and_then(|last| model.prove_from(last, max_states)) {
            Some(states) => Ok(states),
            None => model.prove(max_states),
        };
        spend(work, model.explored.get() * model.kinds.len() * model.len())?;
        match proof {
            Ok(_) if model.len() > max_order => return Err(Refused::Order),
            Ok(states) => return Ok(model.into_extended(states)),
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

/// Q_{n+1} when it is Q_n again (`last`, Φ_n in `pretending`), the new
/// heap's class one of its elements ([`Explored::classes_for`]), proven
/// from Q_n's states; `None` when no element gives a proven model (the
/// candidates then find Q_{n+1}). Q_n is reduced — any two of its
/// elements are told apart by a sum of heaps ≤ n — so a proven model on
/// its elements is reduced too: it is Q_{n+1}.
fn same_quotient(
    game: &Game,
    pretending: &[u16],
    last: &Explored,
    max_states: usize,
    work: &mut u64,
) -> Result<Option<Extended>, Refused> {
    let n = pretending.len() as u64 - 1;
    let table = last.table();
    let options = table.option_classes(game, n + 1, |a| pretending[a as usize]);
    for x in last.classes_for(&options) {
        let model = last.model_with(game, pretending, x);
        spend(work, model.len() * (model.kinds.len() + 1))?;
        if let Some(states) = model.prove_from(last, max_states) {
            spend(work, model.explored.get() * model.kinds.len() * model.len())?;
            return Ok(Some(model.into_extended(states)));
        }
    }
    Ok(None)
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
