//! The facts of the mails time alone sends: `reminder` (TO §16), `silence-report` (TO §16) and
//! the director's weekly `digest` (TO §16–§21, §24).

use serde::Serialize;

use crate::core::model::facts::{Colour, Day, GameContext, When};

/// `reminder` (TO §16) to the silent player, director in copy. The last move is the context's
/// (in the reader's notation).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReminderFacts {
    #[serde(flatten)]
    pub context: GameContext,
    pub recipient: String,
    pub since: When,
    pub days_waited: u32,
    pub at: When,
    pub silence_report_at: When,
    /// TO §13: the count shown includes 5 extra days after 10 days without announcement.
    pub penalty: bool,
}

/// `clock-warning` (TO §17) to the player on move: his days before the next control are few.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ClockWarningFacts {
    #[serde(flatten)]
    pub context: GameContext,
    pub recipient: String,
    pub warning: WarningBody,
}

/// What a [`ClockWarningFacts`] warns of.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct WarningBody {
    /// Days left before the control, the running move's days (and TO §13's surcharge) charged.
    pub days_left: u32,
    /// The game's move number after which the control is checked.
    pub next_control: u32,
    /// Moves still to be made before it, the running one included.
    pub moves_to_go: u32,
    /// When the limit is exceeded without a move (TO §18).
    pub forfeit_at: When,
    /// TO §13: the player announced more than 10 days for this move.
    pub announced: bool,
}

/// `silence-report` (TO §16): 14 further days of silence, to the director.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SilenceFacts {
    #[serde(flatten)]
    pub context: GameContext,
    pub silent: String,
    pub silent_email: String,
    pub silent_color: Colour,
    pub since: When,
    pub reminded: Option<When>,
    pub at: When,
}

/// `digest`: the director's weekly overview of one tournament (what is silent, which controls
/// and leaves come within the horizon, what is stopped).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DigestFacts {
    pub recipient: String,
    pub tournament_id: String,
    pub tournament: String,
    pub today: Day,
    pub now: When,
    pub silent: Vec<DigestSilent>,
    pub controls: Vec<DigestControl>,
    pub leaves: Vec<DigestLeave>,
    pub suspended: Vec<DigestGame>,
    pub adjourned: Vec<DigestGame>,
    /// TO §23: the director's questions still open.
    pub questions: Vec<DigestQuestion>,
    /// Nothing to list.
    pub quiet: bool,
    pub horizon: Day,
}

/// A director's question still unanswered (TO §23).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DigestQuestion {
    pub player: String,
    pub asked: Day,
    pub text: String,
}

/// A digest's game whose player to move has been silent long (TO §16).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DigestSilent {
    pub game: String,
    pub players: String,
    pub silent: String,
    pub days: u32,
    pub since: Day,
}

/// A digest's time control that falls due within the horizon (TO §18, §21).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DigestControl {
    pub game: String,
    pub players: String,
    pub player: String,
    pub allowed: u32,
    pub at: When,
}

/// A digest's leave that starts or ends within the horizon (TO §24, §25).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DigestLeave {
    pub player: String,
    pub from: Day,
    pub to: Day,
    pub starts: bool,
    pub ends: bool,
    pub special: bool,
}

/// A digest's stopped game (suspended or adjourned).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DigestGame {
    pub game: String,
    pub players: String,
}
