//! The analyzer against a num-bigint reference: random instances, encoded
//! in every format with random layouts, analyzed under both rules and every
//! window budget, from a slice (several passes) and from a reader (one
//! pass, with reads that cross chunk boundaries). Every result must equal
//! the reference, apart from `stats`.

use nimstream::{
    analyze_bytes, analyze_path, analyze_reader, Error, Format, MemoryBudget, Options, Rule,
};
use num_bigint::BigUint;
use num_traits::{One, Zero};
use proptest::collection::vec;
use proptest::prelude::*;
use serde_json::{json, Value as Json};
use std::io::{Cursor, Read};

/// Budgets that put window boundaries at 512, 576, 1024 and 64 bits, and
/// one that holds every heap at once.
const BUDGETS: [MemoryBudget; 5] = [
    MemoryBudget::Bytes(64),
    MemoryBudget::Bytes(72),
    MemoryBudget::Bytes(128),
    MemoryBudget::Bytes(1 << 30),
    MemoryBudget::Log,
];

/// The window of `analyze_reader` under `--memory log`, in bits.
const STREAM_LOG_WINDOW_BITS: u64 = 4096;

// ---------------------------------------------------------------------------
// The reference: SPEC section 1, on whole numbers.

/// A value as the JSON report writes it.
fn value_json(value: &BigUint, inline_bits: u64) -> Json {
    let bits = value.bits();
    if bits > inline_bits {
        json!({"bit_length": bits, "hex": null, "dec": null})
    } else {
        json!({
            "bit_length": bits,
            "hex": value.to_str_radix(16),
            "dec": value.to_str_radix(10),
        })
    }
}

/// Where each heap starts in an encoding: byte offset, and line for text.
#[derive(Clone, Debug)]
struct Encoded {
    bytes: Vec<u8>,
    offsets: Vec<u64>,
    lines: Vec<Option<u64>>,
}

/// The winning move of SPEC section 1: (heap index, target), and the
/// number of heaps that admit a winning move.
fn reference_move(heaps: &[BigUint], rule: Rule, g: &BigUint) -> (u64, Option<(usize, BigUint)>) {
    let ones = heaps.iter().filter(|x| x.is_one()).count() as u64;
    let bigs: Vec<usize> = (0..heaps.len()).filter(|&i| heaps[i].bits() >= 2).collect();
    let xor_move = || {
        if g.is_zero() {
            return (0, None);
        }
        let msb = g.bits() - 1;
        let holders: Vec<usize> = (0..heaps.len()).filter(|&i| heaps[i].bit(msb)).collect();
        let first = holders[0];
        (holders.len() as u64, Some((first, &heaps[first] ^ g)))
    };
    match (rule, bigs.len()) {
        (Rule::Normal, _) | (Rule::Misere, 2..) => xor_move(),
        (Rule::Misere, 1) => {
            // The OTHER heaps equal to 1: the big heap is not one of them.
            let target = if ones.is_multiple_of(2) { 1u32 } else { 0 };
            (1, Some((bigs[0], BigUint::from(target))))
        }
        (Rule::Misere, _) if ones > 0 && ones.is_multiple_of(2) => {
            let first_one = heaps.iter().position(|x| x.is_one()).unwrap();
            (ones, Some((first_one, BigUint::zero())))
        }
        (Rule::Misere, _) => (0, None),
    }
}

