//! Nim (SPEC section 1): the nim-sum, the winner and the move, over the
//! heaps the driver reads and pushes into folds. Two algorithms, as the
//! budget decides (`analysis/budget.rs`):
//!
//! - **One pass** ([`one_pass`]) keeps, besides the survey and the
//!   nim-sum, the counts of the heaps holding the top bits and the first
//!   holder of every bit, among which the move's heap is. A stream, which
//!   can be read only once, is always analysed so; so is an input read at
//!   any offset under a budget that holds the pass's buffers (the
//!   default), on all threads.
//! - **Windowed passes** ([`windows`]), for smaller budgets and `--memory
//!   log`: the same fold keeping no candidates surveys the input, then one
//!   pass per window of the nim-sum, most significant first, and one
//!   first-holder search ([`holder_search`]) once the msb is known. Working
//!   memory is one window and a few counters.
//!
//! Heaps held in memory as digits (a Python list of ints) need neither:
//! [`held`] reads them twice, the nim-sum in one pass and the msb's
//! holders in another.
//!
//! [`run`] runs it from start to end, and carries on from the first pass, whichever it was: a one pass
//! that met a heap longer than its window, or whose counts do not reach
//! the msb, goes on with exactly the passes the windowed algorithm would
//! run from there, never from byte 0 again. The move is found by
//! [`moves`] from the nim-sum's windows as they arrive, and the facts
//! (`analysis/facts.rs`) go to the report.

pub(crate) mod bit_counts;
pub(crate) mod candidates;
pub(crate) mod held;
pub(crate) mod holder_counts;
pub(crate) mod holder_search;
pub(crate) mod moves;
pub(crate) mod one_pass;
pub(crate) mod run;
pub(crate) mod streamed_values;
pub(crate) mod windows;
