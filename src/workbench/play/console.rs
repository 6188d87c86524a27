//! Where a human side plays: a prompt naming the player and the heaps,
//! `HEAP COUNT` lines read back, and an illegal move explained and asked
//! for again.

use super::{dec_text, player_name, Game, Take};
use crate::error::Error;
use std::io::{self, BufRead, Write};

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
    pub(super) fn read_move(&mut self, game: &Game) -> Result<Take, Error> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workbench::play::tests::{heaps, quiet_console};
    use crate::Rule;

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
}
