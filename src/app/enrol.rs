//! A tournament registered in parts: the games, their reply keys and events are written a few
//! hundred games per transaction, and the tournament itself comes last. A database transaction
//! holds everything it writes in memory until it ends, and a 10,000-game tournament in one
//! transaction cost hundreds of megabytes; in parts, `tournament add` stays small.
//!
//! Until the last part, a note in the store (`Batch::registering`) marks the parts as not
//! counting: should the registration stop in between, the next opening of the store removes them
//! (`Store::abandon_registrations`), and the tournament can simply be added again.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use super::{App, AppError};
use crate::core::{KeyBinding, Output};
use crate::game_ref::GameRef;
use crate::store::{Batch, PendingStarts};

/// Games written per transaction of a registration.
pub const REGISTER_CHUNK: usize = 500;

impl App {
    /// Writes what [`crate::core::State::register_without_mails`] decided (`out`, with the games
    /// and keys in the state) in parts of `chunk` games ([`REGISTER_CHUNK`]); the last transaction
    /// adds the tournament, the index of its deadlines and the note of its start mails still to
    /// queue.
    pub(crate) fn write_registration(
        &mut self,
        id: &str,
        out: &Output,
        now: DateTime<Utc>,
        chunk: usize,
    ) -> Result<(), AppError> {
        let mut keys_of: BTreeMap<&GameRef, Vec<(&String, &KeyBinding)>> = BTreeMap::new();
        for k in &out.keys {
            if let Some(b) = self.state.keys.get(k) {
                keys_of.entry(&b.game).or_default().push((k, b));
            }
        }
        let mut events_of: BTreeMap<&GameRef, Vec<(u64, serde_json::Value)>> = BTreeMap::new();
        for e in &out.events {
            events_of
                .entry(&e.game)
                .or_default()
                .push((e.seq, e.stored()));
        }
        let games: Vec<&GameRef> = out.games.iter().collect();
        for (i, part) in games.chunks(chunk.max(1)).enumerate() {
            let mut batch = Batch::default();
            if i == 0 {
                batch.registering(id, Some(now));
            }
            for g in part {
                let name = g.to_string();
                if let Some(game) = self.state.games.get(*g) {
                    batch.put_game(game, false);
                }
                for (k, b) in keys_of.remove(*g).unwrap_or_default() {
                    batch.bind_key(k, &name, b);
                }
                for (seq, e) in events_of.remove(*g).unwrap_or_default() {
                    batch.append_event(&name, seq, &e);
                }
            }
            // Made durable with the last part (a crash keeps a prefix of the transactions).
            self.store.apply(batch)?;
            crate::crash::point(crate::crash::BETWEEN_REGISTER_PARTS);
        }
        let mut batch = Batch::default();
        // Keys and events of no game of the tournament (none today) go with the last part.
        for (k, b) in keys_of.into_values().flatten() {
            batch.bind_key(k, &b.game.to_string(), b);
        }
        for (g, events) in events_of {
            for (seq, e) in events {
                batch.append_event(&g.to_string(), seq, &e);
            }
        }
        batch.registering(id, None);
        batch.pending_starts(id, Some(&PendingStarts { at: now, next: 0 }));
        // Every new game's deadline into the index; the tournament (and anything else decided
        // but the games, keys and events written above) staged as any step.
        self.due.update(&self.state, &self.settings, out);
        let last = Output {
            tournaments: out.tournaments.clone(),
            mails: out.mails.clone(),
            log: out.log.clone(),
            ..Output::default()
        };
        self.stage(&mut batch, &last, now)?;
        self.store.commit(batch)?;
        Ok(())
    }
}
