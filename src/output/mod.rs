//! Writing files: outputs that appear whole or not at all
//! ([`AtomicFile`]), and, for the analysis, the `bits` text the tool
//! writes for values too long to print (`BitsFile`).

mod atomic_file;
mod bits_text;

pub(crate) use atomic_file::remove_partial_outputs;
pub(crate) use atomic_file::remove_partial_outputs_on_interrupt;
pub use atomic_file::AtomicFile;
pub(crate) use bits_text::{limb_binary_digits, BitsFile};
