//! Where a human side plays: a prompt naming the player and the heaps,
//! `HEAP COUNT` lines read back, an illegal move explained and asked for
//! again, and `q` (or, typed at a terminal, the end of input: Ctrl-D) to
//! quit.

use super::{dec_text, player_name, Game, Take};
use crate::error::Error;
use std::io::{self, BufRead, Write};

/// Where a human side reads its moves and is prompted and told about bad
/// ones (the command line uses standard input and standard error).
pub struct Console {
    input: Box<dyn BufRead>,
    messages: Box<dyn Write>,
    /// A person types the moves (standard input is a terminal): the end
    /// of input quits, as `q` does, rather than failing.
    typed: bool,
}

impl Console {
    /// A console reading moves from `input` and writing prompts to
    /// `messages`; `typed` when a person types them at a terminal.
    pub fn new(input: Box<dyn BufRead>, messages: Box<dyn Write>, typed: bool) -> Console {
        Console {
            input,
            messages,
            typed,
        }
    }

    /// Prompts until a legal `HEAP COUNT` line arrives; `None` when the
    /// player quits (`q`, `quit`, or the end of typed input). The end of
    /// input that is not typed (a file, a pipe) is an error.
    pub(super) fn read_move(&mut self, game: &Game) -> Result<Option<Take>, Error> {
        loop {
            self.prompt(game).map_err(|e| Error::io("<stderr>", e))?;
            let mut line = String::new();
            let read = self
                .input
                .read_line(&mut line)
                .map_err(|e| Error::io("<stdin>", e))?;
            if read == 0 && self.typed {
                // Ctrl-D leaves the cursor after the prompt.
                writeln!(self.messages).map_err(|e| Error::io("<stderr>", e))?;
                return Ok(None);
            }
            if read == 0 {
                return Err(Error::io(
                    "<stdin>",
                    io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "ended before the game did (a human side reads HEAP COUNT lines, or q \
                         to quit)",
                    ),
                ));
            }
            if matches!(line.trim(), "q" | "quit") {
                return Ok(None);
            }
            match parse_take(&line).and_then(|take| game.check(&take).map(|()| take)) {
                Ok(take) => return Ok(Some(take)),
                Err(reason) => writeln!(self.messages, "illegal move: {reason}; try again")
                    .map_err(|e| Error::io("<stderr>", e))?,
            }
        }
    }

    fn prompt(&mut self, game: &Game) -> io::Result<()> {
        write!(
            self.messages,
            "{} to move on [{}]; enter HEAP COUNT (q quits): ",
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
        let mut console = quiet_console("9 9\n1 2\n", false);
        let take = console.read_move(&game).unwrap();
        assert_eq!(
            take,
            Some(Take {
                heap: 1,
                count: 2u32.into()
            })
        );
        let error = console.read_move(&game).unwrap_err();
        assert_eq!(error.exit_code(), 1);
    }

    #[test]
    fn a_human_side_quits_with_q_or_at_the_end_of_typed_input() {
        let game = Game::new(heaps(&[3, 4]), Rule::Normal);
        for (input, typed) in [
            ("q\n", false),
            (" quit \n", false),
            ("0 9\nq\n", true),
            ("", true),
        ] {
            let mut console = quiet_console(input, typed);
            assert_eq!(console.read_move(&game).unwrap(), None, "{input:?}");
        }
    }
}
