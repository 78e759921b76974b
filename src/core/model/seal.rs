//! [`Seal`]: what makes a game's log a record no one can rewrite unnoticed (TO §29 appeals).
//!
//! Every event of a game's log carries a seal: the hash of the event before it (`prev`), the
//! SHA-256 of the archived mail it came from (`mail`, when a mail caused it), and its own hash
//! (`hash`) over all of these and the event itself. The last hash stands in the game
//! ([`crate::core::model::Game::seal`]), in the `game-end` report and in the PGN; `fernzug verify
//! GAME` recomputes the chain from the store and the archive and names the first event that does
//! not fit.
//!
//! The hash of event `seq` of game `game`:
//!
//! ```text
//! SHA-256( "fernzug-seal-1" 0x00 prev 0x00 game 0x00 seq 0x00 mail 0x00 event )
//! ```
//!
//! where `prev` is the hash before it (64 × `0` for a game's first sealed event), `seq` in
//! decimal, `mail` the mail's Message-ID, `0x00` and its SHA-256 (or `-` when no mail caused it),
//! and `event` the event as canonical JSON: objects with their keys in byte order, no spaces
//! (what the store keeps may order the keys otherwise, e.g. after a tournament was shelved). All
//! hashes are lower-case hex.
//!
//! ```
//! use fernzug::core::model::{Event, Seal};
//! use chrono::{TimeZone, Utc};
//!
//! let started = Event::Started { at: Utc.with_ymd_and_hms(2026, 12, 1, 8, 0, 0).unwrap() };
//! let first = Seal::after(Seal::GENESIS, "FAX-2026-3/7", 1, None, &started);
//! assert_eq!(first.prev, Seal::GENESIS);
//! assert_eq!(first.hash.len(), 64);
//! // The same event in another place of the chain has another hash.
//! let again = Seal::after(&first.hash, "FAX-2026-3/7", 2, None, &started);
//! assert_ne!(again.hash, first.hash);
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::core::model::Event;
use crate::letter::digest::{hex, sha256};

/// The seal of one event of a game's log (see the module's documentation).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seal {
    /// The hash of the event before it, [`Seal::GENESIS`] for the first.
    pub prev: String,
    /// The archived mail the event came from, if a mail caused it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mail: Option<MailSeal>,
    /// This event's hash.
    pub hash: String,
}

/// The mail an event came from: its Message-ID and the SHA-256 of its raw bytes as archived.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailSeal {
    pub message_id: String,
    pub sha256: String,
}

impl MailSeal {
    /// The seal of the raw mail `raw` with Message-ID `message_id`.
    pub fn of(message_id: &str, raw: &[u8]) -> MailSeal {
        MailSeal {
            message_id: message_id.to_string(),
            sha256: hex(&sha256(raw)),
        }
    }
}

impl Seal {
    /// The `prev` of a game's first sealed event.
    pub const GENESIS: &'static str =
        "0000000000000000000000000000000000000000000000000000000000000000";

    /// The seal of `event`, number `seq` of `game`'s log, after the event whose hash is `prev`.
    pub fn after(prev: &str, game: &str, seq: u64, mail: Option<&MailSeal>, event: &Event) -> Seal {
        // An event is plain data (strings, numbers, dates): it always has a JSON form.
        let value = serde_json::to_value(event).unwrap_or(Value::Null);
        Seal {
            prev: prev.to_string(),
            mail: mail.cloned(),
            hash: Seal::hash_of(prev, game, seq, mail, &value),
        }
    }

    /// The `prev` of the event after the one whose hash is `last` (empty: none is sealed yet).
    pub fn prev_of(last: &str) -> &str {
        if last.is_empty() { Seal::GENESIS } else { last }
    }

