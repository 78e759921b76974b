//! [`GameResult`] and [`EndReason`]: how a game ended (TO §27), as values. Both serialise as the
//! strings the store has always held (`1-0`, `checkmate`, …), so stored games read unchanged.

use serde::{Deserialize, Serialize};
use shakmaty::Color;

/// The result of a finished game.
///
/// ```
/// use fernzug::core::model::GameResult;
/// use shakmaty::Color;
/// assert_eq!(GameResult::for_winner(Color::Black).to_string(), "0-1");
/// assert_eq!("1/2-1/2".parse(), Ok(GameResult::Draw));
/// assert_eq!(GameResult::Draw.half_points(Color::White), 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum GameResult {
    #[serde(rename = "1-0")]
    WhiteWins,
    #[serde(rename = "0-1")]
    BlackWins,
    #[serde(rename = "1/2-1/2")]
    Draw,
}

impl GameResult {
    /// `1-0` or `0-1`.
    pub fn for_winner(winner: Color) -> GameResult {
        match winner {
            Color::White => GameResult::WhiteWins,
            Color::Black => GameResult::BlackWins,
        }
    }

    /// The PGN notation: `1-0`, `0-1`, `1/2-1/2`.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
        }
    }

    /// The half points `color` scored: 2, 1 or 0.
    pub fn half_points(self, color: Color) -> u32 {
        match (self, color) {
            (GameResult::Draw, _) => 1,
            (GameResult::WhiteWins, Color::White) | (GameResult::BlackWins, Color::Black) => 2,
            _ => 0,
        }
    }
}

impl std::fmt::Display for GameResult {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A text that is not one of `1-0`, `0-1`, `1/2-1/2`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{0}` is not a result (1-0, 0-1 or 1/2-1/2)")]
pub struct NotAResult(pub String);

impl std::str::FromStr for GameResult {
    type Err = NotAResult;
    fn from_str(s: &str) -> Result<GameResult, NotAResult> {
        match s {
            "1-0" => Ok(GameResult::WhiteWins),
            "0-1" => Ok(GameResult::BlackWins),
            "1/2-1/2" => Ok(GameResult::Draw),
            other => Err(NotAResult(other.to_string())),
        }
    }
}

/// Why a game ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum EndReason {
    /// FIDE 5.1.1.
    #[serde(rename = "checkmate")]
    Checkmate,
    /// FIDE 5.2.1.
    #[serde(rename = "stalemate")]
    Stalemate,
    /// TO §2: in words.
    #[serde(rename = "resignation")]
    Resignation,
    /// TO §2: an offer accepted.
    #[serde(rename = "draw agreed")]
    DrawAgreed,
    /// FIDE 5.2.2: no sequence of legal moves can mate.
    #[serde(rename = "dead position (insufficient material)")]
    DeadPosition,
    /// FIDE 9.6.1: drawn without a claim.
    #[serde(rename = "fivefold repetition")]
    FivefoldRepetition,
    /// FIDE 9.2: claimed and found to hold.
    #[serde(rename = "threefold repetition")]
    ThreefoldRepetition,
    /// TO §22: the director confirmed the second time forfeit.
    #[serde(rename = "time forfeit confirmed by the director (TO §22)")]
    ForfeitConfirmed,
    /// TO §26, §31: the director set the result.
    #[serde(rename = "decision of the director (TO §26, §31)")]
    DirectorDecision,
    /// TO §26: the player withdrew from the tournament; the game is lost for him.
    #[serde(rename = "withdrawal from the tournament (TO §26)")]
    Withdrawn,
    /// TO §26: the player withdrew; the game is annulled (`*`, kept out of the crosstable).
    #[serde(rename = "annulled after a withdrawal (TO §26)")]
    Annulled,
}

impl EndReason {
    /// The reason as the record keeps it (the event log, the PGN comment), in English.
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::Checkmate => "checkmate",
            EndReason::Stalemate => "stalemate",
            EndReason::Resignation => "resignation",
            EndReason::DrawAgreed => "draw agreed",
            EndReason::DeadPosition => "dead position (insufficient material)",
            EndReason::FivefoldRepetition => "fivefold repetition",
            EndReason::ThreefoldRepetition => "threefold repetition",
            EndReason::ForfeitConfirmed => "time forfeit confirmed by the director (TO §22)",
            EndReason::DirectorDecision => "decision of the director (TO §26, §31)",
            EndReason::Withdrawn => "withdrawal from the tournament (TO §26)",
            EndReason::Annulled => "annulled after a withdrawal (TO §26)",
        }
    }

    /// The PGN standard's `Termination` tag.
    pub fn termination(self) -> &'static str {
        match self {
            EndReason::ForfeitConfirmed => "time forfeit",
            EndReason::DirectorDecision => "adjudication",
            EndReason::Withdrawn | EndReason::Annulled => "abandoned",
            _ => "normal",
        }
    }
}

impl EndReason {
    /// TO §29: whether the end is a decision of the director, which the players may appeal.
    pub fn is_decision(self) -> bool {
        matches!(
            self,
            EndReason::ForfeitConfirmed
                | EndReason::DirectorDecision
                | EndReason::Withdrawn
                | EndReason::Annulled
        )
    }
}

impl std::fmt::Display for EndReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
