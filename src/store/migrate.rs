//! Upgrades of a store an earlier fernzug wrote, each done once and marked ([`Upgrade`]). The
//! take-over of a store kept in sled is `legacy.rs`; here the ends of games and the rotated
//! tournaments ([`Store::migrate_ends`]), the shelf ([`Store::migrate_shelf`]) and the indexes of
//! deadlines, of the reply keys by game and of the rotated tournaments ([`Store::migrate_indexes`]). The shell runs them, in
//! that order, when it first opens such a store with every game in memory (`crate::app`,
//! `lazy_state`), and gives what only it computes: the rows kept beside a shelf file and the
//! entries of its index of deadlines.

use std::collections::BTreeSet;

use serde::Serialize;

use super::Store;
use super::batch::Batch;
use super::error::StoreError;
use super::schema::Upgrade;
use super::shelf::{forget, shelve};
use crate::core::model::{Game, GameStatus, State, Tournament};

impl Store {
    /// Stores written before games knew when they ended (`Game::ended_at`) and tournaments that
    /// their archive was rotated (`Tournament::rotated`): both are read once from what those
    /// versions kept — the `ended` event of the game's log and the `rotated:ID` meta key — and
    /// written back (into `state`, which holds every game, and the store), so the core decides
    /// rotation (Fax 2.8) from its own state. Done once per store: [`Upgrade::EndsMigrated`]
    /// marks it.
    pub fn migrate_ends(&self, state: &mut State) -> Result<(), StoreError> {
        if self.upgraded(Upgrade::EndsMigrated)? {
            return Ok(());
        }
        let mut batch = Batch::default();
        for g in state.games.values_mut() {
            if g.status != GameStatus::Finished || g.ended_at.is_some() {
                continue;
            }
            // Read as plain JSON: an event of an older shape must not stop the relay here.
            g.ended_at = self
                .events::<serde_json::Value>(&g.id.to_string())?
                .into_iter()
                .filter(|(_, e)| e["event"] == "ended")
                .filter_map(|(_, e)| e["at"].as_str().and_then(|a| a.parse().ok()))
                .max();
            if g.ended_at.is_some() {
                batch.put_game(g, false);
            }
        }
        for t in state.tournaments.values_mut() {
            if !t.rotated && self.legacy_rotated(&t.id)? {
                t.rotated = true;
                batch.put_tournament(t);
            }
        }
        batch.upgraded(Upgrade::EndsMigrated);
        self.commit(batch)
    }

    /// Whether every upgrade was done on this store ([`Upgrade::ALL`]): then the relay opens it
    /// without reading every game.
    pub fn upgrades_done(&self) -> Result<bool, StoreError> {
        for u in Upgrade::ALL {
            if !self.upgraded(u)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Stores from before the shelf: the games of tournaments already rotated go to the shelf,
    /// once (a transaction per tournament: a store of many years is not moved in one), and leave
    /// `state`. `rows_of` gives the rows kept beside each shelf file. [`Upgrade::Shelf`] marks it.
    pub fn migrate_shelf<R: Serialize>(
        &self,
        state: &mut State,
        rows_of: &impl Fn(&Tournament, &[Game]) -> Vec<R>,
    ) -> Result<(), StoreError> {
        if self.upgraded(Upgrade::Shelf)? {
            return Ok(());
        }
        let rotated: Vec<String> = state
            .tournaments
            .values()
            .filter(|t| t.rotated)
            .map(|t| t.id.clone())
            .collect();
        for id in rotated {
            let mut batch = Batch::default();
            let (games, keys) = shelve(self, state, &BTreeSet::from([id]), &mut batch, rows_of)?;
            self.commit(batch)?;
            forget(state, &games, &keys);
        }
        let mut batch = Batch::default();
        batch.upgraded(Upgrade::Shelf);
        self.commit(batch)
    }

    /// Stores from before the index of deadlines and the index of the reply keys by game: both
    /// are written whole in one transaction, from `state` (every game and key in memory) and
    /// the entries `due` adds to the batch (the shell's index, built from the core's
    /// deadlines) — and the indexes of the rotated tournaments and their people, from the
    /// rotated tournaments of `state`. Writing them again is harmless. [`Upgrade::DueIndex`],
    /// [`Upgrade::KeysByGame`] and [`Upgrade::RotatedIndex`] mark it.
    pub fn migrate_indexes(
        &self,
        state: &State,
        due: impl FnOnce(&mut Batch),
    ) -> Result<(), StoreError> {
        let mut batch = Batch::default();
        self.clear_due(&mut batch)?;
        due(&mut batch);
        batch.upgraded(Upgrade::DueIndex);
        for (k, b) in state.keys.iter() {
            batch.bind_key(k, &b.game.to_string(), b);
        }
        batch.upgraded(Upgrade::KeysByGame);
        for t in state.tournaments.values().filter(|t| t.rotated) {
            batch.put_tournament(t);
        }
        batch.upgraded(Upgrade::RotatedIndex);
        self.commit(batch)
    }
}
