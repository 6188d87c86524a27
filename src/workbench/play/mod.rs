//! Plays a game of Nim out, move by move, between two strategies, on heaps
//! held as big integers.
//!
//! A [`Game`] is the heaps, the rule and the number of moves made (which
//! says whose turn it is). [`Sides`] chooses each move with the strategy of
//! the player to move: [`Strategy::Optimal`] asks the analyzer for its
//! winning move, [`Strategy::Delay`] is the paper's delaying strategy,
//! [`Strategy::Random`] draws from a seeded ChaCha8 generator, and
//! [`Strategy::Human`] reads `HEAP COUNT` lines from a [`Console`].
//! [`play_out`] runs the game; [`Transcript`] lays out its lines.
//!
//! The optimal strategy renders the position as `dec` text and analyzes it
//! afresh on every move, which is simple and plenty fast for the games a
//! person watches, not for heaps of millions of digits.
//!
//! ```
//! use nimstream::workbench::play::{play_out, Console, Ending, Game, Sides, Strategy};
//! use nimstream::{Player, Rule};
//!
//! let mut game = Game::new(vec![3u32.into(), 4u32.into(), 5u32.into()], Rule::Misere);
//! let console = Console::new(Box::new(std::io::empty()), Box::new(std::io::sink()));
//! let mut sides = Sides::new(Strategy::Optimal, Strategy::Delay, 0, console);
//! let ending = play_out(&mut game, &mut sides, 1000, |_, _| Ok(()))?;
//! assert_eq!(ending, Ending::Won(Player::First));
//! # Ok::<(), nimstream::Error>(())
//! ```

use crate::error::Error;
use crate::input::detect;
use crate::input::source::{Input, InputBytes};
use crate::input::{Format, HeapScanner, Scanner};
use crate::{analyze_bytes, Options, Player, Rule};
use num_bigint::BigUint;
use num_traits::Zero;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::io::{self, BufRead, Write};
use std::path::Path;

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

/// One move: take `count` tokens from heap `heap` (0-based).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Take {
    /// The heap's index.
    pub heap: usize,
    /// How many tokens are taken (at least 1).
    pub count: BigUint,
}

/// A game in progress: the heaps, the rule, and how many moves were made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    heaps: Vec<BigUint>,
    rule: Rule,
    moves: u64,
}

impl Game {
    /// A game starting from `heaps`, the first player to move.
    pub fn new(heaps: Vec<BigUint>, rule: Rule) -> Game {
        Game {
            heaps,
            rule,
            moves: 0,
        }
    }

    /// The heaps now.
    pub fn heaps(&self) -> &[BigUint] {
        &self.heaps
    }

    /// The play convention.
    pub fn rule(&self) -> Rule {
        self.rule
    }

    /// How many moves have been made.
    pub fn moves(&self) -> u64 {
        self.moves
    }

    /// Whose turn it is.
    pub fn to_move(&self) -> Player {
        if self.moves.is_multiple_of(2) {
            Player::First
        } else {
            Player::Second
        }
    }

    /// The winner once no move is left (every heap empty), else `None`. The
    /// player who cannot move loses under normal play and wins under misère.
    pub fn winner(&self) -> Option<Player> {
        if self.heaps.iter().any(|heap| !heap.is_zero()) {
            return None;
        }
        let stuck = self.to_move();
        Some(match self.rule {
            Rule::Normal => opponent(stuck),
            Rule::Misere => stuck,
        })
    }

    /// The XOR of the heaps (shown beside each position).
    pub fn nim_sum(&self) -> BigUint {
        self.heaps
            .iter()
            .fold(BigUint::zero(), |sum, heap| sum ^ heap)
    }

    /// Why `take` is not a legal move here, if it is not.
    pub fn check(&self, take: &Take) -> Result<(), String> {
        let Some(heap) = self.heaps.get(take.heap) else {
            return Err(match self.heaps.len() {
                0 => "there are no heaps".to_string(),
                n => format!("there is no heap {} (heaps are 0 to {})", take.heap, n - 1),
            });
        };
        if take.count.is_zero() {
            return Err("a move takes at least one token".to_string());
        }
        if take.count > *heap {
            return Err(format!(
                "heap {} has only {heap}, cannot take {}",
                take.heap, take.count
            ));
        }
        Ok(())
    }

    /// Makes the move `take`, if it is legal.
    pub fn apply(&mut self, take: &Take) -> Result<(), String> {
        self.check(take)?;
        self.heaps[take.heap] -= &take.count;
        self.moves += 1;
        Ok(())
    }
}

/// The other player.
fn opponent(player: Player) -> Player {
    match player {
        Player::First => Player::Second,
        Player::Second => Player::First,
    }
}

/// `first` or `second`.
pub fn player_name(player: Player) -> &'static str {
    match player {
        Player::First => "first",
        Player::Second => "second",
    }
}

/// Where a human side reads its moves and is prompted and told about bad
/// ones (the command line uses standard input and standard error).
pub struct Console {
    input: Box<dyn BufRead>,
    messages: Box<dyn Write>,
}

