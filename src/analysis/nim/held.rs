//! Nim over heaps held in memory as digits (a Python list of ints, read
//! where it lies): [`analyze_held`]. Such heaps can be read twice at no
//! cost, so the analysis is two plain passes, with no counts kept for a
//! msb not yet known:
//!
//! 1. one XORs every heap into the nim-sum and surveys them;
//! 2. one more, only when the move is played on a holder of the nim-sum's
//!    msb, counts the holders and keeps the first.
//!
//! Neither pass repacks a heap. Digits of any width w XOR digit by digit
//! (bit i of a value is bit i mod w of its digit i div w), so the nim-sum
//! is built in the heaps' own digits and turned into limbs once, and a
//! heap's bit p is one digit's bit.
//!
//! Heaps are placed as the `nimb` encoding of the same heaps would place
//! them (`nimstream convert --to nimb`): a heap's offset is its record's
//! and the input's size the stream's, so the report of held heaps equals
//! the report of their `nimb` file, stats aside.

use super::moves::{small_move, XorMove};
use super::streamed_values::TopDownValue;
use crate::analysis::facts::{Facts, MoveFacts, Stats};
use crate::analysis::options::Options;
use crate::analysis::rules::{self, MoveFinder, Player, Rule};
use crate::analysis::survey::Survey;
use crate::error::Error;
use crate::games::Game;
use crate::input::format::NIMB_HEADER;
use crate::input::source::page_release::PageReleaser;
use crate::input::{HeapPos, HeapValue};
use crate::nimsum::highest_bit;
use crate::output::BitsFile;
use crate::workbench::encode::nimb_record_bytes;
use crate::working_memory::MemoryMeter;
use std::time::Instant;

/// Heaps held in memory as little-endian digits of
/// [`digit_bits`](HeldHeaps::digit_bits) bits each, one digit to a `u32`,
/// which the analysis may read more than once.
pub trait HeldHeaps {
    /// The error of reading the heaps (a Python exception), into which
    /// the analysis's own errors convert.
    type Error: From<Error>;

    /// Bits in a digit, 1 to 32 (CPython's ints have 30); every digit is
    /// below 2^`digit_bits`.
    fn digit_bits(&self) -> u32;

    /// Calls `visit` with every heap's digits, least significant first,
    /// heap after heap in order (high zero digits are allowed). Each call
    /// must visit the same heaps (an analysis that finds they changed
    /// fails with a usage error). `reads` says what `visit` reads of a
    /// heap, for a source that fetches heaps ahead of their visit.
    fn each(&mut self, reads: Reads, visit: impl FnMut(&[u32])) -> Result<(), Self::Error>;
}

/// What a pass over held heaps reads of each.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reads {
    /// Every digit (the nim-sum's pass).
    Digits,
    /// The number of digits, and at most one of them for most heaps (the
    /// holders' pass).
    Lengths,
}

/// Analyzes `heaps` as Nim under the rule of `options` (SPEC section 1);
/// the options' game must be Nim. The nim-sum is held whole, in as many
/// digits as the longest heap has. Returns the facts and the size of the
/// heaps' `nimb` encoding.
pub(crate) fn analyze_held<H: HeldHeaps>(
    heaps: &mut H,
    options: &Options,
) -> Result<(Facts, u64), H::Error> {
    if options.game != Game::Nim {
        return Err(Error::Usage(
            "heaps held in memory are analyzed as Nim only: read the others as a stream".into(),
        )
        .into());
    }
    let meter = MemoryMeter::start();
    let started = Instant::now();
    let digit_bits = heaps.digit_bits();
    assert!((1..=32).contains(&digit_bits), "digits of 1 to 32 bits");
    let mut sum = HeldSum::new(digit_bits, options.rule == Rule::Misere);
    heaps.each(Reads::Digits, |digits| sum.add(digits))?;
    let mut stats = Stats {
        passes: 1,
        bytes_scanned: sum.bytes_read,
        threads: 1,
        window_bits: u64::from(digit_bits) * sum.digits.len() as u64,
        ..Stats::default()
    };
    let g = limbs_of(&sum.digits, digit_bits);
    let facts = conclude(heaps, &sum, &g, options, &mut stats)?;
    let size = sum.next.offset;
    stats.working_memory_bytes = meter.peak_bytes();
    stats.seconds = started.elapsed().as_secs_f64();
    Ok((Facts { stats, ..facts }, size))
}

/// The first pass: the nim-sum in the heaps' digits, and the survey.
struct HeldSum {
    digit_bits: u32,
    /// The nim-sum, as many digits as the longest heap's (high zero
    /// digits included).
    digits: Vec<u32>,
    survey: Survey,
    /// Where the next heap is (index, and offset in the `nimb` encoding).
    next: HeapPos,
    /// The first heap ≥ 2 as limbs, kept under misère play (whose move
    /// may be on it).
    first_big: Option<Vec<u64>>,
    keep_first_big: bool,
    bytes_read: u64,
}

