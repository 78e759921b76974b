//! [`ConditionalLine`]: one pending conditional line of a game (TO §6, Eventualzüge).

use serde::{Deserialize, Serialize};

use crate::core::model::SerdeColor;

/// One pending conditional line of a game (TO §6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConditionalLine {
    /// The proposer.
    pub by: SerdeColor,
    /// The ply (0-based index into the game's moves) the first remaining move is for.
    pub ply: usize,
    /// The remaining moves in UCI, alternating colours, the first one at `ply`.
    pub moves: Vec<String>,
    /// The Message-ID of the mail that proposed the line.
    pub message_id: String,
}