impl Console {
    /// A console reading moves from `input` and writing prompts to `messages`.
    pub fn new(input: Box<dyn BufRead>, messages: Box<dyn Write>) -> Console {
        Console { input, messages }
    }

    /// Prompts until a legal `HEAP COUNT` line arrives; the end of the
    /// input is an error.
    fn read_move(&mut self, game: &Game) -> Result<Take, Error> {
        loop {
            self.prompt(game).map_err(|e| Error::io("<stderr>", e))?;
            let mut line = String::new();
            let read = self
                .input
                .read_line(&mut line)
                .map_err(|e| Error::io("<stdin>", e))?;
            if read == 0 {
                return Err(Error::io(
                    "<stdin>",
                    io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "ended before the game did (a human side reads HEAP COUNT lines)",
                    ),
                ));
            }
            match parse_take(&line).and_then(|take| game.check(&take).map(|()| take)) {
                Ok(take) => return Ok(take),
                Err(reason) => writeln!(self.messages, "illegal move: {reason}; try again")
                    .map_err(|e| Error::io("<stderr>", e))?,
            }
        }
    }

    fn prompt(&mut self, game: &Game) -> io::Result<()> {
        write!(
            self.messages,
            "{} to move on [{}]; enter HEAP COUNT: ",
            player_name(game.to_move()),
            dec_text(game.heaps(), " ")
        )?;
        self.messages.flush()
    }
}

