//! `dec`: whitespace-separated tokens of ASCII decimal digits.
//!
//! Tokens of up to 38 digits become a 128-bit word; longer ones are
//! converted to binary limbs by num-bigint, once, when the heap is read
//! (unless leading zeros bring them down to 38 significant digits).
//!
//! Most tokens are short, and two paths take them without the general
//! one:
//!
//! - the block path, for a pass whose fold takes heaps in blocks
//!   ([`HeapScanner::fill_words`]): 64 bytes at a time are classified into
//!   a digit mask, each token's start and end found in it with bit scans
//!   (`dec_blocks.rs`), and a token's value read from the 32 bytes that
//!   end at its end (kernels in `arch/dec_tokens`). Its loop does nothing
//!   but parse into a buffer, so it is compiled for AVX2 as a whole where
//!   the CPU has it, one call per block of heaps;
//! - a fast path for a fold that takes heaps one at a time
//!   ([`HeapScanner::next_heap`]), which validates a token, finds its end
//!   and computes its value in one go, eight bytes at a time with SWAR.
//!
//! A token neither takes (more than 38 digits, too near the end of the
//! slice, or with a bad byte near it) goes through the general path:
//! [`scan_digits`], which reports errors, then [`decimal_value`].
//!
//! Measured on 1 GiB of 20-digit tokens, `analyze` on two threads: heaps
//! taken one at a time between two SWAR parses, 0.47 s (about 7 ns of
//! parse and 8-9 of fold a heap, the fold's 128-bit work between parses
//! not vectorised); in blocks, 0.20 s. The block path had been tried on
//! the one-at-a-time loop first (commit 9be77f7) and lost there: AVX2
//! could not inline into the scanner, nor the fold into a loop compiled
//! for AVX2.

use super::dec_blocks::BlockCursor;
use super::decimal_digits::{decimal_word, parse8, parse_prefix, POWERS_OF_TEN};
use super::page_release::PageReleaser;
use super::token::{is_space, scan_digits, skip_space, strip_leading_zeros};
use super::{Heap, HeapScanner, HeapValue, WordBuffer};
use crate::arch::dec_tokens::{DecKernel, SHORT_DIGITS};
use crate::arch::token_end::Digits;
use crate::error::ParseError;

/// The most decimal digits that always fit in a `u128`.
const WORD_DIGITS: usize = 38;

/// Yields the tokens of a `dec` slice.
pub struct DecScanner<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
    pages: PageReleaser<'a>,
}

impl<'a> DecScanner<'a> {
    /// A scanner over `data`, whose first byte is at absolute offset `base`.
    pub fn new(data: &'a [u8], base: u64) -> Self {
        DecScanner {
            data,
            pos: 0,
            base,
            pages: PageReleaser::NONE,
        }
    }

    /// Releases the pages of long heaps with `pages` as they are checked.
    pub(crate) fn releasing(self, pages: PageReleaser<'a>) -> Self {
        DecScanner { pages, ..self }
    }
}

/// The value of validated decimal digits without leading zeros.
pub fn decimal_value(digits: &[u8]) -> HeapValue<'static> {
    if digits.len() <= WORD_DIGITS {
        return HeapValue::Word(decimal_word(digits));
    }
    HeapValue::Limbs(crate::input::trimmed(super::decimal_limbs::limbs_of(
        digits,
    )))
}

/// The eight bytes of `data` at `pos` as a little-endian word, if there.
#[inline]
fn word_at(data: &[u8], pos: usize) -> Option<u64> {
    let bytes = data.get(pos..pos.checked_add(8)?)?;
    Some(u64::from_le_bytes(bytes.try_into().expect("eight bytes")))
}

/// Where the first non-digit of `word` is (0-7), if it has one, and
/// whether that byte is whitespace.
#[inline]
fn token_end_in(word: u64) -> Option<(usize, bool)> {
    let stops = Digits::Decimal.non_digits(word);
    if stops == 0 {
        return None;
    }
    let len = (stops.trailing_zeros() / 8) as usize;
    Some((len, is_space((word >> (8 * len)) as u8)))
}