impl HeldSum {
    fn new(digit_bits: u32, keep_first_big: bool) -> HeldSum {
        HeldSum {
            digit_bits,
            digits: Vec::new(),
            survey: Survey::default(),
            next: HeapPos {
                index: 0,
                offset: NIMB_HEADER.len() as u64,
            },
            first_big: None,
            keep_first_big,
            bytes_read: 0,
        }
    }

    /// XORs one heap into the nim-sum and counts it. The digits are read
    /// from the lowest up, then the top one again for the bit length (in
    /// cache by then: read first, it is a miss the pass waits on).
    #[inline]
    fn add(&mut self, heap: &[u32]) {
        if heap.len() > self.digits.len() {
            self.digits.resize(heap.len(), 0);
        }
        for (sum, digit) in self.digits.iter_mut().zip(heap) {
            *sum ^= digit;
        }
        let (used, bits) = significant(heap, self.digit_bits);
        self.survey
            .record_length(self.next.index, self.next.offset, bits);
        if bits >= 2 && self.keep_first_big && self.first_big.is_none() {
            self.first_big = Some(limbs_of(&heap[..used], self.digit_bits));
        }
        self.bytes_read += 4 * heap.len() as u64;
        self.next = after(self.next, bits);
    }
}

/// The digits of `heap` up to its highest non-zero one, and its bit
/// length.
#[inline]
fn significant(heap: &[u32], digit_bits: u32) -> (usize, u64) {
    match heap.iter().rposition(|&digit| digit != 0) {
        Some(top) => {
            let bits =
                u64::from(digit_bits) * top as u64 + u64::from(32 - heap[top].leading_zeros());
            (top + 1, bits)
        }
        None => (0, 0),
    }
}

/// The place of the heap after one of `bits` bits at `pos`.
#[inline]
fn after(pos: HeapPos, bits: u64) -> HeapPos {
    HeapPos {
        index: pos.index + 1,
        offset: pos.offset + nimb_record_bytes(bits),
    }
}

/// A value's digits of `digit_bits` bits as little-endian 64-bit limbs,
/// without high zero limbs.
fn limbs_of(digits: &[u32], digit_bits: u32) -> Vec<u64> {
    let mut limbs = Vec::with_capacity((digits.len() * digit_bits as usize).div_ceil(64));
    let (mut pending, mut pending_bits) = (0u128, 0u32);
    for &digit in digits {
        pending |= u128::from(digit) << pending_bits;
        pending_bits += digit_bits;
        if pending_bits >= 64 {
            limbs.push(pending as u64);
            pending >>= 64;
            pending_bits -= 64;
        }
    }
    limbs.push(pending as u64);
    while limbs.last() == Some(&0) {
        limbs.pop();
    }
    limbs
}

/// From the first pass to the facts: the nim-sum `g` (limbs), the winner,
/// and the move as the rules choose it ([`rules::choose_move`]).
fn conclude<H: HeldHeaps>(
    heaps: &mut H,
    sum: &HeldSum,
    g: &[u64],
    options: &Options,
    stats: &mut Stats,
) -> Result<Facts, H::Error> {
    let counts = sum.survey.counts();
    let msb = highest_bit(0, g);
    let winner = rules::winner(options.rule, counts, msb.is_some());
    let file = options.nim_sum_out.as_deref().map(BitsFile::create);
    let capture = options.inline_bits.min(sum.survey.max_bit_length);
    let mut nim_sum = TopDownValue::new(capture, file.transpose()?);
    for (index, &limb) in g.iter().enumerate().rev() {
        nim_sum.push(index as u64, limb)?;
    }
    let nim_sum = Some(nim_sum.finish(options.inline_bits)?);
    let (winning_moves, winning_move) = match options.decide {
        true => (Some(0).filter(|_| winner == Player::Second), None),
        false => {
            // The holders are counted, and the move on the first built,
            // before the rules ask for it: the pass may fail as the heaps'
            // reads do, which the rules' finder cannot.
            let on_holder = msb.filter(|_| rules::moves_on_msb_holder(options.rule, counts, true));
            let xor_move = match on_holder {
                Some(msb) => Some(xor_move(heaps, sum, g, msb, options, stats)?),
                None => None,
            };
            let mut finder = HeldFinder {
                sum,
                xor_move,
                options,
            };
            let (count, found) = rules::choose_move(options.rule, counts, msb, &mut finder)?;
            (Some(count), found)
        }
    };
    Ok(Facts {
        survey: sum.survey.clone(),
        nim_sum,
        msb,
        winner,
        winning_moves,
        winning_move,
        game: None,
        misere: None,
        stats: Stats::default(),
    })
}

