//! One line per position, for people or as JSON.
//!
//! The text line has fixed columns so that a stream of them reads as a
//! table: what happened (`initial`, or the update and its heap), the
//! winner, the nim-sum (a value of up to 64 bits in decimal and hex, a
//! longer one in hex with its bit length, one past `--inline-bits` by its
//! bit length alone) and, with `--moves`, the number of winning moves and
//! the move in words, as `analyze` writes it. The JSON line is the
//! [`Status`] (SPEC section 10), every field present.
//!
//! ```
//! use nimstream::updates::{render, Position, UpdateOptions};
//! use nimstream::Format;
//!
//! let options = UpdateOptions { moves: true, ..UpdateOptions::default() };
//! let mut position = Position::from_bytes(b"3 4 5\n", Format::Dec, "example", &options)?;
//! let line = render::human(&position.status()?);
//! assert!(line.starts_with("initial           winner first   nim-sum 2 = 0x2 "));
//! assert!(line.ends_with("  1 winning move: take 2 from heap 0 (line 1): 3 → 1\n"));
//! # Ok::<(), nimstream::Error>(())
//! ```

use super::status::{value_of, Summary};
use super::{Status, UpdateMove};
use crate::analysis::Player;
use crate::report::Value;
use std::fmt::Write;

/// The width of the first column ("update 1000000, heap 1000000").
const HEAD_WIDTH: usize = 16;

/// The width the nim-sum takes when the move follows it ("255 = 0xff"
/// and shorter line up).
const NIM_SUM_WIDTH: usize = 16;

/// The status as one line of text, with its LF.
pub fn human(status: &Status) -> String {
    let mut line = String::new();
    write_human(status, &mut line);
    line
}

/// The status as one line of JSON, with its LF.
pub fn json(status: &Status) -> String {
    serde_json::to_string(status).expect("a status always serialises") + "\n"
}

/// Appends [`human`]'s line to `out`.
pub(crate) fn write_human(status: &Status, out: &mut String) {
    write_head(status.update, status.heap, status.winner, out);
    let value_start = out.len();
    value_phrase(&status.nim_sum, out);
    if let Some(count) = status.winning_moves {
        pad(out, value_start + NIM_SUM_WIDTH);
        out.push_str("  ");
        moves_phrase(count, status, out);
    }
    out.push('\n');
}

/// Appends the line of a position without `--moves` to `out`, as
/// [`write_human`] writes it, with no allocation when the nim-sum has at
/// most 64 bits (a million updates make a million lines).
pub(super) fn write_summary(summary: &Summary<'_>, out: &mut String) {
    write_head(summary.update, summary.heap, summary.winner, out);
    match summary.nim_sum {
        [] => out.push_str("0 = 0x0"),
        [word] if u64::from(64 - word.leading_zeros()) <= summary.inline_bits => {
            push_decimal(out, *word);
            out.push_str(" = 0x");
            push_hex(out, *word);
        }
        limbs => value_phrase(&value_of(limbs, summary.inline_bits), out),
    }
    out.push('\n');
}

/// The columns every line starts with: what happened, and the winner.
fn write_head(update: u64, heap: Option<u64>, winner: Player, out: &mut String) {
    let start = out.len();
    match heap {
        Some(heap) => {
            out.push_str("update ");
            push_decimal(out, update);
            out.push_str(", heap ");
            push_decimal(out, heap);
        }
        None => out.push_str("initial"),
    }
    pad(out, start + HEAD_WIDTH);
    out.push_str("  winner ");
    out.push_str(match winner {
        Player::First => "first   nim-sum ",
        Player::Second => "second  nim-sum ",
    });
}

/// Appends `value` in decimal. The lines of a million updates are
/// written digit by digit: `core::fmt` costs as much again as the rest of
/// an update.
fn push_decimal(out: &mut String, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    // Byte by byte: a copy of a few bytes through `memcpy` costs more
    // than the digits (libc's AVX-512 copy, on the machines measured).
    for &digit in &digits[at..] {
        out.push(char::from(digit));
    }
}

/// Appends `value` in lowercase hex, without leading zeros.
fn push_hex(out: &mut String, value: u64) {
    let nibbles = (64 - value.leading_zeros()).div_ceil(4).max(1);
    for k in (0..nibbles).rev() {
        out.push(char::from(
            b"0123456789abcdef"[(value >> (4 * k) & 15) as usize],
        ));
    }
}

/// Pads `out` with spaces up to `width` bytes.
fn pad(out: &mut String, width: usize) {
    let missing = width.saturating_sub(out.len());
    out.extend(std::iter::repeat_n(' ', missing));
}

/// "2 = 0x2", "0x1…f (100 bits)", "a 10000-bit number".
fn value_phrase(value: &Value, out: &mut String) {
    let _ = match (&value.dec, &value.hex) {
        (Some(dec), Some(hex)) if value.bit_length <= 64 => write!(out, "{dec} = 0x{hex}"),
        (_, Some(hex)) => write!(out, "0x{hex} ({} bits)", value.bit_length),
        _ => write!(out, "a {}-bit number", value.bit_length),
    };
}