/// The whole JSON report expected, except `input` and `stats`.
fn reference(heaps: &[BigUint], rule: Rule, inline_bits: u64, encoded: &Encoded) -> Json {
    let g = heaps.iter().fold(BigUint::zero(), |acc, x| acc ^ x);
    let ones = heaps.iter().filter(|x| x.is_one()).count() as u64;
    let big = heaps.iter().filter(|x| x.bits() >= 2).count() as u64;
    let first_wins = match rule {
        Rule::Misere if big == 0 => ones.is_multiple_of(2),
        _ => !g.is_zero(),
    };
    let (winning_moves, chosen) = reference_move(heaps, rule, &g);
    assert_eq!(
        first_wins,
        chosen.is_some() || (big == 0 && ones == 0 && rule == Rule::Misere)
    );
    let the_move = match chosen {
        None => Json::Null,
        Some((i, target)) => json!({
            "heap": i,
            "offset": encoded.offsets[i],
            "line": encoded.lines[i],
            "from": value_json(&heaps[i], inline_bits),
            "to": value_json(&target, inline_bits),
            "remove": value_json(&(&heaps[i] - &target), inline_bits),
        }),
    };
    json!({
        "schema": 1,
        "rule": match rule { Rule::Normal => "normal", Rule::Misere => "misere" },
        "game": "nim",
        "heaps": heaps.len(),
        "nonzero_heaps": heaps.iter().filter(|x| !x.is_zero()).count(),
        "ones": ones,
        "big": big,
        "max_bit_length": heaps.iter().map(BigUint::bits).max().unwrap_or(0),
        "nim_sum": value_json(&g, inline_bits),
        "msb": if g.is_zero() { Json::Null } else { json!(g.bits() - 1) },
        "winner": if first_wins { "first" } else { "second" },
        "winning_moves": winning_moves,
        "move": the_move,
    })
}

/// The report as JSON, `input` and `stats` split off and checked.
fn facts(report: &nimstream::Report, name: &str, format: Format, bytes: usize) -> Json {
    let mut value: Json = serde_json::from_str(&report.to_json()).unwrap();
    let object = value.as_object_mut().unwrap();
    let stats = object.remove("stats").expect("stats are always present");
    for field in [
        "passes",
        "bytes_scanned",
        "working_memory_bytes",
        "threads",
        "seconds",
    ] {
        assert!(stats.get(field).is_some(), "stats.{field} missing");
    }
    let input = object.remove("input").expect("input is always present");
    assert_eq!(
        input,
        json!({"path": name, "format": format.name(), "bytes": bytes})
    );
    value
}

// ---------------------------------------------------------------------------
// Encodings with random layouts.

/// A small deterministic generator for layout choices (splitmix64).
struct Layout(u64);

impl Layout {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }

    /// One or more whitespace bytes of the token formats.
    fn separator(&mut self) -> Vec<u8> {
        let len = 1 + self.below(3) as usize;
        (0..len)
            .map(|_| b" \t\r\n"[self.below(4) as usize])
            .collect()
    }
}

/// Collects bytes and the start of each heap.
#[derive(Default)]
struct Writer {
    bytes: Vec<u8>,
    offsets: Vec<u64>,
    lines: Vec<Option<u64>>,
    line: u64,
}

impl Writer {
    fn text() -> Writer {
        Writer {
            line: 1,
            ..Writer::default()
        }
    }

    fn put(&mut self, bytes: &[u8]) {
        self.line += bytes.iter().filter(|&&b| b == b'\n').count() as u64;
        self.bytes.extend_from_slice(bytes);
    }

    fn start_heap(&mut self, text: bool) {
        self.offsets.push(self.bytes.len() as u64);
        self.lines.push(text.then_some(self.line));
    }

    fn done(self) -> Encoded {
        Encoded {
            bytes: self.bytes,
            offsets: self.offsets,
            lines: self.lines,
        }
    }
}

/// A token format: random separators, leading and trailing whitespace.
fn encode_tokens(
    heaps: &[BigUint],
    layout: &mut Layout,
    mut token: impl FnMut(&BigUint, &mut Layout) -> Vec<u8>,
) -> Encoded {
    let mut out = Writer::text();
    if layout.chance(2) {
        let lead = layout.separator();
        out.put(&lead);
    }
    for (i, heap) in heaps.iter().enumerate() {
        if i > 0 {
            let separator = layout.separator();
            out.put(&separator);
        }
        out.start_heap(true);
        let text = token(heap, layout);
        out.put(&text);
    }
    if layout.chance(2) {
        let trail = layout.separator();
        out.put(&trail);
    }
    out.done()
}

fn leading_zeros(layout: &mut Layout) -> Vec<u8> {
    vec![
        b'0';
        if layout.chance(3) {
            1 + layout.below(3) as usize
        } else {
            0
        }
    ]
}

fn encode_bits(heaps: &[BigUint], layout: &mut Layout) -> Encoded {
    encode_tokens(heaps, layout, |x, layout| {
        let mut text = leading_zeros(layout);
        text.extend_from_slice(x.to_str_radix(2).as_bytes());
        text
    })
}

