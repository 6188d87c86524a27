//! Short `hex` tokens checked and converted in one pass over their digits.
//!
//! A token's digits are most significant first, so where its bit 0 lies
//! is known only at its end. Finding the end first and converting the
//! digits afterwards reads every digit twice, and pays a mispredicted loop
//! exit in each pass. Here every block of digits is classified and
//! converted in the same registers, as groups of 16 digits counted from
//! the token's start (the first digit most significant in its group).
//! The groups are stored from the top of a scratch buffer down, so that
//! at the token's end they are in little-endian order, and the value is
//! the groups shifted right by the unused low digits of the last one.
//! That shift is left to whoever reads the value: a limb is two
//! neighbouring groups, and a nim-sum keeps one sum per shift and shifts
//! each once at the end ([`crate::nimsum::ByShift`]).
//!
//! A token longer than the scratch buffer is left to the two-pass scan:
//! over thousands of digits, what a token costs at its ends no longer
//! matters.

use super::token::{is_space, Digits};
use crate::error::ParseError;

/// The most digits a packed token may have: 256 groups of 16 (2 KiB of
/// scratch space).
const MAX_GROUPS: usize = 256;

/// Where tokens are packed: reused from token to token.
#[derive(Debug, Default)]
pub struct TokenScratch {
    groups: Vec<u64>,
}

impl TokenScratch {
    /// The group buffer, allocated on first use.
    fn groups(&mut self) -> &mut [u64] {
        if self.groups.is_empty() {
            self.groups = vec![0; MAX_GROUPS];
        }
        &mut self.groups
    }
}

/// A token's digits packed in groups of 16: the value is the groups, as a
/// little-endian number, shifted right by `shift` bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedDigits<'s> {
    /// The groups, the last one read first; the low `shift` bits of the
    /// first are zero.
    pub groups: &'s [u64],
    /// A multiple of 4 below 64: four bits per digit missing from the
    /// last group.
    pub shift: u32,
    /// The value's bit length.
    pub bits: u64,
}

impl PackedDigits<'_> {
    /// Limb `j` of the value.
    #[inline]
    pub fn limb(&self, j: u64) -> u64 {
        shifted_limb(self.groups, self.shift, j)
    }
}

/// Limb `j` of little-endian `groups` shifted right by `shift` bits (below
/// 64): the bits of group `j` and group `j + 1` that the shift brings
/// together.
#[inline]
pub fn shifted_limb(groups: &[u64], shift: u32, j: u64) -> u64 {
    let group = |i: u64| {
        usize::try_from(i)
            .ok()
            .and_then(|i| groups.get(i).copied())
            .unwrap_or(0)
    };
    let above = group(j.saturating_add(1))
        .checked_shl(64 - shift)
        .unwrap_or(0);
    group(j) >> shift | above
}

/// Checks and converts the hex digits of the token whose first digit is at
/// `start`, returning where the token ends and its value. `None` if the
/// token has more than `16 · MAX_GROUPS` digits (left to the two-pass
/// scan), or an error at the first byte after the digits if it is not
/// whitespace.
#[inline]
pub fn hex_token<'s>(
    data: &[u8],
    start: usize,
    base: u64,
    expected: &str,
    scratch: &'s mut TokenScratch,
) -> Result<Option<(usize, PackedDigits<'s>)>, ParseError> {
    let groups = scratch.groups();
    let Some(end) = pack_hex(data, start, groups) else {
        return Ok(None);
    };
    if let Some(&byte) = data.get(end).filter(|&&b| !is_space(b)) {
        return Err(ParseError::unexpected(base + end as u64, byte, expected));
    }
    Ok(Some((end, digits_of_groups(groups, end - start))))
}

/// The value of a token of `digits` digits whose groups are at the top of
/// `groups`, in little-endian order: the last group's unused low bits
/// (which a kernel leaves holding what followed the token) are cleared.
#[inline]
fn digits_of_groups(groups: &mut [u64], digits: usize) -> PackedDigits<'_> {
    let groups = &mut groups[MAX_GROUPS - digits.div_ceil(16)..];
    let shift = (4 * (16 - digits % 16) % 64) as u32;
    if let Some(last) = groups.first_mut() {
        *last &= u64::MAX << shift;
    }
    let bits = match groups.iter().rposition(|&g| g != 0) {
        None => 0,
        Some(top) => {
            64 * top as u64 + u64::from(64 - groups[top].leading_zeros()) - u64::from(shift)
        }
    };
    PackedDigits {
        groups,
        shift,
        bits,
    }
}

