//! The report for people: aligned facts, small values in decimal and
//! binary, long ones by their first and last digits and bit length (the
//! JSON report holds them whole), and the move in words.

use super::{GameMove, Grundy, MisereMove, MisereQuotient, Move, Report, Value};
use crate::analysis::{Player, Rule};
use std::fmt::Write;

/// Values up to this many bits are also shown in binary.
const BINARY_SHOWN_BITS: u64 = 64;

/// Digits (decimal or hex) shown whole; a longer value is shown by its
/// ends, so that one report of a file of 4096-bit heaps is a screen, not
/// 5 KB of digits.
const DIGITS_SHOWN: usize = 40;

/// Digits shown at each end of a longer value.
const END_DIGITS: usize = 12;

/// Where a line sends the reader for an abbreviated value.
const WHOLE_IN_JSON: &str = "--json prints them whole";

/// Renders the report as aligned lines of text.
///
/// ```
/// use nimstream::{analyze_bytes, report::human, Format, Options};
///
/// let report = analyze_bytes(b"3 4 5\n", Format::Dec, "example", &Options::default())?;
/// let text = human::render(&report);
/// assert!(text.contains("\nmove           take 2 from heap 0 (line 1): 3 → 1\n"));
/// # Ok::<(), nimstream::Error>(())
/// ```
pub fn render(report: &Report) -> String {
    let mut lines: Vec<(&str, String)> = vec![
        ("input", input_line(report)),
        ("rule", rule_line(report.rule)),
    ];
    if let Some(grundy) = &report.grundy {
        lines.push(("game", game_line(&report.game, grundy)));
    }
    if let Some(quotient) = &report.quotient {
        lines.push(("game", quotient_line(&report.game, quotient)));
    }
    lines.push(("heaps", heaps_line(report)));
    lines.push(("longest heap", bits_phrase(report.max_bit_length)));
    match (report.grundy_sum, &report.product) {
        (Some(sum), _) => lines.push(("grundy sum", format!("{sum} = 0b{sum:b}"))),
        (None, Some(product)) => lines.push(("product", product.clone())),
        (None, None) => lines.push(("nim-sum", nim_sum_line(report))),
    }
    lines.push(("winner", winner_line(report)));
    if let Some(count) = report.winning_moves {
        lines.push(("winning moves", count.to_string()));
    }
    lines.push(("move", move_line(report)));
    lines.push(("stats", stats_line(report)));
    // One width for every report, so that the values line up the same
    // whichever lines a run prints (`--decide` drops "winning moves").
    let width = "winning moves".len();
    let mut out = String::new();
    for (label, text) in lines {
        let _ = writeln!(out, "{label:<width$}  {text}");
    }
    out
}

fn input_line(report: &Report) -> String {
    let input = &report.input;
    format!(
        "{} ({}, {})",
        input.path,
        input.format,
        bytes_phrase(input.bytes)
    )
}

fn rule_line(rule: Rule) -> String {
    match rule {
        Rule::Normal => "normal play (whoever cannot move loses)".into(),
        Rule::Misere => "misère play (whoever cannot move wins)".into(),
    }
}

/// "octal:0.77: values periodic from 71 with period 12 (154 computed)"
fn game_line(game: &str, grundy: &Grundy) -> String {
    match (grundy.preperiod, grundy.period) {
        (Some(p), Some(q)) => format!(
            "{game}: values periodic from {p} with period {q} ({} computed)",
            grundy.values_computed
        ),
        _ => format!(
            "{game}: no period proven within {} values",
            grundy.values_computed
        ),
    }
}

/// "octal:0.77: misère quotient of order 40, Φ periodic from 71 with
/// period 12 (167 heaps computed)"
fn quotient_line(game: &str, quotient: &MisereQuotient) -> String {
    let order = quotient.order;
    match (quotient.preperiod, quotient.period) {
        (Some(p), Some(q)) => format!(
            "{game}: misère quotient of order {order}, Φ periodic from {p} with period {q} \
             ({} heaps computed)",
            quotient.heaps_computed
        ),
        _ => format!(
            "{game}: misère quotient of order {order}, exact for heaps ≤ {} (no period proven)",
            quotient.heaps_computed
        ),
    }
}

