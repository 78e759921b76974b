//! The shelf: the games of tournaments whose archive was rotated (Fax 2.8, four weeks after
//! their last game ended) leave the state the relay loads at every start and keeps in memory,
//! and leave the store too. A federation's store holds many more finished games than running
//! ones; with the shelf, starting the relay, its memory and the store it opens grow with the
//! running tournaments, not with the years.
//!
//! What is stored and how lives in `crate::store::shelf`; here are the relay's readings of it.
//!
//! - **Shelf files.** When a tournament is rotated, its games and their event logs are written
//!   to one file, `DATA/shelf/ID.json` ([`ShelfFile`]): to a temporary file, fsynced, renamed,
//!   the folder fsynced — all before the transaction that marks the tournament rotated and
//!   removes its games and events from the store. A crash in between leaves the games in the
//!   store (the tournament is not rotated; the file is written again at the next rotation) and
//!   never loses one. A shelf file is never changed after that.
//! - **The store's `shelved_games` / `shelved_keys` trees.** The reply keys of the shelved games
//!   (a mail may still answer through one) and every shelved game the core changes after it was
//!   shelved (a late mail noted in its log): the store's copy wins over the file's. Stores
//!   shelved by earlier versions keep their shelved games there.
//!
//! A shelved game is read back only when asked for: a mail that answers through one of its reply
//! keys or names it in the subject (`crate::core::needs`, satisfied by `working/` before the core decides), or a
//! command about it (`fernzug status`, `export`: [`Records::games_of`], a tournament at a time).

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::status_row::StatusRow;
use super::{App, AppError, Records};
use crate::core::model::{Game, Tournament};
use crate::game_ref::GameRef;
pub use crate::store::shelf::{ShelfFile, dir, read, write};
pub(crate) use crate::store::shelf::{forget, shelve, shelved_games};
use crate::store::shelf::{read_rows, shelved_ids};

pub(crate) use super::status_row::rows_of;

/// Writes the status rows of tournament `t`'s finished `games` durably beside its shelf file
/// (`DATA/shelf/rows/ID.json`): what `fernzug status` lists of them without reading the shelf
/// file.
pub fn write_rows(dir: &std::path::Path, t: &Tournament, games: &[Game]) -> Result<(), AppError> {
    Ok(crate::store::shelf::write_rows(
        dir,
        &t.id,
        &rows_of(t, games),
    )?)
}

impl App {
    /// Opens the store with every game, the shelved ones too, in memory at once: for tests and
    /// tools that compare whole states. The commands that show every game go a tournament at a
    /// time ([`Records::games_of`]); the daemon never reads the shelf whole.
    pub fn open_all(config: crate::config::Config) -> Result<App, AppError> {
        let mut app = App::open(config)?;
        app.store.for_each_shelved_game(|g| {
            app.state.games.insert(g.id.clone(), g);
        })?;
        let dir = dir(&app.store);
        for id in shelved_ids(&dir)? {
            // Only the files of tournaments the store counts as rotated: a file written just
            // before a crash that stopped the rotation's transaction is not the games' place.
            if !app.state.tournaments.get(&id).is_some_and(|t| t.rotated) {
                continue;
            }
            if let Some(file) = read(&dir, &id)? {
                for g in file.games {
                    app.state.games.entry(g.id.clone()).or_insert(g);
                }
            }
        }
        app.store.for_each_shelved_key(|k, b| {
            app.state.keys.insert(k, b);
        })?;
        Ok(app)
    }

    /// The `status` rows of the games of the shelved tournament `t` as of `now`, in the order of
    /// the games: a game the core changed after it was shelved from the store's copy, the others
    /// from the rows kept beside the shelf file; the shelf file is read only for a game without
    /// a kept row (a shelf written before rows were kept).
    pub fn shelved_rows_of(
        &self,
        t: &Tournament,
        now: DateTime<Utc>,
    ) -> Result<Vec<StatusRow>, AppError> {
        let tz = self.settings.tz;
        let dir = dir(&self.store);
        let mut kept: HashMap<String, StatusRow> = read_rows(&dir, &t.id)?
            .unwrap_or_default()
            .into_iter()
            .filter(StatusRow::keeps)
            .map(|r| (r.id.clone(), r))
            .collect();
        // The games the core changed after they were shelved: one scan of the tournament's.
        let mut changed: HashMap<GameRef, Game> = HashMap::new();
        self.store.shelved_games_of(&t.id, |g| {
            changed.insert(g.id.clone(), g);
        })?;
        let mut rows = Vec::with_capacity(t.games.len());
        let mut missing = Vec::new();
        for g in &t.games {
            let key = g.to_string();
            if let Some(game) = changed.remove(g) {
                rows.push((g.clone(), StatusRow::of(&game, t, now, tz, Vec::new())));
            } else if let Some(row) = kept.remove(&key) {
                rows.push((g.clone(), row.as_of(t, now, tz)));
            } else {
                missing.push(g.clone());
            }
        }
        if !missing.is_empty() {
            for game in shelved_games(&self.store, &t.id, &missing)? {
                let row = StatusRow::of(&game, t, now, tz, Vec::new());
                rows.push((game.id, row));
            }
        }
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        Ok(rows.into_iter().map(|(_, r)| r).collect())
    }
}

impl Records<'_> {
    /// The games of tournament `t` in the order of their ids, read for showing them (`status`,
    /// `export`) without bringing them into memory for work: a running tournament's from the
    /// store (one scan of its games), a shelved one's from the store's changed copies and the shelf
    /// file.
    /// A game held in memory is taken from there.
    pub fn games_of(&self, t: &Tournament) -> Result<Vec<Game>, AppError> {
        let games = crate::store::shelf::tournament_games(self.store, t)?;
        if t.rotated {
            return Ok(games);
        }
        Ok(games
            .into_iter()
            .map(|g| self.state.games.get(&g.id).cloned().unwrap_or(g))
            .collect())
    }

    /// Whether game `g` belongs on the shelf (its tournament's archive was rotated).
    pub(crate) fn shelved(&self, g: &GameRef) -> bool {
        self.state
            .tournaments
            .get(&g.tournament)
            .is_some_and(|t| t.rotated)
    }
}