/// Scans hex digits from `start` (`start < data.len()`), storing group `i`
/// (digits `16i .. 16i + 16` from `start`, the first most significant) at
/// `groups[MAX_GROUPS - 1 - i]`. A last, partial group holds its digits
/// in its top bits; its low bits, and the slots below it, may hold
/// anything (a kernel stores whole steps of groups). Returns the index of
/// the first non-digit (or `data.len()`), or `None` if there are more
/// than `16 · MAX_GROUPS` digits.
#[inline]
fn pack_hex(data: &[u8], start: usize, groups: &mut [u64]) -> Option<usize> {
    debug_assert_eq!(groups.len(), MAX_GROUPS);
    #[cfg(target_arch = "x86_64")]
    {
        if simd::has_avx512_vbmi() {
            // SAFETY: the CPU supports AVX-512 F, BW and VBMI, checked
            // just above; `groups` has `MAX_GROUPS` slots.
            return unsafe { simd::pack_hex_avx512(data, start, groups) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU supports AVX2, checked just above; `groups`
            // has `MAX_GROUPS` slots.
            return unsafe { simd::pack_hex_avx2(data, start, groups) };
        }
    }
    pack_hex_portable(data, start, groups)
}

/// [`pack_hex`] for any CPU: 16 bytes per step, checked as two SWAR words
/// and converted with [`limbs::hex_word`](crate::arch::limbs::hex_word).
fn pack_hex_portable(data: &[u8], start: usize, groups: &mut [u64]) -> Option<usize> {
    let mut pos = start;
    for slot in (0..MAX_GROUPS).rev() {
        let Some(chunk) = data.get(pos..pos + 16) else {
            // The last bytes of `data`, one by one.
            let rest = &data[pos..];
            let digits = rest.iter().take_while(|&&b| b.is_ascii_hexdigit()).count();
            groups[slot] = partial_group(&rest[..digits]);
            return Some(pos + digits);
        };
        let chunk: &[u8; 16] = chunk.try_into().expect("16 bytes");
        let word = |half: usize| u64::from_le_bytes(chunk[8 * half..][..8].try_into().expect("8"));
        let (first, second) = (
            Digits::Hex.non_digits(word(0)),
            Digits::Hex.non_digits(word(1)),
        );
        if first | second != 0 {
            let flags = u128::from(first) | u128::from(second) << 64;
            let digits = (flags.trailing_zeros() / 8) as usize;
            groups[slot] = partial_group(&chunk[..digits]);
            return Some(pos + digits);
        }
        groups[slot] = crate::arch::limbs::hex_word(chunk);
        pos += 16;
    }
    past_the_last_group(data, pos)
}

/// Fewer than 16 hex digits as a group: in its top bits.
fn partial_group(digits: &[u8]) -> u64 {
    match digits.len() {
        0 => 0,
        n => crate::arch::limbs::parse_hex(digits) << (64 - 4 * n),
    }
}

/// The AVX-512 and AVX2 kernels of [`pack_hex`], picked at run time.
///
/// Written with `std::arch` intrinsics by hand: the compiler does not
/// vectorise a loop that exits at the first non-digit, and no crate
/// converts digits and finds a token's end in the same registers.
#[cfg(target_arch = "x86_64")]
mod simd {
    use super::super::token::avx2::hex_lanes;
    use super::MAX_GROUPS;
    use std::arch::x86_64::*;

    /// True if the CPU has AVX-512 F and BW with VBMI (byte permutes).
    #[inline]
    pub(super) fn has_avx512_vbmi() -> bool {
        is_x86_feature_detected!("avx512f")
            && is_x86_feature_detected!("avx512bw")
            && is_x86_feature_detected!("avx512vbmi")
    }

    /// Each byte's hex value, or `0x80` for a byte that is not a hex
    /// digit: a two-table byte permute looks up the first 128 entries.
    const VALUES: [u8; 256] = crate::arch::limbs::hex_values(0x80);

    /// Where each byte of four stored groups comes from in the pairs of
    /// digits [`pack_hex_avx512`] merges: group `g` of the step (pairs
    /// `8g .. 8g + 8`, in the low bytes of 16-bit lanes) goes to slot
    /// `3 - g` of the store, its first pair in its top byte.
    const GATHER: [u8; 64] = {
        let mut order = [0u8; 64];
        let mut q = 0;
        while q < 32 {
            let (g, b) = (3 - q / 8, q % 8);
            order[q] = (2 * (8 * g + 7 - b)) as u8;
            q += 1;
        }
        order
    };

    /// [`super::pack_hex`] with AVX-512: 64 bytes per step. One two-table
    /// byte permute gives each byte's value or marks it as a non-digit
    /// (bytes from `0x80` carry their own mark), one multiply-add merges
    /// pairs of digits, and one byte permute orders four groups for a
    /// 32-byte store. The step past the end of `data` is a masked load.
    ///
    /// # Safety
    /// The CPU must support AVX-512 F, BW and VBMI; `groups` must have
    /// `MAX_GROUPS` slots.
    #[target_feature(enable = "avx512f,avx512bw,avx512vbmi")]
    pub(super) unsafe fn pack_hex_avx512(
        data: &[u8],
        start: usize,
        groups: &mut [u64],
    ) -> Option<usize> {
        debug_assert_eq!(groups.len(), MAX_GROUPS);
        // SAFETY: each load reads 64 bytes of a table of 64 or more.
        let (low_values, high_values, gather) = unsafe {
            (
                _mm512_loadu_si512(VALUES.as_ptr().cast()),
                _mm512_loadu_si512(VALUES.as_ptr().add(64).cast()),
                _mm512_loadu_si512(GATHER.as_ptr().cast()),
            )
        };
        let pair_weights = _mm512_set1_epi16(0x0110);
        let low_nibbles = _mm512_set1_epi8(0x0f);
        let mut pos = start;
        // Steps of four groups, from the top slots down.
        for slot in (0..=MAX_GROUPS - 4).rev().step_by(4) {
            let left = data.len() - pos;
            let bytes = if left >= 64 {
                // SAFETY: `pos + 64 <= data.len()`; unaligned loads have no
                // alignment requirement.
                unsafe { _mm512_loadu_si512(data.as_ptr().add(pos).cast()) }
            } else {
                // SAFETY: the mask selects the `left` bytes from `pos`,
                // all in `data`; masked-off bytes are not read (and read
                // as zero, a non-digit).
                unsafe {
                    _mm512_maskz_loadu_epi8((1u64 << left) - 1, data.as_ptr().add(pos).cast())
                }
            };
            let values = _mm512_permutex2var_epi8(low_values, bytes, high_values);
            let non_digits = _mm512_movepi8_mask(_mm512_or_si512(values, bytes));
            let nibbles = _mm512_and_si512(values, low_nibbles);
            let pairs = _mm512_maddubs_epi16(nibbles, pair_weights);
            let ordered = _mm512_permutexvar_epi8(gather, pairs);
            // SAFETY: slots `slot .. slot + 4` are in `groups`;
            // unaligned stores have no alignment requirement.
            unsafe {
                _mm256_storeu_si256(
                    groups.as_mut_ptr().add(slot).cast(),
                    _mm512_castsi512_si256(ordered),
                );
            }
            if non_digits != 0 {
                return Some(pos + non_digits.trailing_zeros() as usize);
            }
            pos += 64;
        }
        super::past_the_last_group(data, pos)
    }

    /// [`super::pack_hex`] with AVX2: 32 bytes per step. Each byte is
    /// classified as in the token search ([`hex_lanes`]), its value is its
    /// low nibble plus a letter's 9 (from a table indexed by its high
    /// nibble), one multiply-add merges pairs of digits, and a
    /// shuffle and a permute order two groups for a 16-byte store. The
    /// step past the end of `data` reads a zero-padded copy.
    ///
    /// # Safety
    /// The CPU must support AVX2; `groups` must have `MAX_GROUPS` slots.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn pack_hex_avx2(
        data: &[u8],
        start: usize,
        groups: &mut [u64],
    ) -> Option<usize> {
        debug_assert_eq!(groups.len(), MAX_GROUPS);
        let letter_nine = _mm256_setr_epi8(
            0, 0, 0, 0, 9, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
            0, 0, 0, 0, 9, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0,
        );
        let gather = _mm256_setr_epi8(
            14, 12, 10, 8, 6, 4, 2, 0, -1, -1, -1, -1, -1, -1, -1, -1, //
            14, 12, 10, 8, 6, 4, 2, 0, -1, -1, -1, -1, -1, -1, -1, -1,
        );
        let low_nibbles = _mm256_set1_epi8(0x0f);
        let pair_weights = _mm256_set1_epi16(0x0110);
        let mut pos = start;
        let mut padded = [0u8; 32];
        for slot in (0..=MAX_GROUPS - 2).rev().step_by(2) {
            let bytes = match data.get(pos..pos + 32) {
                // SAFETY: the slice has 32 bytes; unaligned loads have no
                // alignment requirement.
                Some(step) => unsafe { _mm256_loadu_si256(step.as_ptr().cast()) },
                None => {
                    let rest = &data[pos..];
                    padded[..rest.len()].copy_from_slice(rest);
                    // SAFETY: `padded` has 32 bytes.
                    unsafe { _mm256_loadu_si256(padded.as_ptr().cast()) }
                }
            };
            let high = _mm256_and_si256(_mm256_srli_epi16(bytes, 4), low_nibbles);
            let low = _mm256_and_si256(bytes, low_nibbles);
            // SAFETY: this function's caller guarantees AVX2.
            let is_digit = unsafe { hex_lanes(bytes) };
            let values = _mm256_add_epi8(low, _mm256_shuffle_epi8(letter_nine, high));
            let nibbles = _mm256_and_si256(values, is_digit);
            let pairs = _mm256_maddubs_epi16(nibbles, pair_weights);
            // Lane 0's group to the high half of the low 128 bits, lane 1's
            // to the low half.
            let ordered =
                _mm256_permute4x64_epi64::<0b00_00_00_10>(_mm256_shuffle_epi8(pairs, gather));
            // SAFETY: slots `slot .. slot + 2` are in `groups`; unaligned
            // stores have no alignment requirement.
            unsafe {
                _mm_storeu_si128(
                    groups.as_mut_ptr().add(slot).cast(),
                    _mm256_castsi256_si128(ordered),
                );
            }
            let non_digits = !(_mm256_movemask_epi8(is_digit) as u32);
            if non_digits != 0 {
                return Some(pos + non_digits.trailing_zeros() as usize);
            }
            pos += 32;
        }
        super::past_the_last_group(data, pos)
    }
}

