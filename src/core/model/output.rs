//! [`Output`]: what one step of the core decided.

use std::collections::BTreeSet;

use crate::core::model::Mail;
use crate::core::model::{Event, Seal};
use crate::game_ref::GameRef;

/// What one step of the core decided.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Output {
    /// Mails to send.
    pub mails: Vec<Mail>,
    /// Events to append to the games' logs, each with its seal (TO §29).
    pub events: Vec<LoggedEvent>,
    /// Games whose state changed.
    pub games: BTreeSet<GameRef>,
    /// Tournaments whose state changed.
    pub tournaments: BTreeSet<String>,
    /// Reply keys added.
    pub keys: Vec<String>,
    /// The games an incoming letter belongs to (for the archive, TO §11).
    pub letter_games: BTreeSet<GameRef>,
    /// One line for the log: what was done.
    pub log: Vec<String>,
    /// Fax 2.8: tournaments whose archive is to be rotated away now, with their games.
    pub rotate: Vec<(String, BTreeSet<GameRef>)>,
    /// Tournaments withdrawn before their first move (`crate::core::register`), already gone
    /// from the state: the shell removes them from the store with everything that is theirs
    /// (games, reply keys, deadlines, mails not yet sent), in the step's transaction.
    pub withdrawn: BTreeSet<String>,
    /// The letter was not acted on for a reason the operator must see: the shell keeps it in
    /// quarantine with this reason (e.g. no DMARC pass, `crate::core::door::screen`).
    pub quarantine: Option<String>,
    /// The refusals of a letter that came through a client which shows them itself
    /// (`Trace::direct`, XFCC): said to the client at once instead of in a query mail. A letter
    /// refused so changed nothing, and the shell keeps nothing of it.
    pub refused: Vec<crate::core::model::Refusal>,
}

/// One event appended to a game's log: number `seq` of `game`'s log, with its [`Seal`].
#[derive(Debug, Clone, PartialEq)]
pub struct LoggedEvent {
    pub game: GameRef,
    pub seq: u64,
    pub event: Event,
    pub seal: Seal,
}

impl LoggedEvent {
    /// The event as the store keeps it: its JSON object with the seal under `seal`.
    pub fn stored(&self) -> serde_json::Value {
        let mut value = serde_json::to_value(&self.event).unwrap_or_default();
        if let (serde_json::Value::Object(map), Ok(seal)) =
            (&mut value, serde_json::to_value(&self.seal))
        {
            map.insert(SEAL_KEY.to_string(), seal);
        }
        value
    }
}

/// The key of an event's seal in the JSON the store keeps ([`LoggedEvent::stored`]).
pub const SEAL_KEY: &str = "seal";

impl Output {
    /// Adds what another step decided, after what this one did.
    pub fn absorb(&mut self, other: Output) {
        self.mails.extend(other.mails);
        self.events.extend(other.events);
        self.games.extend(other.games);
        self.tournaments.extend(other.tournaments);
        self.keys.extend(other.keys);
        self.letter_games.extend(other.letter_games);
        self.rotate.extend(other.rotate);
        self.withdrawn.extend(other.withdrawn);
        self.log.extend(other.log);
        self.quarantine = self.quarantine.take().or(other.quarantine);
        self.refused.extend(other.refused);
    }
}