/// "1 winning move: take 2 from heap 0 (line 1): 3 → 1"
fn moves_phrase(count: u64, status: &Status, out: &mut String) {
    let _ = match (&status.winning_move, status.winner) {
        (Some(m), _) => {
            let plural = if count == 1 { "" } else { "s" };
            let _ = write!(out, "{count} winning move{plural}: ");
            move_phrase(m, out);
            Ok(())
        }
        (None, Player::First) => write!(out, "no move: no heap is non-zero, and that already wins"),
        (None, Player::Second) => write!(out, "no winning move"),
    };
}

/// "take 2 from heap 0 (line 1): 3 → 1", as `analyze` says it; a heap an
/// update set is "(updated)".
fn move_phrase(m: &UpdateMove, out: &mut String) {
    let place = match (m.line, m.offset) {
        (Some(line), _) => format!("heap {} (line {line})", m.heap),
        (None, Some(offset)) => format!("heap {} (offset {offset})", m.heap),
        (None, None) => format!("heap {} (updated)", m.heap),
    };
    let _ = match (&m.remove.dec, &m.from.dec, &m.to.dec) {
        (Some(remove), Some(from), Some(to)) => {
            write!(out, "take {remove} from {place}: {from} → {to}")
        }
        _ => write!(
            out,
            "on {place}, take a {}-bit number so that a {}-bit number remains",
            m.remove.bit_length, m.to.bit_length
        ),
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn value(n: u64) -> Value {
        Value {
            bit_length: u64::from(64 - n.leading_zeros()),
            hex: Some(format!("{n:x}")),
            dec: Some(n.to_string()),
        }
    }

    fn status(update: u64, heap: Option<u64>, winner: Player) -> Status {
        Status {
            update,
            heap,
            winner,
            nim_sum: value(0),
            winning_moves: None,
            winning_move: None,
        }
    }

    #[test]
    fn lines_keep_their_columns() {
        let first = human(&status(0, None, Player::Second));
        let later = human(&status(12, Some(3456), Player::First));
        assert_eq!(first, "initial           winner second  nim-sum 0 = 0x0\n");
        assert_eq!(
            later,
            "update 12, heap 3456  winner first   nim-sum 0 = 0x0\n"
        );
        assert_eq!(
            first.find("winner"),
            human(&status(1, Some(0), Player::First)).find("winner")
        );
    }

    #[test]
    fn a_summary_reads_as_its_status() {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(1);
        for k in 0..2000u64 {
            let limbs: Vec<u64> = (0..k % 3)
                .map(|_| rng.random::<u64>() >> (k % 64))
                .collect();
            let limbs = &limbs[..limbs.iter().rposition(|&w| w != 0).map_or(0, |top| top + 1)];
            let inline_bits = [0, 8, 64, 100, 4096][k as usize % 5];
            let winner = [Player::First, Player::Second][k as usize % 2];
            let heap = (k % 7 != 0).then_some(k * 13);
            let mut short = String::new();
            let summary = Summary {
                update: k,
                heap,
                winner,
                nim_sum: limbs,
                inline_bits,
            };
            write_summary(&summary, &mut short);
            let full = Status {
                nim_sum: value_of(limbs, inline_bits),
                ..status(k, heap, winner)
            };
            assert_eq!(short, human(&full), "{limbs:?}, {inline_bits}");
        }
    }

    #[test]
    fn digits_are_written_as_format_writes_them() {
        for value in [0, 1, 9, 10, 15, 16, 255, 1 << 32, u64::MAX - 1, u64::MAX] {
            let (mut dec, mut hex) = (String::new(), String::new());
            push_decimal(&mut dec, value);
            push_hex(&mut hex, value);
            assert_eq!((dec, hex), (value.to_string(), format!("{value:x}")));
        }
    }

    #[test]
    fn long_values_show_their_length() {
        let mut out = String::new();
        value_phrase(
            &Value {
                bit_length: 65,
                hex: Some("10000000000000000".into()),
                dec: None,
            },
            &mut out,
        );
        assert_eq!(out, "0x10000000000000000 (65 bits)");
        out.clear();
        value_phrase(
            &Value {
                bit_length: 9000,
                hex: None,
                dec: None,
            },
            &mut out,
        );
        assert_eq!(out, "a 9000-bit number");
    }

    #[test]
    fn a_move_on_an_updated_heap_says_so() {
        let m = UpdateMove {
            heap: 4,
            offset: None,
            line: None,
            from: value(7),
            to: value(2),
            remove: value(5),
        };
        let mut out = String::new();
        move_phrase(&m, &mut out);
        assert_eq!(out, "take 5 from heap 4 (updated): 7 → 2");
        let json = json(&Status {
            winning_moves: Some(1),
            winning_move: Some(m),
            ..status(2, Some(4), Player::First)
        });
        assert!(json.contains(r#""move":{"heap":4,"offset":null,"line":null,"from":{"bit_length":3,"hex":"7","dec":"7"}"#), "{json}");
    }
}