/// Hex tokens, a third with a `0x` or `0X` prefix; one in 96 in an
/// instance of over a thousand heaps, so that the blocks (which leave a
/// prefixed token to the general path) read most of it.
fn encode_hex(heaps: &[BigUint], layout: &mut Layout) -> Encoded {
    let prefixes = if heaps.len() > 1000 { 96 } else { 3 };
    encode_tokens(heaps, layout, |x, layout| {
        let mut text = match layout.below(prefixes) {
            0 => b"0x".to_vec(),
            1 => b"0X".to_vec(),
            _ => Vec::new(),
        };
        text.extend(leading_zeros(layout));
        let upper = layout.below(3);
        for digit in x.to_str_radix(16).bytes() {
            let up = upper == 0 || (upper == 1 && layout.chance(2));
            text.push(if up {
                digit.to_ascii_uppercase()
            } else {
                digit
            });
        }
        text
    })
}

fn encode_dec(heaps: &[BigUint], layout: &mut Layout) -> Encoded {
    encode_tokens(heaps, layout, |x, layout| {
        let mut text = leading_zeros(layout);
        text.extend_from_slice(x.to_str_radix(10).as_bytes());
        text
    })
}

/// Lines of `1`s ending in LF or CRLF; a non-empty last line may lack it.
fn encode_unary(heaps: &[BigUint], layout: &mut Layout) -> Encoded {
    let mut out = Writer::text();
    let crlf = layout.below(3);
    for (i, heap) in heaps.iter().enumerate() {
        out.start_heap(true);
        let count = usize::try_from(heap).unwrap();
        out.put(&vec![b'1'; count]);
        let last = i + 1 == heaps.len();
        if last && count > 0 && layout.chance(2) {
            break;
        }
        let cr = crlf == 0 || (crlf == 1 && layout.chance(2));
        out.put(if cr { b"\r\n" } else { b"\n" });
    }
    out.done()
}

fn encode_raw(heaps: &[BigUint], width: usize) -> Encoded {
    let mut out = Writer::default();
    for heap in heaps {
        out.start_heap(false);
        let mut bytes = heap.to_bytes_le();
        assert!(bytes.len() <= width || heap.is_zero());
        bytes.resize(width, 0);
        out.put(&bytes);
    }
    out.done()
}

/// LEB128 of `n`, padded with `extra` redundant continuation bytes.
fn leb128(mut n: u64, extra: usize) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let low = (n & 0x7f) as u8;
        n >>= 7;
        if n == 0 {
            out.push(low);
            break;
        }
        out.push(low | 0x80);
    }
    let extra = extra.min(10 - out.len());
    if extra > 0 {
        *out.last_mut().unwrap() |= 0x80;
        out.resize(out.len() + extra - 1, 0x80);
        out.push(0);
    }
    out
}

fn encode_nimb(heaps: &[BigUint], layout: &mut Layout) -> Encoded {
    let mut out = Writer::default();
    out.put(b"NIMB\x01\x00\x00\x00");
    for heap in heaps {
        out.start_heap(false);
        let mut bytes = if heap.is_zero() && layout.chance(2) {
            Vec::new()
        } else {
            heap.to_bytes_le()
        };
        if layout.chance(3) {
            bytes.resize(bytes.len() + 1 + layout.below(4) as usize, 0);
        }
        let extra = if layout.chance(3) {
            1 + layout.below(9) as usize
        } else {
            0
        };
        out.put(&leb128(bytes.len() as u64, extra));
        out.put(&bytes);
    }
    out.done()
}

/// The encoding of `heaps` in `format`, or `None` when the format cannot
/// hold them (raw widths) or would be too large (unary).
fn encode(format: Format, heaps: &[BigUint], layout: &mut Layout) -> Option<Encoded> {
    let max_bits = heaps.iter().map(BigUint::bits).max().unwrap_or(0);
    Some(match format {
        Format::Bits => encode_bits(heaps, layout),
        Format::Hex => encode_hex(heaps, layout),
        Format::Dec => encode_dec(heaps, layout),
        Format::Unary if heaps.iter().all(|x| x.bits() <= 8) => encode_unary(heaps, layout),
        Format::Unary => return None,
        Format::Nimb => encode_nimb(heaps, layout),
        raw => {
            let width = raw_width(raw);
            if max_bits > 8 * width as u64 {
                return None;
            }
            encode_raw(heaps, width)
        }
    })
}

