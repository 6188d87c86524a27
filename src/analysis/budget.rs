//! The working-memory budget of `--memory`: a byte count (with an optional
//! `KiB`/`MiB`/`GiB` suffix, at least 64) or `log`, the paper's
//! logarithmic-space mode.

use std::fmt;
use std::str::FromStr;

/// The smallest budget accepted, in bytes.
pub const MIN_BUDGET_BYTES: u64 = 64;

/// The window size under `log` for standard input, in bits.
pub const STREAM_LOG_WINDOW_BITS: u64 = 4096;

/// How much memory the nim-sum window may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryBudget {
    /// A window of at most this many bytes of bit positions.
    Bytes(u64),
    /// A window of O(log n) bits for an input of n bytes.
    Log,
}

impl Default for MemoryBudget {
    fn default() -> Self {
        MemoryBudget::Bytes(1 << 30)
    }
}

impl MemoryBudget {
    /// The window size in 64-bit limbs for an input of `input_bytes` bytes.
    ///
    /// Under `log` the window holds ⌈log₂(n + 1)⌉ bits, rounded up to whole
    /// limbs: one limb for any input a 64-bit machine can address.
    pub fn window_limbs(self, input_bytes: u64) -> u64 {
        match self {
            MemoryBudget::Bytes(bytes) => (bytes / 8).max(1),
            MemoryBudget::Log => {
                let log_bits = u64::from(64 - input_bytes.saturating_add(1).leading_zeros());
                log_bits.div_ceil(64).max(1)
            }
        }
    }
}

impl MemoryBudget {
    /// The size of a read buffer for a pass over a stream or a file read
    /// without a map: the budget within 4 KiB .. 1 MiB, or 4 KiB under
    /// `log`. It grows only when a heap is longer.
    pub fn read_chunk_bytes(self) -> usize {
        match self {
            MemoryBudget::Log => 4096,
            MemoryBudget::Bytes(bytes) => bytes.clamp(4096, 1 << 20) as usize,
        }
    }
}

/// A byte count with an optional `KiB`/`MiB`/`GiB` (or `K`/`M`/`G`, or `B`)
/// suffix, case-insensitive; `None` when malformed or too large.
pub fn parse_byte_size(text: &str) -> Option<u64> {
    let digits_end = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, suffix) = text.split_at(digits_end);
    let unit: u64 = match suffix.to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kib" => 1 << 10,
        "m" | "mib" => 1 << 20,
        "g" | "gib" => 1 << 30,
        _ => return None,
    };
    number.parse::<u64>().ok()?.checked_mul(unit)
}

impl FromStr for MemoryBudget {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        if text.eq_ignore_ascii_case("log") {
            return Ok(MemoryBudget::Log);
        }
        let bytes = parse_byte_size(text).ok_or_else(|| {
            format!(
                "invalid memory budget '{text}': expected bytes with an optional \
                 KiB, MiB or GiB suffix (e.g. 64KiB), or 'log'"
            )
        })?;
        if bytes < MIN_BUDGET_BYTES {
            return Err(format!(
                "memory budget '{text}' is below the minimum of {MIN_BUDGET_BYTES} bytes"
            ));
        }
        Ok(MemoryBudget::Bytes(bytes))
    }
}

impl fmt::Display for MemoryBudget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MemoryBudget::Bytes(bytes) => write!(f, "{bytes} bytes"),
            MemoryBudget::Log => f.write_str("log"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes_scale_by_powers_of_1024() {
        assert_eq!("64".parse(), Ok(MemoryBudget::Bytes(64)));
        assert_eq!("64KiB".parse(), Ok(MemoryBudget::Bytes(64 << 10)));
        assert_eq!("3M".parse(), Ok(MemoryBudget::Bytes(3 << 20)));
        assert_eq!("1gib".parse(), Ok(MemoryBudget::Bytes(1 << 30)));
        assert_eq!("LOG".parse(), Ok(MemoryBudget::Log));
    }

    #[test]
    fn small_or_malformed_budgets_are_refused() {
        assert!("63".parse::<MemoryBudget>().is_err());
        assert!("1TiB5".parse::<MemoryBudget>().is_err());
        assert!("KiB".parse::<MemoryBudget>().is_err());
        assert!("99999999999999999999G".parse::<MemoryBudget>().is_err());
    }

    #[test]
    fn log_windows_are_one_limb_for_real_inputs() {
        assert_eq!(MemoryBudget::Log.window_limbs(0), 1);
        assert_eq!(MemoryBudget::Log.window_limbs(u64::MAX), 1);
        assert_eq!(MemoryBudget::Bytes(64).window_limbs(10), 8);
    }
}
