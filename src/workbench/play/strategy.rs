//! The strategies a side plays by, and the two sides of a game: the
//! analyzer's move, the paper's delaying move, a seeded random move, or a
//! person's typed move read from a [`Console`].

use super::{dec_text, Console, Game, Take};
use crate::error::Error;
use crate::input::Format;
use crate::{analyze_bytes, Options, Player};
use num_bigint::BigUint;
use num_traits::Zero;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// How a side chooses its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Strategy {
    /// The analyzer's winning move when there is one, otherwise delay.
    Optimal,
    /// Take one token from the largest heap (lowest index on ties).
    Delay,
    /// A random legal move: a random non-empty heap, a random amount.
    Random,
    /// Moves typed as `HEAP COUNT` lines.
    Human,
}

impl Strategy {
    /// Parses `optimal`, `delay`, `random` or `human` (case-insensitive).
    pub fn from_name(name: &str) -> Option<Strategy> {
        match name.to_ascii_lowercase().as_str() {
            "optimal" => Some(Strategy::Optimal),
            "delay" => Some(Strategy::Delay),
            "random" => Some(Strategy::Random),
            "human" => Some(Strategy::Human),
            _ => None,
        }
    }
}

/// The two sides of a game and what their strategies need.
pub struct Sides {
    first: Strategy,
    second: Strategy,
    rng: ChaCha8Rng,
    console: Console,
}

impl Sides {
    /// The first and second players' strategies; `seed` seeds the random
    /// strategy (one generator shared by both sides), `console` serves a
    /// human side.
    pub fn new(first: Strategy, second: Strategy, seed: u64, console: Console) -> Sides {
        Sides {
            first,
            second,
            rng: ChaCha8Rng::seed_from_u64(seed),
            console,
        }
    }

    /// The move of the player to move in `game`, which must not be over;
    /// `None` when that player, a human side, quits.
    pub fn choose(&mut self, game: &Game) -> Result<Option<Take>, Error> {
        let strategy = match game.to_move() {
            Player::First => self.first,
            Player::Second => self.second,
        };
        match strategy {
            Strategy::Optimal => optimal_move(game).map(Some),
            Strategy::Delay => Ok(Some(delay_move(game.heaps()))),
            Strategy::Random => Ok(Some(random_move(game.heaps(), &mut self.rng))),
            Strategy::Human => self.console.read_move(game),
        }
    }
}

/// The analyzer's winning move, or the delaying move when the player to
/// move is losing.
fn optimal_move(game: &Game) -> Result<Take, Error> {
    let options = Options {
        rule: game.rule(),
        inline_bits: u64::MAX,
        ..Options::default()
    };
    let text = dec_text(game.heaps(), " ");
    let report = analyze_bytes(text.as_bytes(), Format::Dec, "<position>", &options)?;
    let Some(winning) = report.winning_move else {
        return Ok(delay_move(game.heaps()));
    };
    let count = winning
        .remove
        .dec
        .as_deref()
        .and_then(|digits| digits.parse().ok())
        .expect("with unlimited --inline-bits every value is inlined");
    Ok(Take {
        heap: usize::try_from(winning.heap).expect("the position fits in memory"),
        count,
    })
}

/// One token from the largest heap, the lowest index among equals.
fn delay_move(heaps: &[BigUint]) -> Take {
    let (heap, _) = heaps
        .iter()
        .enumerate()
        .rev()
        .max_by_key(|&(_, value)| value)
        .expect("a game that is not over has a heap");
    Take {
        heap,
        count: BigUint::from(1u32),
    }
}

/// A uniformly random non-empty heap, then a uniformly random amount.
fn random_move(heaps: &[BigUint], rng: &mut ChaCha8Rng) -> Take {
    let non_empty: Vec<usize> = (0..heaps.len()).filter(|&i| !heaps[i].is_zero()).collect();
    let heap = non_empty[rng.random_range(0..non_empty.len())];
    let count = uniform_below(&heaps[heap], rng) + 1u32;
    Take { heap, count }
}

/// A uniform value in `0..bound` (`bound` > 0), by rejection on its bit length.
fn uniform_below(bound: &BigUint, rng: &mut ChaCha8Rng) -> BigUint {
    let bits = bound.bits();
    let mut bytes = vec![0u8; bits.div_ceil(8) as usize];
    loop {
        rng.fill(bytes.as_mut_slice());
        if let Some(top) = bytes.last_mut() {
            *top &= 0xff >> ((8 - bits % 8) % 8);
        }
        let value = BigUint::from_bytes_le(&bytes);
        if value < *bound {
            return value;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::play::tests::heaps;
    use crate::Rule;

    #[test]
    fn the_first_optimal_move_from_three_four_five_takes_two_from_heap_zero() {
        let game = Game::new(heaps(&[3, 4, 5]), Rule::Misere);
        let take = optimal_move(&game).unwrap();
        assert_eq!(
            take,
            Take {
                heap: 0,
                count: 2u32.into()
            }
        );
    }

    #[test]
    fn delay_takes_one_from_the_first_largest_heap() {
        assert_eq!(delay_move(&heaps(&[2, 5, 5])).heap, 1);
    }

    #[test]
    fn random_moves_are_legal_and_reproducible() {
        let start = heaps(&[0, 9, 300, 1]);
        let game = Game::new(start.clone(), Rule::Normal);
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut again = ChaCha8Rng::seed_from_u64(1);
        for _ in 0..200 {
            let take = random_move(&start, &mut rng);
            assert_eq!(game.check(&take), Ok(()));
            assert_eq!(take, random_move(&start, &mut again));
        }
    }
}