/// The second pass: how many heaps hold bit `msb` of the nim-sum `g`,
/// and the move x → x ⊕ g on the first of them.
fn xor_move<H: HeldHeaps>(
    heaps: &mut H,
    sum: &HeldSum,
    g: &[u64],
    msb: u64,
    options: &Options,
    stats: &mut Stats,
) -> Result<(u64, MoveFacts), H::Error> {
    let digit_bits = sum.digit_bits;
    let (digit, bit) = (
        (msb / u64::from(digit_bits)) as usize,
        msb % u64::from(digit_bits),
    );
    // Heaps are placed (their bit lengths read) only up to the first
    // holder; past it, a heap shorter than the msb's digit is passed over
    // by its length alone, its digits untouched.
    let mut pos = HeapPos {
        index: 0,
        offset: NIMB_HEADER.len() as u64,
    };
    let (mut heaps_seen, mut count, mut first) = (0u64, 0u64, None);
    heaps.each(Reads::Lengths, |heap| {
        heaps_seen += 1;
        if heap.get(digit).is_some_and(|&d| d >> bit & 1 == 1) {
            count += 1;
            first.get_or_insert_with(|| (pos, limbs_of(heap, digit_bits)));
        }
        if first.is_none() {
            pos = after(pos, significant(heap, digit_bits).1);
        }
    })?;
    stats.passes += 1;
    stats.bytes_scanned += 4 * heaps_seen;
    // A set bit of the nim-sum is set in some heap, unless the heaps were
    // changed between the passes (a Python signal handler may).
    let (pos, x) = match first {
        Some(first) if heaps_seen == sum.next.index => first,
        _ => return Err(Error::Usage("the heaps changed between the two passes".into()).into()),
    };
    let capture = options.inline_bits.min(sum.survey.max_bit_length);
    let above = g.len() as u64;
    let x = HeapValue::Limbs(x);
    let mut moving = XorMove::start(pos, x, PageReleaser::NONE, capture, options, above)?;
    moving.absorb(0, g)?;
    Ok((count, moving.finish(options.inline_bits)?))
}

/// How the rules find the move's heap among held heaps: the holder of the
/// msb from the second pass, the others from the first pass's survey.
struct HeldFinder<'a> {
    sum: &'a HeldSum,
    /// The holders of the msb and the move on the first, when the rules
    /// move there.
    xor_move: Option<(u64, MoveFacts)>,
    options: &'a Options,
}

