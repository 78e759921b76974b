//! The shelf: the games of tournaments whose archive was rotated (Fax 2.8, four weeks after
//! their last game ended) leave the state the relay loads at every start and keeps in memory,
//! and leave the store too. A federation's store holds many more finished games than running
//! ones; with the shelf, starting the relay, its memory and the store it opens grow with the
//! running tournaments, not with the years.
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
//! keys or names it in the subject (`App::warm` in `awake.rs`, before the core decides), or a
//! command about it (`fernzug status`, `export`: [`App::games_of`], a tournament at a time).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::status_row::StatusRow;
use super::{App, AppError};
use crate::core::State;
use crate::core::model::{Game, Tournament};
use crate::game_ref::GameRef;
use crate::store::{Batch, Store, Upgrade};

/// One rotated tournament's games and their event logs as they were when it was shelved.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct ShelfFile {
    /// The tournament's id.
    pub tournament: String,
    /// Its games, finished.
    pub games: Vec<Game>,
    /// Each game's event log: (sequence number, the event as the store kept it).
    pub events: BTreeMap<String, Vec<(u64, serde_json::Value)>>,
}

/// The shelf's folder beside the store (`DATA/store` → `DATA/shelf`).
pub fn dir(store: &Store) -> PathBuf {
    match store.path().parent() {
        Some(data) => data.join("shelf"),
        None => PathBuf::from("shelf"),
    }
}

/// The file of tournament `id` (ids are letters, digits and `-`; anything else is written as
/// its bytes in hex after `x-`, so no id can name a path outside the folder; so is an id that
/// starts with `x-` itself).
fn file_of(dir: &Path, id: &str) -> PathBuf {
    let plain = !id.is_empty()
        && !id.starts_with("x-")
        && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-');
    let name = if plain {
        id.to_string()
    } else {
        let hex: String = id.bytes().map(|b| format!("{b:02x}")).collect();
        format!("x-{hex}")
    };
    dir.join(format!("{name}.json"))
}

fn shelf_err(path: &Path) -> impl FnOnce(io::Error) -> AppError + '_ {
    move |source| AppError::Shelf {
        path: path.to_path_buf(),
        source,
    }
}

/// Writes `file` durably into the shelf folder `dir`: a temporary file, fsynced, renamed over the
/// tournament's file, the folder fsynced. Returns only once the file would survive a power cut.
pub fn write(dir: &Path, file: &ShelfFile) -> Result<(), AppError> {
    write_json(dir, &file_of(dir, &file.tournament), file)
}

/// The folder of the status rows kept for the shelved tournaments (`DATA/shelf/rows`).
fn rows_dir(dir: &Path) -> PathBuf {
    dir.join("rows")
}

/// Writes the status rows of tournament `t`'s finished `games` durably beside its shelf file
/// (`DATA/shelf/rows/ID.json`): what `fernzug status` lists of them without reading the shelf
/// file (see [`StatusRow::kept`]).
pub fn write_rows(dir: &Path, t: &Tournament, games: &[Game]) -> Result<(), AppError> {
    let rows: Vec<StatusRow> = games.iter().filter_map(|g| StatusRow::kept(g, t)).collect();
    let rows_dir = rows_dir(dir);
    write_json(&rows_dir, &file_of(&rows_dir, &t.id), &rows)
}

/// The kept status rows of tournament `id`, if they were written.
pub fn read_rows(dir: &Path, id: &str) -> Result<Option<Vec<StatusRow>>, AppError> {
    let rows_dir = rows_dir(dir);
    read_json(&file_of(&rows_dir, id))
}

/// Writes `value` as JSON to `path` in folder `dir` durably: a temporary file, fsynced, renamed,
/// the folder fsynced.
fn write_json(dir: &Path, path: &Path, value: &impl Serialize) -> Result<(), AppError> {
    std::fs::create_dir_all(dir).map_err(shelf_err(dir))?;
    let tmp = path.with_extension("json.tmp");
    let written = (|| {
        let f = std::fs::File::create(&tmp)?;
        let mut w = io::BufWriter::new(f);
        serde_json::to_writer(&mut w, value).map_err(io::Error::other)?;
        w.flush()?;
        w.into_inner().map_err(|e| e.into_error())?.sync_all()?;
        std::fs::rename(&tmp, path)?;
        std::fs::File::open(dir)?.sync_all()
    })();
    written.map_err(shelf_err(path))
}

/// The shelf file of tournament `id`, if it was written.
pub fn read(dir: &Path, id: &str) -> Result<Option<ShelfFile>, AppError> {
    read_json(&file_of(dir, id))
}

fn read_json<T: serde::de::DeserializeOwned>(path: &Path) -> Result<Option<T>, AppError> {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(shelf_err(path)(e)),
    };
    serde_json::from_slice(&bytes)
        .map(Some)
        .map_err(|e| shelf_err(path)(io::Error::new(io::ErrorKind::InvalidData, e)))
}

/// The ids of the tournaments with a shelf file in `dir`.
fn shelved_ids(dir: &Path) -> Result<Vec<String>, AppError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(shelf_err(dir)(e)),
    };
    let mut ids = Vec::new();
    for entry in entries {
        let entry = entry.map_err(shelf_err(dir))?;
        let name = entry.file_name();
        let Some(stem) = name.to_str().and_then(|n| n.strip_suffix(".json")) else {
            continue;
        };
        let id = match stem.strip_prefix("x-") {
            Some(hex) => match unhex(hex) {
                Some(id) => id,
                None => continue,
            },
            None => stem.to_string(),
        };
        ids.push(id);
    }
    ids.sort();
    Ok(ids)
}

