//! The lines of a game for people: one per move, aligned to the starting
//! position, and the last line saying how it ended.
//!
//! A position is shown whole while it fits a terminal's line
//! ([`LINE_COLUMNS`]); past that (thousands of heaps, or heaps of hundreds
//! of digits) each line shows only the nim-sum and the heap that moved,
//! with numbers too long to read given by their bit length.

use super::{player_name, Ending, Game, Take};
use num_bigint::BigUint;
use num_traits::Zero;

/// The widest line that shows a whole position; wider positions are shown
/// by the heap that moved.
pub const LINE_COLUMNS: usize = 100;

/// The longest number written out in a compact line; longer ones are given
/// by their bit length.
const NUMBER_DIGITS: usize = 40;

/// Lays out the lines of a game in columns sized for its starting position
/// (heaps only shrink, so the columns stay aligned):
/// `3 4 5  nim-sum 010  first  takes 2 from heap 0`, or, when the position
/// does not fit a line, `nim-sum 0101  first  takes 345 from heap 17:
/// 12345 → 12000`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transcript {
    heap_width: usize,
    sum_width: usize,
    whole: bool,
}

impl Transcript {
    /// Column widths for a game starting from `game`'s heaps.
    pub fn for_game(game: &Game) -> Transcript {
        let heaps = game.heaps();
        let heap_width = heaps.iter().map(|h| h.to_string().len()).max();
        let sum_width = heaps.iter().map(BigUint::bits).max();
        let (heap_width, sum_width) = (
            heap_width.unwrap_or(1),
            sum_width.unwrap_or(1).max(1) as usize,
        );
        let position_columns = heaps.len() * (heap_width + 1) + "  nim-sum ".len() + sum_width;
        Transcript {
            heap_width,
            sum_width,
            whole: position_columns <= LINE_COLUMNS,
        }
    }

    /// The position of `game` and the move `take` its player to move makes.
    pub fn move_line(&self, game: &Game, take: &Take) -> String {
        let player = player_name(game.to_move());
        if self.whole {
            return format!(
                "{}  {player:<6} takes {} from heap {}",
                self.position(game),
                take.count,
                take.heap
            );
        }
        let from = &game.heaps()[take.heap];
        format!(
            "{}  {player:<6} takes {} from heap {}: {} → {}",
            self.nim_sum(game),
            readable(&take.count),
            take.heap,
            readable(from),
            readable(&(from - &take.count))
        )
    }

    /// The position of `game` alone (the last one of a game).
    pub fn position(&self, game: &Game) -> String {
        if !self.whole {
            let nonzero = game.heaps().iter().filter(|h| !h.is_zero()).count();
            return format!(
                "{}  {nonzero} of {} heaps non-zero",
                self.nim_sum(game),
                game.heaps().len()
            );
        }
        let heaps: Vec<String> = game
            .heaps()
            .iter()
            .map(|heap| format!("{heap:>width$}", width = self.heap_width))
            .collect();
        let heaps = if heaps.is_empty() {
            "(no heaps)".to_string()
        } else {
            heaps.join(" ")
        };
        format!("{heaps}  {}", self.nim_sum(game))
    }

    /// `nim-sum 0101`, in binary as wide as the longest starting heap while
    /// that fits a line, else in hex (`nim-sum 0x…`) or by its bit length.
    fn nim_sum(&self, game: &Game) -> String {
        let sum = game.nim_sum();
        if self.sum_width <= LINE_COLUMNS / 2 {
            format!(
                "nim-sum {:0>width$}",
                sum.to_str_radix(2),
                width = self.sum_width
            )
        } else if sum.bits() <= 4 * NUMBER_DIGITS as u64 {
            format!("nim-sum 0x{}", sum.to_str_radix(16))
        } else {
            format!("nim-sum of {} bits", sum.bits())
        }
    }
}

/// A number in decimal when it is short enough to read, else its size.
fn readable(n: &BigUint) -> String {
    let text = n.to_string();
    if text.len() <= NUMBER_DIGITS {
        text
    } else {
        format!("a {}-bit number", n.bits())
    }
}

/// The line before the summary of a game that the move cap stopped.
pub fn stopped_note(game: &Game, max_moves: u64) -> String {
    let nonzero = game.heaps().iter().filter(|h| !h.is_zero()).count();
    format!(
        "the game is not over: the cap of {max_moves} moves (--max-moves) was reached \
         with {nonzero} heap{} still holding tokens",
        if nonzero == 1 { "" } else { "s" }
    )
}

/// The last line of a game: `N moves; the first player wins`, `… the second
/// player wins`, or `N moves; stopped by --max-moves`.
pub fn summary(moves: u64, ending: Ending) -> String {
    match ending {
        Ending::Won(player) => format!("{moves} moves; the {} player wins", player_name(player)),
        Ending::Stopped => format!("{moves} moves; stopped by --max-moves"),
        Ending::Quit(player) => format!("{moves} moves; the {} player quit", player_name(player)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::play::tests::heaps;
    use crate::{Player, Rule};

    #[test]
    fn lines_are_aligned_to_the_starting_position() {
        let game = Game::new(heaps(&[3, 10]), Rule::Normal);
        let transcript = Transcript::for_game(&game);
        let take = Take {
            heap: 1,
            count: 1u32.into(),
        };
        assert_eq!(
            transcript.move_line(&game, &take),
            " 3 10  nim-sum 1001  first  takes 1 from heap 1"
        );
    }

    #[test]
    fn a_position_too_wide_for_a_line_is_shown_by_the_heap_that_moved() {
        let values: Vec<u32> = (1..=40).map(|k| 1000 + k).collect();
        let game = Game::new(heaps(&values), Rule::Normal);
        let transcript = Transcript::for_game(&game);
        let take = Take {
            heap: 3,
            count: 4u32.into(),
        };
        let sum = values.iter().fold(0, |s, v| s ^ v);
        assert_eq!(
            transcript.move_line(&game, &take),
            format!("nim-sum {sum:011b}  first  takes 4 from heap 3: 1004 → 1000")
        );
        assert_eq!(
            transcript.position(&game),
            format!("nim-sum {sum:011b}  40 of 40 heaps non-zero")
        );
    }

    #[test]
    fn numbers_too_long_to_read_are_given_by_their_size() {
        let huge = BigUint::from(1u8) << 300u32;
        let game = Game::new(vec![huge.clone(), huge.clone() + 1u8], Rule::Normal);
        let transcript = Transcript::for_game(&game);
        let take = Take {
            heap: 1,
            count: 1u32.into(),
        };
        assert_eq!(
            transcript.move_line(&game, &take),
            "nim-sum 0x1  first  takes 1 from heap 1: a 301-bit number → a 301-bit number"
        );
    }

    #[test]
    fn summaries_do_not_pluralise() {
        assert_eq!(
            summary(1, Ending::Won(Player::First)),
            "1 moves; the first player wins"
        );
        assert_eq!(
            summary(5, Ending::Stopped),
            "5 moves; stopped by --max-moves"
        );
        assert_eq!(
            summary(2, Ending::Quit(Player::Second)),
            "2 moves; the second player quit"
        );
    }
}
