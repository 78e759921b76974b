//! [`GameRef`]: the name of one game, `TOURNAMENT/N` (e.g. `FAX-2026-3/7`).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// A game's reference: the tournament id and the game number within it.
///
/// ```
/// use fernzug::game_ref::GameRef;
/// let g: GameRef = "FAX-2026-3/7".parse().unwrap();
/// assert_eq!(g.tournament, "FAX-2026-3");
/// assert_eq!(g.number, 7);
/// assert_eq!(g.to_string(), "FAX-2026-3/7");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct GameRef {
    pub tournament: String,
    pub number: u32,
}

impl GameRef {
    pub fn new(tournament: impl Into<String>, number: u32) -> GameRef {
        GameRef {
            tournament: tournament.into(),
            number,
        }
    }
}

/// Why a text is not a game reference.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a game reference of the form TOURNAMENT/N (e.g. FAX-2026-3/7)")]
pub struct ParseGameRefError(pub String);

/// Whether `id` is a valid tournament id: letters, digits and `-`, not empty.
pub fn valid_tournament_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= 64 && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
}

impl FromStr for GameRef {
    type Err = ParseGameRefError;
    fn from_str(s: &str) -> Result<GameRef, ParseGameRefError> {
        let err = || ParseGameRefError(s.to_string());
        let (t, n) = s.trim().split_once('/').ok_or_else(err)?;
        if !valid_tournament_id(t) || n.is_empty() || !n.chars().all(|c| c.is_ascii_digit()) {
            return Err(err());
        }
        let number: u32 = n.parse().map_err(|_| err())?;
        if number == 0 {
            return Err(err());
        }
        Ok(GameRef::new(t, number))
    }
}

impl fmt::Display for GameRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.tournament, self.number)
    }
}

impl From<GameRef> for String {
    fn from(g: GameRef) -> String {
        g.to_string()
    }
}

impl TryFrom<String> for GameRef {
    type Error = ParseGameRefError;
    fn try_from(s: String) -> Result<GameRef, ParseGameRefError> {
        s.parse()
    }
}
