//! The facts of the mails every room sends the same way: the `query` (TO §8) and the director's
//! `bounce-report` (Fax 2.2 a refusal, Fax 2.3 a mail given up).

use serde::Serialize;

use crate::core::model::facts::{GameContext, When};

/// `query` (TO §8): why a letter is not acted on goes in the sentence `reason`; these are the
/// rest. About a known game, the game's facts too.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct QueryFacts {
    pub recipient: String,
    /// Whom the query answers: `player`, `director` or `stranger`.
    pub about: &'static str,
    pub subject: String,
    /// TO §8: what the relay read of the mail (the writer's own text, without the quote and the
    /// signature; its first lines), so that he sees what it could not accept; empty for an
    /// address no tournament knows.
    pub read: Vec<String>,
    #[serde(flatten)]
    pub around: QueryAround,
}

/// What a query shows besides itself: the game it is about, or only the instant.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum QueryAround {
    /// The letter names a known game (its `now` is the query's).
    Game(Box<GameContext>),
    /// No game known.
    Bare { now: When },
}

/// `bounce-report` to the director (Fax 2.2: a mail was refused or bounced; Fax 2.3: the relay
/// gave a mail up, the sentence `text` then says so). The same facts for both, so one template
/// serves both.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BounceFacts {
    pub recipient: String,
    pub player: String,
    pub player_email: String,
    /// The kind of the mail that did not arrive, if known.
    pub kind: Option<String>,
    pub undelivered_id: String,
    pub error: String,
    /// The text of the report (Fax 2.2), shortened; for a mail given up (Fax 2.3) the sentence
    /// `text` takes its place.
    pub text: Option<String>,
    #[serde(flatten)]
    pub around: BounceAround,
}

/// What a bounce report shows besides itself: the game of the mail, else its tournament.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum BounceAround {
    /// The game is known (its tournament and `now` are the report's).
    Game(Box<GameContext>),
    /// Only the tournament.
    Tournament {
        tournament_id: String,
        tournament: String,
        now: When,
    },
}

/// `alert`: the relay cannot do its work (IMAP, SMTP, the outbox), or can again.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AlertFacts {
    /// The relay's address (which relay this is about).
    pub relay: String,
    /// `imap`, `smtp` or `outbox`.
    pub concern: String,
    pub since: When,
    /// When it worked again; absent while it fails.
    pub until: Option<When>,
    /// How long it failed (so far), in minutes.
    pub minutes: i64,
    /// The last error, or what waits.
    pub detail: String,
    pub now: When,
}
