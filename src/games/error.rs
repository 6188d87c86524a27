//! The one error of the games module: a game string that does not parse,
//! or a value sequence that cannot be held (a value past 65,535).
//!
//! It carries only its message; the crate's callers wrap it into
//! [`crate::error::Error::Usage`].

use std::fmt;

/// What went wrong, said so that the user can fix it: the message quotes
/// the bad input and says what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameError {
    message: String,
}

impl GameError {
    /// An error with this message.
    pub(crate) fn new(message: impl Into<String>) -> GameError {
        GameError {
            message: message.into(),
        }
    }

    /// The message, as [`Display`](fmt::Display) prints it.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for GameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for GameError {}

impl From<GameError> for crate::error::Error {
    fn from(error: GameError) -> crate::error::Error {
        crate::error::Error::Usage(error.message)
    }
}