/// Parses a typed move, `HEAP COUNT`.
fn parse_take(line: &str) -> Result<Take, String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let [heap, count] = words[..] else {
        return Err(format!(
            "expected HEAP COUNT (two numbers, e.g. `0 2`), got `{}`",
            line.trim()
        ));
    };
    let heap = heap
        .parse()
        .map_err(|_| format!("`{heap}` is not a heap index"))?;
    let count = count
        .parse()
        .map_err(|_| format!("`{count}` is not a number of tokens"))?;
    Ok(Take { heap, count })
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

    /// The move of the player to move in `game`, which must not be over.
    pub fn choose(&mut self, game: &Game) -> Result<Take, Error> {
        let strategy = match game.to_move() {
            Player::First => self.first,
            Player::Second => self.second,
        };
        match strategy {
            Strategy::Optimal => optimal_move(game),
            Strategy::Delay => Ok(delay_move(game.heaps())),
            Strategy::Random => Ok(random_move(game.heaps(), &mut self.rng)),
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

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// No move was left; this player won.
    Won(Player),
    /// The move limit was reached first.
    Stopped,
}

/// Plays `game` until no move is left or `max_moves` moves have been made.
/// `record` sees each position with the move about to be made from it.
///
/// A strategy other than `human` that picks an illegal move is a bug, and
/// ends the game with [`Error::Check`].
pub fn play_out(
    game: &mut Game,
    sides: &mut Sides,
    max_moves: u64,
    mut record: impl FnMut(&Game, &Take) -> Result<(), Error>,
) -> Result<Ending, Error> {
    loop {
        if let Some(winner) = game.winner() {
            return Ok(Ending::Won(winner));
        }
        if game.moves() >= max_moves {
            return Ok(Ending::Stopped);
        }
        let take = sides.choose(game)?;
        record(game, &take)?;
        let mover = player_name(game.to_move());
        game.apply(&take).map_err(|reason| {
            Error::Check(format!(
                "the {mover} player's strategy chose an illegal move: {reason}"
            ))
        })?;
    }
}

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

/// Parses `--heaps`: decimal values separated by commas (`3,4,5`); an empty
/// list is a game with no heaps.
pub fn parse_heap_list(text: &str) -> Result<Vec<BigUint>, String> {
    if text.trim().is_empty() {
        return Ok(Vec::new());
    }
    text.split(',')
        .map(|item| {
            let item = item.trim();
            item.parse().map_err(|_| {
                format!("`{item}` is not a heap size: expected decimal numbers separated by commas, e.g. 3,4,5")
            })
        })
        .collect()
}

/// Reads every heap of the instance at `path` (`-` reads standard input and
/// needs a `format`); `None` detects the format as `analyze` does.
pub fn read_heaps(path: &Path, format: Option<Format>) -> Result<Vec<BigUint>, Error> {
    let shown = path.display().to_string();
    let format = match (format, shown.as_str()) {
        (Some(format), _) => format,
        (None, "-") => {
            return Err(Error::Usage(
                "standard input needs --format: there is no extension to detect it from".into(),
            ))
        }
        (None, _) => detect(path, &shown)?,
    };
    let input = Input::open(path, &shown, false)?.into_memory()?;
    heaps_of(&input, format)
}

/// The heaps of an instance held in memory, `name` standing for its path.
///
/// ```
/// use nimstream::{workbench::play::parse_heaps, Format};
/// let heaps = parse_heaps(b"111\n\n1\n", Format::Unary, "x.unary")?;
/// assert_eq!(heaps, vec![3u32.into(), 0u32.into(), 1u32.into()]);
/// # Ok::<(), nimstream::Error>(())
/// ```
pub fn parse_heaps(data: &[u8], format: Format, name: &str) -> Result<Vec<BigUint>, Error> {
    heaps_of(&Input::memory(data, name), format)
}

/// The heaps of an input read into memory.
fn heaps_of(input: &Input<'_>, format: Format) -> Result<Vec<BigUint>, Error> {
    let InputBytes::Memory(data) = input.bytes() else {
        unreachable!("read into memory");
    };
    let mut scanner = Scanner::new(format, data, 0);
    let mut heaps = Vec::new();
    while let Some(heap) = scanner
        .next_heap()
        .map_err(|e| input.parse_error(format, e))?
    {
        heaps.push(to_biguint(&heap.value.to_limbs()));
    }
    Ok(heaps)
}

/// Little-endian 64-bit limbs as a big integer.
fn to_biguint(limbs: &[u64]) -> BigUint {
    let bytes: Vec<u8> = limbs.iter().flat_map(|limb| limb.to_le_bytes()).collect();
    BigUint::from_bytes_le(&bytes)
}

/// The heaps in decimal, joined by `separator`.
fn dec_text(heaps: &[BigUint], separator: &str) -> String {
    let tokens: Vec<String> = heaps.iter().map(BigUint::to_string).collect();
    tokens.join(separator)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn heaps(values: &[u32]) -> Vec<BigUint> {
        values.iter().map(|&v| BigUint::from(v)).collect()
    }

    fn quiet_console(input: &'static str) -> Console {
        Console::new(Box::new(input.as_bytes()), Box::new(io::sink()))
    }

    fn play(values: &[u32], rule: Rule, first: Strategy, second: Strategy) -> (Game, Ending) {
        let mut game = Game::new(heaps(values), rule);
        let mut sides = Sides::new(first, second, 7, quiet_console(""));
        let ending = play_out(&mut game, &mut sides, 1_000_000, |_, _| Ok(())).unwrap();
        (game, ending)
    }

    #[test]
    fn an_empty_game_is_won_by_the_rule_alone() {
        let game = Game::new(Vec::new(), Rule::Normal);
        assert_eq!(game.winner(), Some(Player::Second));
        let game = Game::new(heaps(&[0, 0]), Rule::Misere);
        assert_eq!(game.winner(), Some(Player::First));
    }

    #[test]
    fn optimal_wins_from_three_four_five_in_both_rules() {
        for rule in [Rule::Normal, Rule::Misere] {
            for second in [Strategy::Delay, Strategy::Random, Strategy::Optimal] {
                let (_, ending) = play(&[3, 4, 5], rule, Strategy::Optimal, second);
                assert_eq!(ending, Ending::Won(Player::First), "{rule} {second:?}");
            }
        }
    }

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

    #[test]
    fn a_losing_optimal_player_delays_to_the_end() {
        let (game, ending) = play(&[3, 3], Rule::Normal, Strategy::Optimal, Strategy::Optimal);
        assert_eq!((game.moves(), ending), (6, Ending::Won(Player::Second)));
    }

    #[test]
    fn illegal_typed_moves_are_refused_with_a_reason() {
        let game = Game::new(heaps(&[3, 4]), Rule::Normal);
        let bad = |line: &str| parse_take(line).and_then(|t| game.check(&t));
        assert!(bad("2 1").unwrap_err().contains("no heap 2"));
        assert!(bad("0 4").unwrap_err().contains("has only 3"));
        assert!(bad("0 0").unwrap_err().contains("at least one"));
        assert!(bad("zero 1").unwrap_err().contains("not a heap index"));
        assert!(bad("1").unwrap_err().contains("HEAP COUNT"));
        assert_eq!(bad(" 1 4 \n"), Ok(()));
    }

    #[test]
    fn a_human_side_retries_and_fails_at_the_end_of_input() {
        let game = Game::new(heaps(&[3, 4]), Rule::Normal);
        let mut console = quiet_console("9 9\n1 2\n");
        let take = console.read_move(&game).unwrap();
        assert_eq!(
            take,
            Take {
                heap: 1,
                count: 2u32.into()
            }
        );
        let error = console.read_move(&game).unwrap_err();
        assert_eq!(error.exit_code(), 1);
    }

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
    fn heap_lists_and_files_give_big_integers() {
        assert_eq!(parse_heap_list("3, 4,5"), Ok(heaps(&[3, 4, 5])));
        assert_eq!(parse_heap_list(""), Ok(vec![]));
        assert!(parse_heap_list("3,x").is_err());
        let big = parse_heaps(b"1 0x10000000000000000001", Format::Hex, "x.hex").unwrap();
        assert_eq!(big[1], (BigUint::from(1u32) << 76u32) + 1u32);
        let error = parse_heaps(b"1 2x", Format::Dec, "x.dec").unwrap_err();
        assert!(error
            .to_string()
            .starts_with("x.dec: offset 3 (line 1, column 4)"));
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
