//! A heap game other than Nim under normal play (SPEC section 8): one pass
//! of [`GameSum`](sums::GameSum) through the driver, each heap's Grundy
//! value XORed into the Grundy sum (`sums.rs`), the first heap holding
//! each bit of the values kept (`holders.rs`), then the move on the first
//! heap whose value holds the sum's msb, written out however long the heap
//! (`moves.rs`). `run.rs` runs it from start to end.
//!
//! Misère play of these games (`analysis/misere`) builds on the same
//! pass: its sizes, residues and holders, and its move written out.

pub(crate) mod holders;
pub(crate) mod moves;
pub(crate) mod run;
pub(crate) mod sums;
