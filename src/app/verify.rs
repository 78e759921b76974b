//! `fernzug verify GAME` (TO §29 appeals): recomputes a game's chain of sealed events
//! ([`crate::core::model::Seal`]) from the store and the archive, and names the first event that
//! does not fit.
//!
//! An event fits when its seal names the hash of the event before it, its hash is the one
//! recomputed from its content, and the mail it came from is in the archive byte for byte as it
//! arrived. The last hash must be the game's. A game's events are read from the store, and from
//! its tournament's shelf file once the tournament was shelved (`crate::app::shelf`); its mails
//! from the archive, which the rotation of Fax 2.8 empties four weeks after the tournament's end:
//! a mail rotated away is counted, not held against the record.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::app::{App, AppError, Records, shelf};
use crate::core::model::output::SEAL_KEY;
use crate::core::model::{MailSeal, Seal};
use crate::game_ref::GameRef;
use crate::store::Direction;

/// What `verify` found for one game.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub game: GameRef,
    /// The events of the log.
    pub events: u64,
    /// The first events, logged before fernzug sealed its logs: not covered by the chain.
    pub unsealed: u64,
    /// The mails the sealed events came from that were found in the archive as they arrived
    /// (each once, however many events it caused).
    pub mails: usize,
    /// Those the archive no longer holds (Fax 2.8 rotation).
    pub rotated: usize,
    /// The last hash recomputed.
    pub hash: String,
    /// The first event that does not fit, if one does not.
    pub fault: Option<Fault>,
}

/// An event that does not fit the chain, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fault {
    /// The event's number in the game's log (0: the game itself).
    pub seq: u64,
    /// The event's kind and time as logged (`moved at 2026-12-03T09:00:00Z`), if readable.
    pub what: String,
    pub why: String,
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.fault {
            Some(fault) if fault.seq == 0 => {
                write!(f, "FAIL {}: {}", self.game, fault.why)
            }
            Some(fault) => write!(
                f,
                "FAIL {}: event {}{}: {}",
                self.game,
                fault.seq,
                if fault.what.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", fault.what)
                },
                fault.why
            ),
            None => {
                let plural = |n: u64, one: &str, many: &str| {
                    if n == 1 {
                        format!("1 {one}")
                    } else {
                        format!("{n} {many}")
                    }
                };
                write!(
                    f,
                    "ok {}: {}, {} checked",
                    self.game,
                    plural(self.events, "event", "events"),
                    plural(self.mails as u64, "mail", "mails")
                )?;
                if self.rotated > 0 {
                    write!(f, " ({} rotated out of the archive, Fax 2.8)", self.rotated)?;
                }
                if self.unsealed > 0 {
                    write!(
                        f,
                        "; events 1–{} were logged before the seals and are not covered",
                        self.unsealed
                    )?;
                }
                if self.hash.is_empty() {
                    write!(f, "; no event is sealed")
                } else {
                    write!(f, "; final hash {}", self.hash)
                }
            }
        }
    }
}

impl App {
    /// Recomputes the chain of `game` (opened with [`App::open_game`]). `Ok(None)`: no such game.
    pub fn verify(&self, game: &GameRef) -> Result<Option<Verdict>, AppError> {
        match self.state.games.get(game) {
            Some(g) => self.records().verify_game(g).map(Some),
            None => Ok(None),
        }
    }
}