    /// The hash of an event given as JSON (`event` without its seal): what [`Seal::after`]
    /// computes, and what `fernzug verify` recomputes from the store.
    pub fn hash_of(
        prev: &str,
        game: &str,
        seq: u64,
        mail: Option<&MailSeal>,
        event: &Value,
    ) -> String {
        let mut bytes = Vec::with_capacity(512);
        for part in [
            b"fernzug-seal-1".as_slice(),
            prev.as_bytes(),
            game.as_bytes(),
        ] {
            bytes.extend_from_slice(part);
            bytes.push(0);
        }
        bytes.extend_from_slice(seq.to_string().as_bytes());
        bytes.push(0);
        match mail {
            Some(m) => {
                bytes.extend_from_slice(m.message_id.as_bytes());
                bytes.push(0);
                bytes.extend_from_slice(m.sha256.as_bytes());
            }
            None => bytes.push(b'-'),
        }
        bytes.push(0);
        canonical(event, &mut bytes);
        hex(&sha256(&bytes))
    }
}

/// Writes `v` as canonical JSON: object keys in byte order, no spaces.
fn canonical(v: &Value, out: &mut Vec<u8>) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push(b'{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                scalar(&Value::String(k.clone()), out);
                out.push(b':');
                canonical(&map[k], out);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                canonical(item, out);
            }
            out.push(b']');
        }
        other => scalar(other, out),
    }
}

/// A string, number, boolean or null as serde_json writes it.
fn scalar(v: &Value, out: &mut Vec<u8>) {
    // Writing a scalar into a Vec cannot fail.
    let _ = serde_json::to_writer(&mut *out, v);
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{TimeZone, Utc};

    fn moved() -> Event {
        Event::Moved {
            at: Utc.with_ymd_and_hms(2026, 12, 3, 9, 0, 0).unwrap(),
            color: crate::core::model::SerdeColor::White,
            san: "e4".into(),
            uci: "e2e4".into(),
            days_used: 1,
            charged: 1,
            message_id: "m1@test".into(),
        }
    }

    #[test]
    fn s29_the_hash_does_not_depend_on_the_order_of_the_keys_as_stored() {
        let e = moved();
        let value = serde_json::to_value(&e).unwrap();
        // The same event with its keys in reverse order, as another writer might keep it.
        let Value::Object(map) = value.clone() else {
            panic!("an event is an object")
        };
        let text = format!(
            "{{{}}}",
            map.iter()
                .rev()
                .map(|(k, v)| format!("{}: {}", Value::String(k.clone()), v))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let reordered: Value = serde_json::from_str(&text).unwrap();
        let sealed = Seal::after(Seal::GENESIS, "T-1/1", 1, None, &e);
        assert_eq!(
            Seal::hash_of(Seal::GENESIS, "T-1/1", 1, None, &reordered),
            sealed.hash
        );
    }

    #[test]
    fn s29_every_part_of_the_sealed_record_changes_the_hash() {
        let e = moved();
        let mail = MailSeal::of("m1@test", b"Subject: x\r\n\r\n1. e4\r\n");
        let base = Seal::after(Seal::GENESIS, "T-1/1", 1, Some(&mail), &e).hash;
        let mut other_prev = Seal::GENESIS.to_string();
        other_prev.replace_range(0..1, "1");
        let changed_mail = MailSeal::of("m1@test", b"Subject: x\r\n\r\n1. d4\r\n");
        let mut changed_event = serde_json::to_value(&e).unwrap();
        changed_event["san"] = Value::String("d4".into());
        for (what, hash) in [
            (
                "prev",
                Seal::after(&other_prev, "T-1/1", 1, Some(&mail), &e).hash,
            ),
            (
                "game",
                Seal::after(Seal::GENESIS, "T-1/2", 1, Some(&mail), &e).hash,
            ),
            (
                "seq",
                Seal::after(Seal::GENESIS, "T-1/1", 2, Some(&mail), &e).hash,
            ),
            (
                "no mail",
                Seal::after(Seal::GENESIS, "T-1/1", 1, None, &e).hash,
            ),
            (
                "mail",
                Seal::after(Seal::GENESIS, "T-1/1", 1, Some(&changed_mail), &e).hash,
            ),
            (
                "event",
                Seal::hash_of(Seal::GENESIS, "T-1/1", 1, Some(&mail), &changed_event),
            ),
        ] {
            assert_ne!(hash, base, "{what} is part of the hash");
        }
    }
}
