//! A tournament registered in parts: the games, their reply keys and events are written a few
//! hundred games per transaction, and the tournament itself comes last. A database transaction
//! holds everything it writes in memory until it ends, and a 10,000-game tournament in one
//! transaction cost hundreds of megabytes; in parts, `tournament add` stays small.
//!
//! Until the last part, a note `registering:ID` in [`Tree::Meta`] marks the parts as not counting:
//! should the registration stop in between, the next opening of the store removes them
//! ([`abandon_registrations`]), and the tournament can simply be added again.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use super::{App, AppError, PendingStarts, pending_key};
use crate::core::{KeyBinding, Output};
use crate::game_ref::GameRef;
use crate::store::{Batch, Store, StoreError, Tree};

/// Games written per transaction of a registration.
pub const REGISTER_CHUNK: usize = 500;

/// Prefix in [`Tree::Meta`] of a registration whose parts do not count yet.
const REGISTERING: &str = "registering:";

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
        let marker = format!("{REGISTERING}{id}");
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
                batch.put(Tree::Meta, marker.as_bytes(), &now);
            }
            for g in part {
                let name = g.to_string();
                if let Some(game) = self.state.games.get(*g) {
                    batch.put(Tree::Games, name.as_bytes(), game);
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
        batch.delete(Tree::Meta, marker.as_bytes());
        let pending = PendingStarts { at: now, next: 0 };
        batch.put(Tree::Meta, pending_key(id).as_bytes(), &pending);
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

/// Removes the parts of every registration that did not reach its last part (see the module).
/// Returns the tournaments whose parts were removed.
pub(crate) fn abandon_registrations(store: &Store) -> Result<Vec<String>, StoreError> {
    let mut abandoned = Vec::new();
    for (marker, _) in store.scan_prefix::<serde::de::IgnoredAny>(Tree::Meta, REGISTERING)? {
        let id = String::from_utf8_lossy(&marker[REGISTERING.len()..]).into_owned();
        let games = format!("{id}/");
        let mut batch = Batch::default();
        for tree in [Tree::Games, Tree::Events] {
            for (k, _) in store.scan_prefix::<serde::de::IgnoredAny>(tree, games.as_bytes())? {
                batch.delete(tree, k);
            }
        }
        let mut keys = Vec::new();
        store.for_each::<KeyBinding>(Tree::Keys, |k, b| {
            if b.game.tournament == id {
                keys.push((String::from_utf8_lossy(k).into_owned(), b.game.to_string()));
            }
        })?;
        for (k, game) in keys {
            batch.unbind_key(&k, &game);
        }
        batch.delete(Tree::Meta, marker);
        store.commit(batch)?;
        abandoned.push(id);
    }
    Ok(abandoned)
}