fn heaps_line(report: &Report) -> String {
    format!(
        "{} ({} non-zero: {} of size 1, {} of size 2 or more)",
        report.heaps, report.nonzero_heaps, report.ones, report.big
    )
}

fn nim_sum_line(report: &Report) -> String {
    match (&report.nim_sum, report.msb) {
        (Some(value), Some(msb)) => {
            let whole = match value.hex.as_ref().is_some_and(|h| h.len() > DIGITS_SHOWN) {
                true => "; --json prints it whole",
                false => "",
            };
            format!(
                "{} (highest set bit: {msb}{whole})",
                value_phrase(value, "--nim-sum-out")
            )
        }
        (Some(value), None) => value_phrase(value, "--nim-sum-out"),
        (None, Some(msb)) => format!("not computed (--decide); non-zero, highest set bit {msb}"),
        (None, None) => "not computed (--decide)".into(),
    }
}

fn winner_line(report: &Report) -> String {
    match report.winner {
        Player::First => "the first player (the player to move)".into(),
        Player::Second => "the second player (the player to move loses)".into(),
    }
}

fn move_line(report: &Report) -> String {
    // Without a non-zero heap there is no move at all, in every game.
    let no_move = report.nonzero_heaps == 0;
    if report.quotient.is_some() {
        return match (&report.misere_move, report.winner) {
            (Some(m), _) => misere_move_phrase(m),
            (None, Player::First) if report.stuck => {
                "none: no heap has a move, and under misère play that already wins".into()
            }
            (None, Player::First) => "not computed (--decide)".into(),
            (None, Player::Second) => "none wins: every move leaves a winning position".into(),
        };
    }
    if report.grundy.is_some() {
        return match (&report.game_move, report.winner) {
            (Some(m), _) => game_move_phrase(m),
            (None, Player::First) => "not computed (--decide)".into(),
            (None, Player::Second) if no_move => NO_MOVE.into(),
            (None, Player::Second) => "none wins: every move leaves a winning position".into(),
        };
    }
    match (
        &report.winning_move,
        report.winner,
        report.winning_moves.is_some(),
    ) {
        (Some(m), _, _) => move_phrase(m),
        (None, Player::First, false) => "not computed (--decide)".into(),
        (None, Player::First, true) => "none: no heap is non-zero, and that already wins".into(),
        (None, Player::Second, _) if no_move => NO_MOVE.into(),
        (None, Player::Second, _) => "none wins: every move leaves a winning position".into(),
    }
}

/// The move line of a position with no heap to take from.
const NO_MOVE: &str = "none: there is no move (no heap is non-zero)";

/// "take 2 from heap 0 (line 1): 3 → 1"
fn move_phrase(m: &Move) -> String {
    let place = match m.line {
        Some(line) => format!("heap {} (line {line})", m.heap),
        None => format!("heap {} (offset {})", m.heap, m.offset),
    };
    match (&m.remove.dec, &m.from.dec, &m.to.dec) {
        (Some(_), Some(_), Some(_)) => {
            let [remove, from, to] = [&m.remove, &m.from, &m.to].map(size_phrase);
            let text = format!("take {remove} from {place}: {from} → {to}");
            with_whole_note(text, [&m.remove, &m.from, &m.to])
        }
        _ => format!(
            "on {place}, take {} so that {} remains (--move-out writes it)",
            size_phrase(&m.remove),
            size_phrase(&m.to)
        ),
    }
}

/// `text`, and where to read the values whole when one of `values` was
/// shown by its ends.
fn with_whole_note<'v>(text: String, values: impl IntoIterator<Item = &'v Value>) -> String {
    let cut = |v: &Value| v.dec.as_ref().is_some_and(|d| d.len() > DIGITS_SHOWN);
    match values.into_iter().any(cut) {
        true => format!("{text} ({WHOLE_IN_JSON})"),
        false => text,
    }
}

