//! [`Event`]: one entry of a game's append-only log.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::core::model::{EndReason, GameResult, SerdeColor};

/// Something that happened in a game; the store appends each to the game's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// The game was created and the start mails queued.
    Started { at: DateTime<Utc> },
    /// A move was played (TO §2).
    Moved {
        at: DateTime<Utc>,
        color: SerdeColor,
        san: String,
        uci: String,
        days_used: u32,
        charged: u32,
        message_id: String,
    },
    /// A mail about this game was refused with a query (TO §8).
    Queried {
        at: DateTime<Utc>,
        from: String,
        /// The refusal as the code names it (`NotYourTurn { game: "T-1/1" }`); the words the
        /// sender read are in the archived query mail.
        reason: String,
        message_id: String,
    },
    /// TO §13: more than 10 days announced.
    Announced {
        at: DateTime<Utc>,
        color: SerdeColor,
    },
    /// TO §16: reminder sent through the director.
    Reminded {
        at: DateTime<Utc>,
        color: SerdeColor,
    },
    /// TO §16: silence reported to the director.
    SilenceReported {
        at: DateTime<Utc>,
        color: SerdeColor,
    },
    /// TO §18/§21: a time forfeit (1st or 2nd).
    TimeForfeit {
        at: DateTime<Utc>,
        color: SerdeColor,
        nth: u8,
        used: u32,
        allowed: u32,
    },
    /// TO §20: the offender's period restarted.
    PeriodRestarted {
        at: DateTime<Utc>,
        color: SerdeColor,
        carry: u32,
    },
    /// TO §6: conditional lines proposed with a move (UCI, each from the partner's reply on).
    ConditionalProposed {
        at: DateTime<Utc>,
        color: SerdeColor,
        lines: Vec<Vec<String>>,
    },
    /// TO §31: the game stopped for the director's adjudication.
    Adjourned { at: DateTime<Utc>, reason: String },
    /// The game ended (TO §27).
    Ended {
        at: DateTime<Utc>,
        result: GameResult,
        reason: EndReason,
    },
    /// TO §26: the game was annulled (no result, kept out of the crosstable).
    Annulled {
        at: DateTime<Utc>,
        reason: EndReason,
    },
    /// TO §24/§25: a leave of a player of this game.
    Leave {
        at: DateTime<Utc>,
        player: String,
        from: NaiveDate,
        to: NaiveDate,
        how: LeaveHow,
    },
    /// A director's command carried out (TO §21–§26, §30, §31; Fax 2.2), in English, with the
    /// Message-ID of the director's mail (archived under this game, TO §11).
    Director {
        at: DateTime<Utc>,
        by: String,
        command: String,
        message_id: String,
    },
    /// TO §30: a player's words without a move forwarded to his partner (`message`), with the
    /// Message-ID of his mail (archived under this game, TO §11).
    Message {
        at: DateTime<Utc>,
        by: SerdeColor,
        message_id: String,
    },
    /// TO §18, §29: a player's words about the game went to the director — a reply to a
    /// decision, or an appeal (`appeal`) — with the Message-ID of his mail.
    ToDirector {
        at: DateTime<Utc>,
        by: SerdeColor,
        appeal: bool,
        message_id: String,
    },
    /// Fax 2.2: a mail of this game could not be delivered to a player; reported to the director.
    Bounced {
        at: DateTime<Utc>,
        recipient: String,
        message_id: String,
        error: String,
    },
}

/// How a leave came about (TO §24/§25); serialised as `granted`, `special`, `late`, `ended-early`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LeaveHow {
    /// Asked for by the player and within the budget.
    Granted,
    /// Special leave the director granted beyond the budget.
    Special,
    /// A late notice the director accepted (TO §25).
    Late,
    /// Ended early by a move of the player (the leave as it now stands).
    EndedEarly,
    /// Withdrawn by the player before it began (the leave that was planned).
    Withdrawn,
}

impl LeaveHow {
    /// The serialised name (`ended-early`), for the log.
    pub fn name(self) -> &'static str {
        match self {
            LeaveHow::Granted => "granted",
            LeaveHow::Special => "special",
            LeaveHow::Late => "late",
            LeaveHow::EndedEarly => "ended-early",
            LeaveHow::Withdrawn => "withdrawn",
        }
    }
}
