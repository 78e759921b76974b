//! Upgrades of a store an earlier fernzug wrote, each done once and marked ([`Upgrade`]). The
//! take-over of a store kept in sled is `legacy.rs`; the index of deadlines and of the reply keys
//! by game, and the shelf, are written by the shell when it first opens such a store
//! (`crate::app`), each marked here too.

use super::Store;
use super::batch::Batch;
use super::error::StoreError;
use super::schema::Upgrade;
use crate::core::model::{GameStatus, State};

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
}
