//! One scanner per format (SPEC section 2), each a
//! [`HeapScanner`](crate::input::scanner::HeapScanner) over a byte slice:
//! the token formats `bits`, `hex` and `dec` (and what they share:
//! whitespace and a token's end, `token.rs`; short tokens parsed 64 bytes
//! at a time, `block_path.rs`), `unary` lines, raw arrays, `nimb` records;
//! and the [`Scanner`](any::Scanner) for any of them (`any.rs`).

pub(crate) mod any;
pub(crate) mod bits;
pub(crate) mod block_path;
pub(crate) mod dec;
pub(crate) mod hex;
pub(crate) mod nimb;
pub(crate) mod raw;
pub(crate) mod token;
pub(crate) mod unary;
