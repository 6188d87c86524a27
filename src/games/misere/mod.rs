//! Misère play of heap games (SPEC section 12): the misère quotient Q_n of
//! all sums of heaps of size ≤ n — its elements, product table, P-portion
//! and pretending function Φ — computed for n = 1, 2, … until the
//! periodicity theorem proves Φ periodic, and then the quotient of every
//! sum, heaps of any length.
//!
//! **The theory** is Plambeck's ("Taming the wild in impartial
//! combinatorial games", INTEGERS 5 (2005)) and Plambeck–Siegel's
//! ("Misère quotients for impartial games", JCTA 2008, arXiv
//! math/0609825; A. Siegel, "Misère games and misère quotients", course
//! notes, with the proof of the periodicity theorem). For a closed set A
//! of games, G ≡ H when o⁻(G + X) = o⁻(H + X) for every X in A; the
//! classes form a commutative monoid Q(A), the P-portion holds the classes
//! of the P-positions, and Φ maps each game to its class. A sum is a
//! misère P-position iff the product of its heaps' classes is in the
//! P-portion.
//!
//! **What is written from what.** The search tool this project's sessions
//! use holds the papers' opening pages only, not their algorithm's or the
//! theorem's statements in full, and Siegel's answers on MisereSolver
//! (miseregames.wordpress.com, 28 August 2007: candidates checked by a
//! verification and "the reduction performed repeatedly at each stage";
//! Q_30 of Dawson's Kayles has 360 elements). So every step here is
//! proven from the definitions in the code's comments, and the two results
//! the papers prove are proven again in the form used:
//!
//! - **Lemma X** (Plambeck–Siegel's simplification by options, for
//!   closed sets): let A be closed and H a game whose options lie in A,
//!   and Z in A such that every option of H is ≡ (mod A) to an option of Z
//!   and every option of Z to one of H. Then in A' = cl(A ∪ {H}), H ≡ Z
//!   and the quotient is unchanged: Q(A') = Q(A). *Proof*: let ρ replace
//!   every copy of H in a sum of A' by Z. By induction on the game, o⁻(Y)
//!   = o⁻(ρ(Y)): the options of Y = kH + X are (k−1)H + H' + X and
//!   kH + X', those of ρ(Y) are (k−1)Z + Z' + X and kZ + X'; by induction
//!   each option of Y has the outcome of its image under ρ, and
//!   (k−1)Z + H' + X and (k−1)Z + Z' + X (paired by the hypothesis, the
//!   rest in A) have equal outcomes; both have a move or neither. So
//!   o⁻(G + Y) = o⁻(G + ρ(Y)) for G in A, and classes of A stay apart or
//!   together as in Q(A), H joining Z's class. In `build.rs` A is A_n, H
//!   the heap n + 1 and Z a smaller heap with the same option classes in
//!   Q_n.
//! - **The periodicity theorem** (Plambeck–Siegel, after Guy–Smith; the
//!   misère form of SPEC section 8's test): let k be the most tokens a move
//!   takes, p ≥ 1, q ≥ 1, and Q_N proven with N + 1 = 2p + 2q + k (a game
//!   that splits heaps) or p + q + k (one that does not). If Φ_N(h + q) =
//!   Φ_N(h) for all p ≤ h ≤ N − q, then for every m > N, Q_m = Q_N and
//!   Φ(m) = Φ(m − q). *Proof*, by induction on m: the options of H_m and
//!   H_{m−q} pair up with equal classes in Q_{m−1} — leaving H_{m−t} and
//!   H_{m−q−t} (m − q − t ≥ p); a split (a, b) of H_m with b ≥ a has
//!   b ≥ (m − k)/2 ≥ p + q, so (a, b − q) splits H_{m−q}; a split (a, b')
//!   of H_{m−q} with b' ≥ a has b' ≥ p, so (a, b' + q) splits H_m; no move
//!   takes either heap whole (both exceed k). Lemma X then gives Q_m =
//!   Q_{m−1} and Φ(m) = Φ(m − q). p ≥ 1 is needed: at p = 0 a part of
//!   size 0 is no heap at all. The search for the least q and p is the
//!   one of the Grundy values (`games::period`), run on Φ.
//!
//! **Computing Q_{n+1} from Q_n** (`build.rs`): Lemma X when the options
//! of H_{n+1} have the classes of a smaller heap's options (the periodic
//! range); else candidate models of A_{n+1}, each proven or refuted over
//! every sum by a finite search, the refutations teaching the next
//! candidate, and the proven one reduced to Q_{n+1} (`model.rs`). Q_n is
//! exact at every n, and Q_{n+1} may split classes of Q_n (a larger heap
//! tells apart sums that the smaller ones could not): Φ_{n+1} gives the
//! smaller heaps their classes anew. Nothing is taken on trust: a heap no
//! candidate is proven for stops the computation, and [`Quotient::stop`]
//! says why.
//!
//! **Checked against**: Plambeck's 8-element quotient of 0.75 and
//! MisereSolver's 360 elements of Q_30 of Dawson's Kayles (both found
//! here), and exhaustive search (`tests.rs`, `workbench::misere_check`).
//!
//! **Bounds**: at most [`MAX_HEAPS`] heaps, a quotient of at most
//! [`MAX_ORDER`] elements, candidates of at most [`MAX_CANDIDATE`]
//! elements (and a bounded number of them for one heap), a proof of at
//! most [`MAX_PROOF_STATES`] states.

mod build;
mod model;
mod present;
mod quotient;
mod table;
#[cfg(test)]
mod tests;

pub use model::MAX_CANDIDATE;
pub use quotient::{
    Quotient, Stop, DEFAULT_MAX_HEAP, DEFAULT_WORK, MAX_HEAPS, MAX_ORDER, MAX_PROOF_STATES,
};
