//! Where a token of `bits`, `hex` or `dec` starts, some tokens past the
//! one a sample points at: the way an update reaches a heap of FILE that
//! is not sampled.
//!
//! The tokens between the sample and the heap are only delimited, never
//! parsed: eight bytes at a time, a byte is a separator when it is at most
//! a space (FILE was checked whole by the initial pass, so only space,
//! tab, LF and CR are there), and a token starts at each non-separator
//! after a separator. That is about three times as fast as scanning the
//! tokens (each one's digits checked and converted), and an update reads
//! 7.5 of them on average. The heap wanted is then read by the format's
//! scanner, which checks it: a FILE that changed shows either there or in
//! the check of its size and modification time at the end of the session.

/// `0x01` in every byte.
const ONES: u64 = 0x0101_0101_0101_0101;

/// Non-separators (bytes above a space) in `word`: bit k for byte k.
#[inline]
fn token_bytes(word: u64) -> u64 {
    // Below 0x80, byte + 0x5f reaches 0x80 exactly when byte ≥ 0x21, and
    // no byte carries into the next.
    let high = (word & (0x7f * ONES)).wrapping_add(0x5f * ONES) & (0x80 * ONES);
    // Gather the eight high bits into one byte.
    (high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The offset in `bytes` of the token `tokens` tokens after the one that
/// starts at offset 0 (`None` if `bytes` ends first).
pub(super) fn token_start(bytes: &[u8], tokens: u64) -> Option<usize> {
    if tokens == 0 {
        return Some(0);
    }
    let mut left = tokens;
    // Whether the byte before `at` belongs to a token.
    let mut in_token = true;
    let mut at = 0;
    // Words in a row that lie inside one token.
    let mut inside = 0;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let token = token_bytes(word);
        let starts = token & !((token << 1) | u64::from(in_token));
        let found = u64::from(starts.count_ones());
        if found >= left {
            return Some(at + nth_bit(starts, left - 1));
        }
        left -= found;
        in_token = token & 0x80 != 0;
        at += 8;
        inside = if token == 0xff { inside + 1 } else { 0 };
        if inside == LONG_TOKEN_WORDS {
            // A token longer than a 64-bit heap's digits: it may be much
            // longer (a `bits` token of a million digits); skip the blocks
            // it fills in vector steps.
            at = past_token_blocks(bytes, at);
            inside = 0;
        }
    }
    for (i, &byte) in bytes[at..].iter().enumerate() {
        let token = byte > b' ';
        if token && !in_token {
            left -= 1;
            if left == 0 {
                return Some(at + i);
            }
        }
        in_token = token;
    }
    None
}

/// Words inside one token after which [`token_start`] looks for its end
/// a block at a time (a `dec` token of a 64-bit heap fills at most two).
const LONG_TOKEN_WORDS: u32 = 3;

/// Bytes per block that [`past_token_blocks`] checks at once.
const BLOCK: usize = 64;

/// The start of the first block of [`BLOCK`] bytes from `at` that holds a
/// separator or runs past the end of `bytes` (a branch-free test the
/// compiler turns into vector compares).
fn past_token_blocks(bytes: &[u8], mut at: usize) -> usize {
    while let Some(block) = bytes.get(at..at + BLOCK) {
        if !block.iter().fold(true, |all, &b| all & (b > b' ')) {
            break;
        }
        at += BLOCK;
    }
    at
}

/// The position of the `n`-th set bit (0-based) of `bits`.
fn nth_bit(mut bits: u64, n: u64) -> usize {
    for _ in 0..n {
        bits &= bits - 1;
    }
    bits.trailing_zeros() as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The starts of the tokens after the first, byte by byte.
    fn starts(bytes: &[u8]) -> Vec<usize> {
        (1..bytes.len())
            .filter(|&i| bytes[i] > b' ' && bytes[i - 1] <= b' ')
            .collect()
    }

    #[test]
    fn token_starts_agree_with_a_byte_by_byte_count() {
        let mut rng = ChaCha8Rng::seed_from_u64(12);
        let pieces: [&[u8]; 8] = [
            b"1",
            b"0x1f",
            b"12345678901234567890",
            b" ",
            b"\n",
            b"\r\n",
            b"\t \t",
            b"101",
        ];
        for _ in 0..500 {
            let mut bytes = b"7".to_vec();
            while bytes.len() < rng.random_range(1..1000) {
                bytes.extend_from_slice(pieces[rng.random_range(0..pieces.len())]);
            }
            let expected = starts(&bytes);
            for tokens in 0..=expected.len() as u64 + 1 {
                let wanted = match tokens {
                    0 => Some(0),
                    _ => expected.get(tokens as usize - 1).copied(),
                };
                assert_eq!(token_start(&bytes, tokens), wanted, "{tokens} in {bytes:?}");
            }
        }
    }
}