fn unhex(hex: &str) -> Option<String> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    String::from_utf8(bytes).ok()
}

impl App {
    /// Opens the store with every game, the shelved ones too, in memory at once: for tests and
    /// tools that compare whole states. The commands that show every game go a tournament at a
    /// time ([`App::games_of`]); the daemon never reads the shelf whole.
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

    /// The games of tournament `t` in the order of their ids, read for showing them (`status`,
    /// `export`) without bringing them into memory for work: a running tournament's from the
    /// store (one scan of its games), a shelved one's from the store's changed copies and the shelf
    /// file.
    /// A game held in memory is taken from there.
    pub fn games_of(&self, t: &Tournament) -> Result<Vec<Game>, AppError> {
        let mut games = if t.rotated {
            shelved_games(&self.store, &t.id, &t.games)?
        } else {
            let mut games = Vec::with_capacity(t.games.len());
            self.store.games_of(&t.id, |g| {
                games.push(self.state.games.get(&g.id).cloned().unwrap_or(g));
            })?;
            games
        };
        games.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(games)
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

    /// Whether game `g` belongs on the shelf (its tournament's archive was rotated).
    pub(crate) fn shelved(&self, g: &GameRef) -> bool {
        self.state
            .tournaments
            .get(&g.tournament)
            .is_some_and(|t| t.rotated)
    }
}

/// The shelved games `wanted` (all of one rotated tournament `id`): the store's copy where the
/// core changed one after it was shelved, else the shelf file's.
pub(crate) fn shelved_games(
    store: &Store,
    id: &str,
    wanted: &[GameRef],
) -> Result<Vec<Game>, AppError> {
    let mut found = Vec::new();
    let mut missing = BTreeSet::new();
    for g in wanted {
        match store.shelved_game(g)? {
            Some(game) => found.push(game),
            None => {
                missing.insert(g.clone());
            }
        }
    }
    if !missing.is_empty()
        && let Some(file) = read(&dir(store), id)?
    {
        found.extend(file.games.into_iter().filter(|g| missing.contains(&g.id)));
    }
    Ok(found)
}

/// Writes the shelf files of the tournaments `ids` (their games as `state` holds them, every
/// game in memory; their event logs from the store) and adds to `batch` their removal from the
/// store's games and events, and their reply keys moved to the shelf's tree. The files are
/// durable when this returns; `batch` must be committed after. Returns what to drop from memory
/// once it is.
pub(crate) fn shelve(
    store: &Store,
    state: &State,
    ids: &BTreeSet<String>,
    batch: &mut Batch,
) -> Result<(Vec<GameRef>, Vec<String>), AppError> {
    let dir = dir(store);
    let mut games = Vec::new();
    for id in ids {
        let Some(t) = state.tournaments.get(id) else {
            continue;
        };
        let mut file = ShelfFile {
            tournament: id.clone(),
            ..ShelfFile::default()
        };
        for g in &t.games {
            if let Some(game) = state.games.get(g) {
                let key = g.to_string();
                let events = store.events::<serde_json::Value>(&key)?;
                for (seq, _) in &events {
                    batch.remove_event(&key, *seq);
                }
                file.events.insert(key.clone(), events);
                file.games.push(game.clone());
                batch.delete_game(g);
                games.push(g.clone());
            }
        }
        // None in memory (a migration that already shelved this one): its files stay as they are.
        if !file.games.is_empty() {
            write_rows(&dir, t, &file.games)?;
            write(&dir, &file)?;
        }
    }
    let set: BTreeSet<&GameRef> = games.iter().collect();
    let mut keys = Vec::new();
    for (k, b) in state.keys.iter() {
        if set.contains(&b.game) {
            batch.put_shelved_key(k, b);
            batch.unbind_key(k, &b.game.to_string());
            keys.push(k.clone());
        }
    }
    Ok((games, keys))
}

/// Drops shelved games and keys from memory.
pub(crate) fn forget(state: &mut State, games: &[GameRef], keys: &[String]) {
    for g in games {
        state.games.remove(g);
    }
    for k in keys {
        state.keys.remove(k);
    }
}

/// Stores from before the shelf: the games of tournaments already rotated go to the shelf, once
/// (a transaction per tournament: a store of many years is not moved in one).
pub(crate) fn migrate(store: &Store, state: &mut State) -> Result<(), AppError> {
    if store.upgraded(Upgrade::Shelf)? {
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
        let (games, keys) = shelve(store, state, &BTreeSet::from([id]), &mut batch)?;
        store.commit(batch)?;
        forget(state, &games, &keys);
    }
    let mut batch = Batch::default();
    batch.upgraded(Upgrade::Shelf);
    store.commit(batch)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tournament_id_names_a_file_inside_the_shelf_and_is_read_back_from_its_name() {
        let dir = std::env::temp_dir().join(format!("fernzug-shelf-names-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(file_of(&dir, "FAX-2026-3"), dir.join("FAX-2026-3.json"));
        for id in ["FAX-2026-3", "../etc/passwd", "x-41", "Fernturnier 2027/1"] {
            let path = file_of(&dir, id);
            assert_eq!(path.parent(), Some(dir.as_path()), "{id}");
            write(
                &dir,
                &ShelfFile {
                    tournament: id.into(),
                    ..ShelfFile::default()
                },
            )
            .unwrap();
            assert_eq!(read(&dir, id).unwrap().unwrap().tournament, id);
        }
        let mut ids = shelved_ids(&dir).unwrap();
        ids.sort();
        assert_eq!(
            ids,
            ["../etc/passwd", "FAX-2026-3", "Fernturnier 2027/1", "x-41"]
        );
        assert!(read(&dir, "NONE").unwrap().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