/// "take 1 from heap 0 (line 1), leaving 2 and 4: grundy 5 → 0"
fn game_move_phrase(m: &GameMove) -> String {
    let (place, leave, out) = take_phrases(m.heap, m.line, m.offset, &m.leave);
    let text = format!(
        "take {} from {place} of {}, leaving {leave}: grundy {} → {}{out}",
        m.take,
        size_phrase(&m.from),
        m.from_grundy,
        m.to_grundy
    );
    with_whole_note(text, std::iter::once(&m.from).chain(&m.leave))
}

/// "take 1 from heap 0 (line 1) of 5, leaving 3: the product becomes a"
fn misere_move_phrase(m: &MisereMove) -> String {
    let (place, leave, out) = take_phrases(m.heap, m.line, m.offset, &m.leave);
    let text = format!(
        "take {} from {place} of {}, leaving {leave}: the product becomes {}{out}",
        m.take,
        size_phrase(&m.from),
        m.to_product
    );
    with_whole_note(text, std::iter::once(&m.from).chain(&m.leave))
}

/// A move's heap, the heaps it leaves, and the note that `--move-out`
/// writes those too long to show.
fn take_phrases(
    heap: u64,
    line: Option<u64>,
    offset: u64,
    left: &[Value],
) -> (String, String, &'static str) {
    let place = match line {
        Some(line) => format!("heap {heap} (line {line})"),
        None => format!("heap {heap} (offset {offset})"),
    };
    let leave = match left {
        [] => "nothing".to_string(),
        [one] => size_phrase(one),
        [a, b] => format!("{} and {}", size_phrase(a), size_phrase(b)),
        more => format!("{} heaps", more.len()),
    };
    let out = match left.iter().any(|v| v.dec.is_none()) {
        true => " (--move-out writes them)",
        false => "",
    };
    (place, leave, out)
}

fn stats_line(report: &Report) -> String {
    let s = &report.stats;
    format!(
        "{} pass{} ({} window), {} scanned, {} working memory, {} thread{}, {}",
        s.passes,
        if s.passes == 1 { "" } else { "es" },
        window_phrase(s.window_bits),
        bytes_phrase(s.bytes_scanned),
        bytes_phrase(s.working_memory_bytes),
        s.threads,
        if s.threads == 1 { "" } else { "s" },
        seconds_phrase(s.seconds)
    )
}

/// A value in decimal and binary when small, else by size and hex (its
/// ends when long: the caller says where it is whole).
fn value_phrase(value: &Value, out_flag: &str) -> String {
    match &value.dec {
        Some(dec) if value.bit_length <= BINARY_SHOWN_BITS => {
            let binary = u64::from_str_radix(value.hex.as_deref().unwrap_or("0"), 16)
                .map(|v| format!("{v:b}"))
                .unwrap_or_default();
            format!("{dec} = 0b{binary}")
        }
        Some(_) => format!(
            "{}, hex {}",
            bits_phrase(value.bit_length),
            ends(value.hex.as_deref().unwrap_or(""))
        ),
        None => format!(
            "{} (write it with {out_flag} FILE)",
            bits_phrase(value.bit_length)
        ),
    }
}

/// A value in decimal: whole when short, else its first and last digits
/// and its bit length; by bit length alone when the report does not hold
/// its digits.
fn size_phrase(value: &Value) -> String {
    match &value.dec {
        Some(dec) if dec.len() > DIGITS_SHOWN => {
            format!("{} ({} bits)", ends(dec), value.bit_length)
        }
        Some(dec) => dec.clone(),
        None => format!("a {}-bit number", value.bit_length),
    }
}

/// Digits whole up to [`DIGITS_SHOWN`], else the first and last
/// [`END_DIGITS`] around an ellipsis.
fn ends(digits: &str) -> String {
    match digits.len() > DIGITS_SHOWN {
        true => format!(
            "{}…{}",
            &digits[..END_DIGITS],
            &digits[digits.len() - END_DIGITS..]
        ),
        false => digits.to_string(),
    }
}

