//! Tokens longer than a read buffer: a `bits` or `hex` token taken in
//! pieces, its digits packed as they come (`pieces/`), or read from its
//! end, its limbs XORed into a sum as they come (`from_end.rs`); a `dec`
//! token taken in pieces, converted as it comes (`decimals.rs`). The
//! driver's positioned reads use them (`driver/positioned.rs`,
//! `driver/from_end.rs`).

pub(crate) mod decimals;
pub(crate) mod from_end;
pub(crate) mod pieces;