/// Where a token whose `MAX_GROUPS` groups are all full ends: at `pos` if
/// no digit follows, or `None` (too long to pack).
fn past_the_last_group(data: &[u8], pos: usize) -> Option<usize> {
    let at_end = data.get(pos).is_none_or(|b| !b.is_ascii_hexdigit());
    at_end.then_some(pos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    type Kernel = fn(&[u8], usize, &mut [u64]) -> Option<usize>;

    /// Every kernel this CPU can run.
    fn kernels() -> Vec<(&'static str, Kernel)> {
        let mut found: Vec<(&'static str, Kernel)> = vec![("portable", pack_hex_portable)];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                // SAFETY: the CPU supports AVX2, checked just above.
                found.push(("avx2", |d, s, g| unsafe { simd::pack_hex_avx2(d, s, g) }));
            }
            if simd::has_avx512_vbmi() {
                // SAFETY: the CPU supports AVX-512 F, BW and VBMI.
                found.push(("avx512", |d, s, g| unsafe {
                    simd::pack_hex_avx512(d, s, g)
                }));
            }
        }
        found
    }

    /// The token's end and value, digit by digit: little-endian limbs
    /// without high zero limbs, or `None` past `16 · MAX_GROUPS` digits.
    fn reference(data: &[u8], start: usize) -> Option<(usize, Vec<u64>)> {
        let digits = data[start..]
            .iter()
            .take_while(|b| b.is_ascii_hexdigit())
            .count();
        if digits > 16 * MAX_GROUPS {
            return None;
        }
        let mut limbs = vec![0u64; digits.div_ceil(16)];
        for (k, &d) in data[start..start + digits].iter().rev().enumerate() {
            let value = u64::from(crate::arch::limbs::hex_digit_value(d));
            limbs[k / 16] |= value << (4 * (k % 16));
        }
        while limbs.last() == Some(&0) {
            limbs.pop();
        }
        Some((start + digits, limbs))
    }

    /// What a kernel gives for the token at `start`: its end and value.
    fn packed(kernel: Kernel, data: &[u8], start: usize) -> Option<(usize, Vec<u64>)> {
        let mut groups = vec![0x5555_5555_5555_5555; MAX_GROUPS];
        let end = kernel(data, start, &mut groups)?;
        let packed = digits_of_groups(&mut groups, end - start);
        let limbs: Vec<u64> = (0..packed.bits.div_ceil(64))
            .map(|j| packed.limb(j))
            .collect();
        let top = limbs
            .last()
            .map_or(0, |&t| 64 - u64::from(t.leading_zeros()));
        let bits = 64 * limbs.len().saturating_sub(1) as u64 + top;
        assert_eq!(packed.bits, bits, "bit length of {:?}", &data[start..end]);
        Some((end, limbs))
    }

    /// Random hex digits of both cases, some leading zeros.
    fn hex_digits(rng: &mut ChaCha8Rng, len: usize) -> Vec<u8> {
        const ALPHABET: &[u8] = b"0123456789abcdefABCDEF";
        let zeros = if rng.random_bool(0.2) {
            rng.random_range(0..=len)
        } else {
            0
        };
        (0..len)
            .map(|i| {
                if i < zeros {
                    b'0'
                } else {
                    ALPHABET[rng.random_range(0..ALPHABET.len())]
                }
            })
            .collect()
    }

    #[test]
    fn kernels_match_the_digit_by_digit_reference() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for round in 0..3000 {
            // Lengths around every step size, up to past the limit.
            let len = match round % 3 {
                0 => rng.random_range(0..200),
                1 => rng.random_range(0..=16 * MAX_GROUPS + 70),
                _ => 16 * MAX_GROUPS - 66 + rng.random_range(0..140),
            };
            let mut data: Vec<u8> = (0..rng.random_range(0..70)).map(|_| rng.random()).collect();
            let start = data.len();
            data.extend(hex_digits(&mut rng, len));
            if rng.random_bool(0.7) {
                // Any byte may end the token, followed by more digits.
                let mut stop: u8 = rng.random();
                while stop.is_ascii_hexdigit() {
                    stop = rng.random();
                }
                data.push(stop);
                let more = rng.random_range(0..100);
                data.extend(hex_digits(&mut rng, more));
            }
            let expected = reference(&data, start);
            for (name, kernel) in kernels() {
                assert_eq!(
                    packed(kernel, &data, start),
                    expected,
                    "{name}: {len} digits from {start} in {} bytes",
                    data.len()
                );
            }
        }
    }

    #[test]
    fn every_byte_ends_a_token_at_every_position_in_a_step() {
        for stop in (0..=255u8).filter(|b| !b.is_ascii_hexdigit()) {
            for len in 0..130 {
                let mut data = b"0F1e".repeat(40)[..len].to_vec();
                data.push(stop);
                data.extend_from_slice(b"ffffffffffffffffffffffffffffffff");
                let expected = reference(&data, 0);
                for (name, kernel) in kernels() {
                    assert_eq!(
                        packed(kernel, &data, 0),
                        expected,
                        "{name}: {stop:#x} after {len}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_token_must_end_at_whitespace() {
        let mut scratch = TokenScratch::default();
        let error = hex_token(b"12g", 0, 100, "a hex digit", &mut scratch).unwrap_err();
        assert_eq!(error.offset, 102);
        let (end, packed) = hex_token(b"0012\t", 0, 0, "", &mut scratch)
            .unwrap()
            .unwrap();
        assert_eq!((end, packed.bits, packed.limb(0)), (4, 5, 0x12));
        let long = b"1".repeat(16 * MAX_GROUPS + 1);
        assert!(hex_token(&long, 0, 0, "", &mut scratch).unwrap().is_none());
    }
}
