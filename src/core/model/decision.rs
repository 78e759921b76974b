//! [`Decision`]: the last decision about a game that its players may dispute or appeal — a time
//! forfeit the relay claimed (TO §18, §21) or a decision of the director (TO §29) — and when it
//! was made. A player's reply through his key of replies to decisions (`KeyBinding::to_director`)
//! goes to the director as an answer to it.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::core::model::{EndReason, GameResult, SerdeColor};

/// What was decided about a game, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Decision {
    pub what: Decided,
    pub at: DateTime<Utc>,
}

/// What was decided.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum Decided {
    /// TO §18, §21: the relay claimed a time forfeit of `color` (the first or the second).
    Forfeit { color: SerdeColor, nth: u8 },
    /// The game ended by a decision (TO §22, §26, §31): how, and with which result (`None`:
    /// annulled).
    Ended {
        reason: EndReason,
        result: Option<GameResult>,
    },
    /// TO §30: the game's words restricted to moves (`on`), or no longer.
    MovesOnly { on: bool },
    /// TO §30: the game's moves through the director (`on`), or no longer.
    ThroughDirector { on: bool },
    /// TO §8, §30: days of `color`'s thinking time charged (`days` > 0) or credited.
    Time { color: SerdeColor, days: i32 },
    /// TO §30: a formal warning of `color`.
    Warning { color: SerdeColor },
    /// A stopped game resumed.
    Resumed,
}

impl Decided {
    /// Whether it is the director's (TO §29: the players may appeal within two weeks), not a
    /// forfeit the relay claimed by the rules (TO §18: a dispute goes to him, without a term).
    pub fn by_director(&self) -> bool {
        !matches!(self, Decided::Forfeit { .. })
    }
}