fn bits_phrase(bits: u64) -> String {
    format!("{bits} bit{}", if bits == 1 { "" } else { "s" })
}

/// Bytes with a binary unit when large: "6 bytes", "1.5 MiB".
fn bytes_phrase(bytes: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if bytes < 1024 {
        return format!("{bytes} byte{}", if bytes == 1 { "" } else { "s" });
    }
    let mut size = bytes as f64 / 1024.0;
    let mut unit = 0;
    while size >= 1024.0 && unit < UNITS.len() - 1 {
        size /= 1024.0;
        unit += 1;
    }
    format!("{size:.1} {}", UNITS[unit])
}

/// A window's size: in bits up to 4096 (`64-bit`, `4096-bit`: the `log`
/// windows), else in bytes, whole units when exact (`1 GiB`, `64 KiB`).
fn window_phrase(bits: u64) -> String {
    const UNITS: [(&str, u32); 4] = [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)];
    if bits <= 4096 || !bits.is_multiple_of(8) {
        return format!("{bits}-bit");
    }
    let bytes = bits / 8;
    match UNITS
        .iter()
        .find(|(_, shift)| bytes.is_multiple_of(1 << shift))
    {
        Some((unit, shift)) => format!("{} {unit}", bytes >> shift),
        None => bytes_phrase(bytes),
    }
}

fn seconds_phrase(seconds: f64) -> String {
    if seconds < 1.0 {
        format!("{:.2} ms", seconds * 1000.0)
    } else {
        format!("{seconds:.2} s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(n: u64) -> Value {
        Value {
            bit_length: u64::from(64 - n.leading_zeros()),
            hex: Some(format!("{n:x}")),
            dec: Some(n.to_string()),
        }
    }

    #[test]
    fn the_move_reads_as_a_sentence() {
        let m = Move {
            heap: 0,
            offset: 0,
            line: Some(1),
            from: value(3),
            to: value(1),
            remove: value(2),
        };
        assert_eq!(move_phrase(&m), "take 2 from heap 0 (line 1): 3 → 1");
    }

    #[test]
    fn byte_counts_use_binary_units() {
        assert_eq!(bytes_phrase(6), "6 bytes");
        assert_eq!(bytes_phrase(1536), "1.5 KiB");
        assert_eq!(bytes_phrase(3 << 30), "3.0 GiB");
    }

    #[test]
    fn windows_read_in_bits_when_small_and_in_whole_units_when_large() {
        assert_eq!(window_phrase(64), "64-bit");
        assert_eq!(window_phrase(4096), "4096-bit");
        assert_eq!(window_phrase(8 << 30), "1 GiB");
        assert_eq!(window_phrase((8 * 64) << 10), "64 KiB");
        assert_eq!(window_phrase(8 * 1536), "1.5 KiB");
        assert_eq!(window_phrase(4100), "4100-bit");
    }

    #[test]
    fn long_values_show_their_ends_and_bit_length() {
        let long = Value {
            hex: Some("ab".repeat(21)),
            ..long_value()
        };
        assert_eq!(size_phrase(&long), "123456789012…901234567890 (166 bits)");
        assert_eq!(
            value_phrase(&long, "--x"),
            "166 bits, hex abababababab…abababababab"
        );
        let forty = Value {
            dec: Some("9".repeat(40)),
            ..long
        };
        assert_eq!(size_phrase(&forty), "9".repeat(40));
        let m = Move {
            heap: 1,
            offset: 4,
            line: None,
            from: long_value(),
            to: value(5),
            remove: long_value(),
        };
        assert_eq!(
            move_phrase(&m),
            "take 123456789012…901234567890 (166 bits) from heap 1 (offset 4): \
             123456789012…901234567890 (166 bits) → 5 (--json prints them whole)"
        );
    }

    /// A 50-digit value.
    fn long_value() -> Value {
        Value {
            bit_length: 166,
            hex: None,
            dec: Some("1234567890".repeat(5)),
        }
    }

    #[test]
    fn small_values_show_binary() {
        assert_eq!(value_phrase(&value(2), "--x"), "2 = 0b10");
    }
}
