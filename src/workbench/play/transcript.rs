//! The lines of a game for people: one per move, aligned to the starting
//! position, and the last line saying how it ended.

use super::{player_name, Ending, Game, Take};
use num_bigint::BigUint;

/// Lays out the lines of a game in columns sized for its starting position
/// (heaps only shrink, so the columns stay aligned):
/// `3 4 5  nim-sum 010  first  takes 2 from heap 0`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transcript {
    heap_width: usize,
    sum_width: usize,
}

impl Transcript {
    /// Column widths for a game starting from `game`'s heaps.
    pub fn for_game(game: &Game) -> Transcript {
        let heaps = game.heaps();
        let heap_width = heaps.iter().map(|h| h.to_string().len()).max();
        let sum_width = heaps.iter().map(BigUint::bits).max();
        Transcript {
            heap_width: heap_width.unwrap_or(1),
            sum_width: sum_width.unwrap_or(1).max(1) as usize,
        }
    }

    /// The position of `game` and the move `take` its player to move makes.
    pub fn move_line(&self, game: &Game, take: &Take) -> String {
        format!(
            "{}  {:<6} takes {} from heap {}",
            self.position(game),
            player_name(game.to_move()),
            take.count,
            take.heap
        )
    }

    /// The position of `game` alone (the last one of a game).
    pub fn position(&self, game: &Game) -> String {
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
        format!(
            "{heaps}  nim-sum {:0>width$}",
            game.nim_sum().to_str_radix(2),
            width = self.sum_width
        )
    }
}

/// The last line of a game: `N moves; the first player wins`, `… the second
/// player wins`, or `N moves; stopped by --max-moves`.
pub fn summary(moves: u64, ending: Ending) -> String {
    match ending {
        Ending::Won(player) => format!("{moves} moves; the {} player wins", player_name(player)),
        Ending::Stopped => format!("{moves} moves; stopped by --max-moves"),
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
    fn summaries_do_not_pluralise() {
        assert_eq!(
            summary(1, Ending::Won(Player::First)),
            "1 moves; the first player wins"
        );
        assert_eq!(
            summary(5, Ending::Stopped),
            "5 moves; stopped by --max-moves"
        );
    }
}