fn raw_width(format: Format) -> usize {
    match format {
        Format::U8 => 1,
        Format::U16le => 2,
        Format::U32le => 4,
        Format::U64le => 8,
        other => panic!("{other} is not a raw array"),
    }
}

// ---------------------------------------------------------------------------
// Readers.

/// Returns 1 to 7 bytes per call, so reads end anywhere.
struct Trickle<'a> {
    data: &'a [u8],
    pos: usize,
    step: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.step = self.step % 7 + 1;
        let n = self.step.min(buf.len()).min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

// ---------------------------------------------------------------------------
// Random instances.

/// A value of exactly `bits` bits (bits ≥ 1) from random words.
fn exact_length(bits: u64, words: &[u32]) -> BigUint {
    let mask = (BigUint::one() << bits) - 1u32;
    (BigUint::new(words.to_vec()) & mask) | (BigUint::one() << (bits - 1))
}

fn value_of_length(lengths: impl Strategy<Value = u64>) -> impl Strategy<Value = BigUint> {
    lengths.prop_flat_map(|bits| {
        vec(any::<u32>(), bits.div_ceil(32) as usize)
            .prop_map(move |words| exact_length(bits, &words))
    })
}

/// Bit lengths right at limb and window edges (64, 512, 576, 1024 bits …).
const EDGE_LENGTHS: [u64; 14] = [
    63, 64, 65, 127, 128, 129, 511, 512, 513, 575, 576, 577, 1024, 1025,
];

fn heap() -> impl Strategy<Value = BigUint> {
    prop_oneof![
        3 => Just(BigUint::zero()),
        3 => Just(BigUint::one()),
        3 => (2u64..16).prop_map(BigUint::from),
        2 => (16u64..70_000).prop_map(BigUint::from),
        2 => any::<u64>().prop_map(BigUint::from),
        2 => value_of_length(1u64..200),
        1 => value_of_length(proptest::sample::select(EDGE_LENGTHS.to_vec())),
        1 => value_of_length(200u64..1200),
        1 => value_of_length(1200u64..3000),
    ]
}

fn small_heap() -> impl Strategy<Value = BigUint> {
    prop_oneof![
        3 => Just(BigUint::zero()),
        3 => Just(BigUint::one()),
        2 => (2u64..256).prop_map(BigUint::from),
    ]
}

fn instance() -> impl Strategy<Value = Vec<BigUint>> {
    prop_oneof![
        // Anything.
        4 => vec(heap(), 0..40),
        // Only small values: unary and u8 can hold them.
        2 => vec(small_heap(), 0..40),
        // Equal pairs, shuffled: the nim-sum is 0.
        2 => vec(heap(), 0..20).prop_flat_map(|half| {
            let mut all = half.clone();
            all.extend(half);
            Just(all).prop_shuffle()
        }),
        // A balancing heap makes the nim-sum 0, or nearly (one flipped bit).
        1 => (vec(heap(), 0..39), any::<bool>()).prop_flat_map(|(mut heaps, flip)| {
            let g = heaps.iter().fold(BigUint::zero(), |acc, x| acc ^ x);
            heaps.push(if flip { g ^ BigUint::one() } else { g });
            Just(heaps).prop_shuffle()
        }),
        // Misère edges: 0s and 1s, and at most one big heap among them.
        3 => (
            vec(0u8..=1, 0..12),
            proptest::option::of(prop_oneof![
                (2u64..10).prop_map(BigUint::from),
                value_of_length(2u64..700),
            ]),
            any::<proptest::sample::Index>(),
        )
            .prop_map(|(small, big, at)| {
                let mut heaps: Vec<BigUint> = small.into_iter().map(BigUint::from).collect();
                if let Some(big) = big {
                    let at = at.index(heaps.len() + 1);
                    heaps.insert(at, big);
                }
                heaps
            }),
    ]
}

// ---------------------------------------------------------------------------
// The property.

fn options_for(rule: Rule, memory: MemoryBudget, inline_bits: u64) -> Options {
    Options {
        format: None,
        rule,
        memory,
        inline_bits,
        ..Options::default()
    }
}