impl Records<'_> {
    /// Recomputes the chain of the game `g` (one in memory, or read from the store or shelf).
    pub(crate) fn verify_game(&self, g: &crate::core::model::Game) -> Result<Verdict, AppError> {
        let game = &g.id;
        let key = game.to_string();
        let mut log: BTreeMap<u64, Value> = BTreeMap::new();
        if let Some(events) = shelf::read(&shelf::dir(self.store), &game.tournament)?
            .and_then(|mut file| file.events.remove(&key))
        {
            log.extend(events);
        }
        // Events logged after the shelving (a director's late result) stay in the store.
        log.extend(self.store.events::<Value>(&key)?);
        // Each incoming mail of the game hashed once: Message-ID → the SHA-256 of each copy.
        let mut archived: BTreeMap<String, Vec<String>> = BTreeMap::new();
        for entry in self.store.archive().for_game(&key)? {
            if entry.direction == Direction::In {
                let seal = MailSeal::of(&entry.message_id, &entry.raw);
                archived
                    .entry(seal.message_id)
                    .or_default()
                    .push(seal.sha256);
            }
        }
        let rotated_tournament = self
            .state
            .tournaments
            .get(&game.tournament)
            .is_some_and(|t| t.rotated);
        let mut v = Verdict {
            game: game.clone(),
            events: g.events,
            unsealed: 0,
            mails: 0,
            rotated: 0,
            hash: String::new(),
            fault: None,
        };
        let mut prev = Seal::GENESIS.to_string();
        let mut sealed = false;
        let mut checked = std::collections::BTreeSet::new();
        for seq in 1..=g.events {
            let fault = |what: String, why: String| Fault { seq, what, why };
            let Some(mut value) = log.remove(&seq) else {
                v.fault = Some(fault(String::new(), "missing from the log".into()));
                return Ok(v);
            };
            let what = describe(&value);
            let seal = match value.as_object_mut().map(|m| m.remove(SEAL_KEY)) {
                Some(Some(s)) => s,
                Some(None) if !sealed => {
                    v.unsealed = seq;
                    continue;
                }
                _ => {
                    v.fault = Some(fault(what, "carries no seal".into()));
                    return Ok(v);
                }
            };
            sealed = true;
            let Ok(seal) = serde_json::from_value::<Seal>(seal) else {
                v.fault = Some(fault(what, "its seal cannot be read".into()));
                return Ok(v);
            };
            if seal.prev != prev {
                v.fault = Some(fault(
                    what,
                    format!(
                        "its seal names {} as the hash before it, the log has {prev}",
                        seal.prev
                    ),
                ));
                return Ok(v);
            }
            let hash = Seal::hash_of(&prev, &key, seq, seal.mail.as_ref(), &value);
            if hash != seal.hash {
                v.fault = Some(fault(
                    what,
                    format!(
                        "its content was changed (it hashes to {hash}, its seal says {})",
                        seal.hash
                    ),
                ));
                return Ok(v);
            }
            if let Some(mail) = &seal.mail {
                match check_mail(mail, &archived) {
                    MailCheck::Kept => {
                        checked.insert(mail.message_id.clone());
                        v.mails = checked.len();
                    }
                    MailCheck::Gone if rotated_tournament => v.rotated += 1,
                    MailCheck::Gone => {
                        v.fault = Some(fault(
                            what,
                            format!(
                                "the mail it came from (Message-ID <{}>) is missing from the archive",
                                mail.message_id
                            ),
                        ));
                        return Ok(v);
                    }
                    MailCheck::Changed(found) => {
                        v.fault = Some(fault(
                            what,
                            format!(
                                "the archived mail it came from (Message-ID <{}>) was changed (it hashes to {found}, the seal says {})",
                                mail.message_id, mail.sha256
                            ),
                        ));
                        return Ok(v);
                    }
                }
            }
            prev = hash;
        }
        if let Some((&seq, _)) = log.iter().next() {
            v.fault = Some(Fault {
                seq,
                what: String::new(),
                why: format!(
                    "the log goes on after the game's last event ({}): it was added afterwards",
                    g.events
                ),
            });
            return Ok(v);
        }
        if sealed && g.seal != prev {
            v.fault = Some(Fault {
                seq: 0,
                what: String::new(),
                why: format!(
                    "the game names {} as the hash of its last event, the log ends with {prev}",
                    if g.seal.is_empty() { "none" } else { &g.seal }
                ),
            });
            return Ok(v);
        }
        v.hash = if sealed { prev } else { String::new() };
        Ok(v)
    }
}

/// An event's kind and time, as the log has them (`moved at 2026-12-03T09:00:00Z`).
fn describe(event: &Value) -> String {
    let kind = event["event"].as_str().unwrap_or("event");
    match event["at"].as_str() {
        Some(at) => format!("{kind} at {at}"),
        None => kind.to_string(),
    }
}

enum MailCheck {
    /// In the archive as sealed.
    Kept,
    /// No incoming mail with its Message-ID is archived for the game.
    Gone,
    /// Archived, but its bytes hash to this.
    Changed(String),
}

fn check_mail(mail: &MailSeal, archived: &BTreeMap<String, Vec<String>>) -> MailCheck {
    match archived.get(&mail.message_id) {
        None => MailCheck::Gone,
        Some(hashes) if hashes.contains(&mail.sha256) => MailCheck::Kept,
        Some(hashes) => MailCheck::Changed(hashes.join(", ")),
    }
}