impl MoveFinder for HeldFinder<'_> {
    type Move = MoveFacts;

    fn on_msb_holder(&mut self, _msb: u64) -> Result<(u64, MoveFacts), Error> {
        Ok(self.xor_move.take().expect("the holders were counted"))
    }

    fn on_first_big(&mut self, target: u64) -> Result<MoveFacts, Error> {
        let pos = self.sum.survey.first_big.expect("one heap is big");
        let x = self.sum.first_big.clone().expect("kept under misère play");
        small_move(
            pos,
            &HeapValue::Limbs(x),
            PageReleaser::NONE,
            target,
            self.options,
        )
    }

    fn on_first_one(&mut self) -> Result<MoveFacts, Error> {
        let pos = self.sum.survey.first_one.expect("some heap is 1");
        small_move(
            pos,
            &HeapValue::Word(1),
            PageReleaser::NONE,
            0,
            self.options,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Report;
    use crate::workbench::encode::{write_header, write_heap};
    use crate::Format;
    use proptest::prelude::*;

    /// Heaps as digits of `digit_bits` bits, in a `Vec` (the tests' list).
    struct Digits {
        digit_bits: u32,
        heaps: Vec<Vec<u32>>,
    }

    impl HeldHeaps for Digits {
        type Error = Error;
        fn digit_bits(&self) -> u32 {
            self.digit_bits
        }
        fn each(&mut self, _: Reads, mut visit: impl FnMut(&[u32])) -> Result<(), Error> {
            self.heaps.iter().for_each(|heap| visit(heap));
            Ok(())
        }
    }

    /// `limbs` as digits of `digit_bits` bits, with `padding` high zero
    /// digits.
    fn digits_of(limbs: &[u64], digit_bits: u32, padding: usize) -> Vec<u32> {
        let bits = 64 * limbs.len();
        let mut digits: Vec<u32> = (0..bits.div_ceil(digit_bits as usize))
            .map(|i| {
                (0..digit_bits as usize)
                    .map(|j| i * digit_bits as usize + j)
                    .filter(|&bit| bit < bits && limbs[bit / 64] >> (bit % 64) & 1 == 1)
                    .fold(0, |digit, bit| digit | 1 << (bit % digit_bits as usize))
            })
            .collect();
        while digits.last() == Some(&0) {
            digits.pop();
        }
        digits.extend(std::iter::repeat_n(0, padding));
        digits
    }

    /// The report of the heaps' `nimb` file, stats aside.
    fn of_nimb(heaps: &[Vec<u64>], options: &Options) -> String {
        let mut nimb = Vec::new();
        write_header(Format::Nimb, &mut nimb).unwrap();
        for heap in heaps {
            write_heap(Format::Nimb, &heap[..], &mut nimb).unwrap();
        }
        let report = crate::analyze_bytes(&nimb, Format::Nimb, "heaps", options).unwrap();
        without_stats(report)
    }

    fn without_stats(report: Report) -> String {
        let json = report.to_json();
        json[..json.find(r#","stats""#).unwrap()].to_string()
    }

    /// Heaps of 0 to 300 bits, many 0s, 1s and short ones (the misère
    /// cases), as limbs.
    fn heaps() -> impl Strategy<Value = Vec<Vec<u64>>> {
        let heap = prop_oneof![
            Just(vec![0u64]),
            Just(vec![1u64]),
            (0u64..16).prop_map(|x| vec![x]),
            proptest::collection::vec(any::<u64>(), 1..6),
        ];
        proptest::collection::vec(heap, 0..40)
    }

    proptest! {
        #[test]
        fn held_heaps_report_as_their_nimb_file(
            heaps in heaps(),
            digit_bits in prop_oneof![Just(30u32), Just(15), Just(32), 1u32..33],
            padding in 0usize..3,
            misere in any::<bool>(),
            decide in any::<bool>(),
            inline_bits in prop_oneof![Just(4096u64), 0u64..200],
        ) {
            let options = Options {
                rule: if misere { Rule::Misere } else { Rule::Normal },
                decide,
                inline_bits,
                ..Options::default()
            };
            let mut held = Digits {
                digit_bits,
                heaps: heaps.iter().map(|h| digits_of(h, digit_bits, padding)).collect(),
            };
            let report = crate::analyze_held(&mut held, "heaps", &options).unwrap();
            prop_assert_eq!(without_stats(report), of_nimb(&heaps, &options));
        }
    }

    #[test]
    fn the_nim_sum_and_the_move_go_to_their_files() {
        let dir = std::env::temp_dir().join(format!("nimstream-held-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let heaps = [vec![5u64, 1], vec![3], vec![u64::MAX, 7]];
        let read = |options: &Options| {
            let report = of_nimb(&heaps, options);
            let files = [&options.nim_sum_out, &options.move_out]
                .map(|path| std::fs::read(path.as_ref().unwrap()).unwrap());
            (report, files)
        };
        let options = |tag: &str| Options {
            nim_sum_out: Some(dir.join(format!("{tag}-sum.bits"))),
            move_out: Some(dir.join(format!("{tag}-move.bits"))),
            ..Options::default()
        };
        let mut held = Digits {
            digit_bits: 30,
            heaps: heaps.iter().map(|h| digits_of(h, 30, 0)).collect(),
        };
        let report =
            without_stats(crate::analyze_held(&mut held, "heaps", &options("held")).unwrap());
        let files = [&options("held").nim_sum_out, &options("held").move_out]
            .map(|path| std::fs::read(path.as_ref().unwrap()).unwrap());
        assert_eq!((report, files), read(&options("nimb")));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Heaps that lose their last one after the first pass.
    struct Shrinking(Vec<Vec<u32>>);

    impl HeldHeaps for Shrinking {
        type Error = Error;
        fn digit_bits(&self) -> u32 {
            30
        }
        fn each(&mut self, _: Reads, mut visit: impl FnMut(&[u32])) -> Result<(), Error> {
            self.0.iter().for_each(|heap| visit(heap));
            self.0.pop();
            Ok(())
        }
    }

    #[test]
    fn heaps_changed_between_the_passes_are_an_error_not_an_answer() {
        let mut held = Shrinking(vec![vec![1], vec![4], vec![6]]);
        let changed = crate::analyze_held(&mut held, "heaps", &Options::default()).unwrap_err();
        assert!(
            changed
                .to_string()
                .contains("changed between the two passes"),
            "{changed}"
        );
    }

    #[test]
    fn other_games_are_refused() {
        let options = Options {
            game: "kayles".parse().unwrap(),
            ..Options::default()
        };
        let mut held = Digits {
            digit_bits: 30,
            heaps: vec![vec![3]],
        };
        let refused = crate::analyze_held(&mut held, "heaps", &options).unwrap_err();
        assert!(matches!(refused, Error::Usage(_)), "{refused}");
    }
}