/// The fast path: the end and value of the token at
/// `start` if it has at most [`WORD_DIGITS`] digits (leading zeros
/// included) and is followed by whitespace within `data`; `None` sends it
/// to the general path. Eight bytes at a time, each validated and
/// converted in the same step: up to 16 digits in `u64`, then in `u128`.
#[inline(always)]
fn swar_short_token(data: &[u8], start: usize) -> Option<(usize, u128)> {
    let mut high = 0u64;
    for pos in [start, start + 8] {
        let word = word_at(data, pos)?;
        if let Some((len, at_space)) = token_end_in(word) {
            let value = high * POWERS_OF_TEN[len] + parse_prefix(word, len);
            return at_space.then_some((pos + len, u128::from(value)));
        }
        high = high * 100_000_000 + parse8(word);
    }
    // Past 38 digits the value may wrap around, but such a token is then
    // refused, whatever its value.
    let mut value = u128::from(high);
    for pos in [start + 16, start + 24, start + 32] {
        let word = word_at(data, pos)?;
        if let Some((len, at_space)) = token_end_in(word) {
            let fits = pos + len - start <= WORD_DIGITS;
            let value = value
                .wrapping_mul(u128::from(POWERS_OF_TEN[len]))
                .wrapping_add(u128::from(parse_prefix(word, len)));
            return (at_space && fits).then_some((pos + len, value));
        }
        value = value
            .wrapping_mul(100_000_000)
            .wrapping_add(u128::from(parse8(word)));
    }
    None
}

impl DecScanner<'_> {
    /// [`HeapScanner::fill_words`] with `kernel`: the tokens the block
    /// cursor finds, from the scanner's position, until one it leaves to
    /// [`HeapScanner::next_heap`]. The cursor starts again at each call:
    /// one more 64-byte block classified per block of heaps.
    #[inline(always)]
    fn fill_words_with(&mut self, kernel: DecKernel, words: &mut WordBuffer) {
        let mut blocks = BlockCursor::at(self.pos);
        while !words.is_full() {
            let Some((start, end)) = blocks.next_token(self.data, kernel, WORD_DIGITS) else {
                return;
            };
            words.push(
                self.base + start as u64,
                self.short_value(kernel, start, end),
            );
            // The byte at `end` is whitespace: the next token starts later.
            self.pos = end + 1;
        }
    }

    /// [`DecScanner::fill_words_with`] compiled for AVX2.
    ///
    /// # Safety
    /// The CPU must support AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn fill_words_avx2(&mut self, words: &mut WordBuffer) {
        self.fill_words_with(DecKernel::Avx2, words);
    }

    /// The value of the token of valid digits `start..end` (at most
    /// [`WORD_DIGITS`]): from the 32 bytes ending at `end` if it has at
    /// most 32 digits and they lie in `data`.
    #[inline(always)]
    fn short_value(&self, kernel: DecKernel, start: usize, end: usize) -> u128 {
        let len = end - start;
        match end.checked_sub(SHORT_DIGITS) {
            Some(from) if len <= SHORT_DIGITS => {
                let bytes = self.data[from..end].try_into().expect("32 bytes");
                kernel.short_value(bytes, len)
            }
            _ => decimal_word(&self.data[start..end]),
        }
    }
}