fn describe_input(format: Format, encoded: &Encoded) -> String {
    let shown = if format.name().starts_with('u') || format == Format::Nimb {
        format!("{:02x?}", encoded.bytes)
    } else {
        String::from_utf8_lossy(&encoded.bytes).into_owned()
    };
    let cut: String = shown.chars().take(600).collect();
    format!("{format} input ({} bytes): {cut:?}", encoded.bytes.len())
}

/// With `--decide` the winner and counts are exact; anything else is null
/// or right.
fn check_decide(decided: &Json, expected: &Json, context: &str) {
    for (field, want) in expected.as_object().unwrap() {
        let got = &decided[field];
        let always = [
            "schema",
            "rule",
            "game",
            "winner",
            "heaps",
            "nonzero_heaps",
            "ones",
            "big",
            "max_bit_length",
        ];
        if always.contains(&field.as_str()) {
            assert_eq!(got, want, "--decide {field}; {context}");
        } else {
            assert!(
                decided.get(field).is_some(),
                "--decide drops {field}; {context}"
            );
            assert!(
                got.is_null() || got == want,
                "--decide {field}: {got} vs {want}; {context}"
            );
        }
    }
}

/// `--nim-sum-out` and `--move-out` under one budget: bits text.
fn check_output_files(encoded: &Encoded, format: Format, base: &Options, heaps: &[BigUint]) {
    let dir = tempfile::tempdir().unwrap();
    let nim_sum_path = dir.path().join("g.bits");
    let move_path = dir.path().join("move.bits");
    let options = Options {
        nim_sum_out: Some(nim_sum_path.clone()),
        move_out: Some(move_path.clone()),
        ..base.clone()
    };
    analyze_bytes(&encoded.bytes, format, "files", &options).unwrap();
    let g = heaps.iter().fold(BigUint::zero(), |acc, x| acc ^ x);
    let written = std::fs::read_to_string(&nim_sum_path).unwrap();
    assert_eq!(written, format!("{}\n", g.to_str_radix(2)), "--nim-sum-out");
    let (_, chosen) = reference_move(heaps, base.rule, &g);
    match chosen {
        None => assert!(!move_path.exists(), "a move file without a move"),
        Some((_, target)) => {
            let written = std::fs::read_to_string(&move_path).unwrap();
            assert_eq!(
                written,
                format!("{}\n", target.to_str_radix(2)),
                "--move-out"
            );
        }
    }
}

