//! [`Tournament`]: a registered tournament, its director and its [`Player`]s.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Serialize};

use crate::core::clock::Rest;
use crate::core::model::{Person, Recipient};
use crate::game_ref::GameRef;
use crate::lang::{Board, Lang};
use crate::rules::RuleSet;

/// A player of a tournament.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Player {
    pub name: String,
    pub email: String,
    pub lang: Option<Lang>,
    /// How his mails show the position, as the tournament file says (`board`); `None`: as he
    /// asked by mail, else the diagram (`crate::core::door::reply::board_for`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub board: Option<Board>,
    /// Further addresses he writes from (the tournament file's `also`, or the director's
    /// `Weitere Adresse`/`Adresse`): a mail from one of them counts as his. `email` stays the
    /// name the relay knows him by.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub also: Vec<String>,
    /// Where his mail goes since the director changed his address (`Adresse: old -> new`);
    /// `None`: to `email`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_to: Option<String>,
    /// TO §24: his leaves in this tournament.
    #[serde(default)]
    pub leaves: Vec<Rest>,
    /// TO §24: special leave granted by the director, beyond the 42-day budget.
    #[serde(default)]
    pub special_leaves: Vec<Rest>,
}

/// A registered tournament.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Tournament {
    pub id: String,
    pub name: String,
    pub rules: RuleSet,
    pub start: NaiveDate,
    /// When the clocks of the first moves start: 00:00 of `start`, or the registration if later.
    pub clock_start: DateTime<Utc>,
    pub registered: DateTime<Utc>,
    pub director: Person,
    pub players: Vec<Player>,
    /// The weekly director digest is wanted.
    pub digest: bool,
    /// Fax 2.8: the archive of its mails was rotated away (four weeks after its end).
    #[serde(default)]
    pub rotated: bool,
    /// Fax 2.8: when it was (`None` for a tournament rotated by a version before this field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotated_at: Option<DateTime<Utc>>,
    pub games: Vec<GameRef>,
    /// TO §23: the director's questions to players, answered or not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub questions: Vec<crate::core::model::Question>,
    /// TO §27: the report of its end (`tournament-end`, `crate::core::records::tournament_end`),
    /// still to come once its last game ends, or sent.
    #[serde(default, skip_serializing_if = "untracked")]
    pub end_report: EndReport,
}

/// Whether the end of a tournament is reported to its players and director (`tournament-end`),
/// once, when its last game ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EndReport {
    /// A tournament registered before the report existed, none of whose games ended since: it
    /// may have ended long ago, and is never reported. The first game of it that ends makes it
    /// [`EndReport::Pending`] (`crate::core::door::reply::finish`).
    #[default]
    Untracked,
    /// Reported when its last game has ended.
    Pending,
    /// Reported at this instant.
    Sent(DateTime<Utc>),
}

/// A tournament's record leaves an [`EndReport::Untracked`] out (as versions before it wrote it).
fn untracked(e: &EndReport) -> bool {
    *e == EndReport::Untracked
}

impl Tournament {
    pub fn player(&self, email: &str) -> Option<&Player> {
        self.players.iter().find(|p| p.email == email)
    }

    /// The language to write to `email` in.
    pub fn lang_of(&self, email: &str, default: Lang) -> Lang {
        self.player(email).and_then(|p| p.lang).unwrap_or(default)
    }

    pub fn recipient(&self, email: &str) -> Recipient {
        let name = self
            .player(email)
            .map(|p| p.name.clone())
            .unwrap_or_else(|| email.to_string());
        Recipient {
            name,
            email: email.to_string(),
        }
    }

    pub fn director_recipient(&self) -> Recipient {
        Recipient {
            name: self.director.name.clone(),
            email: self.director.email.clone(),
        }
    }

    /// The rest days (TO §24) of a player: his leaves and his special leaves.
    pub fn rest_of(&self, email: &str) -> Vec<Rest> {
        self.player(email)
            .map(|p| p.leaves.iter().chain(&p.special_leaves).copied().collect())
            .unwrap_or_default()
    }
}