impl<'a> HeapScanner<'a> for DecScanner<'a> {
    fn consumed(&self) -> usize {
        self.pos
    }

    const FILLS_WORDS: bool = true;

    /// The block path's tokens, one after another, with nothing else in
    /// the loop: compiled for AVX2 where the CPU has it (called once per
    /// block of heaps, so the call costs nothing per heap).
    fn fill_words(&mut self, words: &mut WordBuffer) {
        match DecKernel::best() {
            #[cfg(target_arch = "x86_64")]
            DecKernel::Avx2 => {
                // SAFETY: `best` picks the AVX2 build only where `cpu()`
                // reports AVX2, which it does only where the CPU has it.
                unsafe { self.fill_words_avx2(words) }
            }
            kernel => self.fill_words_with(kernel, words),
        }
    }

    #[inline(always)]
    fn next_heap(&mut self) -> Result<Option<Heap<'a>>, ParseError> {
        let start = skip_space(self.data, self.pos);
        if start == self.data.len() {
            self.pos = start;
            return Ok(None);
        }
        if let Some((end, value)) = swar_short_token(self.data, start) {
            // The byte at `end` is whitespace: the next token starts later.
            self.pos = end + 1;
            return Ok(Some(Heap {
                offset: self.base + start as u64,
                value: HeapValue::Word(value),
            }));
        }
        let end = scan_digits(
            self.data,
            start,
            self.base,
            Digits::Decimal,
            "a decimal digit (0-9) or whitespace",
            self.pages,
        )?;
        self.pos = end;
        Ok(Some(Heap {
            offset: self.base + start as u64,
            value: decimal_value(strip_leading_zeros(&self.data[start..end])),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;

    use crate::arch::token_end::tests::Rng;

    const EXPECTED: &str = "a decimal digit (0-9) or whitespace";

    /// A token of `len` digits, with a random number of leading zeros.
    fn random_token(rng: &mut Rng, len: usize) -> Vec<u8> {
        let zeros = if rng.below(2) == 0 {
            0
        } else {
            rng.below(len + 1)
        };
        (0..len)
            .map(|i| {
                if i < zeros {
                    b'0'
                } else {
                    b'0' + rng.below(10) as u8
                }
            })
            .collect()
    }

    /// The heap the token at `start` must give, or its error, found one
    /// byte at a time, with the value from num-bigint: a word when it has
    /// at most 38 significant digits, limbs otherwise.
    fn reference(
        data: &[u8],
        start: usize,
        base: u64,
    ) -> Result<(usize, HeapValue<'static>), ParseError> {
        let mut end = start;
        while let Some(&byte) = data.get(end) {
            if byte.is_ascii_digit() {
                end += 1;
            } else if matches!(byte, b' ' | b'\t' | b'\n' | b'\r') {
                break;
            } else {
                return Err(ParseError::unexpected(base + end as u64, byte, EXPECTED));
            }
        }
        let digits = &data[start..end];
        let big = BigUint::parse_bytes(digits, 10).expect("a digit string");
        let significant = digits.iter().skip_while(|&&d| d == b'0').count();
        let value = if significant <= WORD_DIGITS {
            let limbs = big.to_u64_digits();
            let limb = |i: usize| u128::from(limbs.get(i).copied().unwrap_or(0));
            HeapValue::Word(limb(0) | limb(1) << 64)
        } else {
            HeapValue::Limbs(big.to_u64_digits())
        };
        Ok((end, value))
    }

    /// Checks the fast path and the scanner on the token at `start`
    /// against [`reference`]: the fast path must take every valid token of
    /// at most 38 digits whose words lie in `data`, refuse every bad one,
    /// and agree with the reference on what it takes; the scanner must
    /// give the reference's heap or error, byte for byte.
    fn check(data: &[u8], start: usize, what: &str) {
        let base = 1000;
        let expected = reference(data, start, base);
        let found = swar_short_token(data, start);
        match &expected {
            Ok((end, value)) => {
                let len = end - start;
                let in_reach = len <= WORD_DIGITS && data.len() >= start + 8 * (len / 8 + 1);
                match found {
                    Some((fast_end, word)) => assert_eq!(
                        (fast_end, HeapValue::Word(word)),
                        (*end, value.clone()),
                        "fast path: {what}"
                    ),
                    None => assert!(!in_reach, "fast path left a short token: {what}"),
                }
            }
            Err(_) => assert_eq!(found, None, "fast path took a bad token: {what}"),
        }
        let mut scanner = DecScanner {
            pos: start,
            ..DecScanner::new(data, base)
        };
        let heap = scanner.next_heap().map(|heap| {
            let heap = heap.expect("a token");
            (heap.offset, heap.value)
        });
        let want = expected
            .clone()
            .map(|(_, value)| (base + start as u64, value));
        assert_eq!(heap, want, "scanner: {what}");
        if let Ok((end, _)) = expected {
            assert!(
                scanner.pos == end || scanner.pos == end + 1,
                "scanner end: {what}"
            );
        }
    }

    #[test]
    fn random_tokens_match_the_reference_at_every_alignment() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for len in 1..=60 {
            for align in 0..32 {
                for _ in 0..4 {
                    let mut data: Vec<u8> =
                        (0..align).map(|_| rng.pick(b" \t\n\r0123456789")).collect();
                    data.push(b' ');
                    let start = data.len();
                    data.extend(random_token(&mut rng, len));
                    let tail = rng.below(48);
                    data.push(rng.pick(b" \t\n\r"));
                    data.extend((0..tail).map(|_| rng.pick(b" \n0123456789x")));
                    check(
                        &data,
                        start,
                        &format!("{:?}", String::from_utf8_lossy(&data[start..])),
                    );
                    let token_only = start + len;
                    check(
                        &data[..token_only],
                        start,
                        &format!("{len} digits at the end"),
                    );
                }
            }
        }
    }

    /// Every heap of `data`, or the error that ends them, read token by
    /// token with [`reference`].
    fn reference_heaps(
        data: &[u8],
        base: u64,
    ) -> (Vec<(u64, HeapValue<'static>)>, Option<ParseError>) {
        let mut heaps = Vec::new();
        let mut pos = 0;
        loop {
            while data
                .get(pos)
                .is_some_and(|&b| matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
            {
                pos += 1;
            }
            if pos == data.len() {
                return (heaps, None);
            }
            match reference(data, pos, base) {
                Ok((end, value)) => {
                    heaps.push((base + pos as u64, HeapValue::Limbs(value.to_limbs())));
                    pos = end;
                }
                Err(error) => return (heaps, Some(error)),
            }
        }
    }

    /// Checks both loops of the scanner over the whole of `data` against
    /// [`reference_heaps`].
    fn check_all(data: &[u8], what: &str) {
        let base = 77;
        let expected = reference_heaps(data, base);
        let mut heaps = Vec::new();
        let error = DecScanner::new(data, base)
            .each_heap(None, |heap| {
                heaps.push((heap.offset, HeapValue::Limbs(heap.value.to_limbs())));
                Ok::<(), ParseError>(())
            })
            .err();
        assert_eq!((heaps, error), expected, "each_heap: {what}");
        let mut scanner = DecScanner::new(data, base);
        let mut heaps = Vec::new();
        let error = loop {
            match scanner.next_heap() {
                Ok(Some(heap)) => {
                    heaps.push((heap.offset, HeapValue::Limbs(heap.value.to_limbs())))
                }
                Ok(None) => break None,
                Err(error) => break Some(error),
            }
        };
        assert_eq!((heaps, error), expected, "next_heap: {what}");
        for kernel in kernels() {
            let found = in_blocks(DecScanner::new(data, base), kernel);
            assert_eq!(found, expected, "blocks, {kernel:?}: {what}");
        }
    }

    /// Every build of the block kernels this CPU has.
    fn kernels() -> Vec<DecKernel> {
        let mut kernels = vec![DecKernel::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            kernels.push(DecKernel::Sse2);
            if crate::arch::Cpu::detected().avx2 {
                kernels.push(DecKernel::Avx2);
            }
        }
        kernels
    }

    /// The heaps of `scanner` as the driver reads them from a scanner that
    /// fills blocks: blocks, and one heap after each that is not full.
    fn in_blocks(
        mut scanner: DecScanner<'_>,
        kernel: DecKernel,
    ) -> (Vec<(u64, HeapValue<'static>)>, Option<ParseError>) {
        let (mut heaps, mut words) = (Vec::new(), WordBuffer::default());
        loop {
            scanner.fill_words_with(kernel, &mut words);
            let block = words.block(0);
            for i in 0..block.len() {
                let value = HeapValue::Limbs(block.heap(i).value.to_limbs());
                heaps.push((block.offsets[i], value));
            }
            let full = words.is_full();
            words.clear();
            if full {
                continue;
            }
            match scanner.next_heap() {
                Ok(Some(heap)) => {
                    heaps.push((heap.offset, HeapValue::Limbs(heap.value.to_limbs())))
                }
                Ok(None) => return (heaps, None),
                Err(error) => return (heaps, Some(error)),
            }
        }
    }

    /// A text of random tokens of 1 to 45 digits (40 at most when
    /// `short`) between runs of random whitespace.
    fn random_text(rng: &mut Rng, tokens: usize, short: bool) -> Vec<u8> {
        let mut data = Vec::new();
        for _ in 0..tokens {
            let longest_run = if rng.below(4) == 0 { 70 } else { 2 };
            let run = 1 + rng.below(longest_run);
            data.extend((0..run).map(|_| rng.pick(b" \t\n\r")));
            let longest = if short { 40 } else { 45 };
            let len = 1 + rng.below(longest);
            data.extend(random_token(rng, len));
        }
        data
    }

    #[test]
    fn long_random_texts_give_the_reference_heaps_in_both_loops() {
        let mut rng = Rng(0x6a09_e667_f3bc_c908);
        for round in 0..200 {
            let data = random_text(&mut rng, 300, round % 2 == 0);
            for cut in [0, 1, 31, 63, 64, 65] {
                check_all(
                    &data[cut.min(data.len())..],
                    &format!("round {round} from {cut}"),
                );
            }
        }
    }

    #[test]
    fn a_bad_byte_anywhere_in_a_text_gives_the_reference_error() {
        let mut rng = Rng(0xbb67_ae85_84ca_a73b);
        let bad = b"/:;?@a.+-\x00\x0b\x0c\x7f\x80\xb0\xb9\xff";
        let data = random_text(&mut rng, 40, true);
        for at in 0..data.len() {
            let mut text = data.clone();
            text[at] = rng.pick(bad);
            check_all(&text, &format!("bad byte at {at}"));
        }
    }

    #[test]
    fn bad_bytes_at_every_position_give_the_reference_error() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let bad = b"/:;?@a.+-\x00\x0b\x0c\x7f\x80\xb0\xb9\xff";
        for len in 1..=60 {
            for at in 0..=len {
                for align in 0..32 {
                    let mut data = vec![b'\n'; align];
                    let start = data.len();
                    data.extend(random_token(&mut rng, len));
                    data.push(b'\n');
                    data.extend(random_token(&mut rng, 40));
                    data[start + at] = rng.pick(bad);
                    check(&data, start, &format!("{len} digits, bad byte at {at}"));
                }
            }
        }
    }

    #[test]
    fn the_longest_words_and_the_shortest_limbs() {
        for text in [
            "0",
            "18446744073709551615",
            "18446744073709551616",
            "9999999999999999999999999999999",
            "99999999999999999999999999999999999999",
            "0000099999999999999999999999999999999999999",
            "100000000000000000000000000000000000000",
            "340282366920938463463374607431768211455",
            "340282366920938463463374607431768211456",
            "123456789012345678901234567890123456789012345",
        ] {
            let mut data = text.as_bytes().to_vec();
            data.extend_from_slice(&[b'\n'; 40]);
            check(&data, 0, text);
        }
    }

    #[test]
    fn short_and_long_tokens_have_the_same_limbs_as_num_bigint() {
        for text in [
            "0",
            "18446744073709551616",
            "340282366920938463463374607431768211455",
            "340282366920938463463374607431768211456",
            "123456789012345678901234567890123456789012345",
        ] {
            let value = decimal_value(strip_leading_zeros(text.as_bytes()));
            let expected = BigUint::parse_bytes(text.as_bytes(), 10).unwrap();
            assert_eq!(value.to_limbs(), expected.to_u64_digits(), "{text}");
        }
    }

    #[test]
    fn chunked_parsing_matches_a_digit_by_digit_fold() {
        let pattern = b"98765432109182736450";
        for len in 0..=WORD_DIGITS {
            for shift in 0..pattern.len() {
                let digits: Vec<u8> = pattern
                    .iter()
                    .cycle()
                    .skip(shift)
                    .take(len)
                    .copied()
                    .collect();
                let expected = digits
                    .iter()
                    .fold(0u128, |acc, &d| acc * 10 + u128::from(d - b'0'));
                assert_eq!(decimal_word(&digits), expected, "{len} {shift}");
            }
        }
        assert_eq!(decimal_word(&[b'9'; WORD_DIGITS]), 10u128.pow(38) - 1);
        assert_eq!(decimal_word(b"18446744073709551615"), u128::from(u64::MAX));
    }

    #[test]
    fn prefixes_of_a_word_are_read_whatever_follows_them() {
        for len in 0..8 {
            for after in [b' ', b'\n', b'\t', 0x00, b'/', 0xff] {
                let mut bytes = *b"98765432";
                bytes[len..].fill(after);
                let expected = bytes[..len]
                    .iter()
                    .fold(0, |acc, &d| acc * 10 + u64::from(d - b'0'));
                assert_eq!(
                    parse_prefix(u64::from_le_bytes(bytes), len),
                    expected,
                    "{len} {after:#04x}"
                );
            }
        }
    }

    #[test]
    fn bad_bytes_and_offsets() {
        let mut scanner = DecScanner::new(b" 12 3a", 100);
        assert_eq!(scanner.next_heap().unwrap().unwrap().offset, 101);
        assert_eq!(scanner.next_heap().unwrap_err().offset, 105);
    }
}