fn check_instance(heaps: &[BigUint], seed: u64, inline_bits: u64) {
    let mut layout = Layout(seed);
    let files_format = Format::ALL[layout.below(9) as usize];
    let files_budget = BUDGETS[layout.below(5) as usize];
    let max_bits = heaps.iter().map(BigUint::bits).max().unwrap_or(0);
    for format in Format::ALL {
        let Some(encoded) = encode(format, heaps, &mut layout) else {
            continue;
        };
        let input = describe_input(format, &encoded);
        let len = encoded.bytes.len();
        for rule in [Rule::Normal, Rule::Misere] {
            let expected = reference(heaps, rule, inline_bits, &encoded);
            for memory in BUDGETS {
                let context = format!("{rule} rule, --memory {memory}, {input}");
                let options = options_for(rule, memory, inline_bits);
                let report = analyze_bytes(&encoded.bytes, format, "case", &options)
                    .unwrap_or_else(|e| panic!("{e}; {context}"));
                let got = facts(&report, "case", format, len);
                assert_eq!(got, expected, "{context}");
            }

            for memory in [MemoryBudget::Bytes(1 << 30), MemoryBudget::Log] {
                if memory == MemoryBudget::Log && max_bits > STREAM_LOG_WINDOW_BITS {
                    continue;
                }
                let context = format!("stream, {rule} rule, --memory {memory}, {input}");
                let options = options_for(rule, memory, inline_bits);
                let mut cursor = Cursor::new(&encoded.bytes);
                let report = analyze_reader(&mut cursor, format, "-", &options)
                    .unwrap_or_else(|e| panic!("{e}; {context}"));
                assert_eq!(facts(&report, "-", format, len), expected, "{context}");
            }

            // Reads of 1 to 7 bytes, and the smallest window: 512 bits.
            let context = format!("trickled stream, {rule} rule, --memory 64, {input}");
            let options = options_for(rule, MemoryBudget::Bytes(64), inline_bits);
            let mut trickle = Trickle {
                data: &encoded.bytes,
                pos: 0,
                step: layout.below(7) as usize,
            };
            let result = analyze_reader(&mut trickle, format, "-", &options);
            match heaps.iter().position(|x| x.bits() > 512) {
                None => {
                    let report = result.unwrap_or_else(|e| panic!("{e}; {context}"));
                    assert_eq!(facts(&report, "-", format, len), expected, "{context}");
                }
                Some(first_long) => match result {
                    Err(Error::Input { path, offset, .. }) => {
                        assert_eq!(path, "<stdin>", "{context}");
                        assert_eq!(offset, encoded.offsets[first_long], "{context}");
                    }
                    other => panic!("expected a too-long-heap error, got {other:?}; {context}"),
                },
            }

            let memory = BUDGETS[layout.below(5) as usize];
            let decide = Options {
                decide: true,
                ..options_for(rule, memory, inline_bits)
            };
            let context = format!("--decide, {rule} rule, --memory {memory}, {input}");
            let report = analyze_bytes(&encoded.bytes, format, "case", &decide)
                .unwrap_or_else(|e| panic!("{e}; {context}"));
            check_decide(&facts(&report, "case", format, len), &expected, &context);

            if format == files_format {
                let base = options_for(rule, files_budget, inline_bits);
                check_output_files(&encoded, format, &base, heaps);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 48,
        max_shrink_iters: 200,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_format_rule_and_budget_agrees_with_num_bigint(
        heaps in instance(),
        seed in any::<u64>(),
        inline_bits in proptest::sample::select(vec![0u64, 1, 2, 63, 64, 65, 100, 700, 4096]),
    ) {
        check_instance(&heaps, seed, inline_bits);
    }
}

// ---------------------------------------------------------------------------
// Seed cases that must always run, whatever the random draw.

fn big(n: u64) -> BigUint {
    BigUint::from(n)
}

#[test]
fn the_seed_edge_cases_agree_with_the_reference() {
    let long = exact_length(1025, &[0x5555_5555; 33]);
    let cases: Vec<Vec<BigUint>> = vec![
        vec![],
        vec![big(0)],
        vec![big(0), big(0), big(0)],
        vec![big(1)],
        vec![big(1), big(1)],
        vec![big(1), big(1), big(1)],
        vec![big(0), big(1), big(0), big(1), big(0)],
        vec![big(0), big(0), big(1)],
        vec![big(1), big(1), big(0)],
        vec![big(5), big(0), big(1)],
        vec![big(0), big(5), big(0)],
        vec![big(1), big(0), big(7), big(1), big(0)],
        vec![big(3), big(4), big(5)],
        vec![big(2), big(2)],
        vec![long.clone(), long.clone()],
        vec![big(0), long.clone(), big(1), big(1)],
        vec![long.clone(), big(1) << 1024u32, big(3)],
        vec![(big(1) << 4096u32) - 1u32, big(1) << 4095u32],
        vec![big(u64::MAX), big(u64::MAX - 1), big(1)],
        // Misère single big heap that is a power of two, long or short.
        vec![big(1) << 600u32, big(1), big(1)],
        vec![big(0), big(1) << 600u32, big(1)],
        vec![big(1) << 64u32, big(0)],
        vec![big(1) << 128u32, big(1)],
        vec![big(2)],
        vec![big(3), big(1), big(0), big(1), big(1)],
    ];
    for (seed, heaps) in cases.iter().enumerate() {
        for inline_bits in [0, 1, 64, 4096] {
            check_instance(heaps, seed as u64, inline_bits);
        }
    }
}

#[test]
fn inputs_longer_than_a_stream_chunk_agree_with_the_reference() {
    let mut draw = Layout(2024);
    // Long heaps: every text encoding spans several 4 KiB chunks.
    let long: Vec<BigUint> = (0..30)
        .map(|_| {
            let bits = 1500 + draw.below(1500);
            let words: Vec<u32> = (0..bits.div_ceil(32)).map(|_| draw.next() as u32).collect();
            exact_length(bits, &words)
        })
        .collect();
    check_instance(&long, 1, 4096);
    // Thousands of small heaps: unary lines and raw elements cross chunks.
    let many: Vec<BigUint> = (0..3000).map(|_| big(draw.below(4))).collect();
    check_instance(&many, 2, 64);
    let mut ones = vec![big(1); 2999];
    ones.push(big(0));
    check_instance(&ones, 3, 64);
}

/// A value of `bits` bits (0 for none) from `draw`.
fn drawn(bits: u64, draw: &mut Layout) -> BigUint {
    match bits {
        0 => BigUint::zero(),
        _ => {
            let words: Vec<u32> = (0..bits.div_ceil(32)).map(|_| draw.next() as u32).collect();
            exact_length(bits, &words)
        }
    }
}

/// Checks `heaps` as [`check_instance`] does, and read from a file (the
/// one pass with positioned reads on two threads, and `--memory log`'s
/// passes through the map) in every text format.
fn check_files(heaps: &[BigUint], seed: u64) {
    let mut layout = Layout(seed);
    let dir = tempfile::tempdir().unwrap();
    for format in [Format::Bits, Format::Hex, Format::Dec, Format::Unary] {
        let Some(encoded) = encode(format, heaps, &mut layout) else {
            continue;
        };
        let path = dir.path().join(format!("short.{}", format.name()));
        std::fs::write(&path, &encoded.bytes).unwrap();
        let name = path.display().to_string();
        for rule in [Rule::Normal, Rule::Misere] {
            let expected = reference(heaps, rule, 64, &encoded);
            for memory in [MemoryBudget::default(), MemoryBudget::Log] {
                let options = Options {
                    threads: 2,
                    ..options_for(rule, memory, 64)
                };
                let context = format!("file, {rule} rule, --memory {memory}, {format}");
                let report =
                    analyze_path(&path, &options).unwrap_or_else(|e| panic!("{e}; {context}"));
                let got = facts(&report, &name, format, encoded.bytes.len());
                assert_eq!(got, expected, "{context}");
            }
        }
    }
}

#[test]
fn thousands_of_short_heaps_agree_with_the_reference() {
    // The text formats read heaps of up to 64 bits (20 digits) 64 bytes
    // at a time; a longer heap now and then goes to the general path.
    let mut draw = Layout(2030);
    let short: Vec<BigUint> = (0..2000)
        .map(|_| {
            let bits = match draw.below(50) {
                0 => 65 + draw.below(300),
                _ => draw.below(65),
            };
            drawn(bits, &mut draw)
        })
        .collect();
    check_instance(&short, 6, 64);
    check_files(&short, 6);
    // A heap too long for the blocks after every 64 short ones, but one
    // that does not run through a block: the runs shrink to twice what
    // they take, fill up now and then, and grow again.
    let cadenced: Vec<BigUint> = (0..3000)
        .map(|i| {
            let bits = match (i % 65, draw.below(5)) {
                (64, 0) => 200 + draw.below(200),
                (64, _) => 65 + draw.below(90),
                _ => draw.below(65),
            };
            drawn(bits, &mut draw)
        })
        .collect();
    check_instance(&cadenced, 8, 64);
    check_files(&cadenced, 8);
    // Unary lines of up to 255 ones, and short tokens too.
    let lines: Vec<BigUint> = (0..1500)
        .map(|_| {
            let bits = draw.below(9);
            drawn(bits, &mut draw)
        })
        .collect();
    check_instance(&lines, 7, 64);
    check_files(&lines, 7);
}

#[test]
fn the_reference_encoders_write_what_the_spec_describes() {
    assert_eq!(leb128(5, 0), vec![5]);
    assert_eq!(leb128(5, 2), vec![0x85, 0x80, 0x00]);
    assert_eq!(leb128(300, 0), vec![0xac, 0x02]);
    assert_eq!(leb128(1, 20).len(), 10);
    let heaps = [big(2), big(0), big(1)];
    let unary = encode_unary(&heaps, &mut Layout(7));
    assert!(unary.bytes.starts_with(b"11"));
    assert_eq!(unary.offsets[0], 0);
    assert_eq!(unary.lines, vec![Some(1), Some(2), Some(3)]);
}
